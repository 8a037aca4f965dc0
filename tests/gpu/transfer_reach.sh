#!/usr/bin/env bash
# How far the skills reach on the frozen transfer suite (examples/transfer: naive kernels in
# spellings nobody here tuned to), through `ninja optimize` with RUN as a new user runs it. Prints,
# per kernel: whether it was gated, how many variants were made and passed, the selected chain and
# its speedup, else the first refusals; then "transfer-reach: N of M kernels got a variant, K
# improved, geomean G over all gated kernels", and whether the program still passes its own check on
# the selected kernels (exit 1 when it does not).
# usage: transfer_reach.sh <klineage-install-prefix> <work-dir>
# Needs a CUDA device (exit 77, "skipped: no CUDA device", without one).
set -uo pipefail
. "$(dirname "$0")/example_project.sh"
example_optimize transfer-reach transfer "$1" "$2"
grep -E "^klineage: time|variants:" "$work/optimize.log" | tail -2
python3 - "$build/klineage/transfer/report.json" <<'PY'
import json, math, sys
rep = json.load(open(sys.argv[1]))
variants = {}
for v in rep["variants"]:
    if not v["variant"].get("is_original"):
        variants.setdefault(v["variant"]["kernel"], []).append(v)
skipped = {s["kernel"]: s["reason"] for s in rep.get("skipped", [])}
names = [k["kernel"] for k in rep["kernels"]] + sorted(skipped)
got, improved, logs = 0, 0, []
for name in names:
    vs = variants.get(name, [])
    passed = [v for v in vs if v["outcome"] == "passed"]
    sel = rep["selected"].get(name)
    got += bool(vs)
    if sel:
        improved += 1
        logs.append(math.log(sel["speedup"]))
    elif name not in skipped:
        logs.append(0.0)
    if name in skipped:
        what = "skipped: " + skipped[name][:150]
    elif sel:
        what = "%.2fx %s" % (sel["speedup"], "+".join(sel["skills"]))
    else:
        k = next(k for k in rep["kernels"] if k["kernel"] == name)
        # what a transform itself refused says most about the spelling; then the rest
        refusals = sorted(k.get("skills_not_applied", []), key=lambda r: "made no edit" not in r)
        why = "; ".join(refusals[:2])[:240]
        what = "original kept (%d variants, %d passed) %s" % (len(vs), len(passed), why)
    print("%-28s %s" % (name, what))
gm = math.exp(sum(logs) / len(logs)) if logs else 1.0
print("transfer-reach: %d of %d kernels got a variant, %d improved, geomean %.2fx over %d gated kernels" %
      (got, len(names), improved, gm, len(logs)))
PY
ninja -C "$build" > "$work/build.log" 2>&1 && "$build/transfer_check" > "$work/check.log" 2>&1
check=$?
tail -30 "$work/check.log"
echo "transfer-reach: the program on the selected kernels: $([ $check -eq 0 ] && echo passed || echo FAILED)"
[ $check -eq 0 ]
