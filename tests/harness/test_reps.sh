# The dump of timed repetitions, without a GPU: each repetition's inputs come from its own seed,
# the verifier checks every repetition dumped (and draws the inputs of no other) and wants
# LAB_DUMP_REPS of the speed case, and the exercise's binary has no CPU reference and is linked
# with full RELRO.
source "$(dirname "$0")/../lib.sh"
bin=build/solutions/05-texture/rotate_border
ex=build/exercises/05-texture/rotate_border
edit=build/tests/dump_edit
speed=4096x4096@30-border
d=$TEST_TMP/ref

expect_exit 0 "the speed case's reference dumped" $bin --dump-reference "$d" --seed 5 --case $speed,17x31@30-border
[ -f "$d/$speed.rep0.out.bin" ] && [ -f "$d/$speed.rep1.out.bin" ] || bad "the speed case has repetitions 0 and 1 in the dump"
[ -f "$d/17x31@30-border.rep0.out.bin" ] && [ ! -f "$d/17x31@30-border.rep1.out.bin" ] ||
  bad "another case has repetition 0 alone"
cmp -s "$d/$speed.rep0.out.bin" "$d/$speed.rep1.out.bin" && bad "two repetitions have different inputs, so outputs"
expect_exit 0 "both repetitions pass --verify" $bin --verify "$d" --seed 5 --case $speed --report "$TEST_TMP/r.tap"
expect_grep '^  reps_checked: 2$' "$TEST_TMP/r.tap" "the report says two repetitions were checked"
# The verifier draws the inputs of the dumped repetitions only: with 100000 timed
# repetitions named, drawing them all would take many minutes (a 4096x4096 image each).
expect_exit 0 "100000 repetitions named, two dumped: verified at once" \
  timeout 60 $bin --verify "$d" --seed 5 --case $speed --reps 100000

# The first call's answer replayed on a later call: the later call's inputs differ.
cp -r "$d" "$TEST_TMP/replay"
$edit relabel "$d/$speed.rep0.out.bin" 1 "$TEST_TMP/replay/$speed.rep1.out.bin"
expect_exit 1 "repetition 0's answer passed off as repetition 1 fails" $bin --verify "$TEST_TMP/replay" --seed 5 --case $speed


cp -r "$d" "$TEST_TMP/one"
rm "$TEST_TMP/one/$speed.rep1.out.bin"
expect_exit 1 "one repetition of the speed case is not enough" $bin --verify "$TEST_TMP/one" --seed 5 --case $speed
expect_grep "1 of the 2 repetitions to check" "$TEST_TMP/out" "the missing repetition is said"

cp -r "$d" "$TEST_TMP/bad1"
$edit set "$TEST_TMP/bad1/$speed.rep1.out.bin" 4000 7.5
expect_exit 1 "a wrong element in the second repetition fails" $bin --verify "$TEST_TMP/bad1" --seed 5 --case $speed

cp -r "$d" "$TEST_TMP/old"
for f in "$TEST_TMP/old/"*.bin; do sed -i '1s/^LABDUMP 2 /LABDUMP 1 /' "$f"; done
expect_exit 1 "a dump of the old format fails" $bin --verify "$TEST_TMP/old" --seed 5 --case 17x31@30-border
expect_grep "does not match" "$TEST_TMP/out" "the header mismatch is said"

# The exercise's binary: no CPU reference, nothing of the answer to call.
expect_exit 2 "the exercise build has no CPU reference to dump" $ex --dump-reference "$TEST_TMP/x" --case 17x31@30-border
expect_grep "no CPU reference" "$TEST_TMP/out" "the exercise says so"
expect_exit 0 "... but still verifies a dump" $ex --verify "$d" --seed 5 --case 17x31@30-border
for t in 03-naive-matmul/matmul_naive 04-tiling/matmul_tiled 09-ata-cublas/ata 05-texture/rotate; do
  syms=$(nm "build/exercises/$t" 2>/dev/null | grep -E ' [TtWw] (lab_gemm_ref_f32|ata_reference|image_task_reference)$')
  [ -z "$syms" ] || bad "$t: the exercise binary holds a CPU reference: $syms"
  readelf -d "build/exercises/$t" | grep -Eq 'BIND_NOW|FLAGS_1.*NOW' || bad "$t: the exercise binary binds lazily"
  readelf -lW "build/exercises/$t" | grep -q GNU_RELRO || bad "$t: the exercise binary has no RELRO"
done
nm build/solutions/03-naive-matmul/matmul_naive | grep -q ' T lab_gemm_ref_f32$' ||
  bad "the solution binary keeps its CPU reference (the nm check above can see one)"
finish
