#!/usr/bin/env bash
# tests/run.sh itself, on a tree of three groups: one passes, one skips with its reason, one
# hangs. The hang is stopped at TEST_GROUP_TIMEOUT with its processes and reported as one FAIL
# line that says so; the others report as usual; the run exits 1 in seconds, not at the
# caller's limit (a GPU test that waited for a word of the gate nobody sent once held a whole
# test run until the machine's time was up).
source "$(dirname "$0")/../lib.sh"

tree=$TEST_TMP/tree
mkdir -p "$tree/tests/x"
cp "$ROOT/tests/run.sh" "$ROOT/tests/lib.sh" "$tree/tests/"
printf '#!/usr/bin/env bash\nexit 0\n' >"$tree/tests/x/test_ok.sh"
printf '#!/usr/bin/env bash\necho "SKIP: nothing to see"\nexit 77\n' >"$tree/tests/x/test_skip.sh"
printf '#!/usr/bin/env bash\nsleep 299.731 &\nsleep 299.731\n' >"$tree/tests/x/test_hang.sh"

start=$SECONDS
TEST_GROUP_TIMEOUT=2 TEST_JOBS=3 bash "$tree/tests/run.sh" >"$TEST_TMP/out" 2>&1
rc=$?
took=$((SECONDS - start))
[ $rc -eq 1 ] && ok "a run with a group that hangs exits 1" || bad "exit $rc, expected 1"
[ $took -lt 30 ] && ok "it ends at the group's timeout ($took s)" || bad "it took $took s"
expect_grep '^FAIL  x/test_hang .*timed out after 2 s' "$TEST_TMP/out" "the hang is one FAIL line that says it timed out"
expect_grep '^PASS  x/test_ok ' "$TEST_TMP/out" "the group beside it passes"
expect_grep '^SKIP  x/test_skip  *nothing to see$' "$TEST_TMP/out" "the skip says why"
expect_grep '^1 passed, 1 failed, 1 skipped$' "$TEST_TMP/out" "the closing line counts all three"
sleep 0.5
if pgrep -f "sleep 299.731" >/dev/null; then
  bad "the hanging group's processes outlived it"; pkill -f "sleep 299.731"
else ok "the hanging group's processes are gone"; fi
TEST_GROUP_TIMEOUT=soon bash "$tree/tests/run.sh" >"$TEST_TMP/bad" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/bad")" = 1 ] && grep -q TEST_GROUP_TIMEOUT "$TEST_TMP/bad" &&
  ok "a bad TEST_GROUP_TIMEOUT: one line, exit 2" || { bad "bad TEST_GROUP_TIMEOUT: exit $rc"; cat "$TEST_TMP/bad"; }
finish
