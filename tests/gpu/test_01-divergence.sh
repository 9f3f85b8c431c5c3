# Lesson 01 on a GPU: the solution passes every case, the shipped exercise fails cleanly, the
# verifier (a process that runs no student code) agrees, the sanitizers named in lesson.ini find
# nothing in the solution, and the demo runs with every version checked.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
sol=build/solutions/01-divergence/reduce_sum
ex=build/exercises/01-divergence/reduce_sum

expect_exit 0 "the solution passes every case" $sol --seed 5 --reps 2 --warmup 1
expect_exit 1 "the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0 \
    --case n1,n33_off1,n4099_off2,n1000003
expect_exit 0 "the solution's dump" $sol --seed 6 --case n257,n1000003_off3,n16777259_off1 --dump "$TEST_TMP/d" --reps 1
expect_exit 0 "passes --verify" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case n257,n1000003_off3,n16777259_off1
python3 - "$TEST_TMP/d/n16777259_off1.rep0.sum.bin" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
cut = data.index(b'\n') + 1
v = struct.unpack_from('<f', data, cut)[0]
open(sys.argv[1], 'wb').write(data[:cut] + struct.pack('<f', v - 1.0))
PY
expect_exit 1 "the same dump with the sum one element short fails --verify" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case n16777259_off1
expect_exit 1 "the exercise's dump fails --verify" bash -c "$ex --seed 7 --case n4099_off2 --dump $TEST_TMP/e --reps 1; $sol --reps 1 --verify $TEST_TMP/e --seed 7 --case n4099_off2"

sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
if [ -x "$sanitizer" ]; then
  for tool in memcheck racecheck synccheck; do
    expect_exit 0 "$tool finds nothing in the solution (small case)" \
        "$sanitizer" --tool $tool --error-exitcode 9 $sol --case n4099_off2 --reps 1 --warmup 0
  done
else
  echo "note - compute-sanitizer not found: sanitizer checks not run"
fi

expect_exit 0 "the demo runs (--quick), every version checked" build/lessons/01-divergence/demo --quick --reps 2
expect_grep '^ *5 +seq\+shuffle' "$TEST_TMP/out" "the demo's table has the shuffle reduction"
expect_grep '^ *10 +cub ' "$TEST_TMP/out" "the demo's library table has CUB's reduction"
expect_grep '^ *11 +float4-wave ' "$TEST_TMP/out" "the demo's library table has the top rung"
expect_grep '^goal +reduce_sum: ours \(11\) / CUB \(10\) throughput' "$TEST_TMP/out" "the demo states its goal against CUB"
if grep -q WRONG "$TEST_TMP/out"; then bad "a demo version computed a wrong result"; else ok "no demo version is WRONG"; fi
finish
