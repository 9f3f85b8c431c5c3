#!/usr/bin/env bash
# The grader over the real course, on a GPU. The reference solutions, graded as exercises in one
# grading with compute-sanitizer and --profile: every task passes with its full weight, runs
# clean under every sanitizer tool, and has a profile whose finding is "close" (to itself) or
# "ceiling": nothing to fix. (tests/profile/test_variants.sh checks that the slow variants get
# their finding.) The shipped exercises are all "wrong" (never crashed). Each grading's time
# after the build is printed. GRADER_GPU_OUT=DIR keeps the reports there.
# Its GPU work is the grader's, which takes turns through its own lock: other such groups may
# run beside it (the times printed are then not a lone grading's).
# test-group: gpu-graded
source "$(dirname "$0")/../lib.sh"
require_gpu
source "$ROOT/tests/grader/common.sh"

out=${GRADER_GPU_OUT:-$TEST_TMP/out}
mkdir -p "$out"
# Both gradings grade copies, each built into a folder of its own: a grading of the tree's own
# exercises/ builds into build/, which other groups build and read at the same time.
scratch="$TEST_TMP/scratch" shipped="$TEST_TMP/shipped"
mkdir -p "$scratch/exercises" "$shipped/exercises"
cp -r "$ROOT/solutions/." "$scratch/exercises/"
cp -r "$ROOT/exercises/." "$shipped/exercises/"
tasks=$(make -s list-tasks)
[ -n "$tasks" ] && ok "the course has tasks: $(echo $tasks | wc -w)" || { bad "no tasks"; finish; }

# Build first (both trees), so that the timings below are grading only.
make -s -j16 $(for t in $tasks; do echo build/exercises/$t build/solutions/$t; done) \
  >"$out/build.log" 2>&1 && ok "course built" || bad "course build failed (see build.log)"
make -s -j16 EXERCISES="$scratch/exercises" EXBUILD="$scratch/build" \
  $(for t in $tasks; do echo "$scratch/build/exercises/$t"; done) >>"$out/build.log" 2>&1 \
  && ok "solutions built as exercises" || bad "solutions-as-exercises build failed"
make -s -j16 EXERCISES="$shipped/exercises" EXBUILD="$shipped/build" \
  $(for t in $tasks; do echo "$shipped/build/exercises/$t"; done) >>"$out/build.log" 2>&1 \
  && ok "a copy of the shipped exercises built" || bad "the shipped exercises' copy: build failed"

# One grading after the other: at once, on an H200 beside the other graded groups, the
# solutions' took 494 s instead of 261, and the whole run was slower.
graded() { # NAME ARGS...: a grading of the whole course; its exit status in rc, its time in ms
  local name=$1 t0
  shift
  t0=$(date +%s%N)
  "$GRADER" --batch -v --root "$ROOT" "$@" --format json --output "$out/$name.json" \
    2>"$out/$name.stderr"
  rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
}
graded solutions --exercises "$scratch/exercises" --exbuild "$scratch/build" --profile
echo "grading time, solutions as exercises: $ms ms (exit $rc)" | tee "$out/timing.txt"
[ $rc -eq 0 ] && ok "solutions: grader exits 0" || bad "solutions: grader exit $rc"
py_json "solutions: every task passed with its full weight" '
bad = [(t["id"], t["outcome"], t["reason"]) for t in d["tasks"] if t["outcome"] != "passed" or t["score"] != t["weight"]]
assert not bad, bad
assert d["score"] == d["max_score"] > 0
tot = {}
for t in d["tasks"]:
    for k, v in t["steps"].items():
        tot[k] = tot.get(k, 0) + v
print("seconds per step over the course: " + ", ".join("%s %.1f" % kv for kv in tot.items()))
for t in d["tasks"]:
    s = t["speed"]
    print("%-36s %6.1f s  speed %s  sanitizers %s" % (t["id"], t["duration_s"],
          "%.2fx (needs %.2f, %.4g ms vs ref %.4g ms)" % (s["ratio"], s["threshold"], s["time_ms"], s["ref_time_ms"]) if s["measured"] else "-",
          ",".join("%s:%s" % (x["tool"], x["status"]) for x in t["sanitizers"])))
' "$out/solutions.json"
cat "$TEST_TMP/py.out" | tee "$out/solutions.txt"
py_json "solutions: every compute-sanitizer tool ran and found nothing" '
bad = [(t["id"], s["tool"], s["status"], s.get("note")) for t in d["tasks"] for s in t["sanitizers"]
       if s["status"] != "clean"]
assert not bad, bad
assert sum(len(t["sanitizers"]) for t in d["tasks"]) >= len(d["tasks"])
' "$out/solutions.json"
# The profile of each task (grader/README.md, "Profile"): its finding "close" (to itself) or
# "ceiling", printed as tests/profile/test_variants.sh prints a variant's, and kept in
# profile.txt.
: >"$out/profile.txt"
ids='import json, sys; print(" ".join(t["id"] for t in json.load(open(sys.argv[1]))["tasks"]))'
for task in $(python3 -c "$ids" "$out/solutions.json"); do
  check_finding "$out/solutions.json" "$task" "close|ceiling" \
    "solutions: the reference solution of $task" >>"$out/profile.txt" ||
    TEST_FAILS=$((TEST_FAILS + 1))
done
cat "$out/profile.txt"
[ -s "$out/profile.txt" ] || bad "solutions: the report's tasks could not be read"

graded exercises --exercises "$shipped/exercises" --exbuild "$shipped/build" --no-state
echo "grading time, shipped exercises: $ms ms (exit $rc)" | tee -a "$out/timing.txt"
[ $rc -eq 1 ] && ok "exercises: grader exits 1" || bad "exercises: grader exit $rc"
py_json "shipped exercises: every task is wrong (not crashed)" '
bad = [(t["id"], t["outcome"], t["reason"]) for t in d["tasks"] if t["outcome"] != "wrong"]
assert not bad, bad
tot = {}
for t in d["tasks"]:
    for k, v in t["steps"].items():
        tot[k] = tot.get(k, 0) + v
print("seconds per step over the course: " + ", ".join("%s %.1f" % kv for kv in tot.items()))
' "$out/exercises.json"
cat "$TEST_TMP/py.out" | tee "$out/exercises.txt"
finish
