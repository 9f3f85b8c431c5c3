#!/usr/bin/env bash
# Too slow gets a second look: the graded run is made again, verified, and timed against the
# reference's time this grading took alone moments before, and that look decides. A run slow
# only the first time passes; a run slow both times stays too slow, and its reason gives both
# ratios; a pass is looked at once. A second look's doubt of the witness is judged against a
# window of the reference's taken right after it (still doubted there, a third look decides),
# and a second look too slow against the reference's time before it against the slower of that
# and one taken right after it.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

# held_program COMMENT HOLD HOW [N]: the C source of a fixture program that is right, and held
# up in a run where the C expression HOLD (taken once a run; first_run() may be called in it,
# to tell a grading's runs apart) is true. HOW "sleep": its third timed call sleeps 300 ms, as
# a busy host may hold it up; "spin": every element spins N turns. Opening files is for
# --no-objcheck only.
held_program() {
  local comment=$1 hold=$2 how=$3 n=${4:-0}
  printf '/* %s */\n#include <stdio.h>\n#include <time.h>\n#include "protocol.h"\n\n' "$comment"
  c_first_run
  if [ "$how" = sleep ]; then
    cat <<EOF

double task_compute(long i, uint64_t seed)
{
    static int call = -1, held = -1;
    if (held < 0)
        held = $hold;
    if (i == 0 && ++call == 2 && held)
        nanosleep(&(struct timespec){0, 300000000}, NULL);
    return protocol_expected(i, seed);
}
EOF
  else
    cat <<EOF

double task_compute(long i, uint64_t seed)
{
    static int held = -1;
    if (held < 0)
        held = $hold;
    volatile double spin = 0;
    for (int k = 0; held && k < $n; k++)
        spin += k;
    return protocol_expected(i, seed) + spin * 0;
}
EOF
  fi
}

course="$TEST_TMP/course"
fixture_copy "$course" 01-basics
# "slow" once: the first run leaves a mark in its scratch and burns time on every element,
# the second finds the mark and runs at full speed.
held_program "Slow on its first run in a grading, fast on the next." \
  'first_run("second-look.mark")' spin 20000 >"$course/exercises/01-basics/pass.cu"
# pass's bar is 0.01 in the fixture: here the slow first run (thousands of times slower) must
# fall below it, and the fast second one stay above it. The speed case is some 50 microseconds
# of CPU work, timed while the other tasks' steps run: on the H200's host a fast look once
# measured 0.35 of the reference, so the bar is 0.2.
sed -i '/^\[task.pass\]/,/^\[/ s/^speed_threshold = .*/speed_threshold = 0.2/' "$course/lessons/01-basics/lesson.ini"
grep -A4 '^\[task.pass\]' "$course/lessons/01-basics/lesson.ini" | grep -q 'speed_threshold = 0.2' &&
  ok "pass's bar raised for this test" || bad "pass's bar not raised"

GRADER_GPU_TRACE="$TEST_TMP/trace" "$GRADER" --batch --root "$course" --no-state --no-sanitize --no-objcheck --ncu-share 0 --seed 3 \
  pass slow wrong --format json --output "$TEST_TMP/r.json" 2>"$TEST_TMP/err"
echo "exit $?" >"$TEST_TMP/exit"
expect_grep '^exit 1' "$TEST_TMP/exit" "graded (exit 1: slow and wrong fail)"

py_json "slow the first time only: passed on the second look, the first ratio kept" '
t = {x["id"]: x for x in d["tasks"]}["01-basics/pass"]
assert t["outcome"] == "passed", t["outcome"] + ": " + t["reason"]
sp = t["speed"]
assert sp["first_ratio"] is not None and sp["first_ratio"] < 0.2, sp
assert sp["ratio"] >= 0.2, sp
' "$TEST_TMP/r.json"

py_json "slow both times: too slow, the reason gives both ratios" '
t = {x["id"]: x for x in d["tasks"]}["01-basics/slow"]
assert t["outcome"] == "too_slow", t["outcome"]
assert t["speed"]["first_ratio"] is not None and t["speed"]["first_ratio"] < 0.2, t["speed"]
assert "the first run" in t["reason"], t["reason"]
' "$TEST_TMP/r.json"

# The reference was timed alone a moment before the second look: its time serves, and the
# reference runs once for a second look that passes. Per task: "pass" (one second look) 2 runs
# alone; "slow" (too slow, looked at twice too) 3: its second look, still too slow, is judged
# against a time of the reference's taken right after it as well. Runs of the programs only:
# a second look of ncu's is alone too (the
# cross-check is triggered when a second look comes out faster than the reference, which the
# stand-in's 50 microseconds of CPU work sometimes do on a fast host: on the H200's 32-core
# host that ncu row once made "pass" 3).
alone() { awk -v t="$1" '$2 == t && $3 != "ncu" && $4 == "alone"' "$TEST_TMP/trace" | wc -l; }
[ "$(alone pass)" -eq 2 ] && [ "$(alone slow)" -eq 3 ] &&
  ok "a second look takes the reference's time of its grading; one still too slow, one taken after it too" ||
  bad "runs alone: pass $(alone pass), slow $(alone slow), expected 2 and 3: $(cat "$TEST_TMP/trace")"

