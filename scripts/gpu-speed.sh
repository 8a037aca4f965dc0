#!/usr/bin/env bash
# On a machine with a GPU: how long `ninja optimize` takes on the quickstart (issue 8's goals:
# cold <= 60 s, no-op <= 2 s on the H200 machine), and what a one-kernel edit costs:
#   1. cold: a fresh build tree, nothing cached;
#   2. no-op: again, nothing changed (the whole-run key matches: nothing is extracted or gated);
#   3. after an edit: a copy of the example with relu.cu changed (a comment): the cached saxpy
#      results are reused, relu is gated again.
# Prints the three times and the variants gated in each; asserts the no-op gated nothing. The
# cold run's runner logs go to <work-dir>/runner-logs.tgz, and where its jobs spent their time
# (the runner's stamped phases: start-up, inputs, checks, probes, timing) is printed.
# QS_BUDGET sets KLINEAGE_BUDGET (variants per kernel; default: the target's).
# Usage: scripts/gpu-speed.sh <klineage-install-prefix> <work-dir>
set -uo pipefail
prefix=$(realpath "$1"); work=$(mkdir -p "$2" && realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/gpu/lib.sh"
src="$work/quickstart"
rm -rf "$src" "$work/build"
cp -r "$root/examples/quickstart" "$src"
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" ${QS_BUDGET:+-DKLINEAGE_BUDGET=$QS_BUDGET} >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
timed() {  # timed <name>: ninja optimize, its seconds and how many variants it gated
  local t0 t1 rc
  t0=$(date +%s.%N)
  ninja -C "$work/build" optimize >"$work/$1.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  local gated
  gated=$(grep -cE "^[a-z_]+ .* (passed|slower|wrong-result|runtime-failed|timeout|compile-failed) " "$work/$1.log")
  printf 'gpu-speed: %-8s %6.1f s  exit %d  %s variant line(s)  (%s)\n' "$1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$rc" "$gated" \
    "$(grep -E '^klineage: ' "$work/$1.log" | tail -1)"
  return $rc
}
timed cold; check "cold ninja optimize exits 0" test $? -eq 0
(cd "$work/build" && find . -name runner.log | tar czf "$work/runner-logs.tgz" -T -)
python3 "$root/scripts/runner-phases.py" $(find "$work/build" -name runner.log)
timed noop; check "no-op ninja optimize exits 0" test $? -eq 0
check "the no-op run says nothing changed" grep -q "nothing changed" "$work/noop.log"
echo "// edited by gpu-speed.sh" >>"$src/src/relu.cu"
timed edited; check "ninja optimize after an edit exits 0" test $? -eq 0
check "after the edit, saxpy's results come from the cache" grep -qi "cache" "$work/edited.log"
finish gpu-speed
