#!/usr/bin/env bash
# grader --batch --profile end to end on the CPU, with the stand-in ncu (tests/grader/fake-ncu:
# the exercise's kernels 1.5 ms a call, a reference solution's 0.75 ms): the digest in the JSON
# report (a profile object per task: both sides' figures and one finding from the lesson's
# profile.ini), in the text report and in Gradescope's output; counters not permitted and a
# missing ncu give the unavailable line and the harness's own figures; the verdict never moves;
# without --profile there is no profile.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"
FAKE_NCU_DIR="$ROOT/tests/grader/fake-ncu"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
l="$course/lessons/05-prof"
mkdir -p "$l" "$course/exercises/05-prof" "$course/solutions/05-prof"
printf '[lesson]\ntitle = Profiles\n' >"$l/lesson.ini"
cat >"$l/profile.ini" <<'INI'
[rule.slow_kernels]
when = student.time_ms > 1.5 * ref.time_ms
say = your kernels take %student% ms where the reference's take %ref% ms
teach = Lesson 05, section 1
INI
for name in prof_slow prof_noperm prof_one prof_faults; do
  printf '[task.%s]\nspeed_threshold = 0.01\n' "$name" >>"$l/lesson.ini"
  cat >"$l/$name.h" <<H
#include <stdint.h>
double task_compute(long i, uint64_t seed);
double protocol_expected(long i, uint64_t seed);
double task_speed_ms(void);
H
  cat >"$l/${name}_harness.cu" <<H
#include "protocol.h"
#include "lab_protocol.h"
double task_speed_ms(void);
const struct protocol_case *protocol_cases(size_t *n)
{
    static struct protocol_case cases[] = {{"17", 17, LAB_LIST_SMALL, -1}, {"20000", 20000, LAB_LIST_SPEED, -1}};
    cases[1].time_ms = task_speed_ms();
    *n = 2;
    return cases;
}
int main(int c, char **v) { return protocol_main("$name", c, v); }
H
  sides="exercises:2.0 solutions:1.0"
  # a call whose time the one kernel does not explain (copies, page faults): 10 ms around 1.5
  [ $name = prof_faults ] && sides="exercises:10.0 solutions:5.0"
  for side in $sides; do
    printf '#include "protocol.h"\ndouble task_speed_ms(void) { return %s; }\n%s\n' "${side#*:}" \
      'double task_compute(long i, uint64_t seed) { return protocol_expected(i, seed); }' \
      >"$course/${side%%:*}/05-prof/$name.cu"
  done
done

run_batch() { # OUT FORMAT [options...]
  local out=$1 fmt=$2; shift 2
  PATH="$FAKE_NCU_DIR:$PATH" "$GRADER" --batch --root "$course" --seed 3 --no-sanitize --no-state \
    --ncu-share 0 "$@" --format "$fmt" --output "$out" 2>"$TEST_TMP/err"
}

run_batch "$TEST_TMP/p.json" json --profile prof_slow prof_noperm
rc=$?
[ $rc -eq 0 ] && ok "--profile: the batch passes as it would without (exit 0)" || bad "exit $rc"
py_json "the rule of the lesson's profile.ini is the finding, with both sides' figures" '
t = next(t for t in d["tasks"] if t["task"] == "prof_slow")
assert t["outcome"] == "passed", (t["outcome"], t["reason"])
p = t["profile"]
assert p["available"] is True, p
f = p["finding"]
assert f["key"] == "slow_kernels", f
assert f["text"] == "your kernels take 1.5 ms where the reference'"'"'s take 0.75 ms", f
assert f["teach"] == "Lesson 05, section 1", f
assert abs(p["student"]["time_ms"] - 1.5) < 1e-9 and abs(p["reference"]["time_ms"] - 0.75) < 1e-9, p
assert p["student"]["kernels"] == 2 and len(p["student"]["launches"]) == 2, p["student"]
# counters from the first launch of the shape (ncu replays one), every launch timed
assert p["student"]["launches_replayed"] == 1, p["student"]
assert [round(k["time_ms"], 9) for k in p["student"]["launches"]] == [0.6, 0.9], p["student"]["launches"]
assert p["harness"]["ratio"] is not None, p["harness"]
' "$TEST_TMP/p.json"
py_json "counters not permitted: unavailable, why and how to allow it, the harness's own times" '
t = next(t for t in d["tasks"] if t["task"] == "prof_noperm")
assert t["outcome"] == "passed", (t["outcome"], t["reason"])
p = t["profile"]
assert p["available"] is False and p["finding"]["key"] == "unavailable", p
assert "ERR_NVGPUCTRPERM" in p["why"] and "NVreg_RestrictProfilingToAdminUsers=0" in p["why"], p
assert "student" not in p and abs(p["harness"]["time_ms"] - 2.0) < 1e-9, p
' "$TEST_TMP/p.json"

