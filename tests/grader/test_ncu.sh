#!/usr/bin/env bash
# The speed's cross-check under ncu (grader/engine/grade/grade_ncu.h), with a stand-in ncu
# (tests/grader/fake-ncu: 1.5 ms of kernels a call) over tasks whose reports give fixed times:
# agreeing times pass, a time ten times below the kernels' is implausible, a missing ncu or
# counters it may not read leave the outcome alone and say why, and --ncu-share 0 checks only
# what was faster than the reference.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"
FAKE_NCU_DIR="$ROOT/tests/grader/fake-ncu"

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
# ncu_lesson DIR: lesson 05-ncu, one task per line of "name exercise_ms reference_ms": each
# report gives that time for the speed case, whatever the run took.
ncu_lesson() {
  local l="$1/lessons/05-ncu" name ex ref
  mkdir -p "$l" "$1/exercises/05-ncu" "$1/solutions/05-ncu"
  printf '[lesson]\ntitle = Speed cross-checks\n' >"$l/lesson.ini"
  while read -r name ex ref; do
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
    for side in exercises:$ex solutions:$ref; do
      printf '#include "protocol.h"\ndouble task_speed_ms(void) { return %s; }\n%s\n' "${side#*:}" \
        'double task_compute(long i, uint64_t seed) { return protocol_expected(i, seed); }' \
        >"$1/${side%%:*}/05-ncu/$name.cu"
    done
  done
}
ncu_lesson "$course" <<'T'
ncu_agrees 2.0 1.0
ncu_forged 0.15 1.0
ncu_faster 2.0 4.0
ncu_noperm 2.0 1.0
ncu_liar 0.15 1.0
T
# a forger who prints what ncu prints when the counters are not permitted
cat >"$course/exercises/05-ncu/ncu_liar.cu" <<'C'
#include <stdio.h>
#include "protocol.h"
double task_speed_ms(void) { return 0.15; }
double task_compute(long i, uint64_t seed)
{
    if (i == 0)
        printf("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n");
    return protocol_expected(i, seed);
}
C

PATH="$FAKE_NCU_DIR:$PATH" GRADER_GPU_TRACE="$TEST_TMP/trace" "$GRADER" --batch --root "$course" \
  --seed 3 --no-sanitize --no-state --ncu-share 1 ncu_agrees ncu_forged ncu_noperm ncu_liar \
  --format json --output "$TEST_TMP/all.json" 2>"$TEST_TMP/err"
rc=$?
[ $rc -eq 1 ] && ok "--ncu-share 1: a forged time fails the batch (exit 1)" || bad "exit $rc, expected 1"
# ncu's first look is timed beside other work; what it does not settle (a disagreement, an
# error) is looked at again with the GPU alone, and only that second look is recorded
uses=$(for t in ncu_agrees ncu_forged ncu_noperm; do
  printf '%s:%s ' $t "$(awk -v t=$t '$2 == t && $3 == "ncu" { printf "%s,", $4 }' "$TEST_TMP/trace")"; done)
[ "$uses" = "ncu_agrees:timed, ncu_forged:timed,alone, ncu_noperm:timed,alone, " ] &&
  ok "ncu: one timed look when the times agree, a second alone when they do not or ncu failed" ||
  bad "ncu's looks by task: $uses"
py_json "times that agree: passed, speed.ncu agrees, 1.5 ms of kernels a call" '
t = next(t for t in d["tasks"] if t["task"] == "ncu_agrees")
assert t["outcome"] == "passed", (t["outcome"], t["reason"])
assert t["speed"]["ncu"] == "agrees", t["speed"]
assert abs(t["speed"]["ncu_ms"] - 1.5) < 1e-9, t["speed"]["ncu_ms"]
' "$TEST_TMP/all.json"
py_json "a reported time ten times below the kernels: implausible, both times in the reason" '
t = next(t for t in d["tasks"] if t["task"] == "ncu_forged")
assert t["outcome"] == "implausible" and t["score"] == 0, (t["outcome"], t["reason"])
assert t["speed"]["ncu"] == "disagrees", t["speed"]
r = t["reason"]
assert "0.15 ms" in r and "1.5 ms" in r and "ncu" in r, r
' "$TEST_TMP/all.json"
py_json "counters not permitted (ERR_NVGPUCTRPERM): passed, the cross-check unavailable and why" '
t = next(t for t in d["tasks"] if t["task"] == "ncu_noperm")
assert t["outcome"] == "passed", (t["outcome"], t["reason"])
n = t["speed"]["ncu"]
assert n.startswith("unavailable: ") and "ERR_NVGPUCTRPERM" in n, n
assert t["speed"]["ncu_ms"] is None, t["speed"]
' "$TEST_TMP/all.json"
py_json "what the program prints is not what ncu says: ERR_NVGPUCTRPERM printed, still implausible" '
t = next(t for t in d["tasks"] if t["task"] == "ncu_liar")
assert t["outcome"] == "implausible" and t["speed"]["ncu"] == "disagrees", (t["outcome"], t["speed"])
' "$TEST_TMP/all.json"

