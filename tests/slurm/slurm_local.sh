#!/usr/bin/env bash
# A throwaway single-node Slurm cluster on localhost, for tests that submit jobs with srun.
#
#   slurm_local.sh start  <state-dir> [owner-pid]   write the config, start the daemons, wait until
#                                                  `srun true` works, print the lines to eval
#   slurm_local.sh env    <state-dir>               print those lines again (exit 1 if not running)
#   slurm_local.sh status <state-dir>               exit 0 if the daemons of <state-dir> are running
#   slurm_local.sh stop   <state-dir>               cancel the jobs, end all it started (idempotent)
#
# start exits 0 and prints only `export ...` / `unset ...` lines on stdout; where the cluster cannot
# come up it leaves nothing running, prints one line `skipped: <reason>` and exits 77 (CTest's
# SKIP_RETURN_CODE). With an owner-pid, a watchdog stops the cluster once that process is gone, so a
# killed test leaves no daemons behind.
#
# Everything lives under <state-dir>: slurm.conf, state, spool, logs, pid files (and munge's key,
# socket and logs where munge is used). Nothing under /etc, /run or /var is read or written.
#
# Environment:
#   KLINEAGE_SLURM_AUTH=auto|none|munge  auth plugin (auto: auth/none where this Slurm has it,
#                                        else munge with a private munged)
#   KLINEAGE_SLURM_TIMEOUT=30            seconds to wait for the node to be idle and srun to work
#   KLINEAGE_SLURM_PROCTRACK=pgid        proctrack plugin (pgid or linuxproc; see README.md)
#   KLINEAGE_SLURM_CPUS=$(nproc)         CPUs of the node, so jobs of one CPU at once (may exceed
#                                        the real count: SlurmdParameters=config_overrides)
set -u

PARTITION=klineage
ME=slurm_local

say() { echo "$ME: $*" >&2; }

usage() {
  echo "usage: $0 start <state-dir> [owner-pid] | env <state-dir> | status <state-dir> | stop <state-dir>" >&2
  exit 2
}

now_ms() { date +%s%3N; }

