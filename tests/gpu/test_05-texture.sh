# Lesson 05 on a GPU: both solutions pass every case within the derived tolerance, the shipped
# exercises fail cleanly, the verifier (a process that runs no student code) agrees, and the
# demo runs, stays within the tolerance in every version and writes its pictures.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
for t in rotate rotate_border; do
  sol=build/solutions/05-texture/$t
  ex=build/exercises/05-texture/$t
  expect_exit 0 "$t: the solution passes every case" $sol --seed 5 --reps 2 --warmup 1
  small=$($sol --list | awk '$NF == "small" { print $1 }')
  first=$($sol --list | awk 'NR == 1 { print $1 }')
  expect_exit 1 "$t: the shipped exercise is wrong, not crashed" $ex --seed 5 --reps 1 --warmup 0 --case "$first,$small"
  expect_grep 'fail' "$TEST_TMP/out" "$t: the exercise's cases are reported as failed"
  expect_exit 0 "$t: the solution's dump" $sol --seed 6 --case "$small" --dump "$TEST_TMP/d_$t" --reps 1
  expect_exit 0 "$t: passes --verify" $sol --reps 1 --verify "$TEST_TMP/d_$t" --seed 6 --case "$small"
  build/tests/dump_edit set "$TEST_TMP/d_$t/$small.rep0.out.bin" 7 -1
  expect_exit 1 "$t: a corrupted dump fails --verify" $sol --reps 1 --verify "$TEST_TMP/d_$t" --seed 6 --case "$small"
  expect_exit 1 "$t: the exercise's dump fails --verify" bash -c "$ex --seed 7 --case $small --dump $TEST_TMP/e_$t --reps 1; $sol --reps 1 --verify $TEST_TMP/e_$t --seed 7 --case $small"
done

csv=$TEST_TMP/bench
expect_exit 0 "the demo runs (--quick)" build/lessons/05-texture/demo --quick --reps 2 --csv "$csv"
for f in input rotated mode_wrap mode_clamp mode_mirror mode_border; do
  if [ "$(head -c 2 "$csv/05-texture_$f.pgm" 2>/dev/null)" = P5 ]; then ok "the demo wrote 05-texture_$f.pgm"
  else bad "the demo did not write 05-texture_$f.pgm"; fi
done
# Every hardware fetch of the demo within the derived bound (last column: err / bound).
for table in versions modes; do
  if awk -F, 'NR > 1 && ($NF + 0 > 1 || $NF ~ /nan/) { bad = 1 } END { exit bad || NR < 2 }' "$csv/05-texture_$table.csv"
  then ok "demo $table: every version within the derived tolerance"
  else bad "demo $table: err / bound above 1"; cat "$csv/05-texture_$table.csv"; fi
done
finish
