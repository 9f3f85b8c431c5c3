#!/usr/bin/env bash
# grader class on one machine: a dozen students of the fixture course graded cell by cell,
# Gradescope and JUnit files parsed, --gpus per child, resumability, interruption, usage errors.
source "$(dirname "$0")/../lib.sh"
source tests/class/fixture.sh
setup_course
batch_reference
make_class "$TEST_TMP/class"
G=("$GRADER")
OPTS=(--course "$COURSE_DIR" --no-sanitize --timeout 3)

# ---- usage errors: exit 2 with one line
one_line_exit2() { # description args...
  local what=$1; shift
  "${G[@]}" "$@" >"$TEST_TMP/out" 2>&1; local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$TEST_TMP/out")" -eq 1 ]; then ok "$what: exit 2, one line"
  else bad "$what: exit $rc, $(wc -l <"$TEST_TMP/out") lines"; sed 's/^/    /' "$TEST_TMP/out"; fi
}
one_line_exit2 "unknown option" class "$CLASS" --frobnicate
one_line_exit2 "no directory" class
one_line_exit2 "not a directory" class "$TEST_TMP/nope"
one_line_exit2 "bad --gpus" class "$CLASS" --gpus 0,,1
one_line_exit2 "--gpus with --slurm" class "$CLASS" --gpus 0 --slurm
one_line_exit2 "--jobs 0" class "$CLASS" --jobs 0
one_line_exit2 "--reference-every 0" class "$CLASS" --reference-every 0
one_line_exit2 "collect: unknown option" collect "$CLASS" --gpus 0

