#!/usr/bin/env bash
# Every task harness lists one case flagged sanitize: the speed case's shape at a size
# compute-sanitizer affords. Without a GPU: --list only. Each of its sizes is the speed case's
# or smaller with the same remainder mod 128 (the tiles' remainders, and so the code paths a
# remainder picks), every other number the same (widths, streams, passes, angles), its name
# unlike the others', and it is neither the speed case nor a small one.
source "$(dirname "$0")/../lib.sh"

n=0
for h in lessons/*/*_harness.cu; do
  L=$(basename "$(dirname "$h")") T=$(basename "$h" _harness.cu)
  bin=build/solutions/$L/$T
  [ -x "$bin" ] || { bad "$bin missing (make $bin)"; continue; }
  n=$((n + 1))
  "$bin" --list >"$TEST_TMP/list" 2>&1 || { bad "$T --list failed"; continue; }
  san=$(awk -F'\t' '$3 ~ /(^|,)sanitize(,|$)/' "$TEST_TMP/list")
  speed=$(awk -F'\t' '$3 ~ /(^|,)speed(,|$)/' "$TEST_TMP/list")
  if [ "$(printf '%s\n' "$san" | grep -c .)" -ne 1 ]; then
    bad "$T: $(printf '%s\n' "$san" | grep -c .) cases flagged sanitize, expected one"; continue
  fi
  [ -n "$speed" ] || { bad "$T: no speed case"; continue; }
  flags=$(printf '%s' "$san" | cut -f3)
  [ "$flags" = sanitize ] && ok "$T: the sanitize case ($(printf '%s' "$san" | cut -f1)) is not speed or small" \
    || bad "$T: the sanitize case is flagged '$flags'"
  # dims are KEY=VALUE words: the same keys, each value equal or smaller by a multiple of 128
  why=$(awk -v a="$(printf '%s' "$san" | cut -f2)" -v b="$(printf '%s' "$speed" | cut -f2)" 'BEGIN {
    na = split(a, x, " "); nb = split(b, y, " ")
    if (na != nb) { print "dims \"" a "\" and \"" b "\" differ in kind"; exit }
    for (i = 1; i <= na; i++) {
      split(x[i], p, "="); split(y[i], q, "=")
      if (p[1] != q[1]) { print "key " p[1] " against " q[1]; exit }
      if (p[2] == q[2]) continue
      if (p[2] !~ /^[0-9]+$/ || q[2] !~ /^[0-9]+$/) { print p[1] " is " p[2] ", the speed case has " q[2]; exit }
      if (p[2] + 0 >= q[2] + 0) { print p[1] "=" p[2] " is not below the speed case'"'"'s " q[2]; exit }
      if (p[2] % 128 != q[2] % 128) { print p[1] "=" p[2] " leaves " p[2] % 128 " mod 128, the speed case " q[2] % 128; exit }
    }
  }')
  [ -z "$why" ] && ok "$T: the sanitize case has the speed case's shape, scaled" || bad "$T: $why"
done
[ $n -gt 0 ] || bad "no task harness built (make)"

# Cases of more than four times the scaled case's work are flagged large (the tools skip them),
# the speed case and the small ones never; one of the same order stays the tools'.
bin=build/solutions/04-tiling/matmul_regtile
if [ -x "$bin" ]; then
  "$bin" --list >"$TEST_TMP/list" 2>&1
  large=$(awk -F'\t' '$3 ~ /(^|,)large(,|$)/ {print $1}' "$TEST_TMP/list" | tr '\n' ' ')
  [ "$large" = "1023x517x2049 2048x2048x2048 " ] && ok "matmul_regtile: the 1.1 G and 8.6 G FMA cases are large" \
    || bad "matmul_regtile: flagged large: '$large'"
fi
bin=build/solutions/01-divergence/reduce_sum
if [ -x "$bin" ]; then
  "$bin" --list >"$TEST_TMP/list" 2>&1
  grep -q $'^n16777259_off1\t.*\t-$' "$TEST_TMP/list" && ok "reduce_sum: the odd, offset case beside the scaled one is not large" \
    || bad "reduce_sum: $(grep '^n16777259_off1' "$TEST_TMP/list")"
fi
finish
