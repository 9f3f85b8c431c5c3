#!/usr/bin/env bash
# A task program that finds no usable GPU (none visible: CUDA_VISIBLE_DEVICES empty, so this
# runs on any machine) exits 77 with one SKIP line and still writes its report, a TAP plan
# that skips every case (prove takes it); on a machine without the NVIDIA driver the line says
# that, not the runtime's "CUDA driver version is insufficient".
source "$(dirname "$0")/../lib.sh"

bin=build/solutions/01-divergence/reduce_sum
[ -x "$bin" ] || { bad "$bin missing (make $bin)"; finish; }
CUDA_VISIBLE_DEVICES= "$bin" --report "$TEST_TMP/r.tap" >"$TEST_TMP/out" 2>&1
rc=$?
[ $rc -eq 77 ] && ok "no device: exit 77" || bad "no device: exit $rc"
expect_grep '^SKIP: no CUDA device \(' "$TEST_TMP/out" "one SKIP line says why"
[ -s "$TEST_TMP/r.tap" ] && ok "the report is written" || bad "no report written"
expect_grep '^1\.\.0 # SKIP no CUDA device' "$TEST_TMP/r.tap" "its plan skips every case"
if command -v prove >/dev/null 2>&1; then
  prove --exec cat "$TEST_TMP/r.tap" >/dev/null 2>&1 && ok "prove reads it" || bad "prove fails the report"
fi
if [ ! -e /proc/driver/nvidia/version ]; then
  expect_grep 'no NVIDIA driver is installed' "$TEST_TMP/out" "without a driver, the line says there is none"
  grep -q 'insufficient' "$TEST_TMP/out" && bad "it blames the driver's version" || ok "and does not blame its version"
fi
finish
