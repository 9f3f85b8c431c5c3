#!/usr/bin/env bash
# The command line: help, usage errors (one line, exit 2), doctor, make run's script.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics

expect_exit 0 "--help" "$GRADER" --help
expect_grep '^usage: grader' "$TEST_TMP/out" "--help prints the usage"
expect_grep 'gradescope' "$TEST_TMP/out" "--help names the formats"

usage_error "unknown flag" --bogus
usage_error "unknown format" --batch --format xml --root "$course"
usage_error "bad seed" --batch --seed abc --root "$course"
usage_error "negative seed" --batch --seed -4 --root "$course"
usage_error "bad timeout" --batch --timeout 0 --root "$course"
usage_error "timeout nan (would never time out)" --batch --timeout nan --root "$course"
usage_error "timeout inf (would kill every task)" --batch --timeout inf --root "$course"
usage_error "negative timeout" --batch --timeout -1 --root "$course"
usage_error "exercises that do not exist" --batch --exercises "$TEST_TMP/nonexistent" --root "$course"
mkdir -p "$TEST_TMP/empty"
usage_error "root with no course in it" --batch --root "$TEST_TMP/empty"
usage_error "doctor --root without its value" doctor --root
usage_error "flag without its value" --batch --root
usage_error "unknown task" --batch no_such_task --root "$course"
expect_grep "^grader: no task 'no_such_task' in this course; grader --list lists them$" "$TEST_TMP/err" \
  "an unknown task: one line that points at --list"
usage_error "a mistyped task" --batch 01-basics/wrng --root "$course"
expect_grep "did you mean 01-basics/wrong\\?" "$TEST_TMP/err" "a mistyped task id: did you mean the nearest"
usage_error "a mistyped task name" --batch pas --root "$course"
expect_grep "did you mean 01-basics/pass\\?" "$TEST_TMP/err" "a mistyped task name: did you mean the nearest"
listed="$TEST_TMP/listed"
fixture_copy "$listed" 01-basics
"$GRADER" --list --root "$listed" >"$TEST_TMP/list" 2>"$TEST_TMP/err"; rc=$?
[ $rc -eq 0 ] && ok "--list: exit 0" || bad "--list: exit $rc"
[ "$(cat "$TEST_TMP/list")" = "$(printf '01-basics/%s\n' pass wrong forged slow forbidden sanfail)" ] &&
  ok "--list: the task ids, one a line, in course order" || { bad "--list printed:"; cat "$TEST_TMP/list"; }
[ ! -d "$listed/build" ] && ok "--list grades nothing" || bad "--list made build/"
usage_error "--list with a task" --list pass --root "$course"
usage_error "a bad -j gives the range" --batch -j 0 --root "$course"
expect_grep "from 1 to 64, not '0'" "$TEST_TMP/err" "a bad -j names the range 1 to 64"
usage_error "a bad --gpu gives the range" --batch --gpu -1 --root "$course"
expect_grep "from 0 to [0-9]+, not '-1'" "$TEST_TMP/err" "a bad --gpu names its range"
# a task of a lesson whose lesson.ini does not load: that error, not "no task"
broken="$TEST_TMP/broken"
fixture_copy "$broken" 01-basics
printf 'this is not key = value\n' >>"$broken/lessons/01-basics/lesson.ini"
for name in pass 01-basics/pass; do
  expect_exit 1 "$name in a broken lesson: exit 1" "$GRADER" --batch "$name" --root "$broken" --no-state
  expect_grep "^grader: no task '$name': its lesson did not load: .*lesson.ini:[0-9]+: " \
    "$TEST_TMP/out" "$name in a broken lesson: the lesson.ini's own error, with its line"
done
# CSV and Gradescope say it too (JSON has its "errors" list)
"$GRADER" --batch --root "$broken" --no-state --format csv --output "$TEST_TMP/b.csv" >/dev/null 2>&1
expect_grep '^01-basics/lesson\.ini,01-basics,lesson\.ini,not_run,0,0,,,,,,,.*lesson\.ini:[0-9]+: ' \
  "$TEST_TMP/b.csv" "csv: a row for the lesson that did not load, with its error"
"$GRADER" --batch --root "$broken" --no-state --format gradescope --output "$TEST_TMP/b.json" >/dev/null 2>&1
py_json "gradescope: a test worth nothing for the lesson that did not load, with its error" '
t = [x for x in d["tests"] if x["name"].startswith("01-basics/lesson.ini")]
assert len(t) == 1 and t[0]["max_score"] == 0 and "lesson.ini:" in t[0]["output"], d["tests"]
' "$TEST_TMP/b.json"
usage_error "task without --batch" pass --root "$course"
usage_error "root that is no directory" --batch --root "$TEST_TMP/nowhere"
usage_error "doctor with a bad argument" doctor --bogus

"$GRADER" doctor --root "$course" >"$TEST_TMP/doctor" 2>&1
rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 1 ]; } && ok "doctor exits 0 or 1 ($rc)" || bad "doctor exit $rc"
for check in nvcc 'driver' ARCH compute-sanitizer make terminal; do
  expect_grep "^(ok|warn|FAIL) +$check" "$TEST_TMP/doctor" "doctor checks $check"
done
if grep -qE '^(warn|FAIL)' "$TEST_TMP/doctor"; then
  expect_grep '^      fix: ' "$TEST_TMP/doctor" "doctor gives a fix for what is not ok"
fi

# make run's script passes its arguments through
expect_exit 0 "tools/run-main.sh --outcomes" "$ROOT/tools/run-main.sh" --outcomes
expect_grep '^\| passed \| `passed`' "$TEST_TMP/out" "run-main.sh starts the grader with its arguments"

# Not a terminal and no --batch: grades (keeping fresh results) and prints plain text.
"$GRADER" --root "$course" --no-sanitize >"$TEST_TMP/plain" 2>&1 </dev/null
expect_grep '^01-basics  Fixture basics' "$TEST_TMP/plain" "plain text when stdout is not a terminal"
expect_grep '^score: ' "$TEST_TMP/plain" "plain text ends with the score"
[ -f "$course/.grader/state.json" ] && ok "progress saved in .grader/state.json" || bad "no state file"
if grep -q $'\e' "$TEST_TMP/plain"; then bad "escape sequences in plain output"; else ok "no escape sequences in plain output"; fi

finish