# The reference's side is profiled once per reference build and GPU (build/grader/profile-ref)
# and serves later profiles; the student's side is profiled every time.
rm -rf "$course/build/grader/profile-ref"
for k in 1 2; do
  FAKE_NCU_CALLS="$TEST_TMP/calls" run_batch "$TEST_TMP/again$k.json" json --profile prof_slow
done
# (the exercise's ncu runs in the sandbox, which cannot write the call log: its profile is
# seen in each report instead)
refs=$(grep -c '/solutions/' "$TEST_TMP/calls")
for k in 1 2; do
  py_json "profile $k of 2: the digest, the reference's side from ncu or the cache" '
p = d["tasks"][0]["profile"]
assert p["finding"]["key"] == "slow_kernels" and abs(p["reference"]["time_ms"] - 0.75) < 1e-9, p
assert abs(p["student"]["time_ms"] - 1.5) < 1e-9, p
assert d["tasks"][0]["steps"]["profile"] > 0, d["tasks"][0]["steps"]
' "$TEST_TMP/again$k.json"
done
[ "$refs" = 2 ] && ok "two profiles of a task: the reference under ncu once (counters, times)" ||
  bad "the reference went under ncu $refs times in two profiles (want 2, counters and times: the second from the cache)"
grep -q '/solutions/.* per-launch-config metrics=' "$TEST_TMP/calls" &&
  grep -q '/solutions/.* metrics=gpu__time_duration.sum$' "$TEST_TMP/calls" &&
  ok "the counters of one launch of each kernel and shape; every launch timed in a run of its own" ||
  bad "the profile's two ncu runs: $(cat "$TEST_TMP/calls")"
# A call of one launch a kernel and shape: the counters' run replayed each, and its time is
# the launch's; no second run (on the H200 it would hold the GPU alone 0.7 s for ncu's setup).
# Kept so for the reference, which the next profile reads without ncu.
rm -rf "$course/build/grader/profile-ref"
: >"$TEST_TMP/calls1"
for k in 1 2; do
  FAKE_NCU_CALLS="$TEST_TMP/calls1" run_batch "$TEST_TMP/one$k.json" json --profile prof_one
  py_json "one launch a call, profile $k of 2: its replayed time is its time" '
p = d["tasks"][0]["profile"]
assert abs(p["student"]["time_ms"] - 1.5) < 1e-9 and abs(p["reference"]["time_ms"] - 0.75) < 1e-9, p
assert len(p["student"]["launches"]) == 1 and p["student"]["launches_replayed"] == 1, p["student"]
' "$TEST_TMP/one$k.json"
done
[ "$(grep -c '/solutions/' "$TEST_TMP/calls1")" = 1 ] &&
  grep -q '/solutions/.* per-launch-config metrics=' "$TEST_TMP/calls1" &&
  ok "one launch a call: the reference's counters only, once in two profiles" ||
  bad "one launch a call: the reference's ncu runs: $(cat "$TEST_TMP/calls1")"
# A call whose harness time is far above its replayed launch: every launch timed after all.
: >"$TEST_TMP/calls3"
FAKE_NCU_CALLS="$TEST_TMP/calls3" run_batch "$TEST_TMP/faults.json" json --profile prof_faults
grep -q '/solutions/.* metrics=gpu__time_duration.sum$' "$TEST_TMP/calls3" &&
  ok "a call 5 ms around a launch of 0.75 ms: every launch timed in a run of its own" ||
  bad "a call the replay does not explain: the reference's ncu runs: $(cat "$TEST_TMP/calls3")"

# Two gradings that miss the reference's logs together: one profiles it, the other waits for
# it and reads what it kept (a class's students, or several graders of one course).
rm -rf "$course/build/grader/profile-ref"
: >"$TEST_TMP/calls2"
for k in 1 2; do
  FAKE_NCU_SLEEP=1 FAKE_NCU_CALLS="$TEST_TMP/calls2" run_batch "$TEST_TMP/together$k.json" json \
    --profile --exercises "$course/exercises" --exbuild "$TEST_TMP/exbuild$k" prof_slow &
