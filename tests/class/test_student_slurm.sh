#!/usr/bin/env bash
# A student's grading through Slurm (grader/remote/) on the single-node cluster of cluster.sh:
# the fixture course graded by a job must report what a local grading reports, with the job's
# queue and node on stderr and in the interactive course's title bar; Ctrl-C and the
# interactive course's q cancel the job (none left in squeue); bad configuration (an unknown
# partition, no sbatch, a job that never starts, a bad grader.ini) ends in one clear line in
# bounded time. Where Slurm cannot start: one SKIP line.
source "$(dirname "$0")/../lib.sh"
source tests/class/fixture.sh
source tests/class/cluster.sh

require_slurm
setup_course
# "closed" takes jobs and never starts them
start_cluster "PartitionName=closed Nodes=localhost MaxTime=INFINITE State=DOWN"
export LAB_SLURM_POLL_S=0.5
C=$COURSE_DIR
printf '[slurm]\nenabled = auto\npartition = class\ngres = gpu:1\ntime = 10\nmem = 500\ncpus = 1\n' \
  >"$C/grader.ini"
OPTS=(--batch --root "$C" --no-sanitize --timeout 3 --no-state)
# With a GPU here, grader.ini's `enabled = auto` grades here: --slurm asks for the job.
if nvidia-smi -L 2>/dev/null | grep -q GPU; then VIA=(--slurm); else VIA=(); fi

no_jobs() { # DESCRIPTION: squeue lists no job
  local left
  left=$(squeue -h -o '%i %T' 2>&1)
  [ -z "$left" ] && ok "$1" || bad "$1: squeue lists $left"
}
# timed OUT ERR SECONDS ARGS...: the grader under a bound; RC and TOOK (seconds) set
timed() {
  local out=$1 err=$2 limit=$3 t0=$SECONDS; shift 3
  timeout "$limit" "$GRADER" "$@" >"$out" 2>"$err"
  RC=$? TOOK=$((SECONDS - t0))
}

# ---- the path: checks here, the runs in a job, the report read back
timed "$TEST_TMP/local.json" "$TEST_TMP/local.err" 120 "${OPTS[@]}" --no-slurm --format json
LOCAL_RC=$RC
timed "$TEST_TMP/remote.json" "$TEST_TMP/remote.err" 180 "${OPTS[@]}" "${VIA[@]}" --format json
sed 's/^/    /' "$TEST_TMP/remote.err" | head -n 20
[ "$RC" -eq "$LOCAL_RC" ] && ok "through Slurm the exit status is the local one ($RC)" ||
  bad "through Slurm: exit $RC, locally $LOCAL_RC"
expect_grep "^grader: the runs go to a Slurm job on a GPU node \(partition class, gres gpu:1\)" \
  "$TEST_TMP/remote.err" "stderr says where the runs go and why"
expect_grep "^slurm: job [0-9]+ (queued [0-9]+ s|running on localhost)" "$TEST_TMP/remote.err" \
  "stderr shows the job in the queue"
expect_grep "^slurm: job [0-9]+ running on localhost for [0-9]+ s" "$TEST_TMP/remote.err" \
  "stderr shows the node the job runs on"
# the build error and the forbidden call are decided here: the job grades the other tasks
expect_grep "^slurm: job [0-9]+ done on localhost, $(( ${#TASKS[@]} - 2 )) of $(( ${#TASKS[@]} - 2 )) graded$" \
  "$TEST_TMP/remote.err" "the job is done, and graded only the tasks that passed the checks here"
if python3 - "$TEST_TMP/local.json" "$TEST_TMP/remote.json" >"$TEST_TMP/cmp.out" 2>&1 <<'PY'
import json, sys
local, remote = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda t: (t["outcome"], t["score"], [c["status"] for c in t.get("cases", [])])
l = {t["id"]: key(t) for t in local["tasks"]}
r = {t["id"]: key(t) for t in remote["tasks"]}
bad = [f"{i}: here {l[i]}, through Slurm {r.get(i)}" for i in l if l[i] != r.get(i)]
print("\n".join(bad) or f"{len(l)} tasks alike")
sys.exit(1 if bad or len(l) < 10 or not any(v[0] == "passed" for v in r.values()) else 0)
PY
then ok "every task's outcome, score and cases read back as a local grading has them ($(cat "$TEST_TMP/cmp.out"))"
else bad "the job's results differ from a local grading's"; sed 's/^/    /' "$TEST_TMP/cmp.out"; fi
no_jobs "no job is left in the queue"
[ -z "$(ls -A "$C/build/grader/slurm" 2>/dev/null)" ] && ok "the job's files are removed once read" ||
  bad "the job's files stay: $(ls "$C/build/grader/slurm")"

# ---- Ctrl-C cancels the job (scancel) and exits 130
"$GRADER" "${OPTS[@]}" --timeout 120 "${VIA[@]}" 02-faults/hang >/dev/null 2>"$TEST_TMP/int.err" &
pid=$!
for _ in $(seq 1 120); do grep -q "running on localhost" "$TEST_TMP/int.err" && break; sleep 0.5; done
t0=$SECONDS
kill -INT $pid
for _ in $(seq 1 80); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
if kill -0 $pid 2>/dev/null; then bad "the grader did not end within 40 s of SIGINT"; kill -9 $pid; fi
wait $pid
rc=$?
[ $rc -eq 130 ] && ok "SIGINT while the job runs: exit 130 in $((SECONDS - t0)) s" ||
  { bad "SIGINT: exit $rc"; sed 's/^/    /' "$TEST_TMP/int.err"; }
