#!/usr/bin/env bash
# grader class, without a GPU: where a class's work goes on several GPUs (while students wait,
# each place's student on its own GPU; once none waits, each task to the least busy GPU), what
# a student reads of a failed build (their own exercises/ path, never the grader's scratch),
# a hanging student of the first round bounded by the references timed ahead, what a class
# that measured nothing says and exits with, and bad or empty input said in one line.
source "$(dirname "$0")/../lib.sh"
source tests/class/fixture.sh
setup_course
G=("$GRADER")
OPTS=(--course "$COURSE_DIR" --no-sanitize --timeout 3)
sol() { echo "$COURSE_DIR/solutions/$1.cu"; }

# ---- two GPUs, no student waiting: a student's tasks go to both, whichever GPU is less busy
# as each begins
CLASS=$TEST_TMP/probes
for s in ann bob; do
  for t in "${TASKS[@]}"; do
    case $t in 02-faults/hang|02-faults/forkloop|02-faults/flood) continue ;; esac
    put "$s" "$t" "$(sol "$t")" "$PROBE"
  done
done
GRADER_GPU_TRACE=$TEST_TMP/probes.trace "${G[@]}" class "$CLASS" "${OPTS[@]}" --gpus 0,1 --jobs 1 \
  --work "$TEST_TMP/work1" --keep-work >"$TEST_TMP/probes.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "two students on two GPUs graded (exit 0)" || { bad "exit $rc"; tail -n 20 "$TEST_TMP/probes.out"; }
skip_without_runs "$CLASS/gradebook.csv"
# One student alone: each task begins with both GPUs idle, and the ties go round the GPUs, so
# the student's tasks land on both. (Two students at once each keep to the GPU their last task
# freed while the other's is busy: the least busy GPU, as designed; which one is timing.)
"${G[@]}" class "$CLASS" "${OPTS[@]}" --gpus 0,1 --jobs 1 --only ann --force --work "$TEST_TMP/work0" \
  --keep-work >"$TEST_TMP/alone.out" 2>&1 || { bad "ann alone: exit $?"; tail -n 20 "$TEST_TMP/alone.out"; }
seen=$(grep -rh "probe CUDA_VISIBLE_DEVICES" "$TEST_TMP"/work0/ann-* 2>/dev/null | sort -u | tr '\n' ' ')
case $seen in
  *"CUDA_VISIBLE_DEVICES=0"*"CUDA_VISIBLE_DEVICES=1"*) ok "a student graded alone: tasks on GPU 0 and on GPU 1" ;;
  *) bad "a student graded alone: the runs saw only: ${seen:-nothing}" ;;
esac
expect_grep "^\[[12]/2\] (ann|bob) .*GPU 0: [0-9]+ tasks?, GPU 1: [0-9]+ tasks?\)$" "$TEST_TMP/probes.out" \
  "the line of a student says how many tasks went to each GPU"
python3 - "$TEST_TMP/probes.trace.gpus" <<'PY' >"$TEST_TMP/gpus.check" 2>&1
import sys
rows = [l.split() for l in open(sys.argv[1])]
per = {}
for pid, task, gpu in rows:
    per.setdefault(gpu, 0)
    per[gpu] += 1
assert set(per) == {"0", "1"}, per
# one grading process per student, one line per task: the split is the load's, not a parity's
assert abs(per["0"] - per["1"]) <= len(rows) // 2, per
print(per)
PY
[ $? -eq 0 ] && ok "the trace's map of tasks to GPUs names both GPUs" || { bad "trace map"; cat "$TEST_TMP/gpus.check"; }

# ---- more students than places: while some wait, each place grades on its own GPU, so the
# first student to end had every task on one GPU
CLASS=$TEST_TMP/queue
for s in amy ben cy di; do
  for t in 01-basics/pass 02-faults/skip; do put "$s" "$t" "$(sol "$t")" "$PROBE"; done
