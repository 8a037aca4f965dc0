#!/usr/bin/env bash
# bench/run_speed.sh <klineage-install-prefix> <work-dir>
#
# On a GPU machine: how long `ninja optimize` takes on a RUN project (issue 31's goals on a project
# of >= 17 kernels: cold <= 60 s, no-op <= 2 s, one-kernel edit <= 15 s). The project is a copy of
# examples/transfer (27 naive kernels, gated on its own test program's launches, no workload file)
# under <work-dir>/src, so the edits below never touch the repository. Four runs in one build tree:
#   cold     a fresh build tree, nothing cached;
#   no-op    again, nothing changed;
#   relink   src/check.cu (the RUN program's own source, no kernel) touched: the capture build
#            compiles and links it again into the same program, which must not count as a change;
#   edit     one kernel edited (vecAdd's `a[i] + b[i]` becomes `b[i] + a[i]`, the same sums).
# Prints each run's seconds and its stages (report.json) side by side, what each run gated, and
# whether the edit run kept the cold run's selection for the 26 kernels it did not touch. The cold
# run's runner logs go to <work-dir>/runner-logs.tgz and their phases are printed.
# RUN_SPEED_BUDGET sets KLINEAGE_BUDGET (variants per kernel; default: KLineage's).
# RUN_SPEED_COLD_ONLY=1 stops after the cold run (and its phases): two configurations side by side
# in one call, e.g. KLINEAGE_RUNNER_SERVE=0 against the default.
# Exit status: 0 all runs succeeded, 1 a run failed, 2 usage, 77 no CUDA device.
set -uo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 <klineage-install-prefix> <work-dir>" >&2
  exit 2
fi
prefix=$(realpath "$1"); work=$(mkdir -p "$2" && realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
if ! "$prefix/bin/klineage-runner" --probe >/dev/null 2>&1; then
  echo "skipped: no CUDA device"
  exit 77
fi
src="$work/src"; build="$work/build"
rm -rf "$src" "$build" "$work"/*.report.json
cp -r "$root/examples/transfer" "$src"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" ${RUN_SPEED_BUDGET:+-DKLINEAGE_BUDGET=$RUN_SPEED_BUDGET} \
  >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
report="$build/klineage/transfer/report.json"
failed=0

timed() {  # timed <name>: ninja optimize; its seconds go to <work-dir>/<name>.seconds
  local t0 t1 rc
  rm -f "$work/$1.report.json"
  t0=$(date +%s.%N)
  ninja -C "$build" optimize >"$work/$1.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >"$work/$1.seconds"
  # A no-op run leaves the last run's report: only a run that extracted writes its own.
  if ! grep -q "nothing changed since the last run" "$work/$1.log"; then cp "$report" "$work/$1.report.json"; fi
  echo "run-speed: $1: $(cat "$work/$1.seconds") s, exit $rc; $(grep -E '^klineage: [0-9]+ variants' "$work/$1.log" | tail -1)"
  grep -E 'klineage: (capturing the launches|reusing the capture|capture: [0-9]+ launch)' "$work/$1.log" | sed 's/^/run-speed:   /'
  grep -E 'klineage: ([0-9]+ variants gated|compiling [0-9]+ oracle)' "$work/$1.log" | tail -2 | sed 's/^/run-speed:   /' 
  [[ $rc -eq 0 ]] || { tail -30 "$work/$1.log"; failed=1; }
}

timed cold
(cd "$build" && find . -name runner.log | tar czf "$work/runner-logs.tgz" -T -)
python3 "$root/scripts/runner-phases.py" $(find "$build" -name runner.log) | head -12
# What the capture stage costs beyond the program itself: the RUN program alone, not captured.
t0=$(date +%s.%N)
"$build/klineage/_capture-build/transfer_check" >"$work/program.log" 2>&1
rc=$?
echo "run-speed: the RUN program alone (not captured): $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s, exit $rc"
if [[ "${RUN_SPEED_COLD_ONLY:-0}" == 1 ]]; then
  python3 - "$work/cold.report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("run-speed: cold stages: " + ", ".join(f"{s['stage']} {s['seconds']:.1f}" for s in r.get("stages", [])))
PY
  exit $failed
fi
timed noop
touch "$src/src/check.cu"
timed relink
python3 - "$src/src/vecadd.cu" <<'PY'
import sys
p = sys.argv[1]
text = open(p).read()
assert "c[i] = a[i] + b[i];" in text, "vecadd.cu changed: update run_speed.sh's edit"
open(p, "w").write(text.replace("c[i] = a[i] + b[i];", "c[i] = b[i] + a[i];"))
PY
timed edit

python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
runs = ["cold", "noop", "relink", "edit"]
secs = {r: float(open(os.path.join(work, r + ".seconds")).read()) for r in runs}
reps = {}
for r in runs:
    p = os.path.join(work, r + ".report.json")
    reps[r] = json.load(open(p)) if os.path.exists(p) else None
stages = []
for r in runs:
    for s in (reps[r] or {}).get("stages", []):
        if s["stage"] not in stages:
            stages.append(s["stage"])
print("\nrun-speed: seconds (a blank stage column: the run stopped at the no-op check)")
print("%-18s" % "" + "".join("%9s" % r for r in runs))
print("%-18s" % "ninja optimize" + "".join("%9.1f" % secs[r] for r in runs))
for st in stages:
    row = "%-18s" % st
    for r in runs:
        d = {s["stage"]: s["seconds"] for s in (reps[r] or {}).get("stages", [])}
        row += "%9.1f" % d[st] if st in d else "%9s" % "-"
    print(row)
def gated(rep):
    if not rep:
        return "nothing (no-op)"
    vs = [v for v in rep["variants"] if not v["variant"].get("is_original")]
    cached = rep.get("from_result_cache", 0)
    kernels = sorted({v["variant"]["kernel"] for v in vs if v["outcome"] != "not-run"})
    return "%d variants (%s from the result cache) of %d kernels" % (len(vs), cached, len(kernels))
for r in runs:
    print("run-speed: %-7s gated %s" % (r, gated(reps[r])))
cold, edit = reps["cold"], reps["edit"]
if cold and edit:
    a = {k: v["variant"] for k, v in cold["selected"].items()}
    b = {k: v["variant"] for k, v in edit["selected"].items()}
    differ = sorted(k for k in set(a) | set(b) if k != "vecAdd" and a.get(k) != b.get(k))
    print("run-speed: the edit run kept the cold run's selection of the other kernels: %s" %
          ("yes (%d selected)" % len([k for k in a if k != "vecAdd"]) if not differ else "NO: " + ", ".join(differ)))
print("run-speed: cold %.1f s (goal 60), no-op %.1f s (goal 2), relink %.1f s (goal 2 plus the rebuild), edit %.1f s (goal 15)" %
      (secs["cold"], secs["noop"], secs["relink"], secs["edit"]))
PY
exit $failed