no_jobs "the interrupted grading's job was cancelled"

# ---- bad configuration: one line, bounded time
timed "$TEST_TMP/o" "$TEST_TMP/part.err" 60 "${OPTS[@]}" --slurm --slurm-partition nope 01-basics/pass
[ $RC -eq 1 ] && [ $TOOK -le 30 ] && ok "an unknown partition: exit 1 in $TOOK s" || bad "unknown partition: exit $RC in $TOOK s"
expect_grep "^slurm: sbatch refused the job: .*[Pp]artition" "$TEST_TMP/part.err" "and one line giving sbatch's reason"
[ "$(grep -c '^slurm: sbatch' "$TEST_TMP/part.err")" -eq 1 ] && ok "sbatch's reply is one line" ||
  bad "sbatch's reply takes $(grep -c '^slurm: sbatch' "$TEST_TMP/part.err") lines"

mkdir -p "$TEST_TMP/nobin" && ln -s "$(command -v sh)" "$TEST_TMP/nobin/sh"
t0=$SECONDS
timeout 30 env PATH="$TEST_TMP/nobin" "$GRADER" "${OPTS[@]}" --slurm 01-basics/pass >/dev/null 2>"$TEST_TMP/nobin.err"
rc=$?
[ $rc -eq 2 ] && ok "no sbatch on PATH: exit 2 in $((SECONDS - t0)) s" || bad "no sbatch: exit $rc"
expect_grep "^grader: Slurm grading \(--slurm\) needs sbatch, squeue and scancel, and sbatch is not on PATH" \
  "$TEST_TMP/nobin.err" "and one line saying so"

timed "$TEST_TMP/o" "$TEST_TMP/never.err" 60 "${OPTS[@]}" --slurm --slurm-partition closed \
  --slurm-queue-limit 3 01-basics/pass
[ $RC -eq 1 ] && [ $TOOK -le 20 ] && ok "a job that never starts: exit 1 in $TOOK s (limit 3 s)" ||
  bad "a job that never starts: exit $RC in $TOOK s"
expect_grep "^slurm: job [0-9]+ did not start within 3 s \(Slurm's reason: PartitionDown\); it was cancelled" \
  "$TEST_TMP/never.err" "and one line with Slurm's reason"
no_jobs "the job that never started was cancelled"

cp "$C/grader.ini" "$TEST_TMP/grader.ini"
printf '[slurm]\nqueue = 5\n' >"$C/grader.ini"
timed "$TEST_TMP/o" "$TEST_TMP/ini.err" 30 "${OPTS[@]}" --slurm 01-basics/pass
[ $RC -eq 2 ] && ok "a bad grader.ini: exit 2" || bad "a bad grader.ini: exit $RC"
expect_grep "grader.ini:2: unknown key 'queue' in \[slurm\]" "$TEST_TMP/ini.err" "and one line naming the file and line"
cp "$TEST_TMP/grader.ini" "$C/grader.ini"

# ---- the interactive course: the job in the title bar, a result read back, q cancels
tmux_sys() { env -u LD_LIBRARY_PATH tmux "$@"; }
if ! tmux_sys -V >/dev/null 2>&1; then
  echo "tmux does not run here: the interactive course's checks are left out"; finish
fi
SOCK=$TEST_TMP/tmux.sock
trap 'tmux_sys -S "$SOCK" kill-server >/dev/null 2>&1; stop_cluster; rm -rf "$TEST_TMP"' EXIT
screen() { tmux_sys -S "$SOCK" capture-pane -p -t tui; }
keys() { tmux_sys -S "$SOCK" send-keys -t tui "$@"; sleep 0.3; }
wait_for() { # PATTERN SECONDS DESCRIPTION
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -le "$deadline" ]; do
    if screen | grep -qE -- "$1"; then ok "$3"; return 0; fi
    sleep 0.2
  done
  bad "$3: /$1/ not on screen after $2 s"; screen | sed 's/^/    | /'
}
tmux_sys -S "$SOCK" new-session -d -s tui -x 120 -y 30 \
  "env SLURM_CONF='$SLURM_CONF' LAB_SLURM_POLL_S=0.5 LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=xterm-256color '$GRADER' --root '$C' --no-sanitize --timeout 120 --no-state ${VIA[*]}; echo \"GRADER-EXIT=\$?\"; sleep 60"
wait_for 'the runs go to a Slurm job on a GPU node' 10 "the first screen says where the runs go"
keys Enter
wait_for 'Slurm job [0-9]+ (queued|running on localhost)' 20 "the title bar shows the job"
wait_for 'pass +A correct exercise +passed' 60 "the job's result is the task's, in its row"
no_jobs "the task's job left the queue"
keys / h a n g Enter Enter
wait_for 'Slurm job [0-9]+ running on localhost for' 60 "the title bar shows the node"
keys q
wait_for 'GRADER-EXIT=' 40 "q quits while the job runs"
no_jobs "q cancelled the job"
finish
