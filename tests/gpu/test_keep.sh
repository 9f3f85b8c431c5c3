# Timed calls' outputs kept on the device (common/task_run.cu): the same dumps, byte for byte,
# as kept in host memory (--keep-on-host), for the tasks that say where their outputs are; both
# verify; and the harness checks here what it kept there. Two repetitions and LAB_DUMP_REPS 2:
# every repetition is dumped, so the two dumps hold the same calls.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
speed_case() { "$1" --list | awk '$NF == "speed" { print $1 }'; }
for t in 02-memory-spaces/transpose 02-memory-spaces/conv1d 03-naive-matmul/matmul_naive \
         05-texture/rotate 09-ata-cublas/ata; do
  bin=build/solutions/$t
  name=${t#*/}
  c=$(speed_case "$bin")
  [ -n "$c" ] || { bad "$name lists no speed case"; continue; }
  args=(--case "$c" --seed 9 --reps 2 --warmup 1)
  "$bin" "${args[@]}" --dump "$TEST_TMP/$name-dev" >"$TEST_TMP/$name-dev.log" 2>&1 ||
    { bad "$name: the run keeping outputs on the device failed"; cat "$TEST_TMP/$name-dev.log"; continue; }
  "$bin" "${args[@]}" --keep-on-host --dump "$TEST_TMP/$name-host" >"$TEST_TMP/$name-host.log" 2>&1 ||
    { bad "$name: the run keeping outputs on the host failed"; continue; }
  n=$(ls "$TEST_TMP/$name-dev" | wc -l)
  if [ "$n" -ge 2 ] && diff -r "$TEST_TMP/$name-dev" "$TEST_TMP/$name-host" >/dev/null; then
    ok "$name: $n dump files, the same bytes kept on the device as on the host"
  else
    bad "$name: the dumps differ ($n files kept on the device)"
  fi
  expect_exit 0 "$name: the dump of the outputs kept on the device verifies" \
    "$bin" --verify "$TEST_TMP/$name-dev" --seed 9 --reps 2 --case "$c"
done

# compact keeps one output in host memory (the count the function returned) beside one on
# the device; its order of values is free, so it is checked, not compared.
bin=build/solutions/06-atomics/compact
c=$(speed_case "$bin")
expect_exit 0 "compact: checked here, outputs kept on the device" "$bin" --case "$c" --reps 3 --warmup 0
expect_exit 0 "compact: dumped from the device and verified" \
  bash -c "$bin --case $c --reps 2 --warmup 0 --seed 4 --dump $TEST_TMP/compact &&
           $bin --verify $TEST_TMP/compact --case $c --reps 2 --seed 4"
# The exercise as shipped is wrong: keeping on the device must not hide it.
expect_exit 1 "compact: the shipped exercise still fails, checked here" \
  build/exercises/06-atomics/compact --case "$c" --reps 2 --warmup 0
finish
