#!/usr/bin/env bash
# Every exercise and every solution of the course passes the grader's static check of the
# object (grader/engine/grade/objcheck.h): the objects of all tasks are built (nvcc compiles; no GPU is
# needed) and judged with each task's contract, allow and forbid words.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$nvcc" ] || { echo "SKIP: no nvcc ($nvcc): the course's objects cannot be built"; exit 77; }
objs=()
for t in $(make -s list-tasks); do
  objs+=("build/obj/exercises/$t.o" "build/obj/solutions/$t.o")
done
if make -s -j"$(nproc)" "${objs[@]}" build/tests/unit/test_grader_objcheck >"$TEST_TMP/make.log" 2>&1; then
  ok "the objects of ${#objs[@]} exercises and solutions build"
else
  bad "building the objects"; tail -20 "$TEST_TMP/make.log"
fi
if OBJCHECK_COURSE="$ROOT" build/tests/unit/test_grader_objcheck >"$TEST_TMP/unit.log" 2>&1 &&
   grep -q '^\[       OK \] course_objects_are_accepted' "$TEST_TMP/unit.log"; then
  ok "every exercise and solution is accepted"
else
  bad "some object is rejected"; grep -B2 -A2 'course_objects' "$TEST_TMP/unit.log"
fi
finish
