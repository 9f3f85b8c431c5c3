#!/usr/bin/env bash
# The profile digest on a GPU (grader --batch --profile): every slow but correct variant of
# tests/profile/variants.tsv is graded in place of its task's exercise and must be correct
# (passed or too slow: a wrong one would be another outcome) and get one of the finding keys
# the table names. Each finding is printed, for the lessons' notes, with the task's steps in
# seconds and its time on the GPU. The reference solutions are not graded here: their finding
# ("close" or "ceiling") is checked by tests/grader/test_course_gpu.sh, in its one grading of
# them with --profile.
# The grader calls run at once: the grader's own lock (gpulock.h) gives each timed run and
# each profile the GPU alone, so they share the GPU as a class's gradings do.
# test-group: gpu-graded
source "$(dirname "$0")/../lib.sh"
require_gpu
GRADER="$ROOT/build/grader/grader"
[ -x "$GRADER" ] || { echo "FAIL - $GRADER is not built"; exit 1; }
table="$ROOT/tests/profile/variants.tsv"

# Variants of different tasks share one copy of exercises/ and one grader call (-j 4: the
# builds and checks overlap; every timed run and profile still has the GPU alone); a second
# variant of a task goes to the next copy. The calls run at once.
while read -r file task keys; do
  case $file in ''|'#'*) continue ;; esac
  group_by_task "$task" "$file:$task:$keys"
done <"$table"
for g in "${!groups[@]}"; do
  ex="$TEST_TMP/ex$g"
  cp -r "$ROOT/exercises" "$ex"
  tasks=()
  for entry in ${groups[g]}; do
    IFS=: read -r file task keys <<<"$entry"
    cp "$ROOT/tests/profile/variants/$file" "$ex/$task.cu"
    tasks+=("$task")
  done
  "$GRADER" --batch --exercises "$ex" --exbuild "$TEST_TMP/build$g" --no-state --no-sanitize \
    --profile --seed 11 -j 4 "${tasks[@]}" --format json --output "$TEST_TMP/group$g.json" \
    2>"$TEST_TMP/group$g.err" &
done
wait

for g in "${!groups[@]}"; do
  for entry in ${groups[g]}; do
    IFS=: read -r file task keys <<<"$entry"
    check_finding "$TEST_TMP/group$g.json" "$task" "$keys" "$file as $task" ||
      { TEST_FAILS=$((TEST_FAILS + 1)); tail -5 "$TEST_TMP/group$g.err"; }
  done
done
finish