# ---- interrupted, in the background beside the gradings below: a second copy of the class,
# graded with one job and stopped after two students, then graded again (checked further down)
interrupt_and_resume() { # DIR
  local c=$1 pid rc
  "${G[@]}" class "$c" "${OPTS[@]}" --jobs 1 >"$TEST_TMP/run4" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    [ "$(ls "$c"/*/results.json 2>/dev/null | wc -l)" -ge 2 ] && break
    sleep 0.1
  done
  kill -INT $pid
  wait $pid
  rc=$?
  echo $rc >"$TEST_TMP/run4.rc"
  ls "$c"/*/results.json 2>/dev/null | wc -l >"$TEST_TMP/run4.done"
  find "$c" -name '*.tmp.*' >"$TEST_TMP/run4.tmpfiles"
  "${G[@]}" class "$c" "${OPTS[@]}" >"$TEST_TMP/run5" 2>&1
}
CLASS_MAIN=$CLASS
make_class "$TEST_TMP/class2"
CLASS2=$CLASS CLASS=$CLASS_MAIN
interrupt_and_resume "$CLASS2" &
resume_pid=$!

# ---- grade the class on two "GPUs"
snapshot() { (cd "$CLASS" && find . -path '*/exercises/*' -type f -print0 | sort -z | xargs -0 sha256sum) ; }
snapshot >"$TEST_TMP/before"
"${G[@]}" class "$CLASS" "${OPTS[@]}" --gpus 0,1 --jobs 3 --reference-every 8 --work "$TEST_TMP/work" --keep-work \
  >"$TEST_TMP/run1" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "class graded (exit 0)" || { bad "class exit $rc"; tail -n 20 "$TEST_TMP/run1"; }
skip_without_runs "$CLASS/gradebook.csv"
check_book "$CLASS/gradebook.csv"
cp "$CLASS/gradebook.csv" "$TEST_TMP/book1.csv"
snapshot >"$TEST_TMP/after"
cmp -s "$TEST_TMP/before" "$TEST_TMP/after" && ok "students' files untouched" || bad "students' files changed"
expect_grep "GPU 0[:)]" "$TEST_TMP/run1" "tasks graded on GPU 0"
expect_grep "GPU 1[:)]" "$TEST_TMP/run1" "tasks graded on GPU 1"
expect_grep "^ +13 of 13 done, [0-9.]+ students a minute$" "$TEST_TMP/run1" "the pace after the last student"
expect_grep "^ +1 of 13 done, [0-9.]+ students a minute, about [0-9]+ min [0-9]+ s left$" "$TEST_TMP/run1" \
  "the pace and the time left after the first"
grep -rh "probe CUDA_VISIBLE_DEVICES" "$TEST_TMP"/work/probe-* >"$TEST_TMP/probe" 2>/dev/null
if [ -s "$TEST_TMP/probe" ] && ! grep -qv "CUDA_VISIBLE_DEVICES=[01]$" "$TEST_TMP/probe"; then
  ok "each child saw CUDA_VISIBLE_DEVICES of its GPU"
else bad "CUDA_VISIBLE_DEVICES in the probe's runs: $(sort -u "$TEST_TMP/probe" | tr '\n' ' ')"; fi

# ---- the files: Gradescope results.json per student, JUnit XML
python3 - "$CLASS" "${#TASKS[@]}" <<'PY' >"$TEST_TMP/formats" 2>&1
import json, os, sys
import xml.etree.ElementTree as ET
cls, ntasks = sys.argv[1], int(sys.argv[2])
errors = []
students = sorted(d for d in os.listdir(cls) if not d.startswith(".") and os.path.isdir(os.path.join(cls, d)))
for s in students:
    r = json.load(open(os.path.join(cls, s, "results.json")))
    if not isinstance(r.get("score"), (int, float)) or len(r.get("tests", [])) != ntasks:
        errors.append(f"{s}: score or tests missing")
    total = 0
    for t in r["tests"]:
        if t["status"] not in ("passed", "failed") or not isinstance(t["max_score"], (int, float)):
            errors.append(f"{s}: bad test {t.get('name')}")
        total += t["score"]
    if abs(total - r["score"]) > 1e-9:
        errors.append(f"{s}: score {r['score']} is not the sum {total}")
    if r["extra_data"]["student"] != s or len(r["extra_data"]["content_hash"]) != 64:
        errors.append(f"{s}: extra_data")
root = ET.parse(os.path.join(cls, "junit.xml")).getroot()
suites = root.findall("testsuite")
if len(suites) != len(students) or int(root.get("tests")) != len(students) * ntasks:
    errors.append(f"junit: {len(suites)} suites, {root.get('tests')} tests")
crash = [x for x in suites if x.get("name") == "crash"][0]
if int(crash.get("errors")) != ntasks:
    errors.append("junit: a crash is not an <error>")
print("\n".join(errors) or "formats ok")
sys.exit(1 if errors else 0)
PY
[ $? -eq 0 ] && ok "results.json (Gradescope) and junit.xml parse and add up" || { bad "formats"; cat "$TEST_TMP/formats"; }

# ---- the GPUs' shared files: a lock per GPU, the reference timed once for several gradings
ls "$TEST_TMP"/work/gpus/*-gpu0.lock "$TEST_TMP"/work/gpus/*-gpu1.lock >/dev/null 2>&1 &&
  ok "one lock file per GPU" || bad "no lock file per GPU: $(ls "$TEST_TMP/work/gpus" 2>&1)"
python3 - "$CLASS/reference.csv" "$CLASS" <<'PY' >"$TEST_TMP/refcsv" 2>&1
import csv, glob, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no task with a reference time"
# a second look (a too slow verdict, or a first look the witness doubted on a loaded machine)
# times the reference afresh: those are counted from the students' results
looks = {}
for f in glob.glob(sys.argv[2] + "/*/results.json"):
    for t in json.load(open(f)).get("tests", []):
        res = (t.get("extra_data") or {}).get("result") or {}
        if ((res.get("speed") or {}).get("first_ratio")) is not None:
            task = t["extra_data"]["task"]
            looks[task] = looks.get(task, 0) + 1
ahead = 0
for r in rows:
    g, t = int(r["gradings"]), int(r["reference_timings"])
    # two GPUs: the class times the reference on each before its first round (class/pool.c),
    # and a time serves 8 gradings (--reference-every 8), the next times it again; a grading
    # too slow against a shared time times it again (below), so the slow task's count is only
    # bounded by g
    bound = 2 * -(-g // 8) + looks.get(r["task"], 0)
    assert t <= g if r["task"] == "01-basics/slow" else t < g and t <= bound, \
        (r["task"], g, t, "second looks", looks.get(r["task"], 0))
    if r["task"] != "01-basics/slow":
        ahead += t - looks.get(r["task"], 0)
# timed ahead, the first gradings on each GPU found a time: of the 2 a task the GPUs' first
# gradings would time, no more than 2 in all (a grading that reached its speed step before the
# class's timing of that task began)
    assert float(r["median_ms_min"]) <= float(r["median_ms_max"]), r
assert ahead <= 2, ("gradings that timed the reference beyond their second looks", ahead)
print("reference.csv ok:", [(r["task"], r["gradings"], r["reference_timings"]) for r in rows])
PY
[ $? -eq 0 ] && ok "reference.csv: the gradings shared the references' times" ||
  { bad "reference.csv"; cat "$TEST_TMP/refcsv" "$CLASS/reference.csv"; }

# ---- resumable: nothing regraded while nothing changed; one edit regrades one student
inodes() { for s in "${STUDENTS[@]}"; do stat -c "%i $s" "$CLASS/$s/results.json"; done; }
inodes >"$TEST_TMP/ino1"
"${G[@]}" class "$CLASS" "${OPTS[@]}" >"$TEST_TMP/run2" 2>&1
expect_grep "0 to grade, ${#STUDENTS[@]} up to date" "$TEST_TMP/run2" "second run grades nobody"
inodes >"$TEST_TMP/ino2"
cmp -s "$TEST_TMP/ino1" "$TEST_TMP/ino2" && ok "no results.json rewritten" || bad "results rewritten"
printf '\n/* one more comment */\n' >>"$CLASS/right2/exercises/${TASKS[0]}.cu"
"${G[@]}" class "$CLASS" "${OPTS[@]}" >"$TEST_TMP/run3" 2>&1
expect_grep "1 to grade, $(( ${#STUDENTS[@]} - 1 )) up to date" "$TEST_TMP/run3" "an edited student is regraded"
inodes >"$TEST_TMP/ino3"
[ "$(diff "$TEST_TMP/ino2" "$TEST_TMP/ino3" | grep -c '^>')" -eq 1 ] && grep -q "right2" <(diff "$TEST_TMP/ino2" "$TEST_TMP/ino3") \
  && ok "only right2's results rewritten" || bad "rewritten: $(diff "$TEST_TMP/ino2" "$TEST_TMP/ino3" | grep '^>' | tr '\n' ' ')"
cmp -s "$CLASS/gradebook.csv" "$TEST_TMP/book1.csv" && ok "same gradebook after the regrade" ||
  { bad "gradebook changed"; diff "$TEST_TMP/book1.csv" "$CLASS/gradebook.csv" | sed 's/^/    /'; }

# ---- interrupted (the second copy, above): what was graded stays, the rerun grades only the rest
wait $resume_pid
rc=$(cat "$TEST_TMP/run4.rc" 2>/dev/null)
done_before=$(cat "$TEST_TMP/run4.done" 2>/dev/null || echo 0)
[ "$rc" = 130 ] && ok "interrupted run exits 130" || bad "interrupted run exit $rc"
[ "$done_before" -ge 2 ] && [ "$done_before" -lt ${#STUDENTS[@]} ] && ok "$done_before students kept" \
  || bad "$done_before students have results after the interruption"
[ ! -s "$TEST_TMP/run4.tmpfiles" ] && ok "no temporary files left" || bad "temporary files left"
last=$(grep -oE '^ +[0-9]+ of [0-9]+ done' "$TEST_TMP/run4" | tail -n 1 | awk '{print $1}')
[ "$last" = "$done_before" ] && ok "the pace counts the $done_before students graded, not the one interrupted" ||
  { bad "the pace's last count is '$last', $done_before were graded"; tail -n 6 "$TEST_TMP/run4"; }
expect_grep "$(( ${#STUDENTS[@]} - done_before )) to grade, $done_before up to date" "$TEST_TMP/run5" "the rerun grades only the rest"
cmp -s "$CLASS2/gradebook.csv" "$TEST_TMP/book1.csv" && ok "same gradebook after resuming" ||
  { bad "gradebook after resuming differs"; diff "$TEST_TMP/book1.csv" "$CLASS2/gradebook.csv" | sed 's/^/    /'; }

# ---- collect merges a locally graded class the same way
"${G[@]}" collect "$CLASS" --course "$COURSE_DIR" >"$TEST_TMP/collect" 2>&1
rc=$?
[ $rc -eq 0 ] && cmp -s "$CLASS/gradebook.csv" "$TEST_TMP/book1.csv" && ok "collect: exit 0, same gradebook" \
  || { bad "collect: exit $rc"; cat "$TEST_TMP/collect"; }

# ---- too slow is decided against a reference timed now, never against a shared time
for s in ann bob; do
  mkdir -p "$TEST_TMP/slowpair/$s/exercises/01-basics"
  cp "$COURSE_DIR/exercises/01-basics/slow.cu" "$TEST_TMP/slowpair/$s/exercises/01-basics/"
done
"${G[@]}" class "$TEST_TMP/slowpair" "${OPTS[@]}" --jobs 1 --work "$TEST_TMP/work2" \
  >"$TEST_TMP/slowpair.out" 2>&1
python3 - "$TEST_TMP/slowpair" <<'PY' >"$TEST_TMP/slowpair.check" 2>&1
import json, sys
out = {}
for s in ("ann", "bob"):
    r = json.load(open(f"{sys.argv[1]}/{s}/results.json"))
    t = [t for t in r["tests"] if t["extra_data"]["task"] == "01-basics/slow"][0]["extra_data"]["result"]
    out[s] = (t["outcome"], t["speed"]["ref_shared"], t["reason"])
assert out["ann"][:2] == ("too_slow", False), out   # one grading at a time: ann first, timed it
# bob found ann's measurement, was too slow against it, and timed the reference again
assert out["bob"][:2] == ("too_slow", False), out
assert "earlier" not in out["bob"][2], out
PY
[ $? -eq 0 ] && ok "a second grading too slow against a shared time timed the reference again" ||
  { bad "shared reference in the verdict"; cat "$TEST_TMP/slowpair.check" "$TEST_TMP/slowpair.out"; }

# ---- one student's tasks in line (grade.h: grade_ahead): the next task's graded run starts
# while this one is verified, sanitized and timed, and never more than one task ahead
mkdir -p "$TEST_TMP/inline"
for t in "${TASKS[@]}"; do
  mkdir -p "$TEST_TMP/inline/ann/exercises/$(dirname "$t")"
  cp "$COURSE_DIR/solutions/$t.cu" "$TEST_TMP/inline/ann/exercises/$t.cu"
done
san_path=$PATH
command -v compute-sanitizer >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" ] ||
  san_path="$ROOT/tests/grader/fake-sanitizer:$PATH"
PATH=$san_path GRADER_GPU_TRACE=$TEST_TMP/inline.trace "${G[@]}" class "$TEST_TMP/inline" \
  --course "$COURSE_DIR" --timeout 3 --jobs 1 --work "$TEST_TMP/work3" >"$TEST_TMP/inline.out" 2>&1
python3 - "$TEST_TMP/inline.trace" "$TEST_TMP/inline/ann/results.json" <<'PY' >"$TEST_TMP/inline.check" 2>&1
import json, sys
rows = [f for f in (l.split() for l in open(sys.argv[1])) if len(f) == 9]
# the course's order, as the results list the tasks
order = [t["extra_data"]["task"].split("/")[-1] for t in json.load(open(sys.argv[2]))["tests"]]
look = {f[1]: float(f[4]) for f in rows if f[3] == "timed" and f[2] == f[1]}
san_end, any_end = {}, {}
for f in rows:
    any_end[f[1]] = max(any_end.get(f[1], 0), float(f[8]))
    if f[2] == "compute-sanitizer":
        san_end[f[1]] = max(san_end.get(f[1], 0), float(f[8]))
tasks = [t for t in order if t in look]
assert len(tasks) >= 4 and len(san_end) >= 3, (tasks, sorted(san_end))
ahead = [b for a, b in zip(tasks, tasks[1:]) if look[b] < any_end[a]]
assert ahead, "no task's run started before the one before it had ended"
for a, c in zip(tasks, tasks[2:]):
    if a in san_end:
        assert look[c] >= san_end[a] - 1e-6, ("two tasks ahead", a, c)
print("ahead:", ahead)
PY
[ $? -eq 0 ] && ok "a student's next run starts while this task is checked, one task ahead at most" ||
  { bad "tasks in line"; cat "$TEST_TMP/inline.check"; tail -5 "$TEST_TMP/inline.out"; }

# ---- the Slurm script, written but not submitted
make_class "$TEST_TMP/dry"
"${G[@]}" class "$TEST_TMP/dry" "${OPTS[@]}" --slurm --dry-run --no-course-build --chunk 5 --time 20 \
  --mem 4G >"$TEST_TMP/dry.out" 2>&1
script=$TEST_TMP/dry/.grader/slurm/job.sh
expect_grep "^#SBATCH --array=0-2$" "$script" "13 students in chunks of 5: 3 array tasks"
expect_grep "^#SBATCH --gres=gpu:1$" "$script" "one GPU per array task"
expect_grep "^#SBATCH --time=20$" "$script" "time limit from --time"
expect_grep "^exec .* class .*--array-task" "$script" "the array task runs grader class"
finish
