#!/usr/bin/env bash
# Launch sites as real code writes them, on a GPU (examples/launch-sites: geometry through dim3
# locals, macros, a ceil_div helper, a launcher parameter, a switch over template instantiations).
# `ninja optimize` with RUN, then: each kernel's selection and speedup, the report's notes saying
# where the launch facts came from, the program re-run on the selected kernels, and the hand-written
# variants of examples/launch-sites/variants/ through `klineage gate` (their own launches evaluated).
# Ends with "launch-sites: ..." and exits 0 only when tile-transpose and tile-sgemm were selected
# faster than the original, the program passed its own check and every hand-written variant passed.
# usage: launch_sites.sh <klineage-install-prefix> <work-dir>
# Needs a CUDA device (exit 77, "skipped: no CUDA device", without one).
set -uo pipefail
. "$(dirname "$0")/example_project.sh"
example_optimize launch-sites launch-sites "$1" "$2"
rep="$build/klineage/launch_sites/report.json"
python3 - "$rep" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
for k in rep["kernels"]:
    print("== %s (gated on %s, grid %s, block %s)" % (k["kernel"], k["gated_on"], k["grid"], k["block"]))
    for n in k["notes"]:
        if n.startswith("launch at"):
            print("   fact: " + n)
for v in rep["variants"]:
    if v["variant"].get("is_original"):
        continue
    print("%-28s %-14s %7s  %s  %s" % (v["variant"]["id"], v["outcome"], "%.2fx" % v["speedup"] if v.get("speedup") else "",
          "+".join(v["variant"].get("skills", [])), v["reason"][:120].replace("\n", " ")))
for s in rep.get("skipped", []):
    print("skipped %s: %s" % (s["kernel"], s["reason"]))
print("--- selected:")
for name, s in sorted(rep["selected"].items()):
    print("%-22s %-34s %6.2fx  %s" % (name, s["variant"], s["speedup"] or 0, "+".join(s["skills"])))
PY
ok=1
for pair in transpose_naive:tile-transpose sgemm_naive:tile-sgemm; do
  k=${pair%%:*}; skill=${pair#*:}
  python3 - "$rep" "$k" "$skill" <<'PY' || ok=0
import json, sys
rep, k, skill = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
s = rep["selected"].get(k)
good = bool(s) and any(x.startswith(skill) for x in s["skills"]) and (s["speedup"] or 0) > 1.0
print("launch-sites: %s selected %s: %s" % (k, skill, "yes, %.2fx" % s["speedup"] if good else "NO (%s)" % s))
sys.exit(0 if good else 1)
PY
done
ninja -C "$build" > "$work/build.log" 2>&1 && "$build/launch_sites_check" > "$work/check.log" 2>&1
check=$?
tail -6 "$work/check.log"
echo "launch-sites: the program on the selected kernels: $([ $check -eq 0 ] && echo passed || echo FAILED)"
[ $check -eq 0 ] || ok=0
cfg="$build/klineage/launch_sites/config.json"
for k in row_softmax_kernel:row_softmax_half_block sgemm_naive:sgemm_32x8; do
  kernel=${k%%:*}; file=$root/examples/launch-sites/variants/${k#*:}.cu
  "$prefix/bin/klineage" gate --config "$cfg" --kernel "$kernel" --variant "$file" > "$work/gate-$kernel.log" 2>&1
  rc=$?
  python3 - "$build/klineage/launch_sites/gate-report.json" <<'PY'
import json, sys
for v in json.load(open(sys.argv[1]))["variants"]:
    if not v["variant"].get("is_original"):
        j = v.get("job") or {}
        print("gate %-40s %-12s %7s  %s" % (v["variant"]["id"], v["outcome"], "%.2fx" % v["speedup"] if v.get("speedup") else "",
              v["reason"][:200].replace("\n", " ")))
PY
  grep -E "launch|grid|block" "$work/gate-$kernel.log" | head -3
  [ $rc -eq 0 ] || ok=0
done
echo "launch-sites: $([ $ok -eq 1 ] && echo "all checks passed" || echo "some checks FAILED")"
[ $ok -eq 1 ]
