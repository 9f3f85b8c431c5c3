# Lesson 03's harness without a GPU: the case list, bad input, and the verifier against the
# CPU reference — intact, with one element changed, and transposed.
source "$(dirname "$0")/../lib.sh"
bin=build/solutions/03-naive-matmul/matmul_naive
edit=build/tests/dump_edit
d=$TEST_TMP/ref

expect_exit 0 "--list" $bin --list
expect_grep '^4096x4096x4096	M=4096 N=4096 K=4096	speed$' "$TEST_TMP/out" "the speed case is listed and flagged"
expect_exit 2 "an unknown flag" $bin --frobnicate
expect_grep "unknown option '--frobnicate'" "$TEST_TMP/out" "the unknown flag is named"
expect_exit 2 "an unknown case" $bin --case 3x3x3
expect_exit 2 "a bad --reps" $bin --reps -4
expect_exit 2 "a missing dump directory" $bin --verify "$TEST_TMP/nowhere"
expect_grep 'no such directory' "$TEST_TMP/out" "the missing directory is said"

expect_exit 0 "CPU reference dumped" $bin --dump-reference "$d" --seed 11 --case 17x31x5,33x65x129,host-1x1x1
expect_exit 0 "the reference passes --verify" $bin --verify "$d" --seed 11 --case 17x31x5,33x65x129,host-1x1x1
expect_exit 1 "a different seed fails" $bin --verify "$d" --seed 12 --case 17x31x5

cp -r "$d" "$TEST_TMP/one"
$edit set "$TEST_TMP/one/33x65x129.rep0.C.bin" 1000 0.5
expect_exit 1 "one element changed fails" $bin --verify "$TEST_TMP/one" --seed 11 --case 33x65x129 --report "$TEST_TMP/r.tap"
expect_grep 'first_mismatch: "\[1000\] \(row 15, col 25\)' "$TEST_TMP/r.tap" "the report names the changed element"

cp -r "$d" "$TEST_TMP/tr"
$edit transpose "$TEST_TMP/tr/17x31x5.rep0.C.bin" 17 31
expect_exit 1 "a transposed result fails" $bin --verify "$TEST_TMP/tr" --seed 11 --case 17x31x5

rm "$TEST_TMP/one/host-1x1x1.rep0.C.bin"
expect_exit 1 "a missing dump file fails" $bin --verify "$TEST_TMP/one" --seed 11 --case host-1x1x1
expect_grep 'no output dumped for case host-1x1x1' "$TEST_TMP/out" "the missing file is said"
finish
