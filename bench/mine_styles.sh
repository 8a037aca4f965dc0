#!/usr/bin/env bash
# bench/mine_styles.sh <klineage-install-prefix> <work-dir> [max-depth] [budget]
#
# On a GPU machine: `klineage mine` on each expert of examples/styles (issue 33: experts written as
# public CUDA experts write them), to max-depth (default 3), each version gated against the expert
# on its styles.toml launch, with --probe and --emit-skills. Writes under <work-dir>:
#   mine/<kernel>/lineage.json and versions/   every expert's lineage
#   skills/                                   the mined skills (schema 2)
#   mine.log                                  the console of every run
# and prints per expert: versions made, accepted, steps whose forward pays, skills written.
# A copy of examples/styles is configured under <work-dir>/src, so the repository is not written.
# MINE_STYLES_ONLY="k1 k2" mines only those kernels.
# Exit status: 0 every expert mined, 1 one failed, 2 usage, 77 no CUDA device.
set -uo pipefail
if [[ $# -lt 2 || $# -gt 4 ]]; then
  echo "usage: $0 <klineage-install-prefix> <work-dir> [max-depth] [budget]" >&2
  exit 2
fi
prefix=$(realpath "$1"); work=$(mkdir -p "$2" && realpath "$2")
depth=${3:-3}; budget=${4:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
if ! "$prefix/bin/klineage-runner" --probe >/dev/null 2>&1; then
  echo "skipped: no CUDA device"
  exit 77
fi
rm -rf "$work/src" "$work/build" "$work/mine" "$work/skills" "$work/mine.log"
cp -r "$root/examples/styles" "$work/src"
cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
config="$work/build/klineage/styles/config.json"
kernels=${MINE_STYLES_ONLY:-"style_reduce_sum style_transpose style_softmax style_layernorm style_axpy style_sgemm style_jacobi"}
failed=0
for k in $kernels; do
  t0=$(date +%s.%N)
  "$prefix/bin/klineage" mine --config "$config" --kernel "$k" --max-depth "$depth" --budget "$budget" --probe \
    --out "$work/mine/$k" --emit-skills "$work/skills" >>"$work/mine.log" 2>&1 || { echo "mine-styles: $k failed"; failed=1; }
  t1=$(date +%s.%N)
  python3 - "$work/mine/$k/lineage.json" "$k" "$t0" "$t1" <<'PY'
import json, sys
path, k, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
try:
    l = json.load(open(path))
except Exception as e:
    print(f"mine-styles: {k}: no lineage ({e})"); sys.exit(0)
vs = [v for v in l["versions"] if v.get("parent")]
acc = [v for v in vs if v.get("accepted")]
pays = [v for v in acc if (v.get("parent_speedup") or 0) >= 1.03]
llm = [v for v in vs if (v.get("step") or {}).get("materialize") == "llm"]
print(f"mine-styles: {k}: {len(vs)} versions, {len(acc)} accepted, {len(pays)} forward steps pay >= 1.03x, "
      f"{len(llm)} llm steps, {t1 - t0:.0f} s")
for v in vs:
    s = v.get("step") or {}
    sp = v.get("parent_speedup")
    print(f"mine-styles:   {v['id']} <- {v['parent']}  -{s.get('transform')}{' (llm)' if s.get('materialize') == 'llm' else ''}"
          f"  {v.get('outcome')}  {'' if sp is None else f'forward {sp:.2f}x'}  {(v.get('reason') or '')[:100]}")
PY
done
echo "mine-styles: skills written: $(ls "$work/skills" 2>/dev/null | wc -l)"
ls "$work/skills" 2>/dev/null | sed 's/^/mine-styles:   /'
exit $failed