done
wait
refs=$(grep -c '/solutions/' "$TEST_TMP/calls2")
[ "$refs" = 2 ] && ok "two gradings at once: the reference under ncu once (counters, times)" ||
  bad "two gradings at once profiled the reference $refs times (want 2: counters and times, once)"
for k in 1 2; do
  py_json "grading $k of the two at once: the reference's side in its digest" '
t = d["tasks"][0]
assert t["outcome"] == "passed", (t["outcome"], t["reason"])
p = t["profile"]
assert p["finding"]["key"] == "slow_kernels" and abs(p["reference"]["time_ms"] - 0.75) < 1e-9, p
' "$TEST_TMP/together$k.json"
done
# the harness's own kernels (namespace lab, mangled _ZN3lab...) are not profiled at all: each
# costs as many replays as a kernel of the task's
[ "$(grep -c '/solutions/.* kernel-name=regex:^(?!_ZN3lab) ' "$TEST_TMP/calls")" = 2 ] &&
  ok "the profile asks ncu to leave the harness's kernels (lab::) out" ||
  bad "the profile's ncu call has no filter for the harness's kernels: $(cat "$TEST_TMP/calls")"

run_batch "$TEST_TMP/p.txt" text --profile prof_slow prof_noperm
grep -q 'profile: your kernels take 1.5 ms where the reference.s take 0.75 ms (Lesson 05, section 1)' \
  "$TEST_TMP/p.txt" && ok "text: the finding under the task, with the lesson that teaches it" ||
  bad "text: $(cat "$TEST_TMP/p.txt")"
grep -q 'kernel time  *1.5 ms  *0.75 ms' "$TEST_TMP/p.txt" &&
  ok "text: the figures side by side" || bad "text figures: $(cat "$TEST_TMP/p.txt")"
grep -q 'profile: no profile: ncu may not read' "$TEST_TMP/p.txt" &&
  grep -q 'the harness measured: yours   2 ms' "$TEST_TMP/p.txt" &&
  ok "text: the unavailable line, then what the harness measured" ||
  bad "text unavailable: $(cat "$TEST_TMP/p.txt")"

run_batch "$TEST_TMP/p.gs.json" gradescope --profile prof_slow
py_json "gradescope: the digest in the test's output and its result" '
t = d["tests"][0]
assert "profile: your kernels take 1.5 ms" in t["output"], t["output"]
assert t["extra_data"]["result"]["profile"]["finding"]["key"] == "slow_kernels", t["extra_data"]
' "$TEST_TMP/p.gs.json"

run_batch "$TEST_TMP/missing.json" json --profile --ncu "$TEST_TMP/no-such-ncu" prof_slow
py_json "no ncu: unavailable, saying so; the outcome stands" '
t = d["tasks"][0]
assert t["outcome"] == "passed", t["outcome"]
assert t["profile"]["finding"]["key"] == "unavailable", t["profile"]
assert t["profile"]["why"].startswith("ncu: the path given"), t["profile"]
' "$TEST_TMP/missing.json"

# grader class --profile: two students, the summary counts their findings per task (the
# stand-in's kernels are the same for both)
cls="$TEST_TMP/class"
for who in ann bob; do
  mkdir -p "$cls/$who/exercises"
  cp -r "$course/exercises/05-prof" "$cls/$who/exercises/"
done
PATH="$FAKE_NCU_DIR:$PATH" "$GRADER" class "$cls" --course "$course" --no-sanitize --ncu-share 0 \
  --profile --work "$TEST_TMP/work" >"$TEST_TMP/class.out" 2>&1
grep -q '^  05-prof/prof_slow: 2 of 2 slow_kernels$' "$TEST_TMP/class.out" &&
  grep -q '^  05-prof/prof_noperm: 2 of 2 unavailable$' "$TEST_TMP/class.out" &&
  ok "grader class --profile: per task, how many students got which finding" ||
  bad "class summary: $(cat "$TEST_TMP/class.out")"
py_json "grader class --profile: each student's results.json holds the digest" '
r = {t["extra_data"]["task"]: t["extra_data"].get("result") for t in d["tests"]}
assert r["05-prof/prof_slow"]["profile"]["finding"]["key"] == "slow_kernels", r["05-prof/prof_slow"]
' "$cls/ann/results.json"

run_batch "$TEST_TMP/none.json" json prof_slow
py_json "without --profile: no profile" '
assert "profile" not in d["tasks"][0], d["tasks"][0].keys()
' "$TEST_TMP/none.json"
finish
