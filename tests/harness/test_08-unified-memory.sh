# Lesson 08's harness without a GPU: the case list, bad input, and the verifier against the
# CPU reference — intact, with one element changed, shuffled, and left as the input.
source "$(dirname "$0")/../lib.sh"
bin=build/solutions/08-unified-memory/managed_saxpy
d=$TEST_TMP/ref

# edit_dump FILE MODE [INDEX VALUE]: set one f32 element, or rotate all elements by one.
edit_dump() {
  python3 - "$@" <<'PY'
import array, sys
path, mode = sys.argv[1], sys.argv[2]
raw = open(path, 'rb').read()
cut = raw.index(b'\n') + 1
v = array.array('f'); v.frombytes(raw[cut:])
if mode == 'set':
    v[int(sys.argv[3])] = float(sys.argv[4])
elif mode == 'rotate':
    v = v[1:] + v[:1]
open(path, 'wb').write(raw[:cut] + v.tobytes())
PY
}

expect_exit 0 "--list" $bin --list
expect_grep '^33554432x8	n=33554432 passes=8	speed$' "$TEST_TMP/out" "the speed case is listed and flagged"
expect_grep '^4097x2	n=4097 passes=2	small$' "$TEST_TMP/out" "the sanitizer case is listed and flagged"
expect_exit 2 "an unknown flag" $bin --frobnicate
expect_grep "unknown option '--frobnicate'" "$TEST_TMP/out" "the unknown flag is named"
expect_exit 2 "an unknown case" $bin --case 8x8
expect_exit 2 "a bad --warmup" $bin --warmup x
expect_exit 2 "a missing dump directory" $bin --verify "$TEST_TMP/nowhere"

cases=1x1,17x3,4097x2
expect_exit 0 "CPU reference dumped" $bin --dump-reference "$d" --seed 21 --case $cases
expect_exit 0 "the reference passes --verify" $bin --verify "$d" --seed 21 --case $cases
expect_exit 1 "a different seed fails" $bin --verify "$d" --seed 22 --case 4097x2

cp -r "$d" "$TEST_TMP/one"
edit_dump "$TEST_TMP/one/4097x2.rep0.y.bin" set 4096 1.0
expect_exit 1 "one element changed (the last) fails" $bin --verify "$TEST_TMP/one" --seed 21 --case 4097x2 --report "$TEST_TMP/r.tap"
expect_grep 'first_mismatch: "\[4096\]' "$TEST_TMP/r.tap" "the report names the changed element"

cp -r "$d" "$TEST_TMP/rot"
edit_dump "$TEST_TMP/rot/17x3.rep0.y.bin" rotate
expect_exit 1 "a shuffled (rotated) result fails" $bin --verify "$TEST_TMP/rot" --seed 21 --case 17x3

finish
