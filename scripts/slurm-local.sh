#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, from Debian's packages (scripts/deps.sh slurm),
# for tests/cli/slurm.sh and for trying scripts/slurm-study.sh without a real cluster.
#   scripts/slurm-local.sh up     [--dir DIR]   start munged, slurmctld and slurmd; wait until
#                                               the node is idle; print the line to source
#   scripts/slurm-local.sh status [--dir DIR]   which daemons run, and sinfo
#   scripts/slurm-local.sh down   [--dir DIR]   cancel every job, stop the daemons, remove DIR
# DIR (default /tmp/laysim-slurm-$UID) holds everything: slurm.conf (CPUs and memory from
# `slurmd -C`), the munge key (generated), state, spool, logs, pid files and env.sh
# (`. DIR/env.sh` points sbatch, squeue, ... at this cluster through SLURM_CONF). No systemd
# is needed: the daemons are started directly, as root (slurmd launches the jobs).
# SLURM_LOCAL_PORT (default 6817) is slurmctld's port; slurmd listens on the next one.
# Idempotent: `up` on a running cluster only waits for the node; `down` on none does nothing.
# Exit codes: 0 ok, 1 a daemon did not start or stop (its log is printed), 2 usage.
set -euo pipefail

die() { echo "slurm-local.sh: $*" >&2; exit "${CODE:-1}"; }
usage() { CODE=2 die "usage: scripts/slurm-local.sh up|down|status [--dir DIR]"; }

[ $# -ge 1 ] || usage
action=$1
shift
DIR=/tmp/laysim-slurm-$(id -u)
while [ $# -gt 0 ]; do
    case $1 in
    --dir) [ $# -ge 2 ] || usage; DIR=$2; shift 2 ;;
    --dir=*) DIR=${1#--dir=}; shift ;;
    *) usage ;;
    esac
done
case $action in up | down | status) ;; *) usage ;; esac
case $DIR in /*) ;; *) DIR=$PWD/$DIR ;; esac
PORT=${SLURM_LOCAL_PORT:-6817}
CONF=$DIR/slurm.conf
export SLURM_CONF=$CONF

# pid_alive NAME: the daemon's pid file names a live process
pid_alive() {
    local f=$DIR/run/$1.pid
    [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

need_tools() {
    local t missing=()
    for t in munged mungekey slurmctld slurmd sinfo scontrol; do
        command -v "$t" >/dev/null 2>&1 || missing+=("$t")
    done
    [ ${#missing[@]} -eq 0 ] || die "not installed: ${missing[*]} (scripts/deps.sh slurm installs them)"
    [ "$(id -u)" = 0 ] || die "needs root: slurmd runs the jobs and munged checks its key's owner"
}

write_conf() {
    local node host mem
    node=$(slurmd -C | head -1) || die "slurmd -C failed"
    host=$(hostname -s)
    mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
    # leave the daemons some memory: jobs may ask for at most 90 % of it
    node=$(sed "s/RealMemory=[0-9]*/RealMemory=$((mem * 9 / 10))/; s/^NodeName=[^ ]*/NodeName=$host/" <<<"$node")
    cat >"$CONF.tmp" <<EOF
# written by scripts/slurm-local.sh: one node, everything under $DIR
ClusterName=laysim-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
PlugStackConfig=$DIR/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=60
MinJobAge=600
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    mv "$CONF.tmp" "$CONF"
    : >"$DIR/plugstack.conf"
    echo "export SLURM_CONF=$CONF" >"$DIR/env.sh"
}

start_munge() {
    pid_alive munged && return 0
    local m=$DIR/munge
    [ -s "$m/munge.key" ] || mungekey --create --keyfile="$m/munge.key" ||
        die "cannot create the munge key $m/munge.key"
    chmod 600 "$m/munge.key"
    munged --socket="$m/munge.socket" --key-file="$m/munge.key" --log-file="$DIR/log/munged.log" \
        --pid-file="$DIR/run/munged.pid" --seed-file="$m/munged.seed" --force ||
        { cat "$DIR/log/munged.log" >&2 2>/dev/null; die "munged did not start"; }
    for _ in $(seq 100); do pid_alive munged && return 0; sleep 0.1; done
    die "munged exited at start (log: $DIR/log/munged.log)"
}

# start NAME: slurmctld or slurmd (they detach, then write their pid files: wait for them)
start() {
    pid_alive "$1" && return 0
    "$1" -f "$CONF" || { tail -n 20 "$DIR/log/$1.log" >&2 2>/dev/null; die "$1 did not start"; }
    for _ in $(seq 100); do pid_alive "$1" && return 0; sleep 0.1; done
    tail -n 20 "$DIR/log/$1.log" >&2 2>/dev/null
    die "$1 exited at start (log: $DIR/log/$1.log)"
}

wait_idle() {
    local state
    for _ in $(seq 120); do
        state=$(sinfo -h -N -o %T 2>/dev/null | head -1) || state=
        case $state in
        idle | mixed | allocated) return 0 ;;
        drain* | down*) scontrol update nodename="$(hostname -s)" state=resume 2>/dev/null || true ;;
        esac
        if ! pid_alive slurmctld || ! pid_alive slurmd; then
            tail -n 20 "$DIR"/log/slurm*.log >&2
            die "a daemon exited (logs in $DIR/log)"
        fi
        sleep 0.5
    done
    tail -n 20 "$DIR"/log/slurm*.log >&2
    die "the node is not idle after 60 s (state '$state'; logs in $DIR/log)"
}

up() {
    need_tools
    mkdir -p "$DIR"/{munge,state,spool,run,log}
    chmod 700 "$DIR" "$DIR/munge"
    pid_alive slurmctld || write_conf
    start_munge
    start slurmctld
    start slurmd
    wait_idle
    echo ". $DIR/env.sh   # SLURM_CONF=$CONF"
}

# stop NAME: TERM the daemon of the pid file, wait up to 10 s, then KILL it
stop() {
    pid_alive "$1" || return 0
    local pid
    pid=$(cat "$DIR/run/$1.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
}

down() {
    [ -d "$DIR" ] || return 0
    [ -f "$CONF" ] || [ -d "$DIR/run" ] || die "$DIR is not a cluster of slurm-local.sh: not removed"
    if pid_alive slurmctld; then
        scancel --full --quiet "--user=$(id -un)" 2>/dev/null || true
        # a job step's processes end with their job; give slurmd a moment to reap them
        for _ in $(seq 20); do [ -z "$(squeue -h -o %A 2>/dev/null)" ] && break; sleep 0.25; done
    fi
    stop slurmd
    stop slurmctld
    stop munged
    rm -rf "$DIR"
}

status() {
    local d rc=0
    for d in munged slurmctld slurmd; do
        if pid_alive "$d"; then echo "$d: running (pid $(cat "$DIR/run/$d.pid"))"; else echo "$d: stopped"; rc=1; fi
    done
    [ $rc -eq 0 ] && sinfo
    return $rc
}

"$action"
