#!/usr/bin/env bash
# The course's build as the grader uses it: building a task's reference (outside the sandbox)
# also brings up to date what the student's sandboxed build of that task takes from the
# course's build (the exercise harness, the lesson's support, liblab_ex.a), which that build
# cannot write. Checked on make's plan (make -n) into an empty build directory: no compiler runs.
source "$(dirname "$0")/../lib.sh"
b="$TEST_TMP/build"
for t in $(make -s list-tasks); do
  lesson=${t%%/*}
  make -n BUILD="$b" "$b/solutions/$t" >"$TEST_TMP/plan" 2>&1 ||
    { bad "$t: make -n failed"; tail -3 "$TEST_TMP/plan"; continue; }
  missing=""
  grep -q -- "-o $b/obj-ex/lessons/${t}_harness.o" "$TEST_TMP/plan" || missing+=" the exercise harness"
  grep -q "$b/common/liblab_ex.a" "$TEST_TMP/plan" || missing+=" liblab_ex.a"
  for src in $(ls lessons/"$lesson"/*.cu lessons/"$lesson"/*.c 2>/dev/null | grep -v '_harness\.cu$\|/demo\.cu$'); do
    obj="$b/obj-ex/${src%.*}.o"
    grep -q -- "-o $obj" "$TEST_TMP/plan" || missing+=" ${obj#"$b"/}"
  done
  [ -z "$missing" ] && ok "$t: its reference's build makes what the exercise's build needs" ||
    bad "$t: building the reference leaves out:$missing"
done
finish
