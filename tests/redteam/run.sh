#!/usr/bin/env bash
# The red-team suite: every case of tests/redteam/cases/NAME/ graded by the real grader against
# the real course, as a student's copy of exercises/ with the case's file put in.
#   tests/redteam/run.sh [NAME...]       default: every case
# A case folder holds case.conf (key = value lines) and TASK.cu, the student's file:
#   task = LESSON/TASK        a task of the course
#   expect = KEY[|KEY...]     outcome keys of grader/engine/model/outcome.h
#   needs = gpu | none        none: decided before anything runs on a GPU (CI runs it)
#   alone = yes               optional: the case exhausts, up to the grader's bound, something
#                             that other gradings' bounds count too (the user's processes:
#                             RLIMIT_NPROC is per user); it runs after the others, with nothing
#                             beside it. A file, memory or output bound is the program's own:
#                             such cases run beside the others
#   why = one line
#   absent = TEXT             optional: the build log must not contain TEXT
#   reason = TEXT             optional: the report's reason must contain TEXT
#   build_timeout = S         optional: the grader's --build-timeout (default 120)
#   timeout = S               optional: the grader's --timeout (default $REDTEAM_TIMEOUT, 20):
#                             a run opens its device behind every other program's that the host's
#                             graded groups start (the driver opens one at a time), which took a
#                             case that exits at once past 5 s on one H200; a hang's case may ask less
#   sandbox = KEY[|KEY...]    optional: graded again with --no-objcheck, the outcome then: the
#                             sandbox must hold by itself where the object check would have
#                             stopped the attack first (a second row, "NAME/sandbox")
# The course graded is a private copy of this tree (its build included, .git and the tests'
# own files left out) with a HOME of its own, so that other test groups may write into the
# tree meanwhile. In TASK.cu, @ROOT@ becomes that course's root and @HOME@ the grader's HOME,
# so that a case can aim at the real files. A case fails when its outcome is not an expected
# one, the grader dies, a file outside the scratch changes (the course tree, solutions,
# build/solutions, .grader, HOME, by content hash against the hash taken before the first
# case), or a process carrying the case's marker (in its command line or environment) is alive
# a second after the grading. After the last case, a second later, the tree and HOME are hashed
# once more and no process may carry any case's marker: a late write fails the run.
# Cases run side by side (REDTEAM_JOBS, else TEST_JOBS or the cores, at most 4: each grading
# builds with nvcc and runs its own jobs). Those that need a GPU take turns at it through the
# grader's lock, the one GRADER_GPU_LOCK names when tests/run.sh runs this as a graded group
# (so the course's other gradings of the test run share it); run alone, they go one at a
# time, holding TEST_GPU_LOCK when there is one (a lock of their own else). Those marked alone last,
# one at a time (a fork loop beside other gradings made their own forks fail). With
# REDTEAM_TIMES=FILE each case appends "NAME START END alone|shared" (seconds since the epoch).
# Exit 0 all passed, 1 some failed, 77 every case skipped.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
CASES=${REDTEAM_CASES:-$SRC/tests/redteam/cases}
RUN_TIMEOUT=${REDTEAM_TIMEOUT:-20}
JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$JOBS" -gt 4 ] 2>/dev/null && JOBS=4
JOBS=${REDTEAM_JOBS:-$JOBS}
[ -x "$SRC/build/grader/grader" ] || { echo "FAIL: $SRC/build/grader/grader is not built (make build/grader/grader)"; exit 1; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed to read the reports"; exit 1; }
command -v flock >/dev/null || { echo "FAIL: flock (util-linux) is needed to run the GPU cases one at a time"; exit 1; }
have_gpu=0
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$cuda/bin/nvcc" ]; then echo "SKIP: no nvcc at $cuda/bin: the course cannot be built"; exit 77; fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/redteam.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
GPU_LOCK=${TEST_GPU_LOCK:-$TMP/gpu.lock}

# The course and HOME the grader sees: copies that only the cases' gradings could change.
# Not copied: what other gradings of this tree write as they run beside this one (their work
# directories, the reference's profile logs, the GPU's lock files): tar read them changing.
ROOT=$TMP/course
mkdir -p "$ROOT" "$TMP/home"
tar -C "$SRC" --exclude=./.git --exclude=./.deps --exclude=./build/tests --exclude=./build/notes \
  --exclude=./build/grader-copies --exclude='./build/grader/[0-9]*' \
  --exclude=./build/grader/profile-ref --exclude='./build/grader/*-gpu*' -cf - . |
  tar -C "$ROOT" -xf - ||
  { echo "FAIL: cannot copy the course to $ROOT"; exit 1; }
# saved progress to aim at, whether or not this tree has any (grading uses --no-state)
mkdir -p "$ROOT/.grader"
[ -f "$ROOT/.grader/state.json" ] || printf '{}\n' >"$ROOT/.grader/state.json"
printf '# the red team'"'"'s HOME\nexport PATH\n' >"$TMP/home/.bashrc"
printf 'a file of HOME\n' >"$TMP/home/.profile"
GRADER=$ROOT/build/grader/grader

conf() { # FILE KEY: the value, or ""
  sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" "$1" | head -n 1
}

# One hash over what student code must never change: the course (its build but for the
# grader's own logs and locks), saved progress, and HOME.
watched_sum() {
  {
    (cd "$ROOT" && find . -path ./build/grader -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
    (cd "$TMP/home" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
  } | sha256sum | cut -c1-16
}

# Processes whose command line or environment carries the marker.
marked_procs() {
  local p n=0
  for p in /proc/[0-9]*; do
    [ "$p" = "/proc/$$" ] && continue
    if grep -qsF -- "$1" "$p/cmdline" "$p/environ" 2>/dev/null; then n=$((n + 1)); fi
  done
  echo $n
}

# grade_once LABEL EXPECT [GRADER OPTION...]: grades the prepared copy ($work, $copy, $task
# and the case's keys from grade_case); one table row; returns 0 pass, 1 fail.
grade_once() {
  local label=$1 expect=$2; shift 2
  local after rc got left problems=""
  rm -rf "$work/exbuild" "$work/report.json"
  HOME=$TMP/home REDTEAM_MARKER="$work/" timeout 1200 "$GRADER" --batch "$task" --root "$ROOT" \
    --exercises "$copy" --exbuild "$work/exbuild" --format json --output "$work/report.json" \
    --no-state --timeout "${rtime:-$RUN_TIMEOUT}" --build-timeout "${btime:-120}" "$@" 2>"$work/stderr"
  rc=$?
  after=$(watched_sum)
  left=$(marked_procs "$work/")
  # what is still dying gets a second, as it would after any program
  [ "$left" -eq 0 ] || { sleep 1; left=$(marked_procs "$work/"); }
  got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tasks"][0]["outcome"])' \
        "$work/report.json" 2>/dev/null || echo "none")
  if [ -n "$reason" ] && [ $# -eq 0 ] && ! python3 -c 'import json,sys
sys.exit(sys.argv[2] not in json.load(open(sys.argv[1]))["tasks"][0]["reason"])' \
      "$work/report.json" "$reason" 2>/dev/null; then
    problems+=" the reason lacks '$reason';"
  fi
  case $rc in 0|1|77) ;; *) problems+=" grader exit $rc;" ;; esac
  [[ "|$expect|" == *"|$got|"* ]] || problems+=" outcome $got;"
  [ "$BEFORE" = "$after" ] || problems+=" files changed;"
  [ "$left" -eq 0 ] || problems+=" $left process(es) left;"
  if [ -n "$absent" ] && grep -rqsF -- "$absent" "$work/exbuild" "$work/stderr" "$work/report.json"; then
    problems+=" the logs hold '$absent';"
  fi
  if find "$work/exbuild" -type d -name scratch 2>/dev/null | grep -q .; then problems+=" scratch left;"; fi
  printf '%-22s %-28s %-14s %-8s %-6s %s\n' "$label" "$expect" "$got" \
    "$([ "$BEFORE" = "$after" ] && echo none || echo CHANGED)" "$left" "${problems:-ok}"
  if [ -n "$problems" ]; then
    sed 's/^/    | /' "$work/stderr" | tail -n 5
    python3 -c 'import json,sys; print("    | reason:", json.load(open(sys.argv[1]))["tasks"][0]["reason"])' \
      "$work/report.json" 2>/dev/null
    return 1
  fi
  return 0
}

# grade_case NAME: one table row (two with a sandbox key); returns 0 pass, 1 fail, 77 skip
grade_case() {
  local name=$1 dir=$CASES/$1 c=$CASES/$1/case.conf
  local task expect needs absent btime rtime reason sandbox
  task=$(conf "$c" task); expect=$(conf "$c" expect); needs=$(conf "$c" needs)
  absent=$(conf "$c" absent); btime=$(conf "$c" build_timeout); rtime=$(conf "$c" timeout); reason=$(conf "$c" reason)
  sandbox=$(conf "$c" sandbox)
  if [ -z "$task" ] || [ -z "$expect" ] || [ ! -f "$dir/$(basename "$task").cu" ]; then
    printf '%-22s %-28s %-14s %s\n' "$name" "?" "bad case" "case.conf needs task and expect, and TASK.cu"
    return 1
  fi
  if [ "$needs" = gpu ] && [ $have_gpu = 0 ]; then
    printf '%-22s SKIP (needs a GPU)\n' "$name"; return 77
  fi
  local work=$TMP/rt-$name copy=$TMP/rt-$name/exercises
  mkdir -p "$work"
  cp -r "$ROOT/exercises" "$copy"
  sed -e "s|@ROOT@|$ROOT|g" -e "s|@HOME@|$TMP/home|g" "$dir/$(basename "$task").cu" >"$copy/$task.cu"
  local ok=0
  grade_once "$name" "$expect" || ok=1
  if [ -n "$sandbox" ]; then grade_once "$name/sandbox" "$sandbox" --no-objcheck || ok=1; fi
  [ $ok -eq 0 ] && rm -rf "$work"
  return $ok
}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for d in "$CASES"/*/; do [ -f "$d/case.conf" ] && names+=("$(basename "$d")"); done
fi
# the trusted part first, so that the hash sees the build the gradings will find
tasks=()
for n in "${names[@]}"; do
  t=$(conf "$CASES/$n/case.conf" task 2>/dev/null)
  [ -n "$t" ] && [ -f "$ROOT/solutions/$t.cu" ] && tasks+=("build/solutions/$t")
done
if [ ${#tasks[@]} -gt 0 ] && ! make -C "$ROOT" --no-print-directory -s "${tasks[@]}" >"$TMP/course-build.log" 2>&1; then
  echo "FAIL: the course does not build:"; tail -n 20 "$TMP/course-build.log"; exit 1
fi
BEFORE=$(watched_sum)

# run_case INDEX NAME: the case's rows into out.INDEX, its status into rc.INDEX; a case that
# needs a GPU holds the GPU's lock while it is graded
run_case() {
  local needs rc t0
  needs=$(conf "$CASES/$2/case.conf" needs 2>/dev/null)
  t0=$(date +%s.%N)
  if [ "$needs" = gpu ] && [ $have_gpu = 1 ] && [ -z "${GRADER_GPU_LOCK:-}" ]; then
    { flock 9; grade_case "$2"; } 9>>"$GPU_LOCK" >"$TMP/out.$1" 2>&1
  else
    grade_case "$2" >"$TMP/out.$1" 2>&1
  fi
  rc=$?
  [ -n "${REDTEAM_TIMES:-}" ] && echo "$2 $t0 $(date +%s.%N) $3" >>"$REDTEAM_TIMES"
  echo $rc >"$TMP/rc.$1"
}

is_alone() { [ "$(conf "$CASES/$1/case.conf" alone 2>/dev/null)" = yes ]; }

printf '%-22s %-28s %-14s %-8s %-6s %s\n' case expected got changed procs verdict
running=0
for i in "${!names[@]}"; do
  is_alone "${names[i]}" && continue
  while [ $running -ge "$JOBS" ]; do wait -n; running=$((running - 1)); done
  run_case "$i" "${names[i]}" shared &
  running=$((running + 1))
done
wait
for i in "${!names[@]}"; do
  is_alone "${names[i]}" && run_case "$i" "${names[i]}" alone
done
pass=0 fail=0 skip=0
for i in "${!names[@]}"; do
  cat "$TMP/out.$i"
  case $(cat "$TMP/rc.$i" 2>/dev/null) in 0) pass=$((pass + 1)) ;; 77) skip=$((skip + 1)) ;; *) fail=$((fail + 1)) ;; esac
done
# a late write or a process left by any case, a second after the last grading
if [ $pass -gt 0 ] || [ $fail -gt 0 ]; then
  sleep 1
  [ "$(watched_sum)" = "$BEFORE" ] || { echo "after the last case: files changed"; fail=$((fail + 1)); }
  left=$(marked_procs "$TMP/rt-")
  [ "$left" -eq 0 ] || { echo "after the last case: $left process(es) left"; fail=$((fail + 1)); }
fi
echo "red team: $pass passed, $fail failed, $skip skipped"
[ $fail -gt 0 ] && exit 1
[ $pass -eq 0 ] && [ $skip -gt 0 ] && { echo "SKIP: every case needs a GPU"; exit 77; }
exit 0
