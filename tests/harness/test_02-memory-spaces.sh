# Lesson 02's harnesses without a GPU: the case lists, bad input, and each verifier against the
# CPU reference — intact, with one element changed, and with elements out of place.
source "$(dirname "$0")/../lib.sh"
tr=build/solutions/02-memory-spaces/transpose
cv=build/solutions/02-memory-spaces/conv1d

# dump_py FILE CODE: run CODE on the f32 elements `a` of a dump (an array.array), write them back.
dump_py() {
  python3 - "$@" <<'PY'
import array, math, sys
path, code = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
cut = data.index(b'\n') + 1
a = array.array('f', data[cut:])
exec(code, {'a': a, 'math': math, 'array': array})
open(path, 'wb').write(data[:cut] + a.tobytes())
PY
}

# ---- transpose
expect_exit 0 "transpose --list" $tr --list
expect_grep '^8192x8192	rows=8192 cols=8192	speed$' "$TEST_TMP/out" "the 8192² speed case is listed and flagged"
expect_grep '^67x45	rows=67 cols=45	small$' "$TEST_TMP/out" "the sanitizer case is listed and flagged"
expect_grep '^3x100003	' "$TEST_TMP/out" "a very rectangular case is listed"
expect_exit 2 "transpose: an unknown flag" $tr --transpose-harder
expect_exit 2 "transpose: an unknown case" $tr --case 2x2
expect_exit 2 "transpose: a bad --reps" $tr --reps -1

d=$TEST_TMP/tref
expect_exit 0 "transpose: CPU reference dumped" $tr --dump-reference "$d" --seed 3 --case 1x1,31x33,1000x1,257x129
expect_exit 0 "transpose: the reference passes --verify" $tr --verify "$d" --seed 3 --case 1x1,31x33,1000x1,257x129

cp -r "$d" "$TEST_TMP/t1"
dump_py "$TEST_TMP/t1/257x129.rep0.out.bin" 'a[1000] = a[1000] + 2 ** -20'
expect_exit 1 "transpose: one element changed by 2^-20 fails" $tr --verify "$TEST_TMP/t1" --seed 3 --case 257x129 --report "$TEST_TMP/t.tap"
expect_grep 'first_mismatch: "\[1000\] \(row 3, col 229\)' "$TEST_TMP/t.tap" "the report names the element as (row, col) of the output"

cp -r "$d" "$TEST_TMP/t2"
# The 33×31 output read back as the un-transposed input: what a plain copy would produce.
dump_py "$TEST_TMP/t2/31x33.rep0.out.bin" 'b = a[:]; a[:] = array.array("f", [b[c * 31 + r] for r in range(31) for c in range(33)])'
expect_exit 1 "transpose: a copy that was not transposed fails" $tr --verify "$TEST_TMP/t2" --seed 3 --case 31x33

cp -r "$d" "$TEST_TMP/t3"
dump_py "$TEST_TMP/t3/1000x1.rep0.out.bin" 'a[998], a[999] = a[999], a[998]'
expect_exit 1 "transpose: two swapped elements fail" $tr --verify "$TEST_TMP/t3" --seed 3 --case 1000x1

# ---- conv1d
expect_exit 0 "conv1d --list" $cv --list
expect_grep '^n33554432_w31	n=33554432 width=31	speed$' "$TEST_TMP/out" "the conv1d speed case is listed and flagged"
expect_grep '^n1000_w31	n=1000 width=31	small$' "$TEST_TMP/out" "the conv1d sanitizer case is listed and flagged"
expect_grep '^n1_w63	' "$TEST_TMP/out" "a mask wider than the input is a case"
expect_exit 2 "conv1d: an unknown flag" $cv --mask 5
expect_exit 2 "conv1d: a bad --rtol" $cv --rtol fast

d=$TEST_TMP/cref
expect_exit 0 "conv1d: CPU reference dumped" $cv --dump-reference "$d" --seed 4 --case n1_w63,n2_w5,n257_w9,n1000_w31
expect_exit 0 "conv1d: the reference passes --verify" $cv --verify "$d" --seed 4 --case n1_w63,n2_w5,n257_w9,n1000_w31

cp -r "$d" "$TEST_TMP/c1"
dump_py "$TEST_TMP/c1/n1000_w31.rep0.out.bin" 'a[500] = a[500] * 1.001'
expect_exit 1 "conv1d: one output 0.1% off fails" $cv --verify "$TEST_TMP/c1" --seed 4 --case n1000_w31
expect_exit 0 "... and passes under --rtol 0.01" $cv --verify "$TEST_TMP/c1" --seed 4 --case n1000_w31 --rtol 0.01

cp -r "$d" "$TEST_TMP/c2"
# Shifted by one position: what an off-by-one halo produces.
dump_py "$TEST_TMP/c2/n257_w9.rep0.out.bin" 'a[:] = a[1:] + a[:1]'
expect_exit 1 "conv1d: an output shifted by one fails" $cv --verify "$TEST_TMP/c2" --seed 4 --case n257_w9

cp -r "$d" "$TEST_TMP/c3"
dump_py "$TEST_TMP/c3/n2_w5.rep0.out.bin" 'a[1] = math.nan'
expect_exit 1 "conv1d: an unwritten (NaN) element fails" $cv --verify "$TEST_TMP/c3" --seed 4 --case n2_w5
finish