# alive PID: the process exists, is not a zombie, and its command line names the state dir
# (guards against a recycled pid in a stale pid file).
alive() {
  local pid=$1 st
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 1
  st=$(sed -e 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
  [ -n "$st" ] && [ "$st" != Z ] || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$DIR/"
}

pidof_file() { [ -r "$1" ] && tr -dc '0-9' <"$1"; }

# Processes started by the cluster of $DIR that pid files do not name: slurmstepd (it clears its
# environment and retitles itself, but keeps slurmd's log open) and the job tasks (their environment
# has SLURM_CONF=$DIR/slurm.conf and SLURMD_NODENAME, which only slurmstepd sets).
stepd_pids() {
  local f p comm
  for f in /proc/[0-9]*/comm; do
    { read -r comm <"$f"; } 2>/dev/null || continue
    [ "$comm" = slurmstepd ] || continue
    p=${f#/proc/}; p=${p%/comm}
    if ls -l "/proc/$p/fd" 2>/dev/null | grep -qF -- "$DIR/log/slurmd.log"; then echo "$p"; fi
  done
}

stray_pids() {
  local f p
  stepd_pids
  for f in $(grep -lzxF -- "SLURM_CONF=$DIR/slurm.conf" /proc/[0-9]*/environ 2>/dev/null); do
    p=${f#/proc/}; p=${p%/environ}
    [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
    grep -qz '^SLURMD_NODENAME=' "$f" 2>/dev/null && echo "$p"
  done
}

# Ends what pid files name (TERM, then KILL after a few seconds), then strays. Idempotent.
stop_all() {
  local names=(watchdog slurmd slurmctld munged) n pid pids=() i
  if [ -r "$DIR/slurm.conf" ] && alive "$(pidof_file "$DIR/run/slurmctld.pid")"; then
    # Cancel the jobs while the controller is up, so that slurmstepd ends the tasks it tracks
    # (SIGTERM, SIGKILL after KillWait=3 s); wait up to 6 s for the slurmstepds to go.
    SLURM_CONF="$DIR/slurm.conf" timeout 5 scancel -p "$PARTITION" >/dev/null 2>&1
    for i in $(seq 60); do
      [ -z "$(stepd_pids)" ] && break
      sleep 0.1
    done
  fi
  for n in "${names[@]}"; do
    pid=$(pidof_file "$DIR/run/$n.pid")
    [ "$pid" != $$ ] || continue  # the watchdog execs `stop`
    if alive "$pid"; then
      kill -TERM "$pid" 2>/dev/null
      pids+=("$pid")
    fi
  done
  for i in $(seq 50); do
    local left=()
    for pid in "${pids[@]}"; do alive "$pid" && left+=("$pid"); done
    pids=("${left[@]}")
    [ ${#pids[@]} -eq 0 ] && break
    sleep 0.1
  done
  # slurmd waits for its steps on SIGTERM; whatever is left after 5 s is killed.
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  for pid in $(stray_pids); do kill -KILL "$pid" 2>/dev/null; done
  for n in "${names[@]}"; do rm -f "$DIR/run/$n.pid"; done
  rm -f "$DIR/run/up"
  return 0
}

# last_lines FILE...: the last 3 non-empty lines of the given logs, on one line.
last_lines() {
  local f out=""
  for f in "$@"; do
    [ -s "$f" ] || continue
    out+="${out:+ | }$(basename "$f"): $(grep -v '^[[:space:]]*$' "$f" | tail -n 3 | sed -e 's/^\[[^]]*\] //' | tr '\n' '\t' | sed -e 's/\t$//; s/\t/ | /g')"
  done
  echo "$out"
}

fail() {
  local reason=$1; shift
  local logs
  logs=$(last_lines "$@")
  stop_all
  echo "skipped: $reason${logs:+ ($logs)}"
  exit 77
}

port_in_use() {
  local hex
  hex=$(printf ':%04X ' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '{print $2}' | grep -qi -- "${hex% }\$"
}

# Two free TCP ports below the usual ephemeral range (32768-60999).
pick_ports() {
  local tries=0 a b
  while [ $tries -lt 200 ]; do
    tries=$((tries + 1))
    a=$((12000 + RANDOM % 20000))
    b=$((a + 1))
    port_in_use "$a" || port_in_use "$b" || { echo "$a $b"; return 0; }
  done
  return 1
}

plugin_dir() {
  local lib
  lib=$(ldd "$(command -v srun)" 2>/dev/null | awk '/libslurm(full)?[^ ]*\.so/ {print $3; exit}')
  [ -n "$lib" ] && dirname "$lib"
}

env_lines() {
  echo "export SLURM_CONF=$DIR/slurm.conf"
  echo "export KLINEAGE_SLURM_DIR=$DIR"
  echo "export KLINEAGE_SLURM_PARTITION=$PARTITION"
  # Variables of an enclosing Slurm job would make srun join that job instead of this cluster.
  [ -z "$OUTER_SLURM_VARS" ] || echo "unset $OUTER_SLURM_VARS"
}

write_conf() {
  local node=$1 cpus=$2 user=$3 ctld_port=$4 slurmd_port=$5 auth=$6
  {
    echo "# Written by tests/slurm/slurm_local.sh: a single-node test cluster, everything under $DIR"
    echo "ClusterName=klineage"
    echo "SlurmctldHost=$node(127.0.0.1)"
    echo "SlurmctldPort=$ctld_port"
    echo "SlurmdPort=$slurmd_port"
    echo "SlurmUser=$user"
    echo "SlurmdUser=$user"
    if [ "$auth" = munge ]; then
      echo "AuthType=auth/munge"
      echo "CredType=cred/munge"
      echo "AuthInfo=socket=$DIR/munge/munge.socket"
    else
      echo "AuthType=auth/none"
      echo "CredType=cred/none"
    fi
    echo "StateSaveLocation=$DIR/state"
    echo "SlurmdSpoolDir=$DIR/spool"
    echo "SlurmctldPidFile=$DIR/run/slurmctld.daemon.pid"
    echo "SlurmdPidFile=$DIR/run/slurmd.daemon.pid"
    echo "SlurmctldLogFile=$DIR/log/slurmctld.log"
    echo "SlurmdLogFile=$DIR/log/slurmd.log"
    echo "SlurmctldDebug=info"
    echo "SlurmdDebug=info"
    echo "PlugStackConfig=$DIR/plugstack.conf"
    echo "MailProg=/bin/true"
    echo "ProctrackType=proctrack/${KLINEAGE_SLURM_PROCTRACK:-pgid}"
    echo "TaskPlugin=task/none"
    echo "JobContainerType=job_container/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobCompType=jobcomp/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "MpiDefault=none"
    echo "SwitchType=switch/none"
    echo "ReturnToService=2"
    echo "SlurmdParameters=config_overrides"
    echo "InactiveLimit=0"
    echo "KillWait=3"
    echo "MinJobAge=30"
    echo "NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1024 State=UNKNOWN"
    echo "PartitionName=$PARTITION Nodes=$node Default=YES MaxTime=INFINITE OverSubscribe=NO State=UP"
  } >"$DIR/slurm.conf"
  : >"$DIR/plugstack.conf"
}

start_munge() {
  mkdir -p "$DIR/munge" && chmod 700 "$DIR/munge" || fail "cannot create $DIR/munge"
  if command -v mungekey >/dev/null 2>&1; then
    mungekey -c -f -k "$DIR/munge/munge.key" >/dev/null 2>&1 || fail "mungekey failed"
  else
    head -c 1024 /dev/urandom >"$DIR/munge/munge.key" || fail "cannot write a munge key"
  fi
  chmod 400 "$DIR/munge/munge.key"
  # munged refuses a socket dir that is not searchable by all ("execute permissions for all
  # required"), and <state-dir> from mktemp -d is 0700; --force turns its permission checks
  # into warnings (it runs as root without it).
  munged --force --socket="$DIR/munge/munge.socket" --key-file="$DIR/munge/munge.key" \
    --pid-file="$DIR/munge/munged.daemon.pid" --log-file="$DIR/log/munged.log" \
    --seed-file="$DIR/munge/munged.seed" --foreground </dev/null >"$DIR/log/munged.out" 2>&1 &
  echo $! >"$DIR/run/munged.pid"
  local i
  for i in $(seq 50); do
    [ -S "$DIR/munge/munge.socket" ] && break
    alive "$(pidof_file "$DIR/run/munged.pid")" || fail "munged exited" "$DIR/log/munged.out" "$DIR/log/munged.log"
    sleep 0.1
  done
  [ -S "$DIR/munge/munge.socket" ] || fail "munged made no socket in 5 s" "$DIR/log/munged.log"
  if command -v munge >/dev/null 2>&1 && command -v unmunge >/dev/null 2>&1; then
    munge -S "$DIR/munge/munge.socket" -n 2>/dev/null | unmunge -S "$DIR/munge/munge.socket" >/dev/null 2>&1 ||
      fail "munge/unmunge round trip failed" "$DIR/log/munged.log"
  fi
}

# Starts one attempt; returns 0 when up, 1 when a port was taken (caller retries), fails otherwise.
start_once() {
  local node=$1 cpus=$2 user=$3 auth=$4 ports ctld_port slurmd_port t_end
  ports=$(pick_ports) || fail "no free TCP ports found"
  read -r ctld_port slurmd_port <<<"$ports"
  write_conf "$node" "$cpus" "$user" "$ctld_port" "$slurmd_port" "$auth"
  rm -rf "$DIR/state" "$DIR/spool" && mkdir -p "$DIR/state" "$DIR/spool" || fail "cannot create $DIR/state"
  : >"$DIR/log/slurmctld.log"; : >"$DIR/log/slurmd.log"

  export SLURM_CONF="$DIR/slurm.conf"
  t_end=$(( $(now_ms) + ${KLINEAGE_SLURM_TIMEOUT:-30} * 1000 ))

  # -D: stay in the foreground, so $! is the daemon; setsid: out of the caller's process group and
  # terminal, so a ^C meant for the test does not reach the daemons (stop or the watchdog ends them).
  (cd "$DIR" && exec setsid slurmctld -D -f "$DIR/slurm.conf" </dev/null >"$DIR/log/slurmctld.out" 2>&1) &
  echo $! >"$DIR/run/slurmctld.pid"
  while :; do
    if ! alive "$(pidof_file "$DIR/run/slurmctld.pid")"; then
      if grep -q 'Address already in use' "$DIR/log/slurmctld.log" "$DIR/log/slurmctld.out" 2>/dev/null; then
        stop_all; return 1
      fi
      fail "slurmctld exited at start" "$DIR/log/slurmctld.out"
    fi
    timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && break
    [ "$(now_ms)" -lt "$t_end" ] || fail "slurmctld did not answer in ${KLINEAGE_SLURM_TIMEOUT:-30} s" "$DIR/log/slurmctld.log"
    sleep 0.2
  done

  (cd "$DIR" && exec setsid slurmd -D -N "$node" -f "$DIR/slurm.conf" </dev/null >"$DIR/log/slurmd.out" 2>&1) &
  echo $! >"$DIR/run/slurmd.pid"
  local state=""
  while :; do
    if ! alive "$(pidof_file "$DIR/run/slurmd.pid")"; then
      if grep -q 'Address already in use' "$DIR/log/slurmd.log" "$DIR/log/slurmd.out" 2>/dev/null; then
        stop_all; return 1
      fi
      fail "slurmd exited at start" "$DIR/log/slurmd.out"
    fi
    alive "$(pidof_file "$DIR/run/slurmctld.pid")" || fail "slurmctld died" "$DIR/log/slurmctld.log"
    state=$(timeout 5 sinfo -h -N -n "$node" -o '%T' 2>/dev/null | head -n 1)
    [ "$state" = idle ] && break
    if [ "$(now_ms)" -ge "$t_end" ]; then
      local reason
      reason=$(timeout 5 sinfo -h -N -n "$node" -o '%E' 2>/dev/null | head -n 1)
      fail "node $node not idle after ${KLINEAGE_SLURM_TIMEOUT:-30} s (state: ${state:-none}${reason:+, reason: $reason})" "$DIR/log/slurmd.log" "$DIR/log/slurmctld.log"
    fi
    sleep 0.2
  done

  local secs_left=$(( (t_end - $(now_ms)) / 1000 ))
  [ "$secs_left" -ge 5 ] || secs_left=5
  local out
  out=$(timeout "$secs_left" srun -p "$PARTITION" -N1 -n1 true </dev/null 2>&1) ||
    fail "srun -N1 -n1 true failed (${out//$'\n'/ | })" "$DIR/log/slurmd.log"
  return 0
}

cmd_start() {
  local owner=${1:-}
  trap 'stop_all; echo "skipped: start interrupted"; exit 77' INT TERM HUP
  local need=(slurmctld slurmd srun sinfo scontrol scancel setsid timeout) c missing=()
  for c in "${need[@]}"; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
  if [ ${#missing[@]} -gt 0 ]; then
    local hint=""
    [ ! -x /usr/sbin/slurmctld ] || hint=" (/usr/sbin/slurmctld exists: put /usr/sbin in PATH)"
    echo "skipped: not in PATH: ${missing[*]}$hint (Debian: apt-get install slurmctld slurmd slurm-client munge)"
    exit 77
  fi
  case "$DIR" in
    *[!A-Za-z0-9._/+-]*) echo "skipped: state dir $DIR has characters slurm.conf cannot take"; exit 77 ;;
  esac
  # Unix socket paths (spool/<node>_<job>.<step>, munge's socket) must fit in 108 bytes.
  [ ${#DIR} -le 70 ] || { echo "skipped: state dir path longer than 70 characters: $DIR"; exit 77; }

  stop_all  # leftovers of an earlier start in the same dir
  mkdir -p "$DIR/run" "$DIR/log" || { echo "skipped: cannot create $DIR"; exit 77; }
  rm -f "$DIR"/log/*

  local node cpus user auth=${KLINEAGE_SLURM_AUTH:-auto}
  node=$(hostname -s 2>/dev/null)
  [ -n "$node" ] || node=$(uname -n | cut -d. -f1)
  cpus=${KLINEAGE_SLURM_CPUS:-$(nproc 2>/dev/null || echo 1)}
  case "$cpus" in ''|*[!0-9]*|0) echo "skipped: KLINEAGE_SLURM_CPUS=$cpus is not a CPU count"; exit 77 ;; esac
  user=$(id -un)
  if [ "$auth" = auto ]; then
    local pd
    pd=$(plugin_dir)
    if [ -n "$pd" ] && [ -e "$pd/auth_none.so" ] && [ -e "$pd/cred_none.so" ]; then auth=none; else auth=munge; fi
  fi
  case "$auth" in
    none) ;;
    munge)
      command -v munged >/dev/null 2>&1 || { echo "skipped: munged not in PATH and this Slurm has no auth/none (apt-get install munge)"; exit 77; } ;;
    *) echo "skipped: KLINEAGE_SLURM_AUTH=$auth (want auto, none or munge)"; exit 77 ;;
  esac

  # Unset the variables of an enclosing Slurm job for our own checks.
  local v
  for v in $(compgen -e | grep '^SLURM_'); do unset "$v"; done

  local t0 attempt
  t0=$(now_ms)
  [ "$auth" = munge ] && start_munge
  for attempt in 1 2 3; do
    start_once "$node" "$cpus" "$user" "$auth" && break
    [ "$attempt" -lt 3 ] || fail "ports taken three times" "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log"
    [ "$auth" = munge ] && start_munge
  done

  if [ -n "$owner" ]; then
    # The watchdog's command line names $DIR (for alive()); it stops the cluster when owner is gone.
    setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec "$2" stop "$3"' \
      "$ME-watchdog" "$owner" "$(cd "$(dirname "$0")" && pwd -P)/$(basename "$0")" "$DIR/" \
      </dev/null >/dev/null 2>&1 &
    echo $! >"$DIR/run/watchdog.pid"
  fi
  trap - INT TERM HUP
  echo "$auth" >"$DIR/run/up"
  say "up in $(( $(now_ms) - t0 )) ms: node $node, $cpus CPUs, auth/$auth, ports $(awk -F= '/^SlurmctldPort=/{a=$2} /^SlurmdPort=/{b=$2} END{print a "/" b}' "$DIR/slurm.conf"), state in $DIR"
  env_lines
  exit 0
}

cmd_env() {
  if [ -r "$DIR/run/up" ] && alive "$(pidof_file "$DIR/run/slurmctld.pid")" && alive "$(pidof_file "$DIR/run/slurmd.pid")"; then
    env_lines
    exit 0
  fi
  say "no cluster running in $DIR"
  exit 1
}

cmd_status() {
  local n pid ok=0
  for n in munged slurmctld slurmd watchdog; do
    pid=$(pidof_file "$DIR/run/$n.pid")
    [ -n "$pid" ] || continue
    if alive "$pid"; then say "$n running (pid $pid)"; else say "$n NOT running (pid file says $pid)"; ok=1; fi
  done
  [ -r "$DIR/run/up" ] || { say "no cluster running in $DIR"; ok=1; }
  exit $ok
}

[ $# -ge 2 ] || usage
OUTER_SLURM_VARS=$(compgen -e | grep '^SLURM_' | grep -vx 'SLURM_CONF' | tr '\n' ' ' | sed -e 's/ $//')
cmd=$1
[ -n "$2" ] || usage
if [ "$cmd" = start ]; then
  mkdir -p "$2" 2>/dev/null
  DIR=$(cd "$2" 2>/dev/null && pwd -P) || { echo "skipped: cannot create state dir $2"; exit 77; }
elif ! DIR=$(cd "$2" 2>/dev/null && pwd -P); then
  [ "$cmd" = stop ] && exit 0  # nothing was started there
  say "no such dir: $2"
  exit 1
fi
case "$cmd" in
  start) cmd_start "${3:-}" ;;
  env) cmd_env ;;
  status) cmd_status ;;
  stop) stop_all; exit 0 ;;
  *) usage ;;
esac
