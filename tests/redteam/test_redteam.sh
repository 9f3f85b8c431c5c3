#!/usr/bin/env bash
# The red-team group: first that the runner fails a case that it must fail (an outcome not
# expected), then every case of tests/redteam/cases (run.sh; GPU cases SKIP without a GPU).
# test-group: gpu-steps
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/tests/redteam/run.sh
[ -x "$ROOT/build/grader/grader" ] || { echo "FAIL - build/grader/grader is not built"; exit 1; }
[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || { echo "SKIP: no nvcc: the course cannot be built"; exit 77; }

# Two liars: one expects a pass where the object check rejects; the other a pass where the
# sandbox alone (--no-objcheck) sees the crash.
for liar in liar sandbox_liar; do
  mkdir -p "$TEST_TMP/cases/$liar"
  cp "$ROOT/tests/redteam/cases/segfault/matmul_naive.cu" "$TEST_TMP/cases/$liar/"
done
sed 's/^expect = .*/expect = passed/' "$ROOT/tests/redteam/cases/segfault/case.conf" \
  >"$TEST_TMP/cases/liar/case.conf"
sed 's/^sandbox = .*/sandbox = passed/' "$ROOT/tests/redteam/cases/segfault/case.conf" \
  >"$TEST_TMP/cases/sandbox_liar/case.conf"
REDTEAM_CASES="$TEST_TMP/cases" "$RUN" >"$TEST_TMP/liar.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^liar .*outcome rejected" "$TEST_TMP/liar.out" &&
   grep -q "^sandbox_liar/sandbox .*outcome crashed" "$TEST_TMP/liar.out" &&
   grep -q "^sandbox_liar  .*rejected .*ok$" "$TEST_TMP/liar.out"; then
  ok "the runner fails a case whose outcome is not the expected one, in either row"
else bad "the runner passed a wrong expectation (exit $rc)"; sed 's/^/    /' "$TEST_TMP/liar.out"; fi

"$RUN"
rc=$?
case $rc in
  0) ok "every red-team case held" ;;
  77) echo "SKIP: every red-team case needs a GPU"; exit 77 ;;
  *) bad "some red-team case failed (table above)" ;;
esac
finish
