#!/usr/bin/env bash
# The outcome decided once from the facts the steps record: an implausible time (below the
# reference's floor_ms), a reference without a time (the grader's own error, never a waived
# check), a deleted exercise file, and the README's outcome table against `grader --outcomes`.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
# A lesson of the copy whose references say more about time than the fixture's do.
speed_lesson() { # dir
  local l="$1/lessons/05-speed" t
  mkdir -p "$l" "$1/exercises/05-speed" "$1/solutions/05-speed"
  printf '[lesson]\ntitle = Speed facts\n' >"$l/lesson.ini"
  for t in implausible notime; do
    printf '[task.%s]\nweight = 2\nspeed_case = 20000\nspeed_threshold = 0.01\n' "$t" >>"$l/lesson.ini"
    printf '#include "protocol.h"\nint main(int c, char **v) { return protocol_main("%s", c, v); }\n' \
      "$t" >"$l/${t}_harness.cu"
    cp "$1/solutions/01-basics/pass.cu" "$1/exercises/05-speed/$t.cu"
    cp "$1/lessons/01-basics/pass.h" "$l/$t.h" # the contract the object check reads
  done
  { cat "$1/solutions/01-basics/pass.cu"; echo 'double task_floor_ms(void) { return 1e9; }'; } \
    >"$1/solutions/05-speed/implausible.cu"
  { cat "$1/solutions/01-basics/pass.cu"; echo 'int task_hides_time(void) { return 1; }'; } \
    >"$1/solutions/05-speed/notime.cu"
}
speed_lesson "$course"

"$GRADER" --batch --root "$course" --seed 5 --no-sanitize pass implausible notime \
  --format json --output "$TEST_TMP/speed.json" 2>"$TEST_TMP/err"
rc=$?
[ $rc -eq 1 ] && ok "implausible and a grader error are not passes (exit 1)" || bad "exit $rc, expected 1"
py_json "below the reference's floor_ms: implausible, with both times in the reason" '
t = {t["task"]: t for t in d["tasks"]}
assert t["pass"]["outcome"] == "passed", t["pass"]
i = t["implausible"]
assert i["outcome"] == "implausible" and i["score"] == 0 and i["max_score"] == 2, i
assert "is faster than this GPU can do the work (floor 1e+09 ms)" in i["reason"], i["reason"]
' "$TEST_TMP/speed.json"
py_json "a reference without a time: a grader error, not a waived speed check" '
t = next(t for t in d["tasks"] if t["task"] == "notime")
assert t["outcome"] == "not_run" and t["score"] == 0, t
assert t["reason"] == "grader error: the reference gave no time for 20000", t["reason"]
assert not t["speed"]["measured"], t["speed"]
' "$TEST_TMP/speed.json"

# A deleted exercise file: make would relink the old object; the grader says it is missing.
"$GRADER" --batch --root "$course" --no-sanitize pass >/dev/null 2>&1
rm "$course/exercises/01-basics/pass.cu"
"$GRADER" --batch --root "$course" --no-sanitize pass --format json --output "$TEST_TMP/gone.json" 2>/dev/null
py_json "a deleted exercise file is a failed build saying so, not its old object graded" '
t = d["tasks"][0]
assert t["outcome"] == "build_failed", t["outcome"]
assert t["reason"] == "exercises/01-basics/pass.cu is missing", t["reason"]
' "$TEST_TMP/gone.json"

# README's outcome table is the one outcome.h gives.
awk '/^## Outcomes/ {on = 1} on && /^\|/ {print; seen = 1} on && seen && !/^\|/ {exit}' \
  "$ROOT/grader/README.md" >"$TEST_TMP/readme.md"
"$GRADER" --outcomes >"$TEST_TMP/outcomes.md"
if [ -s "$TEST_TMP/readme.md" ] && diff -u "$TEST_TMP/readme.md" "$TEST_TMP/outcomes.md" >"$TEST_TMP/diff"; then
  ok "grader/README.md's outcome table is grader --outcomes"
else
  bad "grader/README.md's outcome table differs from grader --outcomes (paste its output there)"
  sed 's/^/    /' "$TEST_TMP/diff" | head -20
fi
rows=$(grep -c '^| [a-zA-Z]' "$TEST_TMP/outcomes.md")
n=$(grep -c '^    X(' "$ROOT/grader/engine/model/outcome.h")
[ "$rows" -eq $((n + 1)) ] && ok "--outcomes has a row per outcome.h row ($n)" || bad "--outcomes: $rows rows, outcome.h $n"
finish
