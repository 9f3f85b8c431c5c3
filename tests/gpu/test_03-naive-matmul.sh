# Lesson 03 on a GPU: the solution passes every case, the shipped exercise fails cleanly,
# the verifier (a process that runs no student code) agrees, and the demo runs.
source "$(dirname "$0")/../lib.sh"
require_gpu
sol=build/solutions/03-naive-matmul/matmul_naive
ex=build/exercises/03-naive-matmul/matmul_naive

expect_exit 0 "the solution passes every case" $sol --seed 5 --reps 2
expect_exit 1 "the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0 \
    --case 1x1x1,17x31x5,1023x517x2049,host-1x1x1
expect_exit 0 "the solution's dump of the speed case" $sol --seed 6 --case 4096x4096x4096,1023x517x2049 --dump "$TEST_TMP/d" --reps 1
expect_exit 0 "passes --verify (Freivalds + samples)" $sol --verify "$TEST_TMP/d" --seed 6 --case 4096x4096x4096,1023x517x2049
build/tests/dump_edit transpose "$TEST_TMP/d/4096x4096x4096.C.bin" 4096 4096
expect_exit 1 "a transposed 4096³ result fails --verify" $sol --verify "$TEST_TMP/d" --seed 6 --case 4096x4096x4096
expect_exit 1 "the exercise's dump fails --verify" bash -c "$ex --seed 7 --case 17x31x5 --dump $TEST_TMP/e --reps 1; $sol --verify $TEST_TMP/e --seed 7 --case 17x31x5"
expect_exit 0 "the demo runs (--quick)" build/lessons/03-naive-matmul/demo --quick --reps 2
finish
