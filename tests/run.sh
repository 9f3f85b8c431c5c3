#!/usr/bin/env bash
# The project's test runner (make test): every unit-test binary, then every test script
# tests/<area>/test_*.sh. Each test group exits 0 (pass), 77 (skip: it printed one SKIP line
# saying why) or anything else (fail). Logs go to build/tests/logs/; a failing group's log
# tail is shown. Closing line: "N passed, N failed, N skipped".
#   tests/run.sh [PATTERN...]   only groups whose name contains one of the PATTERNs
#   TEST_JOBS=N                 groups run at once (default: the cores); 1: one after the other
#   TEST_CPU_JOBS=N             with a GPU and graded groups, groups without the GPU run at most
#                               N at once (default: a third of TEST_JOBS, at least 1), so that
#                               the graded groups' builds and sanitizers, which feed the GPU, keep
#                               their cores; without either, TEST_JOBS
#   TEST_GROUP_TIMEOUT=S        a group still running after S seconds (default 900) is stopped,
#                               its processes with it, and fails: a hang is one FAIL line, never
#                               a run that ends at the caller's own limit
# Ctrl-C or SIGTERM stops the run and every group still running (exit 130 or 143).
# Groups run side by side, the longest first (the times of the last run, build/tests/durations,
# else the table below), and a line is printed as each ends. A group uses the GPU when its
# script calls require_gpu or carries the line "# test-group: gpu": with a GPU present, no two
# such groups run at once (one lock, build/tests/gpu.lock, exported as TEST_GPU_LOCK). A group
# with the line "# test-group: gpu-shared" checks results, not times: such groups share the
# GPU with each other (they hold the lock shared) and never with a "gpu" group. A group
# with the line "# test-group: gpu-graded" reaches the GPU only through the grader of this
# tree, whose own lock (build/grader/, gpulock.h) gives each timed run its turn: such groups
# share the GPU with each other and with nothing else; GRADER_GPU_LOCK names that lock for them
# (build/tests/graded[-gpuN].lock), so that a grader of a copy of the tree (the red team's)
# takes turns with the others through it. They share the reference's times as well
# (GRADER_REFERENCE_CACHE, build/tests/graded[-gpuN].refs, emptied as the run starts), as a
# class's gradings of one GPU do: the first grading that needs a task's reference times it, the
# others read its time. TEST_REFERENCE_CACHE=0: every grading times its own (default 1).
# With several GPUs (nvidia-smi's list, or CUDA_VISIBLE_DEVICES where it names indexes), each
# GPU is such a place of its own: a GPU group runs on one of them (CUDA_VISIBLE_DEVICES=N, its
# lock build/tests/gpuN.lock), "gpu" groups on the first GPU free, "gpu-graded" ones on a GPU
# of their own while one is free, else beside the fewest other graded ones, "gpu-shared" ones
# together on the last GPU that neither holds. The programs of "gpu" and "gpu-shared" groups
# open one hardware work queue each (CUDA_DEVICE_MAX_CONNECTIONS=1, the caller's number where
# set), as the grader's programs do: the driver creates a context of eight queues two to three
# times slower, and such groups start a few hundred programs.
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
cpu_jobs=${TEST_CPU_JOBS:-}
[ -z "$cpu_jobs" ] || [[ "$cpu_jobs" =~ ^[1-9][0-9]*$ ]] ||
  { echo "tests/run.sh: TEST_CPU_JOBS must be a positive number, not '$cpu_jobs'" >&2; exit 2; }
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
unset GRADER_GPU_LOCK GRADER_REFERENCE_CACHE # the caller's: a graded group gets this run's (start)
share_refs=${TEST_REFERENCE_CACHE:-1}
[[ "$share_refs" =~ ^[01]$ ]] ||
  { echo "tests/run.sh: TEST_REFERENCE_CACHE must be 0 or 1, not '$share_refs'" >&2; exit 2; }
