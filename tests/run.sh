#!/usr/bin/env bash
# The project's test runner (make test): every unit-test binary, then every test script
# tests/<area>/test_*.sh. Each test group exits 0 (pass), 77 (skip: it printed one SKIP line
# saying why) or anything else (fail). Logs go to build/tests/logs/; a failing group's log
# tail is shown. Closing line: "N passed, N failed, N skipped".
#   tests/run.sh [PATTERN...]   only groups whose name contains one of the PATTERNs
#   TEST_JOBS=N                 groups run at once (default: the cores); 1: one after the other
#   TEST_GROUP_TIMEOUT=S        a group still running after S seconds (default 900) is stopped,
#                               its processes with it, and fails: a hang is one FAIL line, never
#                               a run that ends at the caller's own limit
# Groups run side by side, the longest first (the times of the last run, build/tests/durations,
# else the table below), and a line is printed as each ends. A group uses the GPU when its
# script calls require_gpu or carries the line "# test-group: gpu": with a GPU present, no two
# such groups run at once (one lock, build/tests/gpu.lock, exported as TEST_GPU_LOCK). A group
# with the line "# test-group: gpu-shared" checks results, not times: such groups share the
# GPU with each other (they hold the lock shared) and never with a "gpu" group. A group
# with the line "# test-group: gpu-steps" runs beside them and takes that lock itself around
# each step that uses the GPU (tests/lib.sh: gpu_locked).
set -u
cd "$(dirname "$0")/.."
if [ "${BASH_VERSINFO[0]}${BASH_VERSINFO[1]}" -lt 51 ]; then
  echo "tests/run.sh: bash 5.1 or newer is needed (wait -n -p), this is $BASH_VERSION" >&2; exit 2
fi
logs=build/tests/logs
mkdir -p "$logs"
pass=0 fail=0 skip=0 failed=()
filters=("$@")
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: TEST_JOBS must be a positive number, not '$jobs'" >&2; exit 2; }
group_timeout=${TEST_GROUP_TIMEOUT:-900}
[[ "$group_timeout" =~ ^[1-9][0-9]*$ ]] ||
  { echo "tests/run.sh: TEST_GROUP_TIMEOUT must be a positive number of seconds, not '$group_timeout'" >&2; exit 2; }
durations=build/tests/durations
export TEST_GPU_LOCK=$PWD/build/tests/gpu.lock
have_gpu=0
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
if [ $have_gpu = 1 ] && ! command -v flock >/dev/null; then
  echo "tests/run.sh: no flock (util-linux) to keep the GPU groups apart: one group at a time"
  jobs=1
fi
[ $have_gpu = 1 ] || unset TEST_GPU_LOCK

# Seconds each long group took on a two-core machine without a GPU: the order of a first run.
expected_seconds() {
  case $1 in
    redteam/test_redteam) echo 230 ;;   class/test_class_slurm) echo 130 ;;
    class/test_class_local) echo 120 ;; honest/test_honest) echo 115 ;;
    tui/test_tui) echo 47 ;;            grader/test_objcheck_course) echo 25 ;;
    unit/test_grader_objcheck) echo 24 ;; harness/test_reps) echo 20 ;;
    grader/test_jobs) echo 15 ;;        grader/test_reports) echo 13 ;;
    *) echo 0 ;;
  esac
}

