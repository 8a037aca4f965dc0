#!/usr/bin/env bash
# bench/experts.sh <klineage-install-prefix> <work-dir> [experts options...]
#
# On a GPU machine: how close does `ninja optimize` bring the naive kernels of examples/experts to
# the expert references (CUB, cuBLAS, hand-written)? Configures two builds of examples/experts:
#   <work-dir>/naive      -DEXPERTS_NO_KLINEAGE=ON: the naive kernels as written
#   <work-dir>/optimized  klineage_optimize(naive ...): `ninja optimize` (log: <work-dir>/optimize.log),
#                         then `ninja`, which compiles the variants KLineage kept
# runs the `experts` program of each (outputs: <work-dir>/{naive,optimized}.out) and prints one
# table: naive ms (naive build), optimized ms (the same launch functions in the optimized build),
# expert ms (the optimized build's run), optimized/expert speed (= expert_ms / optimized_ms, 1.00
# means expert speed), naive->optimized speedup, and the geomean of the speedups.
# Extra options go to both `experts` runs (--quick, --only KIND, --reps N).
# Environment: EXPERTS_BUDGET (variants gated per kernel, default 4; KLineage's own default is 16),
# EXPERTS_SKILLS (skill directories, ';'-separated, instead of KLineage's library: e.g. only the
# block-size skills), CUDAARCHS (default 90).
# Exit status: 0 all checks passed, 1 a check failed or a step failed, 2 usage, 77 no CUDA device.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 <klineage-install-prefix> <work-dir> [experts options...]" >&2
  exit 2
fi
prefix=$(cd "$1" && pwd)
mkdir -p "$2"
work=$(cd "$2" && pwd)
shift 2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../examples/experts" && pwd)
budget=${EXPERTS_BUDGET:-4}
start=$SECONDS

step() { echo "experts.sh: [$((SECONDS - start))s] $*"; }

# KLineage must never write into the source tree: its files are hashed before and after.
src_hash() { (cd "$src" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16); }
src_before=$(src_hash)

step "configure $work/naive (EXPERTS_NO_KLINEAGE=ON) and $work/optimized (BUDGET $budget)"
cmake -S "$src" -B "$work/naive" -G Ninja -DEXPERTS_NO_KLINEAGE=ON >"$work/configure-naive.log" 2>&1 ||
  { tail -30 "$work/configure-naive.log"; exit 1; }
# EXPERTS_MINE=OFF: the mineable experts (scripts/gpu-mine.sh) are not this bench's; optimizing them
# would capture ~4 GiB and gate variants of kernels that are already expert code.
cmake -S "$src" -B "$work/optimized" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DEXPERTS_BUDGET="$budget" \
  -DEXPERTS_SKILLS="${EXPERTS_SKILLS:-}" -DEXPERTS_MINE=OFF \
  >"$work/configure-optimized.log" 2>&1 || { tail -30 "$work/configure-optimized.log"; exit 1; }

step "build the naive configuration"
ninja -C "$work/naive" >"$work/build-naive.log" 2>&1 || { tail -30 "$work/build-naive.log"; exit 1; }

step "ninja optimize (log: $work/optimize.log)"
ninja -C "$work/optimized" optimize >"$work/optimize.log" 2>&1 || { tail -40 "$work/optimize.log"; exit 1; }
grep -E '^klineage: ' "$work/optimize.log" | tail -5 || true
# Where the time went: the stages (report.json "stages"), then the runner jobs' phases.
grep -E '^klineage: time:' "$work/optimize.log" || true
python3 "$src/../../scripts/runner-phases.py" $(find "$work/optimized/klineage" -name runner.log) 2>/dev/null | head -7 || true

step "build the optimized configuration"
ninja -C "$work/optimized" >"$work/build-optimized.log" 2>&1 || { tail -30 "$work/build-optimized.log"; exit 1; }

