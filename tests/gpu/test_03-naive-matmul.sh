# Lesson 03 on a GPU: the solution passes every case, the shipped exercise fails cleanly,
# the verifier (a process that runs no student code) agrees, and the demo runs.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
sol=build/solutions/03-naive-matmul/matmul_naive
ex=build/exercises/03-naive-matmul/matmul_naive

expect_exit 0 "the solution passes every case" $sol --seed 5 --reps 2
expect_exit 1 "the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0 \
    --case 1x1x1,17x31x5,1023x517x2049,host-1x1x1
expect_exit 0 "the solution's dump of the speed case" $sol --seed 6 --case 4096x4096x4096,1023x517x2049 --dump "$TEST_TMP/d" --reps 1
expect_exit 0 "passes --reps 1 --verify (every element, on the GPU)" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case 4096x4096x4096,1023x517x2049
build/tests/dump_edit transpose "$TEST_TMP/d/4096x4096x4096.rep0.C.bin" 4096 4096
expect_exit 1 "a transposed 4096³ result fails --verify" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case 4096x4096x4096
expect_exit 1 "the exercise's dump fails --verify" bash -c "$ex --seed 7 --case 17x31x5 --dump $TEST_TMP/e --reps 1; $sol --reps 1 --verify $TEST_TMP/e --seed 7 --case 17x31x5"
expect_exit 0 "the demo runs (--quick)" build/lessons/03-naive-matmul/demo --quick --reps 2
# The graded run's layout: two timed repetitions of the speed case dumped, both verified.
expect_exit 0 "the speed case dumped with the default repetitions" $sol --seed 4 --case 4096x4096x4096 --dump "$TEST_TMP/g"
n=$(ls "$TEST_TMP/g" | grep -c '^4096x4096x4096\.rep[0-4]\.C\.bin$')
[ "$n" = 2 ] && ok "two repetitions dumped" || bad "two repetitions dumped: $n"
expect_exit 0 "they pass --verify" $sol --verify "$TEST_TMP/g" --seed 4 --case 4096x4096x4096
# The reference run's floor: written, and below the reference's own time.
expect_exit 0 "the reference run" $sol --seed 4 --case 4096x4096x4096 --no-check --report "$TEST_TMP/ref.tap"
expect_grep '^  floor_ms: [0-9.e+-]+$' "$TEST_TMP/ref.tap" "the reference's report has floor_ms"
awk '/^  time_ms:/ {t = $2} /^  floor_ms:/ {f = $2} END {exit !(f > 0 && t > f)}' "$TEST_TMP/ref.tap" &&
  ok "the reference's time is above its floor" || bad "the reference's time is above its floor"
finish
