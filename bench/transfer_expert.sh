#!/usr/bin/env bash
# Naive / optimized / expert for every kernel of the frozen transfer suite (examples/transfer), in
# one GPU call: runs tests/gpu/transfer_reach.sh (cold `ninja optimize` with RUN; its per-kernel
# lines and its check of the program on the selected kernels), then bench/transfer_refs.cu (CUB,
# cuBLAS, references written here, the memory floor; same sizes, the gate's timing rules), and prints
#   kernel  naive ms  optimized ms  speedup  expert ms  optimized reaches (expert ms / optimized ms)  expert
# then the issue's goals: tree reductions vs CUB, scans, the 2-D stencil, rows vs the warp-per-row
# reference, transposes and GEMMs vs their experts. Naive and optimized are the gate's medians on the
# captured launch (report.json: original_ms, and variant_ms of the selected variant).
# usage: transfer_expert.sh <klineage-install-prefix> <work-dir>
# Needs a CUDA device (exit 77, "skipped: no CUDA device", without one).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(realpath "$1"); work=$(realpath -m "$2")
mkdir -p "$work"
bash "$root/tests/gpu/transfer_reach.sh" "$prefix" "$work/tr" | tee "$work/reach.txt"
reach=${PIPESTATUS[0]}
[ "$reach" -eq 77 ] && exit 77
nvcc -O3 -arch=native -std=c++17 "$root/bench/transfer_refs.cu" -o "$work/transfer_refs" -lcublas > "$work/refs_build.log" 2>&1 ||
  { cat "$work/refs_build.log"; echo "transfer-expert: the references did not build"; exit 1; }
"$work/transfer_refs" > "$work/refs.txt" 2>&1 || { cat "$work/refs.txt"; echo "transfer-expert: the references failed"; exit 1; }
python3 - "$work/tr/build/klineage/transfer/report.json" "$work/refs.txt" <<'PY'
import json, math, sys
rep = json.load(open(sys.argv[1]))
refs, device = {}, ""
for line in open(sys.argv[2]):
    p = line.split()
    if p and p[0] == "ref":
        refs[p[1]] = (float(p[2]), " ".join(p[3:]))
    elif p and p[0] in ("device", "bandwidth"):
        device += line.strip() + "; "
naive, opt = {}, {}
byid = {v["variant"]["id"]: v for v in rep["variants"]}
for v in rep["variants"]:
    k = v["variant"]["kernel"]
    if v.get("original_ms", 0) > 0:
        naive.setdefault(k, v["original_ms"])
for k, s in rep["selected"].items():
    v = byid.get(s["variant"])
    if v and v.get("variant_ms", 0) > 0:
        opt[k] = v["variant_ms"]
print("transfer-expert: " + device)
print("%-26s %10s %10s %8s %10s %8s  %s" % ("kernel", "naive ms", "opt ms", "speedup", "expert ms", "reaches", "expert"))
reach = {}
for k in [k["kernel"] for k in rep["kernels"]]:
    n = naive.get(k)
    o = opt.get(k, n)
    e, what = refs.get(k, (None, "-"))
    r = e / o if (e and o) else None
    reach[k] = (n, o, e, r)
    f = lambda x: "%10.4f" % x if x else "%10s" % "-"
    print("%-26s %s %s %8s %s %8s  %s" % (k, f(n), f(o), "%.2fx" % (n / o) if (n and o) else "-", f(e),
                                          "%.2f" % r if r else "-", what))
def goal(name, kernels, test, want):
    got = [(k, reach[k]) for k in kernels if k in reach and reach[k][1]]
    vals = ", ".join("%s %s" % (k, test(v)) for k, v in got)
    print("goal %-34s %s (want %s)" % (name + ":", vals or "no measurement", want))
sp = lambda v: "%.2fx" % (v[0] / v[1]) if v[0] and v[1] else "-"
of = lambda v: "%.2f of expert" % v[3] if v[3] else "-"
goal("tree reductions vs CUB", ["block_reduce_sum", "dot_kernel", "sum_kernel", "reduce_max_int", "min_partial_kernel"], of, ">= 0.85")
goal("scans", ["scan_segments_hs"], sp, ">= 2x")
goal("2-D stencil", ["laplacian5"], sp, ">= 1.3x")
goal("rows vs warp-per-row reference", ["softmax_forward_kernel", "layernorm_forward_kernel"], of, ">= 0.8")
goal("transposes and GEMMs vs experts", ["transpose_naive_kernel", "gemm_naive", "linear_forward_nt"], of, "what examples/experts reach")
rs = [v[3] for v in reach.values() if v[3]]
if rs:
    print("transfer-expert: %d kernels with a reference; geomean of expert / optimized %.2f" %
          (len(rs), math.exp(sum(math.log(x) for x in rs) / len(rs))))
PY
[ "$reach" -eq 0 ]