py_json "a wrong result is not looked at twice" '
t = {x["id"]: x for x in d["tasks"]}["01-basics/wrong"]
assert t["outcome"] == "wrong", t["outcome"]
assert t["speed"]["first_ratio"] is None, t["speed"]
' "$TEST_TMP/r.json"

# A second look's doubt of the witness (its window, go to done, far longer than its calls'
# times) is the verdict only against a window of the reference's taken right after it: a host
# busy with other work stretches the harness's work around every call, the reference's too.
# Here the exercise is honest but one of its timed calls is held up 300 ms (the host's load,
# as it were): the window is stretched, its median is not. In "load", the reference, timed
# fast first, is held up the same way in every later run (the load lasts): passed. In
# "no-load" the reference stays fast: the window is not believed.
for world in load no-load; do
  c="$TEST_TMP/course-$world"
  fixture_copy "$c" 01-basics
  held_program "Right; held up on every run, as a busy host may hold it up." 1 \
    sleep >"$c/exercises/01-basics/pass.cu"
  held_program "The reference: fast on its first timed run; in \"load\", held up later." \
    "!first_run(\"load.mark\") && $([ $world = load ] && echo 1 || echo 0)" sleep \
    >"$c/solutions/01-basics/pass.cu"
  "$GRADER" --batch --root "$c" --no-state --no-sanitize --no-objcheck --ncu-share 0 --seed 3 \
    pass --format json --output "$TEST_TMP/$world.json" 2>"$TEST_TMP/$world.err"
done
py_json "a window stretched by the host's load, the reference's taken right after stretched alike: passed" '
t = d["tasks"][0]
assert t["outcome"] == "passed", t["outcome"] + ": " + t["reason"]
assert t["speed"]["first_ratio"] is not None, ("no second look", t["speed"])
' "$TEST_TMP/load.json"
py_json "the same window, the reference's right after it not stretched: implausible" '
t = d["tasks"][0]
assert t["outcome"] == "implausible", t["outcome"] + ": " + t["reason"]
assert "the grader\x27s clock" in t["reason"], t["reason"]
' "$TEST_TMP/no-load.json"

# A spell of load that holds up the exercise's first two looks and none of the reference's
# runs: the second look's doubt holds against the reference's window right after it, and a
# third look, alone, outside the spell, decides: passed. (In "no-load" above, every look is held
# up, as a forged time's window always is: implausible after the third.)
c="$TEST_TMP/course-spell"
fixture_copy "$c" 01-basics
held_program "Right; held up in its first two runs, a spell of the host's load." \
  'first_run("spell-1.mark") || first_run("spell-2.mark")' sleep >"$c/exercises/01-basics/pass.cu"
GRADER_GPU_TRACE="$TEST_TMP/spell.trace" "$GRADER" --batch --root "$c" --no-state --no-sanitize \
  --no-objcheck --ncu-share 0 --seed 3 pass --format json --output "$TEST_TMP/spell.json" \
  2>"$TEST_TMP/spell.err"
py_json "a second look held up by a spell of load that the reference's run after it missed: a third look, passed" '
t = d["tasks"][0]
assert t["outcome"] == "passed", t["outcome"] + ": " + t["reason"]
assert t["speed"]["first_ratio"] is not None, ("no second look", t["speed"])
' "$TEST_TMP/spell.json"
looks=$(awk '$2 == "pass" && $3 != "ncu" && $3 !~ /^compute-san/ && ($4 == "timed" || $4 == "alone")' \
  "$TEST_TMP/spell.trace" | wc -l)
# the exercise's three looks and the reference's runs: its time and a window right after the
# second look (and one after the third, if a busy host had the third doubted against its time);
# without the third look, 4
[ "$looks" -ge 5 ] && ok "the spell: three looks, the reference's window taken again after the second" ||
  bad "the spell: $looks timed runs, expected 5 or more: $(cat "$TEST_TMP/spell.trace")"

# A second look too slow against the reference's time of before it, when the host's load
# slowed both: the exercise is slow on every run; the reference, fast on its first timed run,
# is slowed as much and a little more on every later one (the load lasts). Judged against a
# time of the reference's taken right after the second look as well: passed. Against the
# first run's fast time alone, it was too slow.
c="$TEST_TMP/course-slowed"
fixture_copy "$c" 01-basics
held_program "Right, and slowed on every run, as a busy host may slow it." 1 spin 20000 \
  >"$c/exercises/01-basics/pass.cu"
held_program "The reference: fast on its first timed run, then a little slower than the exercise." \
  '!first_run("slowed.mark")' spin 25000 >"$c/solutions/01-basics/pass.cu"
sed -i '/^\[task.pass\]/,/^\[/ s/^speed_threshold = .*/speed_threshold = 0.2/' "$c/lessons/01-basics/lesson.ini"
"$GRADER" --batch --root "$c" --no-state --no-sanitize --no-objcheck --no-witness --ncu-share 0 \
  --seed 3 pass --format json --output "$TEST_TMP/slowed.json" 2>"$TEST_TMP/slowed.err"
py_json "a second look slowed by the host's load, the reference's right after it slowed alike: passed" '
t = d["tasks"][0]
assert t["outcome"] == "passed", t["outcome"] + ": " + t["reason"]
sp = t["speed"]
assert sp["first_ratio"] is not None and sp["first_ratio"] < 0.2, ("no slow first look", sp)
assert sp["ratio"] >= 0.2, sp
' "$TEST_TMP/slowed.json"

finish
