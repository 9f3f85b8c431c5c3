#!/usr/bin/env bash
# Defects a new user met, each checked here: a copy graded without --exbuild, a read-only or
# shared course, Ctrl-C during --batch, a broken lesson.ini on a machine without a GPU, and
# doctor on a machine without a driver.
source "$(dirname "$0")/../lib.sh"
source "$ROOT/tests/grader/common.sh"

# ---- a copy of exercises/ without --exbuild is the copy's, not the course's own build
course="$TEST_TMP/course"
fixture_copy "$course" 01-basics 02-faults
"$GRADER" --batch --root "$course" --no-sanitize wrong >/dev/null 2>&1
copy="$TEST_TMP/copy"
cp -r "$course/exercises" "$copy"
cp "$course/solutions/01-basics/wrong.cu" "$copy/01-basics/wrong.cu"
touch -d '2001-01-01' "$copy/01-basics/wrong.cu"   # older than the course's object
own_build() { find "$course/build/exercises" -type f -exec sha256sum {} + 2>/dev/null | sort; }
own=$(own_build)
"$GRADER" --batch --root "$course" --no-sanitize --exercises "$copy" wrong --format json \
  --output "$TEST_TMP/copy.json" 2>"$TEST_TMP/err"
py_json "a copy holding the solution, graded without --exbuild, passes" '
assert d["tasks"][0]["outcome"] == "passed", (d["tasks"][0]["outcome"], d["tasks"][0]["reason"])
' "$TEST_TMP/copy.json"
[ "$(own_build)" = "$own" ] \
  && ok "the course's own exercise binary is untouched" || bad "the copy was built into the course's build"

# ---- Ctrl-C on --batch: the student's program dies with the grader, which exits 130
hang_bin="$TEST_TMP/[^ ]*/02-faults/hang/bin/hang"   # this test's grading's binary
"$GRADER" --batch --root "$course" --no-sanitize --timeout 60 hang >"$TEST_TMP/int.out" 2>&1 &
gpid=$!
for _ in $(seq 100); do pgrep -f "^$hang_bin( |$)" >/dev/null && break; sleep 0.1; done
pgrep -f "^$hang_bin( |$)" >/dev/null && ok "the hanging exercise runs" || bad "the hanging exercise never started"
kill -INT "$gpid"
for _ in $(seq 100); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$gpid" 2>/dev/null; then bad "the grader still runs 10 s after SIGINT"; kill -KILL "$gpid"; fi
wait "$gpid"; rc=$?
[ $rc -eq 130 ] && ok "SIGINT: the grader exits 130" || bad "SIGINT: exit $rc, expected 130"
sleep 0.5
if pgrep -f "^$hang_bin( |$)" >/dev/null; then bad "the student's program survived the grader"; pkill -KILL -f "^$hang_bin"
else ok "SIGINT: no process of the student's program is left"; fi

# graded_while_held LOCK OUT [VAR=VALUE...]: task pass graded (JSON to OUT, its wall time in
# $wall) while another process holds LOCK for 6 s from 0.3 s before the grading starts. Six,
# not three: on one H200 during make test's graded groups a grading took 1.7 s to reach the
# lock, and a hold of 3 s left it 1.05 s of waiting where 1.5 s is asserted.
graded_while_held() {
  local lock=$1 out=$2 held t0
  shift 2
  flock -x "$lock" sleep 6 &
  held=$!
  sleep 0.3
  t0=$(date +%s.%N)
  env "$@" "$GRADER" --batch --root "$course" --no-sanitize --no-state pass --format json \
    --output "$out" 2>/dev/null
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  wait "$held"
}

