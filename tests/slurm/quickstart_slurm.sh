#!/usr/bin/env bash
# The quickstart through `ninja optimize` with BACKEND slurm, on a real single-node Slurm cluster
# started here (slurm_local.sh), with a fake GPU runner on the node (fake_runner.py):
#   quickstart_slurm.sh <klineage> <klineage source dir> <work dir> <ninja> <nvcc> <cmake>
# Checks that every gate job went through srun (one fake-runner line per job, none failed), that
# each job ran in a directory of its own holding its bundle (job.json, cubins) and outside the build
# tree, that the report names the slurm backend, and that saxpy's vectorized variant was selected.
# Exit 77 ("skipped: ...") where the cluster cannot start.
set -u
klineage=$1 root=$2 work=$3 ninja=$4 nvcc=$5 cmake=$6
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
rm -rf "$work" && mkdir -p "$work/pkg"
# Slurm state must sit on a short path (socket names are limited to 108 bytes).
state=$(mktemp -d /tmp/kl-slurm.XXXXXX)
out=$("$here/slurm_local.sh" start "$state" $$) || { echo "$out"; rm -rf "$state"; exit 77; }
eval "$out"
trap '"$here/slurm_local.sh" stop "$state" >/dev/null 2>&1; rm -rf "$state"' EXIT
ok "single-node Slurm up (SLURM_CONF=$SLURM_CONF)"

export KLINEAGE_FAKE_LOG=$work/fake-runner.log KLINEAGE_FAKE_SUBMIT_DIR=$work
: >"$KLINEAGE_FAKE_LOG"
echo "include(\"$root/cmake/KLineage.cmake\")" >"$work/pkg/KLineageConfig.cmake"
"$cmake" -S "$root/examples/quickstart" -B "$work/build" -G Ninja "-DCMAKE_MAKE_PROGRAM=$ninja" \
  "-DCMAKE_CUDA_COMPILER=$nvcc" "-DKLineage_DIR=$work/pkg" "-DKLINEAGE_EXECUTABLE=$klineage" \
  "-DKLINEAGE_SKILLS_DIR=$root/skills" -DKLINEAGE_BACKEND=slurm \
  "-DKLINEAGE_SLURM_PARTITION=$KLINEAGE_SLURM_PARTITION" -DKLINEAGE_SLURM_GRES= \
  "-DKLINEAGE_SLURM_RUNNER=$here/fake_runner.py" -DKLINEAGE_SLURM_MAX_JOBS=2 >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure failed"; }
"$ninja" -C "$work/build" optimize >"$work/optimize.log" 2>&1
rc=$?
cat "$work/optimize.log"
[ $rc -eq 0 ] || fail "ninja optimize exited $rc"
ok "ninja optimize through Slurm exited 0"

report=$work/build/klineage/kernels/report.json
python3 - "$report" "$KLINEAGE_FAKE_LOG" "$work" <<'PY' || fail "report or runner log not as expected (above)"
import json, sys
rep = json.load(open(sys.argv[1]))
lines = [l.split() for l in open(sys.argv[2]) if l.strip()]
work = sys.argv[3]
bad = []
if rep.get("backend") != "slurm": bad.append("report backend is %r" % rep.get("backend"))
if rep.get("device") != "Fake GPU": bad.append("device %r" % rep.get("device"))
variants = [v for v in rep["variants"] if not v["variant"]["is_original"]]
gated = [v for v in variants if v["outcome"] in ("passed", "slower")]
if len(gated) != len(variants): bad.append("not every variant passed or was slower: " +
    ", ".join("%s %s (%s)" % (v["variant"]["id"], v["outcome"], v["reason"][:120]) for v in variants if v not in gated))
if len(lines) < len(variants) + 2: bad.append("%d jobs ran through srun for %d variants" % (len(lines), len(variants)))
for fn, outcome, cwd, files in lines:
    if outcome != "passed": bad.append("a job failed on the node: " + " ".join([fn, outcome, cwd]))
    if cwd.startswith(work): bad.append("a job ran inside the build tree: " + cwd)
    if "job.json" not in files.split(",") or "original.cubin" not in files.split(","): bad.append("bundle incomplete: " + files)
if len(set(l[2] for l in lines)) != len(lines): bad.append("two jobs shared a directory")
sel = rep.get("selected", {}).get("saxpy", {})
if "vectorize-float4" not in sel.get("skills", []): bad.append("saxpy selected %r" % sel)
print("\n".join(bad) if bad else "%d variants gated in %d Slurm jobs" % (len(variants), len(lines)))
sys.exit(1 if bad else 0)
PY
ok "every variant gated through srun in its own bundle; saxpy's vectorized variant selected"
