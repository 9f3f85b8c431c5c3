# Lesson 07 on a GPU: the solution passes every case, the shipped exercise fails cleanly, the
# verifier (a process that runs no student code) agrees, memcheck is clean on the small case,
# and the demo runs and writes its tables and timeline.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
use_work_queues 07-streams
sol=build/solutions/07-streams/pipeline
ex=build/exercises/07-streams/pipeline

expect_exit 0 "the solution passes every case" $sol --seed 5 --reps 2
expect_exit 1 "the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0 \
    --case 1x1x1,1x4x8,4097x3x5,1000003x3x7
expect_exit 0 "the solution's dump" $sol --seed 6 --case 1000003x3x7,999999x8x1000 --dump "$TEST_TMP/d" --reps 1
expect_exit 0 "passes --verify" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case 1000003x3x7,999999x8x1000
python3 - "$TEST_TMP/d/1000003x3x7.rep0.x.bin" <<'PY'
import sys
path = sys.argv[1]
raw = bytearray(open(path, 'rb').read())
cut = raw.index(b'\n') + 1
raw[cut + 4 * 500000: cut + 4 * 500001] = b'\0\0\0\0'
open(path, 'wb').write(raw)
PY
expect_exit 1 "a corrupted dump fails --verify" $sol --reps 1 --verify "$TEST_TMP/d" --seed 6 --case 1000003x3x7
expect_exit 1 "the exercise's dump fails --verify" bash -c "$ex --seed 7 --case 4097x3x5 --dump $TEST_TMP/e --reps 1; $sol --reps 1 --verify $TEST_TMP/e --seed 7 --case 4097x3x5"

sanitizer=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
if [ -x "$sanitizer" ]; then
  expect_exit 0 "memcheck is clean on the small case" $sanitizer --tool memcheck --error-exitcode 9 \
      $sol --case 4097x3x5 --reps 1 --warmup 0
else
  echo "note: compute-sanitizer not found; memcheck not run"
fi

demo=build/lessons/07-streams/demo
expect_exit 0 "the demo runs (--quick, tables to CSV)" $demo --quick --reps 2 --csv "$TEST_TMP/csv"
for f in bandwidth host_reads stages streams zero_copy timeline timeline_summary default_stream task_pipeline; do
  [ -s "$TEST_TMP/csv/07-streams_$f.csv" ] && ok "table $f written" || bad "table $f not written"
done
expect_grep '^<svg' "$TEST_TMP/csv/07-streams_timeline.svg" "the timeline SVG is written"
expect_exit 2 "the demo rejects a version it does not have" $demo 9
finish