# ---- a task's duration_s is its own work; the time it waited for the GPU's lock is wait_s
lock=$(ls "$course"/build/grader/*-gpu*.lock | head -n 1) # -gpuN.lock where CUDA_VISIBLE_DEVICES names one
graded_while_held "$lock" "$TEST_TMP/wait.json"
py_json "duration_s leaves out the seconds waited for the GPU's lock; wait_s holds it" "
t = d['tasks'][0]
assert t['outcome'] == 'passed', t['outcome']
assert t['wait_s'] >= 1.5, t['wait_s']
assert t['duration_s'] < $wall - 1.5, (t['duration_s'], $wall)
assert abs(t['duration_s'] + t['wait_s'] - $wall) < 0.5, (t['duration_s'], t['wait_s'], $wall)
" "$TEST_TMP/wait.json"
"$GRADER" --batch --root "$course" --no-sanitize --no-state pass --format csv >"$TEST_TMP/wait.csv" 2>/dev/null
expect_grep '^task,.*,duration_s,wait_s,reason' "$TEST_TMP/wait.csv" "csv: a wait_s column after duration_s"

# ---- GRADER_GPU_LOCK: the gradings of another tree (here: this course, told so) take turns
# through the file it names, not through their own build's lock
shared_lock="$TEST_TMP/elsewhere/gpu.lock"
mkdir -p "${shared_lock%/*}"
graded_while_held "$shared_lock" "$TEST_TMP/named.json" GRADER_GPU_LOCK="$shared_lock"
py_json "GRADER_GPU_LOCK: the grading waited for the file it names" "
t = d['tasks'][0]
assert t['outcome'] == 'passed', t['outcome']
assert t['wait_s'] >= 1.5, t['wait_s']
" "$TEST_TMP/named.json"
[ -e "$shared_lock.alone" ] && ok "GRADER_GPU_LOCK: the runs alone queue beside the file it names" ||
  bad "no $shared_lock.alone: the grading took another lock"

# ---- a broken lesson.ini is exit 1 even when every graded task was skipped (no GPU)
c2="$TEST_TMP/c2"
fixture_copy "$c2" 02-faults 04-malformed
expect_exit 1 "a broken lesson.ini and only skipped tasks" "$GRADER" --batch --root "$c2" --no-sanitize skip
c3="$TEST_TMP/c3"
fixture_copy "$c3" 02-faults
expect_exit 77 "only skipped tasks and no broken lesson.ini" "$GRADER" --batch --root "$c3" --no-sanitize skip
expect_grep 'every task was skipped' "$TEST_TMP/out" "all skipped: one line says so instead of a bare 0/0"

# ---- doctor without a driver says so
if [ ! -e /dev/nvidiactl ]; then
  "$GRADER" doctor --root "$course" >"$TEST_TMP/doctor" 2>&1
  expect_grep '^FAIL +driver / GPU +no NVIDIA driver / no GPU' "$TEST_TMP/doctor" \
    "doctor: no /dev/nvidiactl is 'no NVIDIA driver / no GPU'"
fi

# ---- a read-only or shared course: the grader's error, said once (exit 2, one line naming the
# directory), never a zero for every task nor another run's leftovers
as_other() { # command...: as another user (root: nobody), else as this user
  if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
  else "$@"; fi
}
read_only_error() { # description expected-dir
  local rc lines
  as_other "$TEST_TMP/grader" --batch --root "$ro" --no-sanitize --no-state pass --format json \
    >"$TEST_TMP/ro.out" 2>"$TEST_TMP/ro.err"; rc=$?
  lines=$(wc -l <"$TEST_TMP/ro.err")
  if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ ! -s "$TEST_TMP/ro.out" ] &&
     grep -qF "grader: cannot write $2: Permission denied" "$TEST_TMP/ro.err"; then
    ok "$1: exit 2, one line naming $2, no report"
  else
    bad "$1: exit $rc, $lines stderr lines, $(wc -c <"$TEST_TMP/ro.out") bytes of report"
    sed 's/^/    /' "$TEST_TMP/ro.err" | tail -n 5
  fi
}
ro="$TEST_TMP/ro"
fixture_copy "$ro" 01-basics
cp "$GRADER" "$TEST_TMP/grader"
"$TEST_TMP/grader" --batch --root "$ro" --no-sanitize --no-state pass >/dev/null 2>&1
if [ "$(id -u)" -ne 0 ]; then chmod -R a-w "$ro"; fi
chmod 755 "$TEST_TMP"
read_only_error "a read-only course, built by another run" "$ro/build"
chmod -R u+w "$ro"; rm -rf "$ro/build"
if [ "$(id -u)" -ne 0 ]; then chmod -R a-w "$ro"; fi
read_only_error "a read-only course, never built" "$ro"
chmod -R u+w "$ro"
"$TEST_TMP/grader" --batch --root "$ro" --no-sanitize --no-state --no-build pass >/dev/null 2>&1
if [ "$(id -u)" -ne 0 ]; then chmod -R a-w "$ro"; fi
as_other "$TEST_TMP/grader" --batch --root "$ro" --no-sanitize --no-state --no-build pass \
  >/dev/null 2>"$TEST_TMP/ro.err"
expect_grep "cannot write $ro/build/grader: Permission denied" "$TEST_TMP/ro.err" \
  "--no-build: the work files' directory is the one named"
chmod -R u+w "$ro"; chmod 700 "$TEST_TMP"
finish
