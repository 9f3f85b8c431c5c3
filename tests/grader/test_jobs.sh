#!/usr/bin/env bash
# Tasks graded at once (--jobs): the same outcomes as one after the other, the report in the
# tasks' order, and timed runs that still take turns at the GPU: two tasks that each hold it
# until their time limit cannot hold it together.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics 02-faults
# A second task that never ends, next to hang: the two cannot both time their run at once.
f="$course/lessons/02-faults"
sed 's/"hang"/"stall"/' "$f/hang_harness.cu" >"$f/stall_harness.cu"
cp "$f/hang.h" "$f/stall.h"
sed -i 's/^\[task.hang\]$/&\n[task.stall]/' "$f/lesson.ini"
cp "$course/solutions/02-faults/hang.cu" "$course/solutions/02-faults/stall.cu"
cp "$course/exercises/02-faults/hang.cu" "$course/exercises/02-faults/stall.cu"

usage_error "--jobs 0" --batch --jobs 0 --root "$course"
usage_error "--jobs 65" --batch --jobs 65 --root "$course"
usage_error "-j without a number" --batch -j x --root "$course"

# the sanitizers' stage must show in the trace: the stand-in where the tool is missing
command -v compute-sanitizer >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" ] ||
  PATH="$FAKE_SANITIZER_DIR:$PATH"

grade() { # NAME JOBS: the whole fixture course, JSON to NAME.json, stderr to NAME.err
  GRADER_GPU_TRACE=$TEST_TMP/$1.trace "$GRADER" --batch --root "$course" --no-state --seed 5 --timeout 2 --jobs "$2" -v \
    --format json --output "$TEST_TMP/$1.json" 2>"$TEST_TMP/$1.err"
  echo "$1: exit $?" >>"$TEST_TMP/exits"
}
grade one 1
grade four 4
expect_grep '^one: exit 1' "$TEST_TMP/exits" "one at a time: exit 1 (tasks fail by design)"
expect_grep '^four: exit 1' "$TEST_TMP/exits" "four at once: exit 1"
expect_grep 'grading 15 tasks, 4 at once' "$TEST_TMP/four.err" "four at once says so"
expect_grep 'grading 15 tasks, 1 at once' "$TEST_TMP/one.err" "one at a time says so"

py_json "four at once: every task has the outcome it has graded alone, in the same order" '
one = json.load(open(sys.argv[1].replace("four.json", "one.json")))
a = [(t["id"], t["outcome"]) for t in one["tasks"]]
b = [(t["id"], t["outcome"]) for t in d["tasks"]]
assert a == b, (a, b)
assert dict(b)["02-faults/stall"] == "timed_out" and dict(b)["02-faults/hang"] == "timed_out", b
assert dict(b)["01-basics/pass"] == "passed" and dict(b)["01-basics/slow"] == "too_slow", b
' "$TEST_TMP/four.json"

# hang and stall each hold their turn at the GPU for most of their 2 s (the limit counts from
# the program's start, the turn from its gate, which a loaded machine reaches later: 1.899 s
# on an H200 beside the other test groups): whenever they ran, no two timed runs ever had
# their turns at once (the trace of every hold: grade.c, gpu_trace)
py_json "four at once: the two endless runs took turns at the GPU" '
t = {x["id"]: x for x in d["tasks"]}
h, s = t["02-faults/hang"]["gpu"], t["02-faults/stall"]["gpu"]
assert h["timed_s"] >= 1.5 and s["timed_s"] >= 1.5, (h, s)
turns = sorted((float(f[6]), float(f[7]), f[1]) for f in
               (l.split() for l in open(sys.argv[1].replace(".json", ".trace")))
               if len(f) == 9 and f[6] != "-")
assert sum(1 for x in turns if x[2] in ("hang", "stall") and x[1] - x[0] >= 1.5) == 2, turns
for a, b in zip(turns, turns[1:]):
    assert b[0] >= a[1] - 1e-6, ("two turns at once", a, b)
' "$TEST_TMP/four.json"

# The stages of grade_many.c: no run that needs the GPU alone (a reference's time, a second look,
# ncu alone) takes its turn before every first look and every sanitizer has ended, so none of
# them waits for a sanitizer; but their programs start beside the first stage, so that they
# are at their gates when it ends.
py_json "four at once: first looks and sanitizers, then the runs alone, started beside them" '
rows = [f for f in (l.split() for l in open(sys.argv[1].replace(".json", ".trace"))) if len(f) == 9]
looks = [f for f in rows if f[3] == "timed" and f[2] != "ncu"]
tools = [f for f in rows if f[2] == "compute-sanitizer"]
alone = [f for f in rows if f[3] == "alone" and f[6] != "-"]
assert len(looks) >= 10 and len(tools) >= 10 and len(alone) >= 2, (len(looks), len(tools), len(alone))
last = max(float(f[8]) for f in looks + tools)
assert min(float(f[6]) for f in alone) >= last - 1e-6, ("alone before the first stage ended", last)
assert min(float(f[4]) for f in alone) < last, ("no run alone started beside the first stage", last)
' "$TEST_TMP/four.json"

# Twice as many graded runs as checkers are under way (grade_many.c): while hang and stall
# hold their turns, more than 4 first looks wait at their gates.
py_json "four at once: more than four graded runs under way at some moment" '
rows = [f for f in (l.split() for l in open(sys.argv[1].replace(".json", ".trace"))) if len(f) == 9]
looks = [(float(f[4]), float(f[8])) for f in rows if f[3] == "timed" and f[2] != "ncu"]
most = max(sum(1 for a, b in looks if a <= t < b) for t, _ in looks)
assert 4 < most <= 8, most
' "$TEST_TMP/four.json"

# the progress lines come in the tasks order, whichever finished first
grep -o '^graded  [^ ]*' "$TEST_TMP/four.err" | awk '{print $2}' >"$TEST_TMP/four.order"
python3 -c 'import json,sys; [print(t["id"]) for t in json.load(open(sys.argv[1]))["tasks"] if t["outcome"] != "not_run"]' \
  "$TEST_TMP/one.json" >"$TEST_TMP/one.order" 2>/dev/null
cmp -s "$TEST_TMP/four.order" "$TEST_TMP/one.order" && ok "progress lines in the tasks' order" ||
  { bad "progress lines out of order"; diff "$TEST_TMP/one.order" "$TEST_TMP/four.order" | head; }

finish
