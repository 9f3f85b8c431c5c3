#!/usr/bin/env bash
# Grading several tasks builds them in one make per side (grade.h, grade_batch_build): the
# references in one, every exercise in one sandboxed make -k. A task that does not compile is
# the only one build_failed, and its log holds its own error, not the other tasks' lines. The
# copied course's Makefile prints "make-run" at every parse, so the logs count the makes.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
sed -i '1i $(info make-run)' "$course/Makefile"
tasks=$(cd "$course/exercises/01-basics" && ls *.cu | wc -l)
makes() { cat "$course"/build/grader/.batch/*.log "$course"/build/grader/*/*/*.log 2>/dev/null |
            grep -c '^make-run$'; }

# ---- every task compiles: two makes for the whole grading
"$GRADER" --batch --root "$course" --seed 3 --no-sanitize --timeout 5 -v --format json \
  --output "$TEST_TMP/ok.json" 2>"$TEST_TMP/ok.err"
[ "$(makes)" -eq 2 ] && ok "$tasks tasks built in 2 makes (one per side)" ||
  bad "$(makes) makes for $tasks tasks, expected 2"
expect_grep "built $tasks tasks ahead in 2 makes" "$TEST_TMP/ok.err" "-v says so"
py_json "no task failed its build" '
assert all(t["outcome"] != "build_failed" for t in d["tasks"]), [t["reason"] for t in d["tasks"]]
assert all(t["steps"]["build"] < 1 for t in d["tasks"]), [t["steps"] for t in d["tasks"]]
' "$TEST_TMP/ok.json"
[ ! -e "$course/build/grader/.batch/scratch" ] && ok "the batch's scratch directory is removed" ||
  bad "the batch's scratch directory outlived the grading"

# ---- one task does not compile: only it fails, with its own log
printf 'int oops(void) { return not_in_any_other_task; }\n' >>"$course/exercises/01-basics/wrong.cu"
printf '#warning slow_says_hello\n' >>"$course/exercises/01-basics/slow.cu"
"$GRADER" --batch --root "$course" --seed 3 --no-sanitize --timeout 5 --format json \
  --output "$TEST_TMP/one.json" 2>"$TEST_TMP/one.err"
py_json "only the task that does not compile is build_failed, with its own error" '
got = {t["task"]: t for t in d["tasks"]}
bad = [k for k, t in got.items() if t["outcome"] == "build_failed"]
assert bad == ["wrong"], bad
assert "not_in_any_other_task" in got["wrong"]["reason"], got["wrong"]["reason"]
assert got["pass"]["outcome"] == "passed", got["pass"]
' "$TEST_TMP/one.json"
py_json "a warning stays with its own task" '
got = {t["task"]: t for t in d["tasks"]}
w = [x for x in got["slow"]["diagnostics"] if "slow_says_hello" in x["text"]]
assert w and w[0]["severity"] == "warning" and w[0]["file"].endswith("slow.cu"), got["slow"]["diagnostics"]
others = [k for k, t in got.items() if k != "slow" and t.get("diagnostics") and
          any("slow_says_hello" in x["text"] for x in t["diagnostics"])]
assert not others, others
' "$TEST_TMP/one.json"
wlog=$course/build/grader/01-basics/wrong/build.log
plog=$course/build/grader/01-basics/pass/build.log
expect_grep "not_in_any_other_task" "$wlog" "the failing task's log holds its error"
others=$(grep -E '(pass|forged|slow|forbidden|sanfail)\.(cu|o)' "$wlog")
[ -z "$others" ] && ok "its log names no other task's file" || bad "its log names others: $others"
expect_grep "pass\.cu" "$plog" "a built task's log is its own compile"
grep -qE 'error|wrong\.cu|not_in_any' "$plog" && bad "a built task's log shows another's error" ||
  ok "a built task's log holds nothing of the failing task"
[ "$(makes)" -eq 3 ] && ok "3 makes: one per side, and the failing task again on its own" ||
  bad "$(makes) makes, expected 3"

# ---- grader class: each student's tasks in one make per side too
mkdir -p "$TEST_TMP/class/alice/exercises"
cp -r "$course/solutions/01-basics" "$TEST_TMP/class/alice/exercises/"
printf 'int oops(void) { return alice_broke_it; }\n' >>"$TEST_TMP/class/alice/exercises/01-basics/slow.cu"
"$GRADER" class "$TEST_TMP/class" --course "$course" --no-sanitize --timeout 5 \
  --work "$TEST_TMP/work" --keep-work >"$TEST_TMP/class.out" 2>&1
student=$(ls -d "$TEST_TMP"/work/alice-* 2>/dev/null | head -n 1)
n=$(cat "$student"/grader/.batch/*.log "$student"/grader/*/*/*.log 2>/dev/null | grep -c '^make-run$')
[ "$n" -eq 3 ] && ok "class: a student's $tasks tasks in 3 makes (one per side, the broken one alone)" ||
  bad "class: $n makes for the student, expected 3"
py_json "class: only the broken task is build_failed" '
got = {t["extra_data"]["task"]: t["extra_data"]["outcome"] for t in d["tests"]}
assert [k for k, v in got.items() if v == "build_failed"] == ["01-basics/slow"], got
' "$TEST_TMP/class/alice/results.json"
finish
