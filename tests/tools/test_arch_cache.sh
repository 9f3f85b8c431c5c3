#!/usr/bin/env bash
# The Makefile asks nvidia-smi for ARCH once and keeps the answer in BUILD/.arch under a key
# (host name and the driver's GPU list): a make with nothing to do starts no nvidia-smi; another
# key asks again; ARCH given on the command line wins and leaves the cache alone.
source "$(dirname "$0")/../lib.sh"

STUB=$TEST_TMP/bin
mkdir -p "$STUB"
cat >"$STUB/nvidia-smi" <<SH
#!/bin/sh
echo called >>"$TEST_TMP/calls"
echo 8.6
SH
chmod +x "$STUB/nvidia-smi"
B=$TEST_TMP/build
calls() { [ -f "$TEST_TMP/calls" ] && wc -l <"$TEST_TMP/calls" || echo 0; }
arch() { # make's ARCH for BUILD=$B, extra words passed on
  PATH=$STUB:$PATH make --no-print-directory BUILD="$B" "$@" \
    --eval 'show-arch: ; @echo $(ARCH)' show-arch 2>"$TEST_TMP/make.err"
}

got=$(arch)
[ "$got" = sm_86 ] && [ "$(calls)" = 1 ] && ok "first make asks nvidia-smi once: $got" ||
  bad "first make: ARCH '$got', nvidia-smi called $(calls) times (want sm_86, 1)"
[ "$(cut -d' ' -f1 "$B/.arch" 2>/dev/null)" = sm_86 ] && ok "the answer is kept in BUILD/.arch" ||
  bad "BUILD/.arch holds '$(cat "$B/.arch" 2>/dev/null)'"

got=$(arch); got2=$(arch)
[ "$got" = sm_86 ] && [ "$got2" = sm_86 ] && [ "$(calls)" = 1 ] &&
  ok "later makes read the cache: no nvidia-smi" ||
  bad "later makes: ARCH '$got' '$got2', nvidia-smi called $(calls) times (want 1)"

echo "sm_70 another-host another-gpu" >"$B/.arch"
got=$(arch)
[ "$got" = sm_86 ] && [ "$(calls)" = 2 ] && ok "a cache kept under another key is asked again" ||
  bad "another key: ARCH '$got', nvidia-smi called $(calls) times (want sm_86, 2)"

cp "$B/.arch" "$TEST_TMP/arch.before"
got=$(arch ARCH=sm_75)
[ "$got" = sm_75 ] && [ "$(calls)" = 2 ] && cmp -s "$B/.arch" "$TEST_TMP/arch.before" &&
  ok "ARCH=sm_75 on the command line wins, asks nothing and keeps the cache" ||
  bad "ARCH=sm_75: got '$got', nvidia-smi called $(calls) times, cache $(cat "$B/.arch")"

echo "garbage" >"$B/.arch"
got=$(arch)
[ "$got" = sm_86 ] && [ "$(calls)" = 3 ] && ok "a cache that holds no sm_XX is asked again" ||
  bad "garbage cache: ARCH '$got', nvidia-smi called $(calls) times (want sm_86, 3)"
finish