rm -rf build/tests/graded*.refs
# the GPUs, one place each: gpu_ids (empty: one place, the environment left as it is)
gpu_ids=()
if [ $have_gpu = 1 ]; then
  if [ -z "${CUDA_VISIBLE_DEVICES+set}" ]; then
    mapfile -t gpu_ids < <(nvidia-smi -L | sed -n 's/^GPU \([0-9][0-9]*\):.*/\1/p')
  elif [[ "$CUDA_VISIBLE_DEVICES" =~ ^[0-9]+(,[0-9]+)*$ ]]; then
    IFS=, read -r -a gpu_ids <<<"$CUDA_VISIBLE_DEVICES"
  fi
  [ ${#gpu_ids[@]} -gt 1 ] || gpu_ids=()
fi
places=$(( ${#gpu_ids[@]} > 1 ? ${#gpu_ids[@]} : 1 ))

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

# ---- the groups: NAME, KIND (cpu, gpu, gpu-graded, gpu-shared) and the command, in the order found
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
  if grep -q '^# test-group: gpu-shared$' "$script"; then kind=gpu-shared
  elif grep -q '^# test-group: gpu-graded$' "$script"; then kind=gpu-graded
  elif grep -qE '^(# test-group: gpu$|require_gpu$)' "$script"; then kind=gpu; fi
  names+=("$name") kinds+=("$kind") cmds+=("bash $script")
done

# ---- how many groups without the GPU run at once: with a GPU and graded groups, a third of
# the jobs by default. The graded groups feed the GPU from the CPU (builds, object checks,
# verifiers, compute-sanitizer). On one H200 (16 cores), with 12 CPU groups beside the 4
# graded ones, the GPU's turns were held less than half of the first 200 s, and the whole run
# took 381 s; with 6, 358 s, the load average still 50 to 60 in its first 100 s
if [ -z "$cpu_jobs" ]; then
  cpu_jobs=$jobs
  if [ $have_gpu = 1 ]; then
    for k in "${kinds[@]}"; do
      [ "$k" = gpu-graded ] && { cpu_jobs=$(((jobs + 2) / 3)); break; }
    done
  fi
fi

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

start() { # index place: runs the group in the background, its pid in started
  local log="$logs/${names[$1]//\//_}.log" env=()
  local lock=() # with a GPU: its lock, alone for a gpu group, shared for the others
  if [ $have_gpu = 1 ] && [ "${kinds[$1]}" != cpu ]; then
    local lockfile=$TEST_GPU_LOCK
    if [ $places -gt 1 ]; then
      lockfile=$PWD/build/tests/gpu${gpu_ids[$2]}.lock
      env=(env "CUDA_VISIBLE_DEVICES=${gpu_ids[$2]}" "TEST_GPU_LOCK=$lockfile")
    fi
    case ${kinds[$1]} in
      gpu) lock=(flock "$lockfile") ;;&
      gpu-shared) lock=(flock -s "$lockfile") ;;&
      gpu|gpu-shared) # their programs open one hardware queue each, as the grader's do (a
        # lesson that needs more says so in its test), unless the caller set a number
        [ ${#env[@]} -gt 0 ] || env=(env)
        env+=("CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-1}") ;;
      gpu-graded) lock=(flock -s "$lockfile")
        [ ${#env[@]} -gt 0 ] || env=(env)
        local graded=$PWD/build/tests/graded${gpu_ids[$2]:+-gpu${gpu_ids[$2]}}
        env+=("GRADER_GPU_LOCK=$graded.lock")
        [ "$share_refs" = 0 ] || env+=("GRADER_REFERENCE_CACHE=$graded.refs") ;;
    esac
  fi
  # timeout signals its whole process group: the group's programs end with it. It leads that
  # group (setpgid), under the pid written to $pids/INDEX, so that a stopped run stops it too.
  # shellcheck disable=SC2016,SC2086 # $$ and "$@" are the inner shell's; the command is a word list
  "${env[@]}" "${lock[@]}" bash -c 'echo $$ >"$0"; exec timeout -k 10 "$@"' "$pids/$1" \
    "$group_timeout" ${cmds[$1]} >"$log" 2>&1 </dev/null &
  started=$!
}

# Ctrl-C or a signal stops the run and every group it started (each is a process group of its
# own, which the run's own process group does not reach), then says so.
stop_run() {
  trap - INT TERM
  local p sig t
  for sig in TERM KILL; do # KILL for what is still there 10 s later
    for p in "${!pid_of[@]}"; do
      [ -s "$pids/${pid_of[$p]}" ] && kill -"$sig" -- "-$(cat "$pids/${pid_of[$p]}")" 2>/dev/null
      kill -"$sig" "$p" 2>/dev/null # still waiting for the GPU's lock
    done
    for ((t = 0; t < 100; t++)); do [ -z "$(jobs -rp)" ] && break; sleep 0.1; done
  done
  wait
  echo "tests/run.sh: stopped by SIG$1, with the ${#pid_of[@]} group(s) still running" >&2
  rm -rf "$pids"
  exit "$2"
}

# place_for INDEX: the GPU place a group may start on now (in place), 1 when none
place_for() {
  local p
  place=$((places - 1))
  [ $have_gpu = 1 ] || return 0
  case ${kinds[$1]} in
    gpu) # the first place that nothing holds
      for ((p = 0; p < places; p++)); do
        [ "${gpu_busy[p]}" -lt 0 ] && [ "${gpu_shared[p]}" -eq 0 ] && [ "${gpu_graded[p]}" -eq 0 ] &&
          { place=$p; return 0; }
      done
      return 1 ;;
    gpu-graded) # the first place that nothing holds, else beside the fewest graded groups
      # (the last such: the first holds the longest group)
      local best=-1
      for ((p = 0; p < places; p++)); do
        [ "${gpu_busy[p]}" -lt 0 ] && [ "${gpu_shared[p]}" -eq 0 ] || continue
        if [ $best -lt 0 ] || { [ "${gpu_graded[best]}" -gt 0 ] &&
             [ "${gpu_graded[p]}" -le "${gpu_graded[best]}" ]; }; then best=$p; fi
      done
      [ $best -ge 0 ] && { place=$best; return 0; }
      return 1 ;;
    gpu-shared) # beside other shared groups, else on the last place that nothing else holds
      for ((p = places - 1; p >= 0; p--)); do
        [ "${gpu_busy[p]}" -lt 0 ] && [ "${gpu_shared[p]}" -gt 0 ] && { place=$p; return 0; }
      done
      for ((p = places - 1; p >= 0; p--)); do
        [ "${gpu_busy[p]}" -lt 0 ] && [ "${gpu_graded[p]}" -eq 0 ] && { place=$p; return 0; }
      done
      return 1 ;;
  esac
  return 0
}

rm -f "$durations.new"
pids=$(mktemp -d "${TMPDIR:-/tmp}/test-run.XXXXXX")
declare -A pid_of=() began=() place_of=()
trap 'stop_run INT 130' INT
trap 'stop_run TERM 143' TERM
running=0 cpu_running=0 gpu_busy=() gpu_shared=() gpu_graded=()
for ((p = 0; p < places; p++)); do gpu_busy[p]=-1 gpu_shared[p]=0 gpu_graded[p]=0; done
waiting=("${order[@]}")
while [ ${#waiting[@]} -gt 0 ] || [ $running -gt 0 ]; do
  # start what fits: a free slot, and a place that place_for finds for its kind (a whole GPU
  # for a "gpu" group; one that no other kind holds for a "gpu-shared" or "gpu-graded" one)
  kept=()
  for i in "${waiting[@]}"; do
    if [ $running -lt "$jobs" ] && { [ "${kinds[i]}" != cpu ] || [ "$cpu_running" -lt "$cpu_jobs" ]; } &&
       place_for "$i"; then
      start "$i" "$place"
      pid_of[$started]=$i began[$i]=$SECONDS place_of[$i]=$place running=$((running + 1))
      [ "${kinds[i]}" = cpu ] && cpu_running=$((cpu_running + 1))
      if [ $have_gpu = 1 ]; then
        [ "${kinds[i]}" = gpu ] && gpu_busy[place]=$i
        [ "${kinds[i]}" = gpu-shared ] && gpu_shared[place]=$((gpu_shared[place] + 1))
        [ "${kinds[i]}" = gpu-graded ] && gpu_graded[place]=$((gpu_graded[place] + 1))
      fi
    else
      kept+=("$i")
    fi
  done
  waiting=("${kept[@]}")
  [ $running -gt 0 ] || continue
  done_pid=
  wait -n -p done_pid
  rc=$?
  if [ -z "$done_pid" ]; then
    # wait -n returned without naming a job (bash had already reaped one): the group whose
    # process is gone is the one that ended, and wait PID still gives its status
    for p in "${!pid_of[@]}"; do
      kill -0 "$p" 2>/dev/null && continue
      wait "$p"
      rc=$? done_pid=$p
      break
    done
    [ -n "$done_pid" ] || continue
  fi
  i=${pid_of[$done_pid]}
  unset "pid_of[$done_pid]"
  running=$((running - 1))
  [ "${kinds[i]}" = cpu ] && cpu_running=$((cpu_running - 1))
  p=${place_of[$i]}
  if [ $have_gpu = 1 ]; then
    [ "${gpu_busy[p]}" = "$i" ] && gpu_busy[p]=-1
    [ "${kinds[i]}" = gpu-shared ] && gpu_shared[p]=$((gpu_shared[p] - 1))
    [ "${kinds[i]}" = gpu-graded ] && gpu_graded[p]=$((gpu_graded[p] - 1))
  fi
  report "$i" "$rc" $((SECONDS - began[$i]))
done
rm -rf "$pids"
# the times of this run for the next one's order (a filtered run keeps the others')
if [ -f "$durations.new" ]; then
  [ -f "$durations" ] && awk 'NR == FNR { seen[$1] = 1; print; next } !($1 in seen)' \
    "$durations.new" "$durations" >"$durations.tmp" && mv "$durations.tmp" "$durations.new"
  mv "$durations.new" "$durations"
fi

[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
