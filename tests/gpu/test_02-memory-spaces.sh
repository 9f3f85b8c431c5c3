# Lesson 02 on a GPU: both solutions pass every case, the shipped exercises fail cleanly, the
# verifier agrees, racecheck and memcheck find nothing in the solutions, and the demo runs.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
sol=build/solutions/02-memory-spaces
ex=build/exercises/02-memory-spaces

expect_exit 0 "transpose: the solution passes every case" $sol/transpose --seed 5 --reps 2 --warmup 1
expect_exit 1 "transpose: the shipped exercise is wrong, not crashed" $ex/transpose --seed 5 --reps 1 --warmup 0 \
    --case 1x1,31x33,3x100003
expect_exit 0 "conv1d: the solution passes every case" $sol/conv1d --seed 5 --reps 2 --warmup 1
expect_exit 1 "conv1d: the shipped exercise is wrong, not crashed" $ex/conv1d --seed 5 --reps 1 --warmup 0 \
    --case n1_w1,n100_w63,n1000003_w7

expect_exit 0 "transpose: the solution's dump" $sol/transpose --seed 6 --case 4099x8191,67x45 --dump "$TEST_TMP/t" --reps 1
expect_exit 0 "transpose: passes --verify" $sol/transpose --reps 1 --verify "$TEST_TMP/t" --seed 6 --case 4099x8191,67x45
expect_exit 0 "conv1d: the solution's dump" $sol/conv1d --seed 6 --case n1000003_w7,n4096_w33 --dump "$TEST_TMP/c" --reps 1
expect_exit 0 "conv1d: passes --verify" $sol/conv1d --reps 1 --verify "$TEST_TMP/c" --seed 6 --case n1000003_w7,n4096_w33
# Two adjacent elements swapped in each dump.
for f in "$TEST_TMP/t/4099x8191.rep0.out.bin" "$TEST_TMP/c/n4096_w33.rep0.out.bin"; do
  python3 - "$f" <<'PY'
import array, sys
data = open(sys.argv[1], 'rb').read()
cut = data.index(b'\n') + 1
a = array.array('f', data[cut:])
a[7], a[8] = a[8], a[7]
open(sys.argv[1], 'wb').write(data[:cut] + a.tobytes())
PY
done
expect_exit 1 "transpose: the dump with two elements swapped fails --verify" $sol/transpose --reps 1 --verify "$TEST_TMP/t" --seed 6 --case 4099x8191
expect_exit 1 "conv1d: the dump with two elements swapped fails --verify" $sol/conv1d --reps 1 --verify "$TEST_TMP/c" --seed 6 --case n4096_w33
expect_exit 1 "transpose: the exercise's dump fails --verify" bash -c "$ex/transpose --seed 7 --case 67x45 --dump $TEST_TMP/e --reps 1; $sol/transpose --reps 1 --verify $TEST_TMP/e --seed 7 --case 67x45"

sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
if [ -x "$sanitizer" ]; then
  for tool in memcheck racecheck; do
    expect_exit 0 "transpose: $tool finds nothing in the solution" \
        "$sanitizer" --tool $tool --error-exitcode 9 $sol/transpose --case 67x45 --reps 1 --warmup 0
    expect_exit 0 "conv1d: $tool finds nothing in the solution" \
        "$sanitizer" --tool $tool --error-exitcode 9 $sol/conv1d --case n1000_w31 --reps 1 --warmup 0
  done
else
  echo "note - compute-sanitizer not found: sanitizer checks not run"
fi

expect_exit 0 "the demo runs (--quick), every version checked" build/lessons/02-memory-spaces/demo --quick --reps 2
expect_grep '^global, DRAM' "$TEST_TMP/out" "the latency table reaches DRAM"
if grep -q WRONG "$TEST_TMP/out"; then bad "a demo version computed a wrong result"; else ok "no demo version is WRONG"; fi
expect_exit 0 "the demo writes its sweeps as CSV" build/lessons/02-memory-spaces/demo --quick --reps 1 --csv "$TEST_TMP/csv" 2 3
expect_grep '^offset,ms,GB/s,% of copy$' "$TEST_TMP/csv/02-memory-spaces_offset.csv" "the offset CSV has its header"
expect_grep '^32,' "$TEST_TMP/csv/02-memory-spaces_stride.csv" "the stride CSV reaches stride 32"
finish
