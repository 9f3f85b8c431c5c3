#!/usr/bin/env bash
# An exercise that says "done" on the grader's gate before its timed calls (LAB_GATE_DONE, the
# descriptor is in its environment) gives its turn away, and commits to no outputs: the
# witness (grader/engine/grade/witness.h) finds no commitment and the time implausible. Graded beside
# another task (-j 2): the turn is handed on at its word, the other task passes, and no two
# runs ever have their turns at once.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
# task slow (bar 0.2): right, but 300 ms of spinning per call where the reference takes a
# fraction of a millisecond, and "done" sent at its first element, before any timed call
cat >"$course/exercises/01-basics/slow.cu" <<'EOF'
/* Gives its turn away at once, then spins through its timed calls. */
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include "protocol.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double task_compute(long i, uint64_t seed)
{
    static int said;
    const char *fd = getenv("LAB_GATE_FD");
    if (!said && fd) {
        char d = 'D';
        send(atoi(fd), &d, 1, MSG_NOSIGNAL);
        said = 1;
    }
    if (i == 0)
        for (double t0 = now_s(); now_s() - t0 < 0.3;)
            ;
    return protocol_expected(i, seed);
}
EOF

GRADER_GPU_TRACE="$TEST_TMP/trace" "$GRADER" --batch --root "$course" --seed 3 --no-sanitize \
  --no-objcheck --no-state --ncu-share 0 -j 2 pass slow --format json --output "$TEST_TMP/r.json" \
  2>"$TEST_TMP/err"
rc=$?
[ $rc -eq 1 ] && ok "graded (exit 1: slow fails)" || { bad "exit $rc, expected 1"; tail -5 "$TEST_TMP/err"; }

py_json "done before the timed calls: no commitment, an implausible time" '
t = {x["id"]: x for x in d["tasks"]}["01-basics/slow"]
assert t["outcome"] == "implausible", (t["outcome"], t["reason"])
assert "commitment" in t["reason"], t["reason"]
' "$TEST_TMP/r.json"
py_json "the task graded beside it passes" '
t = {x["id"]: x for x in d["tasks"]}["01-basics/pass"]
assert t["outcome"] == "passed", (t["outcome"], t["reason"])
' "$TEST_TMP/r.json"

# The trace (grade.c: gpu_trace): pid task program use asked from turn turn_end end.
python3 - "$TEST_TMP/trace" >"$TEST_TMP/trace.out" 2>&1 <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
# the exercise's runs and the reference's share a name: the exercise's are those that went on
# spinning (300 ms a case) after their turn ended, its first look (timed) and its second
# (alone); the reference's end with their turn
gated = [r for r in rows if r[1] == "slow" and r[2] == "slow" and r[6] != "-"]
mine = [r for r in gated if float(r[8]) - float(r[7]) > 0.45]
assert [r[3] for r in mine] == ["timed"], ("the exercise's look", gated)
for r in mine:
    assert float(r[7]) - float(r[6]) < 0.25, ("its turn was kept", r)
turns = sorted((float(r[6]), float(r[7])) for r in rows if r[6] != "-")
for (a, b), (c, _) in zip(turns, turns[1:]):
    assert c >= b, ("two turns at once", a, b, c)
print("runs of the exercise through the gate:", len(mine), "turns in all:", len(turns))
PY
[ $? -eq 0 ] && ok "its turn ended at its word, before its timed calls; no two turns overlapped" ||
  { bad "the trace"; cat "$TEST_TMP/trace.out" "$TEST_TMP/trace"; }
finish
