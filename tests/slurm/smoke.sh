#!/usr/bin/env bash
# Smoke test of tests/slurm/slurm_local.sh: starts a local cluster in a temp dir, checks what the
# job runner relies on (stdout back, stdin forwarded byte for byte as a tar, exit codes, two jobs at
# once, killing a stuck srun), stops the cluster and checks nothing is left running.
# Prints `ok:` lines and `smoke: N passed, N failed`; exits 0, 1 on a failed check, or 77 with
# `skipped: <reason>` where the cluster cannot start.
set -u

HERE=$(cd "$(dirname "$0")" && pwd -P)
SL="$HERE/slurm_local.sh"
PASS=0
FAILED=0
ok() { echo "ok: $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL: $*"; FAILED=$((FAILED + 1)); }
now_ms() { date +%s%3N; }

WORK=$(mktemp -d /tmp/klineage-slurm.XXXXXX) || { echo "skipped: mktemp failed"; exit 77; }
STATE="$WORK/c"
cleanup() {
  "$SL" stop "$STATE" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(now_ms)
out=$("$SL" start "$STATE" $$)
rc=$?
t_start=$(( $(now_ms) - t0 ))
if [ $rc -eq 77 ]; then
  echo "$out"
  exit 77
fi
if [ $rc -ne 0 ]; then
  echo "FAIL: slurm_local.sh start exited $rc: $out"
  exit 1
fi
eval "$out"
ok "cluster up in $t_start ms (auth/$(cat "$STATE/run/up"), SLURM_CONF=$SLURM_CONF)"
P=(-p "$KLINEAGE_SLURM_PARTITION" -N1 -n1)

# 1. stdout comes back, stdin reaches the task.
got=$(printf 'line one\nline two\n' | srun "${P[@]}" bash -c 'echo hi; cat' 2>"$WORK/err")
if [ "$got" = $'hi\nline one\nline two' ]; then ok "stdout back and stdin forwarded (echo hi; cat)"
else bad "echo hi; cat gave '$got' (stderr: $(cat "$WORK/err"))"; fi

# 2. stdout and stderr stay apart; srun's own messages go to stderr.
got=$(srun "${P[@]}" bash -c 'echo out; echo err >&2; exit 3' </dev/null 2>"$WORK/err")
rc=$?
if [ "$got" = out ] && grep -qx err "$WORK/err" && [ $rc -eq 3 ]; then
  ok "exit 3 of the task is srun's exit code; stdout only 'out', stderr has 'err' and srun's: $(grep '^srun' "$WORK/err" | head -n 1)"
else bad "exit 3: rc=$rc stdout='$got' stderr='$(tr '\n' '|' <"$WORK/err")'"; fi

got=$(srun "${P[@]}" bash -c 'kill -KILL $$' </dev/null 2>/dev/null); rc=$?
if [ $rc -eq 137 ]; then ok "a task killed by SIGKILL gives srun exit 137"; else bad "task killed by SIGKILL: srun rc=$rc"; fi

# 3. A job bundle as a tar on srun's stdin: a few MB of binary data, checked file by file.
mkdir -p "$WORK/bundle/sub"
head -c 4000000 /dev/urandom >"$WORK/bundle/blob.bin"
head -c 1500000 /dev/zero >"$WORK/bundle/sub/zeros.bin"
printf 'kernel.cu\nrun.toml\n' >"$WORK/bundle/sub/list.txt"
(cd "$WORK/bundle" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$WORK/want.sha"
t0=$(now_ms)
tar -C "$WORK/bundle" -cf - . | srun "${P[@]}" bash -c \
  'd=$(mktemp -d) && tar -x -C "$d" && cd "$d" && find . -type f | LC_ALL=C sort | xargs sha256sum; rc=$?; rm -rf "$d"; exit $rc' \
  >"$WORK/got.sha" 2>"$WORK/err"
rc=$?
t_tar=$(( $(now_ms) - t0 ))
bytes=$(tar -C "$WORK/bundle" -cf - . | wc -c)
if [ $rc -eq 0 ] && cmp -s "$WORK/want.sha" "$WORK/got.sha"; then
  ok "tar of $bytes bytes on srun's stdin unpacked in the job, $(wc -l <"$WORK/got.sha") files' sha256 match ($t_tar ms)"
else bad "tar on stdin: rc=$rc, diff: $(diff "$WORK/want.sha" "$WORK/got.sha" | head -n 4 | tr '\n' '|') stderr: $(head -n 3 "$WORK/err" | tr '\n' '|')"; fi

# Binary on stdout too (results could come back as a tar).
want=$(sha256sum <"$WORK/bundle/blob.bin" | cut -d' ' -f1)
got=$(srun "${P[@]}" cat <"$WORK/bundle/blob.bin" 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ "$want" = "$got" ]; then ok "4 MB of binary through srun cat (stdin and stdout) unchanged"; else bad "binary through cat changed"; fi

# 4. Overhead of one srun (allocation + step + teardown), back to back. A job that finds the CPUs
# of the jobs before it not yet freed waits ~1 s for the controller's next scheduling pass.
n=10
times=()
for _ in $(seq $n); do
  t0=$(now_ms)
  srun "${P[@]}" true </dev/null 2>>"$WORK/err.true" || bad "srun true failed"
  times+=($(( $(now_ms) - t0 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
ok "srun true back to back: min ${sorted[0]} ms, median ${sorted[$((n / 2))]} ms, max ${sorted[$((n - 1))]} ms; $(grep -c 'queued and waiting' "$WORK/err.true") of $n queued"

# 5. Two jobs at once (one CPU each). The CPUs of a job that just ended are busy for some ms
# more, and a job that finds no free CPU waits for the controller's next pass (~1 s), so wait for
# an idle node first.
CPUS=$(sinfo -h -N -o %c | head -n 1)
if [ "$CPUS" -ge 2 ]; then
  for _ in $(seq 50); do [ "$(sinfo -h -N -o %T | head -n 1)" = idle ] && [ -z "$(squeue -h -o %i)" ] && break; sleep 0.1; done
  t0=$(now_ms)
  srun "${P[@]}" sleep 2 </dev/null & a=$!
  srun "${P[@]}" sleep 2 </dev/null & b=$!
  wait $a; ra=$?
  wait $b; rb=$?
  dt=$(( $(now_ms) - t0 ))
  if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ $dt -lt 4000 ]; then ok "two sruns of sleep 2 at once took $dt ms"
  else bad "two sruns of sleep 2: rc $ra/$rb, $dt ms (want < 4000)"; fi
else
  ok "two jobs at once not checked: the node has $CPUS CPU"
fi

# 6. Killing a stuck job: one SIGTERM to srun cancels the step with SIGKILL to the whole process
# group (no SIGTERM first, so traps do not run); srun returns once proctrack/pgid sees the group gone
# (1 s or more: it polls with sleep(1), and here pid 1 reaps the killed orphans only every ~2 s).
tag=$((100000 + RANDOM))
srun "${P[@]}" bash -c "trap '' TERM INT; sleep $tag & sleep $((tag + 1)); wait" </dev/null >/dev/null 2>"$WORK/err" & s=$!
for _ in $(seq 50); do pgrep -f "^sleep $tag\$" >/dev/null && break; sleep 0.1; done
t0=$(now_ms)
kill -TERM $s
wait $s; rc=$?
dt=$(( $(now_ms) - t0 ))
sleep 0.5
left=$(pgrep -f "^sleep ($tag|$((tag + 1)))\$" | tr '\n' ' ')
jobs_left=$(squeue -h -o %i | tr '\n' ' ')
if [ $rc -eq 137 ] && [ $dt -lt 6000 ] && [ -z "$left" ] && [ -z "$jobs_left" ]; then
  ok "SIGTERM to srun: returned $rc after $dt ms, tasks (ignoring TERM) gone, no job left"
else bad "SIGTERM to srun: rc=$rc after $dt ms, processes left: '$left', jobs left: '$jobs_left' ($(tr '\n' '|' <"$WORK/err"))"; fi

# A task that exits leaving a background process: the step ends (the process is killed with the
# task's process group) instead of waiting for it to close stdout.
t0=$(now_ms)
timeout 20 srun "${P[@]}" bash -c "sleep $((tag + 3)) & echo started" </dev/null >"$WORK/out" 2>/dev/null; rc=$?
dt=$(( $(now_ms) - t0 ))
if [ $rc -eq 0 ] && [ "$(cat "$WORK/out")" = started ] && [ $dt -lt 6000 ] && ! pgrep -f "^sleep $((tag + 3))\$" >/dev/null; then
  ok "a task leaving a background process: srun returned 0 after $dt ms, the process was killed"
else bad "task leaving a background process: rc=$rc after $dt ms, $(pgrep -af "^sleep $((tag + 3))\$")"; fi

# timeout(1) around srun is the per-job wall clock (srun --time counts in minutes).
t0=$(now_ms)
timeout 2 srun "${P[@]}" sleep $((tag + 2)) </dev/null 2>/dev/null; rc=$?
dt=$(( $(now_ms) - t0 ))
sleep 0.5
if [ $rc -eq 124 ] && [ $dt -lt 4000 ] && ! pgrep -f "^sleep $((tag + 2))\$" >/dev/null && [ -z "$(squeue -h -o %i)" ]; then
  ok "timeout 2 srun sleep: exit 124 after $dt ms, nothing left"
else bad "timeout 2 srun sleep: rc=$rc after $dt ms"; fi

# 7. Stop: nothing of the cluster is left.
"$SL" stop "$STATE"
sleep 0.2
if ! "$SL" status "$STATE" 2>/dev/null && ! pgrep -f "$STATE/" >/dev/null; then
  ok "stopped, no daemon left"
else bad "after stop: $(pgrep -af "$STATE/" | tr '\n' '|')"; fi

echo "smoke: $PASS passed, $FAILED failed"
[ $FAILED -eq 0 ]