"$GRADER" --batch --root "$course" --seed 3 --no-sanitize --no-state --ncu-share 1 \
  --ncu "$TEST_TMP/no-such-ncu" ncu_agrees --format json --output "$TEST_TMP/missing.json" 2>/dev/null
py_json "no ncu: passed, the cross-check unavailable, saying ncu is missing" '
t = d["tasks"][0]
assert t["outcome"] == "passed", (t["outcome"], t["reason"])
assert t["speed"]["ncu"].startswith("unavailable: ncu"), t["speed"]["ncu"]
' "$TEST_TMP/missing.json"

PATH="$FAKE_NCU_DIR:$PATH" "$GRADER" --batch --root "$course" --seed 3 --no-sanitize --no-state \
  --ncu-share 0 ncu_agrees ncu_faster --format json --output "$TEST_TMP/share0.json" 2>/dev/null
py_json "--ncu-share 0: slower than the reference is not cross-checked, 10 % faster still is" '
t = {t["task"]: t for t in d["tasks"]}
assert t["ncu_agrees"]["outcome"] == "passed" and t["ncu_agrees"]["speed"]["ratio"] < 1, t["ncu_agrees"]
assert t["ncu_agrees"]["speed"]["ncu"] == "not run", t["ncu_agrees"]["speed"]
assert t["ncu_agrees"]["speed"]["ncu_ms"] is None, t["ncu_agrees"]["speed"]
assert t["ncu_faster"]["speed"]["ratio"] > 1.1, t["ncu_faster"]["speed"]
assert t["ncu_faster"]["speed"]["ncu"] == "agrees", t["ncu_faster"]["speed"]
' "$TEST_TMP/share0.json"

# grader class passes --ncu-share on: a class of one student who forged the time of one task
cc="$TEST_TMP/classcourse" cls="$TEST_TMP/class"
fixture_copy "$cc" none
printf 'ncu_agrees 2.0 1.0\nncu_forged 0.15 1.0\n' | ncu_lesson "$cc"
mkdir -p "$cls/forger/exercises"
cp -r "$cc/exercises/05-ncu" "$cls/forger/exercises/"
PATH="$FAKE_NCU_DIR:$PATH" "$GRADER" class "$cls" --course "$cc" --no-sanitize --ncu-share 1 \
  --work "$TEST_TMP/work" >"$TEST_TMP/class.out" 2>&1
py_json "grader class --ncu-share 1: the forged time is implausible, the honest one agrees" '
r = {t["extra_data"]["task"].split("/")[-1]: t["extra_data"]["result"] for t in d["tests"]}
assert r["ncu_forged"]["outcome"] == "implausible", r["ncu_forged"]["reason"]
assert r["ncu_agrees"]["outcome"] == "passed", r["ncu_agrees"]["reason"]
assert r["ncu_agrees"]["speed"]["ncu"] == "agrees", r["ncu_agrees"]["speed"]
' "$cls/forger/results.json"
expect_exit 2 "grader class: --ncu-share below 0 is a usage error" "$GRADER" class "$cls" \
  --course "$cc" --ncu-share -0.5

expect_exit 2 "--ncu-share above 1 is a usage error" "$GRADER" --batch --root "$course" --ncu-share 1.5
grep -q -- "--ncu-share wants a share from 0 to 1, not '1.5'" "$TEST_TMP/out" &&
  ok "the usage error is one line naming the value" || bad "usage error: $(cat "$TEST_TMP/out")"
finish
