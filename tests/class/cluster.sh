# Sourced by the Slurm tests: a single-node Slurm cluster on localhost (munge, slurmctld,
# slurmd), configured in $TEST_TMP/slurm, with two pretend GPUs (gres bound to /dev/null and
# /dev/zero) and the partition "class" (the default).
#   require_slurm              installs Slurm and munge (as root, with apt-get) or SKIPs
#   start_cluster [LINE...]    starts it, LINEs added to slurm.conf (another partition);
#                              SKIP when it does not come up; SLURM_CONF exported, the daemons
#                              stopped at exit

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

require_slurm() {
  command -v munged >/dev/null && command -v slurmctld >/dev/null || install_slurm
  local tool
  for tool in munged slurmctld slurmd sbatch squeue sinfo scancel; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (slurm-wlm and munge; this test installs them as root)"; exit 77; }
  done
  [ "$(id -u)" -eq 0 ] || { echo "SKIP: a private Slurm cluster needs root here (slurmd starts jobs as their user)"; exit 77; }
}

SL=$TEST_TMP/slurm
PIDS=()
stop_cluster() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
}

start_cluster() {
  mkdir -p "$SL"/{state,spool,log,run}
  trap 'stop_cluster; rm -rf "$TEST_TMP"' EXIT
  dd if=/dev/urandom of="$SL/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$SL/munge.key"
  munged -F -f --socket="$SL/munge.sock" --key-file="$SL/munge.key" --pid-file="$SL/run/munged.pid" \
    --seed-file="$SL/munge.seed" --log-file="$SL/log/munged.log" >"$SL/log/munged.out" 2>&1 &
  PIDS+=($!)
  local port=$(( 20000 + RANDOM % 20000 ))
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
  local line
  for line in "$@"; do printf '%s\n' "$line" >>"$SL/slurm.conf"; done
  printf 'NodeName=localhost Name=gpu File=/dev/null\nNodeName=localhost Name=gpu File=/dev/zero\n' >"$SL/gres.conf"
  printf 'CgroupPlugin=cgroup/v1\nIgnoreSystemd=yes\n' >"$SL/cgroup.conf"
  export SLURM_CONF=$SL/slurm.conf
  sleep 0.5
  slurmctld -D -f "$SLURM_CONF" >"$SL/log/slurmctld.out" 2>&1 &
  PIDS+=($!)
  slurmd -D -f "$SLURM_CONF" -N localhost >"$SL/log/slurmd.out" 2>&1 &
  PIDS+=($!)
  local up=0
  for _ in $(seq 1 60); do
    [ "$(sinfo -h -N -o %t 2>/dev/null | head -n1)" = idle ] && { up=1; break; }
    sleep 0.5
  done
  if [ $up -ne 1 ]; then
    echo "SKIP: the local Slurm cluster did not come up (node: $(sinfo -h -N -o %t 2>&1 | head -n1); logs: slurmctld.log, slurmd.log)"
    tail -n 5 "$SL"/log/*.log 2>/dev/null
    exit 77
  fi
  ok "single-node cluster up: $(sinfo -h -o '%P %a %D %t' | tr '\n' ' ')"
}
