# Lesson 09's harness without a GPU: the case list, bad input, and the AᵀA verifier against the
# CPU reference — intact, and corrupted in the ways a kernel goes wrong: one element, a
# symmetric pair (invisible to the symmetry check), two rows swapped, the mirror never written.
# Both verifier paths are covered: exact (17x31, 129x127) and sampled + Freivalds (300x700).
source "$(dirname "$0")/../lib.sh"
bin=build/solutions/09-ata-cublas/ata
edit=build/tests/dump_edit
d=$TEST_TMP/ref

# swap_rows FILE N I J : exchange rows I and J of the N×N double matrix in a dump.
swap_rows() {
  python3 - "$@" <<'PY'
import sys
path, n, i, j = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
raw = bytearray(open(path, 'rb').read())
h = raw.index(b'\n') + 1
ri, rj = slice(h + i * n * 8, h + (i + 1) * n * 8), slice(h + j * n * 8, h + (j + 1) * n * 8)
raw[ri], raw[rj] = raw[rj], raw[ri]
open(path, 'wb').write(raw)
PY
}
# zero_lower FILE N : every element below the diagonal := 0 (a kernel that forgot the mirror).
zero_lower() {
  python3 - "$@" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
raw = bytearray(open(path, 'rb').read())
h = raw.index(b'\n') + 1
for i in range(1, n):
    raw[h + i * n * 8: h + (i * n + i) * 8] = bytes(8 * i)
open(path, 'wb').write(raw)
PY
}

expect_exit 0 "--list" $bin --list
expect_grep '^4096x4096	M=4096 N=4096	speed$' "$TEST_TMP/out" "the speed case is listed and flagged"
expect_grep '^17x31	M=17 N=31	small$' "$TEST_TMP/out" "the sanitizer case is listed and flagged"
expect_exit 2 "an unknown flag" $bin --transpose
expect_grep "unknown option '--transpose'" "$TEST_TMP/out" "the unknown flag is named"
expect_exit 2 "an unknown case" $bin --case 4096x4096x4096
expect_grep "no case named '4096x4096x4096'" "$TEST_TMP/out" "the unknown case is named"
expect_exit 2 "a bad --rtol" $bin --rtol -1
expect_exit 2 "a stray argument" $bin 17
expect_exit 2 "a missing dump directory" $bin --verify "$TEST_TMP/nowhere"

cases=1x1,17x31,1x300,500x1,97x61,96x48,128x128,129x127,300x700,2049x515
expect_exit 0 "CPU reference dumped" $bin --dump-reference "$d" --seed 21 --case $cases
expect_exit 0 "the reference passes --verify, every small case" $bin --verify "$d" --seed 21 --case $cases
expect_exit 1 "the same dump under another seed fails" $bin --verify "$d" --seed 22 --case 17x31,300x700

for c in "17x31 31" "129x127 127" "300x700 700"; do
  set -- $c; name=$1 n=$2 f=$1.rep0.C.bin
  rm -rf "$TEST_TMP/x"; cp -r "$d" "$TEST_TMP/x"
  $edit set "$TEST_TMP/x/$f" $((n / 2 * n + n - 1)) 0.125
  expect_exit 1 "$name: one element changed fails" $bin --verify "$TEST_TMP/x" --seed 21 --case $name \
    --report "$TEST_TMP/r.tap"
  [ "$name" = 17x31 ] && expect_grep 'first_mismatch: "\[495\] \(row 15, col 30\)' "$TEST_TMP/r.tap" \
    "the report names the changed element"

  # A pair C[i][j], C[j][i] both off by the same amount: still symmetric, still wrong.
  rm -rf "$TEST_TMP/x"; cp -r "$d" "$TEST_TMP/x"
  i=$((n / 3)) j=$((2 * n / 3))
  $edit set "$TEST_TMP/x/$f" $((i * n + j)) 0.0
  $edit set "$TEST_TMP/x/$f" $((j * n + i)) 0.0
  expect_exit 1 "$name: a symmetric pair zeroed fails" $bin --verify "$TEST_TMP/x" --seed 21 --case $name

  rm -rf "$TEST_TMP/x"; cp -r "$d" "$TEST_TMP/x"
  swap_rows "$TEST_TMP/x/$f" $n 0 $((n - 1))
  expect_exit 1 "$name: first and last rows swapped fails" $bin --verify "$TEST_TMP/x" --seed 21 --case $name

  rm -rf "$TEST_TMP/x"; cp -r "$d" "$TEST_TMP/x"
  zero_lower "$TEST_TMP/x/$f" $n
  expect_exit 1 "$name: the lower triangle never written fails" $bin --verify "$TEST_TMP/x" --seed 21 --case $name
done

rm -rf "$TEST_TMP/x"; cp -r "$d" "$TEST_TMP/x"
$edit set "$TEST_TMP/x/300x700.rep0.C.bin" 12345 nan
expect_exit 1 "a NaN (an unwritten element) fails" $bin --verify "$TEST_TMP/x" --seed 21 --case 300x700 \
  --report "$TEST_TMP/r.tap"
expect_grep 'first_mismatch: "\[12345\] \(row 17, col 445\)' "$TEST_TMP/r.tap" "the report names the NaN"

rm "$TEST_TMP/x/1x1.rep0.C.bin"
expect_exit 1 "a missing dump file fails" $bin --verify "$TEST_TMP/x" --seed 21 --case 1x1

demo=build/lessons/09-ata-cublas/demo
expect_exit 0 "the demo lists its versions" $demo --list
expect_grep '^8	dmma-64	' "$TEST_TMP/out" "the list ends with version 8"
expect_exit 2 "the demo refuses a version it does not have" $demo 9
expect_grep 'no version 9 \(versions 0\.\.8' "$TEST_TMP/out" "the refusal names the valid range"
finish
