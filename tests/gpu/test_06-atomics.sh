# Lesson 06 on a GPU: both solutions pass every case, the shipped exercises fail cleanly, the
# verifier (a process that runs no student code) agrees, and the demo's versions are all
# correct except the racy one, which must lose updates nowhere else.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
for t in histogram compact; do
  sol=build/solutions/06-atomics/$t
  ex=build/exercises/06-atomics/$t
  expect_exit 0 "$t: the solution passes every case" $sol --seed 5 --reps 2 --warmup 1
  small=$($sol --list | awk '$NF == "small" { print $1 }')
  first=$($sol --list | awk 'NR == 1 { print $1 }')
  expect_exit 1 "$t: the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0 --case "$first,$small"
  expect_exit 0 "$t: the solution's dump" $sol --seed 6 --case "$small" --dump "$TEST_TMP/d_$t" --reps 1
  expect_exit 0 "$t: passes --verify" $sol --reps 1 --verify "$TEST_TMP/d_$t" --seed 6 --case "$small"
  expect_exit 1 "$t: the exercise's dump fails --verify" bash -c "$ex --seed 7 --case $small --dump $TEST_TMP/e_$t --reps 1; $sol --reps 1 --verify $TEST_TMP/e_$t --seed 7 --case $small"
done
build/tests/dump_edit set "$TEST_TMP/d_histogram/4099-skewed.rep0.bins.bin" 0 4099
expect_exit 1 "histogram: a corrupted dump fails --verify" build/solutions/06-atomics/histogram --reps 1 --verify "$TEST_TMP/d_histogram" --seed 6 --case 4099-skewed
build/tests/dump_edit set "$TEST_TMP/d_compact/37-keep50.rep0.count.bin" 0 37
expect_exit 1 "compact: a corrupted count fails --verify" build/solutions/06-atomics/compact --reps 1 --verify "$TEST_TMP/d_compact" --seed 6 --case 37-keep50

csv=$TEST_TMP/bench
expect_exit 0 "the demo runs (--quick)" build/lessons/06-atomics/demo --quick --reps 2 --csv "$csv"
if awk -F, '$2 == "atomic" && $5 != 0 { bad = 1 } END { exit bad }' "$csv/06-atomics_increment.csv" &&
   grep -q ',atomic,' "$csv/06-atomics_increment.csv"
then ok "demo: atomicAdd loses no update"; else bad "demo: atomicAdd lost updates"; cat "$csv/06-atomics_increment.csv"; fi
for name in cub shared+runs global+warp; do
  [ "$(grep -c ",$name," "$csv/06-atomics_histogram.csv")" -eq 2 ] && ok "demo histogram: $name on both inputs" \
    || bad "demo histogram: $name is not on both inputs"
done
[ "$(grep -c '^"histogram' "$csv/06-atomics_goals.csv")" -eq 5 ] && ok "demo: five histogram goals in the goals CSV" \
  || bad "demo: the goals CSV lacks histogram goals"
for table in histogram max compact; do
  if awk -F, 'NR > 1 && $NF != "yes" { bad = 1 } END { exit bad || NR < 2 }' "$csv/06-atomics_$table.csv"
  then ok "demo $table: every version correct"; else bad "demo $table: a version is wrong"; cat "$csv/06-atomics_$table.csv"; fi
done
finish
