#!/usr/bin/env bash
# The fixture class through a single-node Slurm cluster started here on localhost (munge,
# slurmctld, slurmd, configured in a temporary directory): the gradebook must be identical to
# the one graded locally. Where Slurm cannot start: one SKIP line.
source "$(dirname "$0")/../lib.sh"
source tests/class/fixture.sh

# The daemons live in /usr/sbin, which a normal user's PATH may lack.
PATH=$PATH:/usr/sbin
# The only place that installs Slurm and munge (as root, with apt-get, unless LAB_NO_INSTALL):
# no service starts during the install (policy-rc.d) and none is left enabled at boot.
install_slurm() {
  [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null && [ -z "${LAB_NO_INSTALL:-}" ] || return 1
  local policy=/usr/sbin/policy-rc.d had_policy=0 rc
  [ -e "$policy" ] && had_policy=1
  if [ $had_policy = 0 ]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod 755 "$policy"; fi
  apt-get update -qq >/dev/null 2>&1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null 2>&1
  rc=$?
  [ $had_policy = 1 ] || rm -f "$policy"
  command -v systemctl >/dev/null && systemctl disable munge slurmctld slurmd >/dev/null 2>&1
  return $rc
}
command -v munged >/dev/null && command -v slurmctld >/dev/null || install_slurm
for tool in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (slurm-wlm and munge; this test installs them as root)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: a private Slurm cluster needs root here (slurmd starts jobs as their user)"; exit 77; }

setup_course
batch_reference
SL=$TEST_TMP/slurm
mkdir -p "$SL"/{state,spool,log,run}
PIDS=()
stop_cluster() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
}
trap 'stop_cluster; rm -rf "$TEST_TMP"' EXIT

# ---- the cluster: one node with two pretend GPUs (gres bound to /dev/null and /dev/zero)
dd if=/dev/urandom of="$SL/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$SL/munge.key"
munged -F -f --socket="$SL/munge.sock" --key-file="$SL/munge.key" --pid-file="$SL/run/munged.pid" \
  --seed-file="$SL/munge.seed" --log-file="$SL/log/munged.log" >"$SL/log/munged.out" 2>&1 &
PIDS+=($!)
port=$(( 20000 + RANDOM % 20000 ))
cat >"$SL/slurm.conf" <<CONF
ClusterName=classtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SL/munge.sock
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/run/slurmctld.pid
SlurmdPidFile=$SL/run/slurmd.pid
SlurmctldLogFile=$SL/log/slurmctld.log
SlurmdLogFile=$SL/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
GresTypes=gpu
NodeName=localhost CPUs=$(nproc) RealMemory=4000 Gres=gpu:2 State=UNKNOWN
PartitionName=class Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
printf 'NodeName=localhost Name=gpu File=/dev/null\nNodeName=localhost Name=gpu File=/dev/zero\n' >"$SL/gres.conf"
printf 'CgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\n' >"$SL/cgroup.conf"
export SLURM_CONF=$SL/slurm.conf
sleep 0.5
slurmctld -D -f "$SLURM_CONF" >"$SL/log/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" -N localhost >"$SL/log/slurmd.out" 2>&1 &
PIDS+=($!)
up=0
for _ in $(seq 1 60); do
  [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && { up=1; break; }
  sleep 0.5
done
if [ $up -ne 1 ]; then
  echo "SKIP: the local Slurm cluster did not come up (node: $(sinfo -h -N -o %t 2>&1 | head -n1); logs: slurmctld.log, slurmd.log)"
  tail -n 5 "$SL"/log/*.log 2>/dev/null
  exit 77
fi
ok "single-node cluster up: $(sinfo -h -o '%P %a %D %t')"

OPTS=(--course "$COURSE_DIR" --no-sanitize --timeout 3)
# ---- the same class locally and through the cluster, side by side: two class folders of
# their own, over the course that batch_reference built
make_class "$TEST_TMP/local"
make_class "$TEST_TMP/cluster"
"$GRADER" class "$TEST_TMP/local" "${OPTS[@]}" --jobs 2 >"$TEST_TMP/local.out" 2>&1 &
local_pid=$!
"$GRADER" class "$TEST_TMP/cluster" "${OPTS[@]}" --slurm --chunk 2 --time 10 --mem 500 --cpus 1 \
  --wait --interval 1 >"$TEST_TMP/slurm.out" 2>&1
rc=$?
wait $local_pid || { bad "local grading failed"; tail "$TEST_TMP/local.out"; }
skip_without_runs "$TEST_TMP/local/gradebook.csv"
sed 's/^/    /' "$TEST_TMP/slurm.out" | head -n 30
[ $rc -eq 0 ] && ok "grader class --slurm --wait: exit 0" || bad "grader class --slurm: exit $rc"
expect_grep "^submitted job [0-9]+: ${#STUDENTS[@]} students in 7 array tasks" "$TEST_TMP/slurm.out" "job array submitted"
expect_grep "students graded$" "$TEST_TMP/slurm.out" "progress reported while it ran"
expect_grep "none in the queue; ${#STUDENTS[@]} of ${#STUDENTS[@]} students graded" "$TEST_TMP/slurm.out" "every student graded"
check_book "$TEST_TMP/cluster/gradebook.csv"
if cmp -s "$TEST_TMP/local/gradebook.csv" "$TEST_TMP/cluster/gradebook.csv"; then
  ok "the cluster's gradebook is identical to the local one"
else
  bad "gradebooks differ"; diff "$TEST_TMP/local/gradebook.csv" "$TEST_TMP/cluster/gradebook.csv" | head
fi
ls "$TEST_TMP/cluster/.grader/slurm/logs/"*.out >/dev/null 2>&1 && ok "array task logs kept" || bad "no array task logs"

# ---- collect: lists what did not finish (a student added after the job), merges the rest
mkdir -p "$TEST_TMP/cluster/late/exercises"
"$GRADER" collect "$TEST_TMP/cluster" >"$TEST_TMP/collect.out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "collect with an ungraded student exits 1" || bad "collect exit $rc"
expect_grep "late +not graded" "$TEST_TMP/collect.out" "collect lists the ungraded student"
expect_grep "^late,pending," "$TEST_TMP/cluster/gradebook.csv" "the ungraded student is pending in the gradebook"
finish