done
"${G[@]}" class "$CLASS" "${OPTS[@]}" --gpus 0,1 --jobs 1 --work "$TEST_TMP/work3" \
  >"$TEST_TMP/queue.out" 2>&1 || { bad "four students on two GPUs: exit $?"; tail -n 20 "$TEST_TMP/queue.out"; }
expect_grep "^\[1/4\] [a-z]+ .*, GPU [01]\)$" "$TEST_TMP/queue.out" \
  "with students waiting, the first student graded was graded on one GPU"

# ---- a build error reads as the student's own path, as in --batch
CLASS=$TEST_TMP/broken
put cat 01-basics/pass "$(sol 01-basics/pass)"
sed -i '1i int broken_here = ;' "$CLASS/cat/exercises/01-basics/pass.cu"
"${G[@]}" class "$CLASS" "${OPTS[@]}" --work "$TEST_TMP/work2" >"$TEST_TMP/broken.out" 2>&1
python3 - "$CLASS/cat/results.json" "$TEST_TMP/work2" <<'PY' >"$TEST_TMP/broken.check" 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
t = [t for t in r["tests"] if t["extra_data"]["task"] == "01-basics/pass"][0]
res = t["extra_data"]["result"]
assert res["outcome"] == "build_failed", res["outcome"]
assert "exercises/01-basics/pass.cu:1" in t["output"], t["output"]
assert sys.argv[2] not in t["output"] and "exercises-src" not in t["output"], t["output"]
assert "exercises-src" not in res["reason"] and res["reason"].find("exercises/01-basics/pass.cu:1") >= 0, res["reason"]
print(t["output"].splitlines()[0])
PY
[ $? -eq 0 ] && ok "a build error names exercises/01-basics/pass.cu, not the scratch directory" ||
  { bad "build error path"; cat "$TEST_TMP/broken.check"; }

# ---- a hanging student in the class's first round: the class times each task's reference
# before the first round needs it (class/pool.c), so the first look's turn at the GPU ends 5 s
# past its gate (10 times the reference's, at least 5 s), not at the run's limit (here 40 s):
# while it holds the turn no other grading of its GPU is timed
CLASS=$TEST_TMP/hanging
put hung 01-basics/pass "$(sol 01-basics/pass)" "$HANG"
t0=$SECONDS
"${G[@]}" class "$CLASS" --course "$COURSE_DIR" --no-sanitize --timeout 40 --work "$TEST_TMP/work5" \
  >"$TEST_TMP/hanging.out" 2>&1
took=$((SECONDS - t0))
python3 - "$CLASS/hung/results.json" "$took" <<'PY' >"$TEST_TMP/hanging.check" 2>&1
import json, sys
r = next(t["extra_data"]["result"] for t in json.load(open(sys.argv[1]))["tests"]
         if t["extra_data"].get("task") == "01-basics/pass")
print(f"{r['outcome']}: {r['reason']} (the class took {sys.argv[2]} s)")
assert r["outcome"] == "timed_out" and "5.0 s after its turn at the GPU began" in r["reason"], r
assert int(sys.argv[2]) < 30, sys.argv[2]
PY
[ $? -eq 0 ] && ok "a hanging first look of the class's first round ends 5 s into its turn" ||
  { bad "a hanging first look held its turn to the run's limit"; cat "$TEST_TMP/hanging.check"; }
