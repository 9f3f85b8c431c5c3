# Lesson 08 on a GPU: the solution passes every case, the shipped exercise fails cleanly, the
# verifier (a process that runs no student code) agrees, memcheck is clean on the small case,
# and the demo runs.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
use_work_queues 08-unified-memory
sol=build/solutions/08-unified-memory/managed_saxpy
ex=build/exercises/08-unified-memory/managed_saxpy

expect_exit 0 "the solution passes every case" $sol --seed 5 --reps 2
expect_exit 1 "the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0 \
    --case 1x1,17x3,4097x2,1000003x5
expect_exit 0 "the solution's dump" $sol --seed 6 --case 1000003x5,3000017x16 --dump "$TEST_TMP/d" --reps 1
expect_exit 0 "passes --verify" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case 1000003x5,3000017x16
python3 - "$TEST_TMP/d/3000017x16.rep0.y.bin" <<'PY'
import sys
path = sys.argv[1]
raw = bytearray(open(path, 'rb').read())
cut = raw.index(b'\n') + 1
raw[cut + 4 * 3000016: cut + 4 * 3000017] = b'\0\0\0\0'
open(path, 'wb').write(raw)
PY
expect_exit 1 "a corrupted dump (last element) fails --verify" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case 3000017x16
expect_exit 1 "the exercise's dump fails --verify" bash -c "$ex --seed 7 --case 4097x2 --dump $TEST_TMP/e --reps 1; $sol --reps 1 --verify $TEST_TMP/e --seed 7 --case 4097x2"

sanitizer=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
if [ -x "$sanitizer" ]; then
  expect_exit 0 "memcheck is clean on the small case" $sanitizer --tool memcheck --error-exitcode 9 \
      $sol --case 4097x2 --reps 1 --warmup 0
else
  echo "note: compute-sanitizer not found; memcheck not run"
fi

demo=build/lessons/08-unified-memory/demo
expect_exit 0 "the demo runs (--quick, tables to CSV)" $demo --quick --reps 2 --csv "$TEST_TMP/csv"
for f in capabilities aplusb vector_add saxpy; do
  [ -s "$TEST_TMP/csv/08-unified-memory_$f.csv" ] && ok "table $f written" || bad "table $f not written"
done
grep -q '^"managed, pipelined' "$TEST_TMP/csv/08-unified-memory_saxpy.csv" && ok "saxpy table has the pipelined rung" \
  || bad "saxpy table lacks the pipelined rung"
grep -q '^"saxpy: managed pipelined / pinned copies time"' "$TEST_TMP/csv/08-unified-memory_goals.csv" \
  && ok "the saxpy goal is in the goals CSV" || bad "the saxpy goal is not in the goals CSV"
expect_exit 2 "the demo rejects a version it does not have" $demo 0
finish
