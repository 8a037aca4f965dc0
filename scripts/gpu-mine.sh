#!/usr/bin/env bash
# On a machine with a GPU: mine the lineages of the mineable experts of examples/experts (src/mine/,
# target mine_experts: every mine_* kernel; docs/lineage.md). Configures examples/experts against an
# installed KLineage, builds the program the capture runs (`experts --only mine`), then runs
# `klineage mine` on each expert: every transform's inverse, every order, each simplified version
# gated against the expert on its captured launch. Writes under <out-dir>:
#   <kernel>/lineage.json, <kernel>/versions/   the lineage (docs/lineage.md)
#   skills/*.toml                               the mined skills (schema 2), naming their lineage
#   <kernel>.log, configure.log, build.log      the logs
# and prints one line per version (step, outcome, time), one per skill written, and a summary line
# per expert.
#
# MINE_KERNELS: the experts to mine (default: every mine_* kernel of the target, from `klineage
# extract`). MINE_BUDGET: versions made and gated at most per expert (default 9); MINE_DEPTH: steps
# from the expert at most (default 3, the longest walk back to a naive kernel). With the defaults,
# 9 of the 11 experts are mined whole (1 to 5 versions each) and mine_reduce_sum and mine_sgemm
# (11 versions each in all) up to their 9th: 44 versions. Each gated version takes ~5 s on one
# H200, and each expert ~8 s besides (parse, compile the expert, replay its capture): about 6
# minutes with the configure, the builds and the capture (~4.2 GiB). MINE_BUDGET=11 mines every
# tree whole (48 versions; counts from test_pipeline "[mine-tree]").
#
# MINE_PROBE (default 1): `klineage mine --probe` (docs/lineage.md, "Probing preconditions"): after
# an expert is mined, each step that becomes a skill is gated again, its parent against it, on
# launches that break one of its preconditions at a time (pointers 4 bytes off 16-byte alignment,
# an output aliased in place with an input, block.x halved and doubled, n + 1 and a small and a tiny
# n); lineage.json and the skills record which ones it needs (verified), which none could break
# (unverified) and which it did without. Cost: ~7 runner jobs per such step (the full-size ones
# timed, ~1-3 s each on one H200, the small sizes under 1 s) plus one control job per wrong result:
# ~10-15 s per step, so ~2-4 minutes on top for the 10-20 steps that pay in the defaults' trees.
# Printed: the probes that broke a step or said nothing (the others are in <kernel>.log).
# MINE_PROBE=0 mines without it.
# An expert mined whole (<out-dir>/<kernel>.done) is not mined again by a later run into the same
# <out-dir>: a run cut off by a time limit goes on where it stopped.
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
budget=${MINE_BUDGET:-9}
depth=${MINE_DEPTH:-3}
probe=()
[ "${MINE_PROBE:-1}" = 0 ] || probe=(--probe)
t0=$SECONDS
cmake -S "$root/examples/experts" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DEXPERTS_MINE=ON \
  >"$out/configure.log" 2>&1 || { cat "$out/configure.log"; exit 1; }
# The capture build of the program that launches the experts (what `klineage mine` captures).
ninja -C "$build" klineage-capture-build-experts experts >"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
cfg="$build/klineage/mine_experts/config.json"
if [ -n "${MINE_KERNELS:-}" ]; then
  kernels=$MINE_KERNELS
else
  kernels=$("$klineage" extract --config "$cfg" 2>"$out/extract.log" |
    python3 -c 'import json,sys; print(" ".join(k["name"] for k in json.load(sys.stdin)["kernels"] if k["name"].startswith("mine_")))') ||
    { echo "gpu-mine: klineage extract failed:"; tail -20 "$out/extract.log"; exit 1; }
fi
[ -n "$kernels" ] || { echo "gpu-mine: no mine_* kernel in the target mine_experts"; exit 1; }
echo "gpu-mine: $(wc -w <<<"$kernels") experts (budget $budget, depth $depth${probe:+, --probe}): $kernels"
status=0
summary=()
for kernel in $kernels; do
  # Mined whole by an earlier run into the same <out-dir> (a call cut off by its time limit goes on).
  if [ -f "$out/$kernel.done" ] && [ -f "$out/$kernel/lineage.json" ]; then
    summary+=("$(cat "$out/$kernel.done") (an earlier run)")
    echo "== $kernel: mined by an earlier run ($out/$kernel.done)"
    continue
  fi
  rm -f "$out/$kernel.done"
  echo "== $kernel"
  k0=$SECONDS
  "$klineage" mine --config "$cfg" --kernel "$kernel" --out "$out/$kernel" --emit-skills "$out/skills" \
    --budget "$budget" --max-depth "$depth" "${probe[@]}" >"$out/$kernel.log" 2>&1
  rc=$?
  # one line per version: "v3 <- v1  -restrict-pointers  passed  0.4120 ms  (forward step 1.08x)"
  grep -E "klineage mine: (v[0-9]+ |skill |no accepted|[0-9]+ simplified)|budget of" "$out/$kernel.log" |
    sed -E 's/^klineage( mine)?: (warning: )?(klineage mine: )?/  /'
  # --probe: "probe v2 -> v0  uniform-block-size  block 512 (grid 2048)  breaks-correctness  ..."
  grep -E "klineage mine: (probe .*  (breaks-|inconclusive)|--probe)" "$out/$kernel.log" | cut -c1-220 |
    sed -E 's/^klineage mine: /  /'
  if [ $rc -ne 0 ]; then
    echo "klineage mine $kernel exited $rc; the end of $out/$kernel.log:"
    tail -30 "$out/$kernel.log"
    status=1
  fi
  counts=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
steps = [v for v in d["versions"] if v["step"]]
print(len(steps), sum(1 for v in steps if v["accepted"]))' "$out/$kernel/lineage.json" 2>/dev/null || echo "0 0")
  skills=$(ls "$out/skills/mined-${kernel//_/-}-"*.toml 2>/dev/null | wc -l)
  summary+=("$(printf '%-22s %3s versions, %3s accepted, %2s skills, %4s s' "$kernel" ${counts} "$skills" $((SECONDS - k0)))")
  [ $rc -eq 0 ] && printf '%s\n' "${summary[-1]}" >"$out/$kernel.done"
  echo "  $kernel: ${counts% *} versions, ${counts#* } accepted, $skills skills ($((SECONDS - k0)) s; lineage: $out/$kernel/lineage.json)"
done
echo "== summary"
printf '  %s\n' "${summary[@]}"
if ls "$out/skills"/*.toml >/dev/null 2>&1; then
  echo "  $(ls "$out/skills"/*.toml | wc -l) mined skills in $out/skills"
  "$klineage" skills validate --skills "$out/skills" || status=1
else
  echo "  no mined skill"
fi
echo "gpu-mine: $((SECONDS - t0)) s"
exit $status
