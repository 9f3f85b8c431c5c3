# Lesson 09 on a GPU: the solution passes every case, the shipped exercise fails cleanly, the
# verifier (a process that runs no student code) agrees on a dump of the speed case, the
# solution is clean under compute-sanitizer on the small case, and the demo — which checks
# every version, cuBLAS and tensor-core kernels included — runs and passes.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
sol=build/solutions/09-ata-cublas/ata
ex=build/exercises/09-ata-cublas/ata

expect_exit 0 "the solution passes every case" $sol --seed 5 --reps 2
expect_exit 1 "the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0 \
  --case 1x1,17x31,300x700,2049x515
expect_grep '0 of 4 cases passed' "$TEST_TMP/out" "every exercise case fails"

expect_exit 0 "the solution's dump of the speed case" $sol --seed 6 --case 4096x4096,129x127 --dump "$TEST_TMP/d" --reps 1
expect_exit 0 "passes --reps 1 --verify (every element, on the GPU)" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case 4096x4096,129x127
build/tests/dump_edit set "$TEST_TMP/d/4096x4096.rep0.C.bin" $((4095 * 4096 + 7)) 0
expect_exit 1 "one zeroed element of the 4096² result fails --verify" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case 4096x4096
expect_exit 1 "the exercise's dump fails --verify" bash -c \
  "$ex --seed 7 --case 17x31 --dump $TEST_TMP/e --reps 1; $sol --reps 1 --verify $TEST_TMP/e --seed 7 --case 17x31"

if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck synccheck; do
    expect_exit 0 "compute-sanitizer $tool on the small case" compute-sanitizer --tool $tool --error-exitcode 9 \
      $sol --case 17x31 --reps 1 --warmup 0
  done
else
  ok "compute-sanitizer not installed here: sanitizer checks left to the grader"
fi

expect_exit 0 "the demo runs and every version checks (--quick)" build/lessons/09-ata-cublas/demo --quick --reps 2
expect_grep '^ *300 +300 +8 ' "$TEST_TMP/out" "the demo's table has a row for every version"
expect_grep '^ *301 +301 +8 .* ok *$' "$TEST_TMP/out" "the top version checks at an odd N (its 8-byte copies)"
finish
