#!/usr/bin/env bash
# On a machine with a GPU: mine the lineages of the mineable experts of examples/experts
# (src/mine/: mine_reduce_sum, mine_sgemm; docs/lineage.md). Configures examples/experts against an
# installed KLineage, builds the program the capture runs (`experts --only mine`), then runs
# `klineage mine` on each expert: every transform's inverse, every order, each simplified version
# gated against the expert on its captured launches. Writes under <out-dir>:
#   <kernel>/lineage.json, <kernel>/versions/   the lineage (docs/lineage.md)
#   skills/*.toml                               the mined skills (schema 2), naming their lineage
#   <kernel>.log, configure.log, build.log      the logs
# and prints one line per version: step, outcome, time. Takes a few minutes on one H200
# (MINE_BUDGET versions per expert, default 24; MINE_DEPTH steps at most, default 6).
# Usage: scripts/gpu-mine.sh <klineage-install-prefix> <out-dir>
set -uo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 <klineage-install-prefix> <out-dir>" >&2
  exit 2
fi
prefix=$(realpath "$1"); out=$(mkdir -p "$2" && realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
build="$out/build"
klineage="$prefix/bin/klineage"
t0=$SECONDS
cmake -S "$root/examples/experts" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$out/configure.log" 2>&1 ||
  { cat "$out/configure.log"; exit 1; }
# The capture build of the program that launches the experts (what `klineage mine` captures).
ninja -C "$build" klineage-capture-build-experts experts >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
cfg="$build/klineage/mine_experts/config.json"
status=0
for kernel in mine_reduce_sum mine_sgemm; do
  echo "== $kernel"
  "$klineage" mine --config "$cfg" --kernel "$kernel" --out "$out/$kernel" --emit-skills "$out/skills" \
    --budget "${MINE_BUDGET:-24}" --max-depth "${MINE_DEPTH:-6}" >"$out/$kernel.log" 2>&1
  rc=$?
  # one line per version: "v3 <- v1  -restrict-pointers  passed  0.4120 ms  (forward step 1.08x)"
  grep -E "klineage mine: (v[0-9]+ |skill |[0-9]+ simplified)" "$out/$kernel.log" | sed 's/^klineage mine: /  /'
  if [ $rc -ne 0 ]; then
    echo "klineage mine $kernel exited $rc; the end of $out/$kernel.log:"
    tail -30 "$out/$kernel.log"
    status=1
  fi
  accepted=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for v in d["versions"] if v["accepted"] and v["step"]))' \
    "$out/$kernel/lineage.json" 2>/dev/null || echo 0)
  echo "  $kernel: $accepted accepted steps (lineage: $out/$kernel/lineage.json)"
done
if ls "$out/skills"/*.toml >/dev/null 2>&1; then
  "$klineage" skills validate --skills "$out/skills" || status=1
fi
echo "gpu-mine: $((SECONDS - t0)) s; mined skills in $out/skills"
exit $status