# the class timed the references of the tasks its students handed in, not the whole course's
timed=$(ls "$TEST_TMP"/work5/gpus/*.reference/ 2>/dev/null)
[ "$(echo "$timed" | grep -c '\.ref$')" -eq 1 ] && echo "$timed" | grep -q '^01-basics__pass__' &&
  ok "one student who handed in one task: one reference timed ahead" ||
  { bad "references timed ahead for one task handed in: $(echo $timed)"; }

# ---- nothing measured (no GPU: every task that runs skips) is said, and is no success
CLASS=$TEST_TMP/nogpu
put dan 02-faults/skip "$(sol 02-faults/skip)"
put eve 02-faults/skip "$(sol 02-faults/skip)"
put eve 01-basics/pass "$(sol 01-basics/pass)"
sed -i '1i int broken_here = ;' "$CLASS/eve/exercises/01-basics/pass.cu"
"${G[@]}" class "$CLASS" "${OPTS[@]}" --work "$TEST_TMP/work3" >"$TEST_TMP/nogpu.out" 2>&1
rc=$?
[ $rc -eq 77 ] && ok "skipped beside a failed build: exit 77" || { bad "exit $rc, expected 77"; tail -n 8 "$TEST_TMP/nogpu.out"; }
expect_grep "^grader: nothing could be measured: every task that ran was skipped \(02-faults/skip: " \
  "$TEST_TMP/nogpu.out" "one line says nothing was measured, and why"

# ---- bad or empty input: one line
GRADER_ABS=$(cd "$(dirname "$GRADER")" && pwd)/$(basename "$GRADER")
one_line_exit2() { # description args...
  local what=$1; shift
  (cd "$TEST_TMP" && "$GRADER_ABS" "$@") >"$TEST_TMP/out" 2>&1; local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/out")" -eq 1 ]; then ok "$what: exit 2, one line"
  else bad "$what: exit $rc, $(wc -l <"$TEST_TMP/out") lines"; sed 's/^/    /' "$TEST_TMP/out"; fi
}
one_line_exit2 "outside a course" class "$TEST_TMP/probes"
grep -q -- "--course" "$TEST_TMP/out" && ! grep -q -- "--root" "$TEST_TMP/out" &&
  ok "outside a course: the hint names --course" || bad "outside a course: $(cat "$TEST_TMP/out")"
mkdir -p "$TEST_TMP/emptyclass"
one_line_exit2 "an empty class directory" class "$TEST_TMP/emptyclass" --course "$COURSE_DIR"
one_line_exit2 "--only a student not in the class" class "$TEST_TMP/probes" --course "$COURSE_DIR" --only nobody

CLASS=$TEST_TMP/empties
mkdir -p "$CLASS/fay" "$CLASS/gus/exercises"
"${G[@]}" class "$CLASS" "${OPTS[@]}" --work "$TEST_TMP/work4" >"$TEST_TMP/empties.out" 2>&1
expect_grep "^  fay +has no exercises/ directory" "$TEST_TMP/empties.out" "a student without exercises/ is named"
expect_grep "^  gus +handed in no task's file" "$TEST_TMP/empties.out" "a student with an empty exercises/ is named"
grep -q "students per minute" "$TEST_TMP/empties.out" && bad "a rate for students who handed nothing in" ||
  ok "no rate for a class that handed nothing in"

# a bad value's line says what the option wants
for pair in "--jobs 0:from 1 to 1024" "--gpus 1,x:device indexes 0 to 1024" \
            "--reference-every 0:from 1 to 1000000" "--timeout -1:seconds, above 0" \
            "--ncu-share 2:from 0 to 1"; do
  "${G[@]}" class "$TEST_TMP/empties" ${pair%%:*} >"$TEST_TMP/range.out" 2>&1
  rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/range.out")" -eq 1 ] &&
    grep -q "bad value for ${pair%% *}: .*(it wants .*${pair#*:}" "$TEST_TMP/range.out" &&
    ok "class ${pair%%:*}: one line with the range it wants (exit 2)" ||
    bad "class ${pair%%:*}: exit $rc: $(cat "$TEST_TMP/range.out")"
done

"${G[@]}" class "$TEST_TMP/broken" "${OPTS[@]}" --work "$TEST_TMP/work2" --force >"$TEST_TMP/force.out" 2>&1
expect_grep "1 to grade, 0 up to date; --force regrades 1 whose results were up to date$" "$TEST_TMP/force.out" \
  "--force: the student regraded is not counted up to date as well"
finish
