#!/usr/bin/env bash
# cuBLAS statuses are named by cuBLAS itself, and a failed CUBLAS_CHECK says the call, the
# status's name and its meaning in one line, then exits 3. No GPU needed.
source "$(dirname "$0")/../lib.sh"
bin=build/tests/demos/cublas_status
[ -x "$bin" ] || { bad "$bin missing (make $bin)"; finish; }

# 0 success, 7 invalid value, 8 arch mismatch, 15 not supported (cublas_api.h)
"$bin" 0 7 15 8 >"$TEST_TMP/out" 2>"$TEST_TMP/err"; rc=$?
[ "$rc" -eq 3 ] && ok "a failed CUBLAS_CHECK exits 3" || bad "a failed CUBLAS_CHECK exited $rc"
printf '%s\n' CUBLAS_STATUS_SUCCESS CUBLAS_STATUS_INVALID_VALUE CUBLAS_STATUS_NOT_SUPPORTED \
  CUBLAS_STATUS_ARCH_MISMATCH >"$TEST_TMP/want"
if cmp -s "$TEST_TMP/want" "$TEST_TMP/out"; then ok "every status by its cuBLAS name"
else bad "status names: $(tr '\n' ' ' <"$TEST_TMP/out")"; fi
if [ "$(wc -l <"$TEST_TMP/err")" -eq 1 ] &&
   grep -qE '^tests/demos/cublas_status\.cu:[0-9]+: .*atoi.*: CUBLAS_STATUS_ARCH_MISMATCH: .+' "$TEST_TMP/err"; then
  ok "one line: file:line: call: name: meaning ($(cat "$TEST_TMP/err"))"
else
  bad "the CUBLAS_CHECK failure line: $(cat "$TEST_TMP/err")"
fi
"$bin" 0 >/dev/null 2>&1 && ok "CUBLAS_STATUS_SUCCESS passes CUBLAS_CHECK" || bad "CUBLAS_CHECK failed on success"
finish
