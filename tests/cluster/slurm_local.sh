#!/usr/bin/env bash
# Start or stop a live single-node SLURM on this machine (controller and node on localhost), for tests.
#
#   tests/cluster/slurm_local.sh start STATE_DIR   # prints `export SLURM_CONF=...` on success
#   tests/cluster/slurm_local.sh stop STATE_DIR
#
# Installs Debian's slurm-wlm and munge when missing (root only). Writes its own slurm.conf under
# STATE_DIR (cores and memory read from this machine). Job steps (srun inside a batch job) do not see
# the submitter's SLURM_CONF, so /etc/slurm/slurm.conf is linked to it while SLURM runs, and only when
# no slurm.conf was there. Accounting is off (no slurmdbd): the Snakemake executor must use `squeue`.
set -euo pipefail

action=${1:?usage: slurm_local.sh start|stop STATE_DIR}
state=$(realpath -m "${2:?usage: slurm_local.sh start|stop STATE_DIR}")
conf="$state/slurm.conf"

stop() {
  for daemon in slurmd slurmctld; do
    if [ -f "$state/$daemon.pid" ]; then
      kill "$(cat "$state/$daemon.pid")" 2>/dev/null || true
    fi
  done
  for _ in $(seq 50); do
    pgrep -f "slurm(ctld|d) .*-f $conf" >/dev/null || break
    sleep 0.2
  done
  pkill -9 -f "slurm(ctld|d) .*-f $conf" 2>/dev/null || true
  if [ -L /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" = "$conf" ]; then
    rm -f /etc/slurm/slurm.conf
  fi
  if [ -f "$state/munged.started-by-us" ]; then
    pkill -x munged 2>/dev/null || true
    for _ in $(seq 50); do pgrep -x munged >/dev/null || break; sleep 0.1; done
    rm -f "$state/munged.started-by-us"
  fi
}

if [ "$action" = stop ]; then
  stop
  exit 0
fi

[ "$(id -u)" = 0 ] || { echo "slurm_local.sh: needs root (to install packages and run slurmd)" >&2; exit 2; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "installing slurm-wlm and munge" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

mkdir -p "$state"/{spool,state,log}
host=$(hostname -s)
cpus=$(nproc)
# Leave the OS some memory: advertise 90% of it.
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
cat > "$conf" <<CONF
ClusterName=e2e
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
# The scheduler's own record of every finished job (its partition): the routing is read there, and from scontrol.
JobCompType=jobcomp/filetxt
JobCompLoc=$state/log/jobcomp.log
# One generic GPU (a stand-in device, below): enough for the scheduler to route and count GPU requests.
GresTypes=gpu
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$state/state
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmctldPort=6917
SlurmdPort=6918
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem_mb Gres=gpu:1 State=UNKNOWN
PartitionName=e2e Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$host MaxTime=INFINITE State=UP
CONF
# slurmd drops a GPU without a device file ("Removing file-less GPU"): the node's one GPU is a character device
# of its own with /dev/null's numbers (no job opens it; nothing constrains devices here: TaskPlugin=task/none).
mkdir -p "$state/dev"
[ -e "$state/dev/gpu0" ] || mknod "$state/dev/gpu0" c 1 3
cat > "$state/gres.conf" <<CONF
NodeName=$host Name=gpu File=$state/dev/gpu0
CONF

if ! pgrep -x munged >/dev/null; then
  [ -f /etc/munge/munge.key ] || mungekey --create
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- munged
  touch "$state/munged.started-by-us"
  for _ in $(seq 50); do [ -S /run/munge/munge.socket.2 ] && break; sleep 0.1; done
fi

if [ -e /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" != "$conf" ]; then
  echo "slurm_local.sh: /etc/slurm/slurm.conf exists; a SLURM is configured here already, not replacing it" >&2
  exit 2
fi
mkdir -p /etc/slurm
ln -sfn "$conf" /etc/slurm/slurm.conf
export SLURM_CONF=$conf
slurmctld -f "$conf"
slurmd -f "$conf"
for _ in $(seq 60); do
  if sinfo -h -o '%T' 2>/dev/null | grep -q -E '^idle'; then
    echo "export SLURM_CONF=$conf"
    exit 0
  fi
  sleep 0.5
done
echo "slurm_local.sh: the node did not become idle; see $state/log/" >&2
tail -n 5 "$state/log/slurmctld.log" "$state/log/slurmd.log" >&2 || true
stop
exit 1
