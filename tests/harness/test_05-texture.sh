# Lesson 05's harnesses without a GPU: the case lists, bad input, and the verifier against the
# CPU bilinear model: intact, with one pixel changed, transposed, and in the wrong address mode.
source "$(dirname "$0")/../lib.sh"
rot=build/solutions/05-texture/rotate
bor=build/solutions/05-texture/rotate_border
edit=build/tests/dump_edit

# Rewrites the data of dump $1 with the data of dump $2, keeping $1's header.
graft() {
  python3 - "$1" "$2" <<'PY'
import sys
dst, src = sys.argv[1], sys.argv[2]
head = open(dst, 'rb').read().split(b'\n', 1)[0] + b'\n'
body = open(src, 'rb').read().split(b'\n', 1)[1]
open(dst, 'wb').write(head + body)
PY
}

# Replaces each pixel of the W-wide image in dump $1 by the mean of it and its left neighbour
# (wrapping): the image sampled half a texel to the left.
half_texel() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
path, w = sys.argv[1], int(sys.argv[2])
head, body = open(path, 'rb').read().split(b'\n', 1)
v = struct.unpack('<%df' % (len(body) // 4), body)
out = [0.5 * (v[k] + v[k - k % w + (k % w - 1) % w]) for k in range(len(v))]
open(path, 'wb').write(head + b'\n' + struct.pack('<%df' % len(out), *out))
PY
}

expect_exit 0 "rotate --list" $rot --list
expect_grep '^4096x4096@30	W=4096 H=4096 deg=30	speed$' "$TEST_TMP/out" "rotate's speed case is listed and flagged"
expect_grep '^17x31@30	.*	small$' "$TEST_TMP/out" "rotate's sanitizer case is flagged"
expect_exit 0 "rotate_border --list" $bor --list
expect_grep '^17x31@30-clamp	.*	small$' "$TEST_TMP/out" "rotate_border's sanitizer case is flagged"
expect_grep 'border	.*speed$' "$TEST_TMP/out" "rotate_border's speed case uses border mode"
expect_exit 2 "an unknown flag" $rot --rotate-harder
expect_grep "unknown option '--rotate-harder'" "$TEST_TMP/out" "the unknown flag is named"
expect_exit 2 "an unknown case" $rot --case 16x16@30
expect_exit 2 "a bad --seed" $bor --seed banana

d=$TEST_TMP/rot
expect_exit 0 "rotate: CPU reference dumped" $rot --dump-reference "$d" --seed 11 --case 1x1@30,17x31@30,64x64@0,127x61@45
expect_exit 0 "rotate: the reference passes --verify" $rot --verify "$d" --seed 11 --case 1x1@30,17x31@30,64x64@0,127x61@45
expect_exit 1 "rotate: a different seed fails" $rot --verify "$d" --seed 12 --case 17x31@30

cp -r "$d" "$TEST_TMP/one"
$edit set "$TEST_TMP/one/127x61@45.rep0.out.bin" 1000 2.0
expect_exit 1 "rotate: one pixel changed fails" $rot --verify "$TEST_TMP/one" --seed 11 --case 127x61@45 --report "$TEST_TMP/r.tap"
expect_grep 'first_mismatch: "\[1000\] \(row 7, col 111\)' "$TEST_TMP/r.tap" "the report names the changed pixel"

cp -r "$d" "$TEST_TMP/tr"
$edit transpose "$TEST_TMP/tr/17x31@30.rep0.out.bin" 31 17
expect_exit 1 "rotate: a transposed image fails" $rot --verify "$TEST_TMP/tr" --seed 11 --case 17x31@30

# At 0 degrees the output is the input itself, so the reference dump of 64x64@0 lets us build
# the seed's mistake: sampling at x / W instead of (x + 0.5) / W, half a texel to the left,
# blends each texel with its left neighbour. It must fail.
cp -r "$d" "$TEST_TMP/z"
half_texel "$TEST_TMP/z/64x64@0.rep0.out.bin" 64
expect_exit 1 "rotate: the seed's half-texel offset fails" $rot --verify "$TEST_TMP/z" --seed 11 --case 64x64@0

b=$TEST_TMP/bor
expect_exit 0 "rotate_border: CPU reference dumped" $bor --dump-reference "$b" --seed 3 --case 1x1@30-border,17x31@30-clamp,17x31@30-border,127x61@45-border
expect_exit 0 "rotate_border: the reference passes --verify" $bor --verify "$b" --seed 3 --case 1x1@30-border,17x31@30-clamp,17x31@30-border,127x61@45-border
# The two modes differ only where the zoomed-out image reads outside: clamp's answer there is
# not border's.
graft "$b/17x31@30-border.rep0.out.bin" "$b/17x31@30-clamp.rep0.out.bin"
expect_exit 1 "rotate_border: clamp's output does not pass as border's" $bor --verify "$b" --seed 3 --case 17x31@30-border
$edit set "$b/127x61@45-border.rep0.out.bin" 0 0.75
expect_exit 1 "rotate_border: a corner pixel (outside: 0) changed fails" $bor --verify "$b" --seed 3 --case 127x61@45-border
finish
