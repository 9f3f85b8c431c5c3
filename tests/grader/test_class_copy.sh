#!/usr/bin/env bash
# Grading someone else's copy of exercises/ (EXERCISES / EXBUILD): their tree is only read,
# their objects and binaries go to the scratch build dir, and the course's own stay as they are.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
student="$TEST_TMP/alice/exercises"
mkdir -p "$student/01-basics"
cp "$course/exercises/01-basics/wrong.cu" "$student/01-basics/pass.cu"
cp "$course/exercises/01-basics/pass.cu" "$student/01-basics/wrong.cu"
chmod -R a-w "$TEST_TMP/alice"
before=$(tree_sum "$TEST_TMP/alice")

"$GRADER" --batch --root "$course" --seed 3 --no-sanitize --exercises "$student" \
  --exbuild "$TEST_TMP/scratch" pass wrong --format json --output "$TEST_TMP/alice.json" \
  >/dev/null 2>"$TEST_TMP/err"
py_json "the copy is graded, not the course's exercises" '
o = {t["task"]: t["outcome"] for t in d["tasks"]}
assert o == {"pass": "wrong", "wrong": "passed"}, o
' "$TEST_TMP/alice.json"
[ "$(tree_sum "$TEST_TMP/alice")" = "$before" ] && ok "the student's tree is unchanged" || bad "student tree changed"
[ ! -e "$TEST_TMP/scratch/exercises/01-basics/pass" ] && \
  [ ! -e "$TEST_TMP/scratch/grader/01-basics/pass/scratch" ] && \
  [ -s "$TEST_TMP/scratch/grader/01-basics/pass/build.log" ] &&
  ok "the student's binary went to a scratch that is gone; the logs stay" \
  || bad "the student's build outlived the grading, or its log is missing"
[ ! -e "$course/build/exercises/01-basics/pass" ] && ok "the course's build has no exercise binary" \
  || bad "the student's build went into the course's build dir"
[ ! -e "$course/.grader/state.json" ] && ok "grading a copy does not touch saved progress" \
  || bad "state written while grading a copy"
chmod -R u+w "$TEST_TMP/alice"
finish