run() {  # run <name>: runs <work>/<name>/experts, output in <work>/<name>.out, returns its status
  local rc=0
  step "run $1/experts ${*:2}"
  "$work/$1/experts" "${@:2}" >"$work/$1.out" 2>&1 || rc=$?
  return $rc
}
rc_naive=0 rc_opt=0
run naive "$@" || rc_naive=$?
run optimized "$@" || rc_opt=$?
if [[ $rc_naive -eq 77 || $rc_opt -eq 77 ]]; then
  cat "$work/naive.out"
  echo "experts.sh: no CUDA device: nothing was timed"
  exit 77
fi
for r in "naive:$rc_naive" "optimized:$rc_opt"; do
  if [[ ${r#*:} -ne 0 && ${r#*:} -ne 1 ]]; then
    tail -20 "$work/${r%%:*}.out"
    echo "experts.sh: $work/${r%%:*}/experts exited ${r#*:}"
    exit 1
  fi
done

src_after=$(src_hash)
if [[ "$src_before" != "$src_after" ]]; then
  echo "experts.sh: FAILED: the source tree $src changed during the run ($src_before -> $src_after)"
  exit 1
fi
# Kernels in headers: the selected copy the optimized build includes ahead of the original.
find "$work/optimized/klineage/naive" -path '*/include/*' -type f 2>/dev/null | sort | while read -r h; do
  echo "experts.sh: rewritten header in the build tree: $h (the source tree's $(basename "$h") is unchanged)"
done

step "done; results:"
python3 - "$work" <<'PY'
import json, math, os, sys

work = sys.argv[1]

def rows(name):
    out = {}
    with open(os.path.join(work, name + ".out")) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) == 5:
                try:
                    out[(p[0], p[1])] = (float(p[2]), float(p[3]), p[4])
                except ValueError:
                    pass
    return out

naive, opt = rows("naive"), rows("optimized")
kept = {}
try:
    with open(os.path.join(work, "optimized", "klineage", "naive", "report.json")) as f:
        sel = json.load(f).get("selected", {}) or {}
    for k, v in sel.items():
        if isinstance(v, dict):  # {"variant", "speedup", "skills"} (plugin/pipeline/report.cpp)
            name = "+".join(map(str, v.get("skills") or [])) or str(v.get("variant", "?"))
            sp = v.get("speedup")
            kept[k] = f"{name} ({sp:.2f}x gated)" if isinstance(sp, (int, float)) else name
except (OSError, ValueError):
    pass

hdr = f"{'kind':<12} {'kernel':<15} {'naive ms':>10} {'optimized ms':>13} {'expert ms':>10} {'opt/expert':>11} {'speedup':>8}  check  kept"
print(hdr)
print("-" * len(hdr))
failed, speedups = False, []
order = list(naive) + [k for k in opt if k not in naive]
for key in order:
    kind, kernel = key
    n, o = naive.get(key), opt.get(key)
    if n is None or o is None:
        print(f"{kind:<12} {kernel:<15} missing from the {'optimized' if o is None else 'naive'} run")
        failed = True
        continue
    naive_ms, opt_ms, expert_ms = n[0], o[0], o[1]
    check = "ok" if n[2] == "ok" and o[2] == "ok" else f"naive build {n[2]}, optimized build {o[2]}"
    failed = failed or check != "ok"
    ratio = expert_ms / opt_ms if opt_ms > 0 else float("nan")
    speedup = naive_ms / opt_ms if opt_ms > 0 else float("nan")
    if speedup > 0 and math.isfinite(speedup):
        speedups.append(speedup)
    print(f"{kind:<12} {kernel:<15} {naive_ms:>10.4f} {opt_ms:>13.4f} {expert_ms:>10.4f} {ratio:>10.2f}x {speedup:>7.2f}x  {check:<5}  {kept.get(kernel, '')}")
if speedups:
    g = math.exp(sum(map(math.log, speedups)) / len(speedups))
    print(f"geomean naive->optimized speedup over {len(speedups)} kernels: {g:.2f}x")
print("opt/expert = expert_ms / optimized_ms (1.00x: expert speed); speedup = naive_ms / optimized_ms")
if failed:
    print("experts.sh: a check FAILED (see naive.out / optimized.out)")
sys.exit(1 if failed else 0)
PY
