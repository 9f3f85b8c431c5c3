# Lesson 06's harnesses without a GPU: the case lists, bad input, and the verifiers: exact bin
# counts for the histogram; count plus multiset (any order) for the compaction.
source "$(dirname "$0")/../lib.sh"
hist=build/solutions/06-atomics/histogram
comp=build/solutions/06-atomics/compact
edit=build/tests/dump_edit

# python3 helpers on a dump's data: shuffle (any order must pass), swap two elements.
dump_py() {
  python3 - "$@" <<'PY'
import random, struct, sys
op, path = sys.argv[1], sys.argv[2]
raw = open(path, 'rb').read()
head, body = raw.split(b'\n', 1)
v = list(struct.unpack('<%di' % (len(body) // 4), body))
if op == 'shuffle':            # shuffle the first k elements
    k = int(sys.argv[3]); part = v[:k]; random.Random(5).shuffle(part); v[:k] = part
elif op == 'swap':
    i, j = int(sys.argv[3]), int(sys.argv[4]); v[i], v[j] = v[j], v[i]
elif op == 'copy':             # v[j] = v[i]: one element lost, another doubled
    i, j = int(sys.argv[3]), int(sys.argv[4]); v[j] = v[i]
elif op == 'get':
    print(v[int(sys.argv[3])]); sys.exit(0)
open(path, 'wb').write(head + b'\n' + struct.pack('<%di' % len(v), *v))
PY
}

# dump_one FILE INDEX: element INDEX of an i32 dump, read without loading the rest
dump_one() {
  python3 - "$@" <<'PY'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    f.readline()
    f.seek(4 * int(sys.argv[2]), 1)
    print(struct.unpack('<i', f.read(4))[0])
PY
}

expect_exit 0 "histogram --list" $hist --list
expect_grep '^268435456-uniform	.*	speed$' "$TEST_TMP/out" "histogram's speed case is listed and flagged"
expect_grep '^4099-skewed	.*	small$' "$TEST_TMP/out" "histogram's sanitizer case is flagged"
expect_exit 0 "compact --list" $comp --list
expect_grep '^67108864-keep50	.*	speed$' "$TEST_TMP/out" "compact's speed case is listed and flagged"
expect_exit 2 "an unknown flag" $hist --bins 512
expect_grep "unknown option '--bins'" "$TEST_TMP/out" "the unknown flag is named"
expect_exit 2 "an unknown case" $comp --case 0-keep50
expect_exit 2 "a bad --reps" $hist --reps -1

h=$TEST_TMP/hist
cases=1-uniform,7-single,255-uniform,4099-skewed,65536-uniform
expect_exit 0 "histogram: CPU reference dumped" $hist --dump-reference "$h" --seed 21 --case $cases
expect_exit 0 "histogram: the reference passes --verify" $hist --verify "$h" --seed 21 --case $cases
expect_exit 1 "histogram: a different seed fails" $hist --verify "$h" --seed 22 --case 65536-uniform
cp -r "$h" "$TEST_TMP/h1"
$edit set "$TEST_TMP/h1/4099-skewed.rep0.bins.bin" 17 $(( $(dump_py get "$h/4099-skewed.rep0.bins.bin" 17) + 1 ))
expect_exit 1 "histogram: one count off by one fails" $hist --verify "$TEST_TMP/h1" --seed 21 --case 4099-skewed --report "$TEST_TMP/h.tap"
expect_grep 'first_mismatch: "\[17\]' "$TEST_TMP/h.tap" "the report names bin 17"
dump_py swap "$TEST_TMP/h1/65536-uniform.rep0.bins.bin" 3 200
expect_exit 1 "histogram: two bins swapped fails" $hist --verify "$TEST_TMP/h1" --seed 21 --case 65536-uniform

c=$TEST_TMP/comp
cases=1-keep100,1-keep0,37-keep50,1000-keep0,4099-keep100
expect_exit 0 "compact: CPU reference dumped" $comp --dump-reference "$c" --seed 31 --case $cases
expect_exit 0 "compact: the reference passes --verify" $comp --verify "$c" --seed 31 --case $cases
n37=$(dump_py get "$c/37-keep50.rep0.count.bin" 0)
dump_py shuffle "$c/37-keep50.rep0.out.bin" "$n37"
dump_py shuffle "$c/4099-keep100.rep0.out.bin" 4099
expect_exit 0 "compact: any order of the kept elements passes" $comp --verify "$c" --seed 31 --case 37-keep50,4099-keep100
cp -r "$c" "$TEST_TMP/c1"
dump_py copy "$TEST_TMP/c1/37-keep50.rep0.out.bin" 0 1
expect_exit 1 "compact: one element lost, another doubled fails" $comp --verify "$TEST_TMP/c1" --seed 31 --case 37-keep50
$edit set "$TEST_TMP/c1/4099-keep100.rep0.out.bin" 4000 -5
expect_exit 1 "compact: a dropped element replaced by a rejected one fails" $comp --verify "$TEST_TMP/c1" --seed 31 --case 4099-keep100
$edit set "$TEST_TMP/c1/1000-keep0.rep0.count.bin" 0 1
expect_exit 1 "compact: a wrong count fails" $comp --verify "$TEST_TMP/c1" --seed 31 --case 1000-keep0
expect_grep 'count 1, expected 0' "$TEST_TMP/out" "the wrong count is said"

# ---- the multiset check sorts on every core, in chunks and buckets: a case of many of each
big=16777259-keep90
expect_exit 0 "compact: CPU reference of $big dumped" $comp --dump-reference "$TEST_TMP/c2" --seed 41 --case $big
expect_exit 0 "compact: the reference of $big passes" $comp --verify "$TEST_TMP/c2" --seed 41 --case $big
out=$TEST_TMP/c2/$big.rep0.out.bin
a=$(dump_one "$out" 5) b=$(dump_one "$out" 14000000)
$edit set "$out" 5 "$b" && $edit set "$out" 14000000 "$a"
expect_exit 0 "compact: $big with two elements far apart swapped passes" $comp --verify "$TEST_TMP/c2" --seed 41 --case $big
$edit set "$out" 9000000 "$a"
expect_exit 1 "compact: $big with one element lost, another doubled fails" $comp --verify "$TEST_TMP/c2" --seed 41 --case $big
finish
