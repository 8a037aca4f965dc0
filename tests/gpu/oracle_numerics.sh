#!/usr/bin/env bash
# The oracle on a RUN project with default settings (examples/numerics): `ninja optimize`, then every
# hand-written variant of examples/numerics/variants/ through `klineage gate`; prints one line per
# variant: outcome, the original's and the variant's error against the oracle (max_rel / l2_rel),
# and the reason. Ends with "oracle-numerics: N of M passed" (exit 0 only when all passed).
# usage: oracle_numerics.sh <klineage-install-prefix> <work-dir>
# Needs a CUDA device (exit 77, "skipped: no CUDA device", without one).
set -uo pipefail
. "$(dirname "$0")/example_project.sh"
example_optimize oracle-numerics numerics "$1" "$2"
grep -E "oracle|no oracle" "$work/optimize.log" | head -8
ninja -C "$build" > "$work/build.log" 2>&1 && "$build/numerics_check" | tail -5
cfg="$build/klineage/numerics/config.json"
summarize() {  # <report.json> <label>
  python3 - "$1" "$2" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
for v in rep.get("variants", []):
    if v["variant"].get("is_original"):
        continue
    e = v.get("error") or {}
    o, w = e.get("original") or {}, e.get("variant") or {}
    err = ("original %.3g/%.3g variant %.3g/%.3g" % (o.get("max_rel", 0), o.get("l2_rel", 0), w.get("max_rel", 0), w.get("l2_rel", 0))
           if o and w else "no errors (oracle: %s)" % e.get("oracle", "?"))
    print("%-10s %-34s %-13s %6s  %s  %s" % (sys.argv[2], v["variant"]["id"], v["outcome"],
          "%.2fx" % v["speedup"] if v.get("speedup") else "", err, v["reason"][:160].replace("\n", " ")))
PY
}
echo "--- ninja optimize (the skills):"
summarize "$build/klineage/numerics/report.json" optimize
passed=0; total=0
for k in row_sum:row_sum_warp gemv:gemv_warp col_sum:col_sum_blocks conv1d:conv1d_tile; do
  kernel=${k%%:*}_kernel; file=$root/examples/numerics/variants/${k#*:}.cu
  "$prefix/bin/klineage" gate --config "$cfg" --kernel "$kernel" --variant "$file" > "$work/gate-$kernel.log" 2>&1
  rc=$?
  cp "$build/klineage/numerics/gate-report.json" "$work/gate-$kernel.json"
  summarize "$work/gate-$kernel.json" gate
  total=$((total + 1)); [ $rc -eq 0 ] && passed=$((passed + 1))
done
echo "oracle-numerics: $passed of $total hand-written variants accepted"
[ "$passed" -eq "$total" ]