# ---- the groups: NAME, KIND (cpu, gpu, gpu-steps) and the command, in the order found
names=() kinds=() cmds=()
wanted() {
  [ ${#filters[@]} -eq 0 ] && return 0
  local f
  for f in "${filters[@]}"; do [[ "$1" == *"$f"* ]] && return 0; done
  return 1
}
for bin in build/tests/unit/test_*; do
  [ -x "$bin" ] && wanted "unit/${bin##*/}" || continue
  names+=("unit/${bin##*/}") kinds+=(cpu) cmds+=("$bin")
done
for script in tests/*/test_*.sh; do
  [ -f "$script" ] || continue
  area=${script#tests/} name=${area%.sh}
  wanted "$name" || continue
  kind=cpu
  if grep -q '^# test-group: gpu-steps$' "$script"; then kind=gpu-steps
  elif grep -q '^# test-group: gpu-shared$' "$script"; then kind=gpu-shared
  elif grep -qE '^(# test-group: gpu$|require_gpu$)' "$script"; then kind=gpu; fi
  names+=("$name") kinds+=("$kind") cmds+=("bash $script")
done

# ---- the order: as found with one job; else the longest first
order=("${!names[@]}")
if [ "$jobs" -gt 1 ] && [ ${#order[@]} -gt 1 ]; then
  declare -A last=()
  if [ -f "$durations" ]; then
    while read -r n s; do [[ "$s" =~ ^[0-9]+$ ]] && last[$n]=$s; done <"$durations"
  fi
  mapfile -t order < <(for i in "${!names[@]}"; do
    printf '%s\t%s\n' "${last[${names[i]}]:-$(expected_seconds "${names[i]}")}" "$i"
  done | sort -t $'\t' -k1,1nr -k2,2n | cut -f2)
fi

report() { # index rc seconds
  local name=${names[$1]} rc=$2 log="$logs/${names[$1]//\//_}.log"
  case $rc in
    0)  pass=$((pass + 1)); printf 'PASS  %-40s %4ds\n' "$name" "$3" ;;
    77) skip=$((skip + 1))
        printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 '^SKIP' "$log" | sed 's/^SKIP:\{0,1\} *//')" ;;
    *)  fail=$((fail + 1)); failed+=("$name")
        if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
          printf 'FAIL  %-40s (timed out after %d s: TEST_GROUP_TIMEOUT; log %s)\n' "$name" "$group_timeout" "$log"
        else
          printf 'FAIL  %-40s (exit %d, log %s)\n' "$name" "$rc" "$log"
        fi
        tail -n 25 "$log" | sed 's/^/      | /' ;;
  esac
  printf '%s %s\n' "$name" "$3" >>"$durations.new"
}

start() { # index: runs the group in the background, its pid in started
  local log="$logs/${names[$1]//\//_}.log"
  local lock=() # with a GPU: its lock, alone for a gpu group, shared for a gpu-shared one
  if [ $have_gpu = 1 ]; then
    case ${kinds[$1]} in
      gpu) lock=(flock "$TEST_GPU_LOCK") ;;
      gpu-shared) lock=(flock -s "$TEST_GPU_LOCK") ;;
    esac
  fi
  # timeout signals its whole process group: the group's programs end with it.
  # shellcheck disable=SC2086 # the command is a word list: binary, or bash and a script
  "${lock[@]}" timeout -k 10 "$group_timeout" ${cmds[$1]} >"$log" 2>&1 </dev/null &
  started=$!
}

rm -f "$durations.new"
declare -A pid_of=() began=()
running=0 gpu_busy=-1 gpu_shared=0
waiting=("${order[@]}")
while [ ${#waiting[@]} -gt 0 ] || [ $running -gt 0 ]; do
  # start what fits: a free slot, and a whole-GPU group only while no other one runs
  kept=()
  for i in "${waiting[@]}"; do
    # a "gpu" group while no GPU group runs; a "gpu-shared" one while no "gpu" group runs
    fits=1
    if [ $have_gpu = 1 ]; then
      case ${kinds[i]} in
        gpu) [ $gpu_busy -lt 0 ] && [ $gpu_shared -eq 0 ] || fits=0 ;;
        gpu-shared) [ $gpu_busy -lt 0 ] || fits=0 ;;
      esac
    fi
    if [ $running -lt "$jobs" ] && [ $fits = 1 ]; then
      start "$i"
      pid_of[$started]=$i began[$i]=$SECONDS running=$((running + 1))
      [ "${kinds[i]}" = gpu ] && [ $have_gpu = 1 ] && gpu_busy=$i
      [ "${kinds[i]}" = gpu-shared ] && [ $have_gpu = 1 ] && gpu_shared=$((gpu_shared + 1))
    else
      kept+=("$i")
    fi
  done
  waiting=("${kept[@]}")
  [ $running -gt 0 ] || continue
  wait -n -p done_pid
  rc=$?
  i=${pid_of[$done_pid]}
  unset "pid_of[$done_pid]"
  running=$((running - 1))
  [ "$gpu_busy" = "$i" ] && gpu_busy=-1
  [ "${kinds[i]}" = gpu-shared ] && [ $have_gpu = 1 ] && gpu_shared=$((gpu_shared - 1))
  report "$i" "$rc" $((SECONDS - began[$i]))
done
# the times of this run for the next one's order (a filtered run keeps the others')
if [ -f "$durations.new" ]; then
  [ -f "$durations" ] && awk 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' \
    "$durations.new" "$durations" >"$durations.tmp" && mv "$durations.tmp" "$durations.new"
  mv "$durations.new" "$durations"
fi

[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
