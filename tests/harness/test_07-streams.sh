# Lesson 07's harness without a GPU: the case list, bad input, and the verifier against the
# CPU reference — intact, with one element changed, with the elements shuffled, and with one
# chunk left unprocessed.
source "$(dirname "$0")/../lib.sh"
bin=build/solutions/07-streams/pipeline
d=$TEST_TMP/ref

# edit_dump FILE MODE [INDEX VALUE]: set one f32 element, reverse all elements, or copy the
# first element's value over the first 1000 (what a skipped chunk of constant input looks like).
edit_dump() {
  python3 - "$@" <<'PY'
import array, sys
path, mode = sys.argv[1], sys.argv[2]
raw = open(path, 'rb').read()
cut = raw.index(b'\n') + 1
v = array.array('f'); v.frombytes(raw[cut:])
if mode == 'set':
    v[int(sys.argv[3])] = float(sys.argv[4])
elif mode == 'reverse':
    v.reverse()
elif mode == 'flat':
    for i in range(min(1000, len(v))):
        v[i] = v[0]
open(path, 'wb').write(raw[:cut] + v.tobytes())
PY
}

expect_exit 0 "--list" $bin --list
expect_grep '^67108864x4x16	n=67108864 streams=4 chunks=16	speed$' "$TEST_TMP/out" "the speed case is listed and flagged"
expect_grep '^4097x3x5	n=4097 streams=3 chunks=5	small$' "$TEST_TMP/out" "the sanitizer case is listed and flagged"
expect_grep '^1x4x8	' "$TEST_TMP/out" "a case with more chunks than elements is listed"
expect_exit 2 "an unknown flag" $bin --frobnicate
expect_grep "unknown option '--frobnicate'" "$TEST_TMP/out" "the unknown flag is named"
expect_exit 2 "an unknown case" $bin --case 5x5x5
expect_exit 2 "a bad --reps" $bin --reps -4
expect_exit 2 "a missing dump directory" $bin --verify "$TEST_TMP/nowhere"

cases=1x1x1,1x4x8,4097x3x5,65536x5x2
expect_exit 0 "CPU reference dumped" $bin --dump-reference "$d" --seed 11 --case $cases
expect_exit 0 "the reference passes --verify" $bin --verify "$d" --seed 11 --case $cases
expect_exit 1 "a different seed fails" $bin --verify "$d" --seed 12 --case 4097x3x5

cp -r "$d" "$TEST_TMP/one"
edit_dump "$TEST_TMP/one/4097x3x5.rep0.x.bin" set 2000 0.5
expect_exit 1 "one element changed fails" $bin --verify "$TEST_TMP/one" --seed 11 --case 4097x3x5 --report "$TEST_TMP/r.tap"
expect_grep 'first_mismatch: "\[2000\]' "$TEST_TMP/r.tap" "the report names the changed element"

cp -r "$d" "$TEST_TMP/rev"
edit_dump "$TEST_TMP/rev/65536x5x2.rep0.x.bin" reverse
expect_exit 1 "a shuffled (reversed) result fails" $bin --verify "$TEST_TMP/rev" --seed 11 --case 65536x5x2

cp -r "$d" "$TEST_TMP/flat"
edit_dump "$TEST_TMP/flat/65536x5x2.rep0.x.bin" flat
expect_exit 1 "a chunk of wrong values fails" $bin --verify "$TEST_TMP/flat" --seed 11 --case 65536x5x2

cp -r "$d" "$TEST_TMP/nan"
edit_dump "$TEST_TMP/nan/1x1x1.rep0.x.bin" set 0 nan
expect_exit 1 "a NaN (never uploaded) fails" $bin --verify "$TEST_TMP/nan" --seed 11 --case 1x1x1
finish
