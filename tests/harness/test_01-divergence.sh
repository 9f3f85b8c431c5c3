# Lesson 01's harness without a GPU: the case list, bad input, and the verifier against the CPU
# reference — intact, with the sum off by one element, and poisoned.
source "$(dirname "$0")/../lib.sh"
bin=build/solutions/01-divergence/reduce_sum
d=$TEST_TMP/ref
cases=n1,n33_off1,n4099_off2,n1000003_off3

# dump_set FILE INDEX EXPR: element INDEX of an f32 dump := EXPR of its old value v.
dump_set() {
  python3 - "$@" <<'PY'
import math, struct, sys
path, index, expr = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = open(path, 'rb').read()
start = data.index(b'\n') + 1 + 4 * index
v = struct.unpack_from('<f', data, start)[0]
new = struct.pack('<f', eval(expr, {'math': math, 'v': v}))
open(path, 'wb').write(data[:start] + new + data[start + 4:])
PY
}

expect_exit 0 "--list" $bin --list
expect_grep '^n268435456	n=268435456 offset=0	speed$' "$TEST_TMP/out" "the 2^28 speed case is listed and flagged"
expect_grep '^n4099_off2	n=4099 offset=2	small$' "$TEST_TMP/out" "the sanitizer case is listed and flagged"
expect_grep '^n1000003_off3	' "$TEST_TMP/out" "a prime size on a misaligned pointer is a case"
expect_exit 2 "an unknown flag" $bin --frobnicate
expect_grep "unknown option '--frobnicate'" "$TEST_TMP/out" "the unknown flag is named"
expect_exit 2 "an unknown case" $bin --case n3
expect_grep "n3" "$TEST_TMP/out" "the unknown case is named"
expect_exit 2 "a bad --seed" $bin --seed banana
expect_exit 2 "a missing dump directory" $bin --verify "$TEST_TMP/nowhere"

expect_exit 0 "CPU reference dumped" $bin --dump-reference "$d" --seed 11 --case $cases
expect_exit 0 "the reference passes --verify" $bin --verify "$d" --seed 11 --case $cases
expect_exit 1 "a different seed fails" $bin --verify "$d" --seed 12 --case n1000003_off3
expect_exit 0 "--phases" $bin --verify "$d" --seed 11 --case n1,n1000003_off3 --phases
expect_grep '^phases n1000003_off3: draw [0-9.]+ s,.* read [0-9.]+ s, check or dump [0-9.]+ s,.* total [0-9.]+ s$' \
  "$TEST_TMP/out" "--phases says where a verification's time went, case by case"

cp -r "$d" "$TEST_TMP/one"
dump_set "$TEST_TMP/one/n1000003_off3.rep0.sum.bin" 0 'v + 1'
expect_exit 1 "a sum off by one element fails" $bin --verify "$TEST_TMP/one" --seed 11 --case n1000003_off3
expect_exit 0 "... and passes once --atol 2 allows it" $bin --verify "$TEST_TMP/one" --seed 11 --case n1000003_off3 --atol 2

cp -r "$d" "$TEST_TMP/nan"
dump_set "$TEST_TMP/nan/n1.rep0.sum.bin" 0 'math.nan'
expect_exit 1 "the NaN poison (an unwritten output) fails" $bin --verify "$TEST_TMP/nan" --seed 11 --case n1

cp -r "$d" "$TEST_TMP/swap"
cp "$d/n33_off1.rep0.sum.bin" "$TEST_TMP/swap/n4099_off2.rep0.sum.bin" 2>/dev/null
expect_exit 1 "another case's output fails" $bin --verify "$TEST_TMP/swap" --seed 11 --case n4099_off2
finish
