#!/usr/bin/env bash
# The red-team group: first that the runner fails a case that it must fail (an outcome not
# expected), then every case of tests/redteam/cases (run.sh; GPU cases SKIP without a GPU).
# test-group: gpu-graded
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

REDTEAM_TIMES="$TEST_TMP/times" "$RUN"
rc=$?
case $rc in
  0) ok "every red-team case held" ;;
  77) echo "SKIP: every red-team case needs a GPU"; exit 77 ;;
  *) bad "some red-team case failed (table above)" ;;
esac

# A case that exhausts what other gradings' bounds count too (a fork loop up to the process
# bound, which is per user) ran with no other case beside it: its forks once made the others' fail.
python3 - "$TEST_TMP/times" <<'PY' && ok "the cases marked alone (the fork loop) ran with nothing beside them" || bad "a case marked alone ran beside another"
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
alone = [r for r in rows if r[3] == "alone"]
names = {r[0] for r in alone}
if "fork_loop" not in names:
    print("    fork_loop did not run alone:", sorted(names)); sys.exit(1)
slow = sorted(rows, key=lambda r: float(r[1]) - float(r[2]))[:5]
print("# the slowest cases: " + ", ".join("%s %.0f s" % (r[0], float(r[2]) - float(r[1])) for r in slow))
for a in alone:
    for r in rows:
        if r is not a and float(r[1]) < float(a[2]) and float(a[1]) < float(r[2]):
            print("    %s ran beside %s" % (a[0], r[0])); sys.exit(1)
PY
finish
