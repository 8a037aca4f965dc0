#!/usr/bin/env bash
# Every GPU check in one run, for a machine with a CUDA device (the device machine): the runner,
# replay and capture test scripts, the capture benchmark, and the examples through `ninja optimize`.
# Exits 1 when a part fails (each part asserts the outcomes it expects).
# usage: scripts/gpu-check.sh <klineage-install-prefix> <capture_record_check> <out-dir> [part...]
#   parts: runner replay capture bench quickstart-capture edges quickstart-workload quickstart-sanitize
#          mutants ci-gate experts speed mine (default: all but experts, speed and mine; ci-gate: CI_PHASE setup|reruns|all, CI_RERUNS 10;
#          experts: bench/experts.sh (EXPERTS_BUDGET, EXPERTS_SKILLS, EXPERTS_WORK: its work dir, default /tmp/kl-experts) and the catalogue's planted wrong variants)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(realpath "$1"); check=$(realpath "$2"); out=$(realpath -m "$3"); shift 3
mkdir -p "$out"
parts=${*:-runner replay capture bench quickstart-capture edges quickstart-workload quickstart-sanitize mutants ci-gate}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
runner="$prefix/bin/klineage-runner"; lib="$prefix/lib/libklineage_capture.so"
cd "$root"
failed_parts=()
run() {
  local name=$1; shift
  echo "=== $name"
  local t0=$SECONDS
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -n "${TAIL:-30}" "$out/$name.log"
  echo "=== $name: rc=$rc ($((SECONDS - t0)) s)"
  # 77 is a script's "skipped: ..."; anything else non-zero is a failed part
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then failed_parts+=("$name"); fi
  cat "$out/$name.log" >> "$out/all.log"; rm -f "$out/$name.log"
}
example() {  # <name> <source dir> <build dir> [cmake args...]
  local src=$2 build=$3; shift 3
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" "$@" >/dev/null && ninja -C "$build" optimize &&
    ninja -C "$build" && { ls "$build"/quickstart >/dev/null 2>&1 && "$build/quickstart" || "$build/edges"; }
}
for p in $parts; do
  case $p in
    runner) run runner bash tests/gpu/run_runner_gpu.sh "$runner" "$nvcc" tests/gpu/kernels.cu /tmp/kl-runner ;;
    replay) run replay bash tests/gpu/replay_gpu.sh "$runner" "$nvcc" tests/gpu/make_record.cu /tmp/kl-replay ;;
    capture) run capture bash tests/gpu/capture_gpu.sh "$runner" "$nvcc" "$lib" "$check" tests/gpu/capture_prog.cu /tmp/kl-capture ;;
    bench) run bench bash tests/gpu/capture_bench.sh "$runner" "$nvcc" "$lib" tests/gpu/capture_prog.cu /tmp/kl-bench ;;
    quickstart-capture)
      run quickstart-capture example qsc examples/quickstart /tmp/kl-qsc -DQUICKSTART_CAPTURE=ON
      cp /tmp/kl-qsc/klineage/kernels/report.json "$out/quickstart-capture-report.json" 2>/dev/null ;;
    edges)
      run edges example edges examples/capture-edges /tmp/kl-edges
      cp /tmp/kl-edges/klineage/edge_kernels/report.json "$out/edges-report.json" 2>/dev/null ;;
    quickstart-workload)
      run quickstart-workload bash scripts/gpu-quickstart.sh "$prefix" /tmp/kl-qsw /tmp/kl-qsw-out
      cp /tmp/kl-qsw-out/report.json "$out/quickstart-workload-report.json" 2>/dev/null ;;
    quickstart-sanitize)  # the winners run once under compute-sanitizer memcheck before they are kept
      run quickstart-sanitize example qss examples/quickstart /tmp/kl-qss -DKLINEAGE_SANITIZE=memcheck
      cp /tmp/kl-qss/klineage/kernels/report.json "$out/quickstart-sanitize-report.json" 2>/dev/null ;;
    mutants)  # tests/gpu/mutants: wrong, hostile and correct variants, each with its expected outcome
      TAIL=80 run mutants bash tests/gpu/mutants/run.sh "$prefix" /tmp/kl-mutants "${MUTANT_REPEAT:-10}" "$out" ;;
    ci-gate)  # klineage ci: a baseline, the planted slower saxpy (exit 1), re-runs that must pass
      TAIL=60 run ci-gate bash tests/gpu/ci_gate.sh "$prefix" /tmp/kl-ci "$out" "${CI_PHASE:-all}" "${CI_RERUNS:-10}" ;;
    experts)  # naive / optimized / expert table, then the planted wrong variants of the catalogue
      ew=${EXPERTS_WORK:-/tmp/kl-experts}
      run experts bash bench/experts.sh "$prefix" "$ew"
      cp "$ew"/*.out "$ew"/optimize.log "$out/" 2>/dev/null
      cp "$ew"/optimized/klineage/naive/report.json "$out/experts-report.json" 2>/dev/null
      # what each gated step did (the planner's effect history), for skills/effects.json
      cp "$ew"/optimized/klineage/naive/cache/effects.json "$out/experts-effects.json" 2>/dev/null
      # where each gate job spends its time (runner.log lines carry the seconds since the job began)
      (cd "$ew"/optimized/klineage/naive && tar czf "$out/runner-logs.tgz" $(find gate -name runner.log) 2>/dev/null)
      # EXPERTS_PLANTED=0: the table only
      if [ "${EXPERTS_PLANTED:-1}" != 0 ]; then
        run experts-planted bash tests/gpu/experts_planted.sh "$prefix" "$ew" "${PLANTED_REPEAT:-3}"
      fi ;;
    planted)  # only the catalogue's planted wrong variants (after an experts part in the same EXPERTS_WORK)
      run experts-planted bash tests/gpu/experts_planted.sh "$prefix" "${EXPERTS_WORK:-/tmp/kl-experts}" "${PLANTED_REPEAT:-3}" ;;
    speed)  # `ninja optimize` on the quickstart: cold, no-op, after a one-file edit (issue 8's goals)
      run speed bash scripts/gpu-speed.sh "$prefix" /tmp/kl-speed
      cp /tmp/kl-speed/cold.log "$out/speed-cold.log" 2>/dev/null
      cp /tmp/kl-speed/build/klineage/kernels/cache/effects.json "$out/quickstart-effects.json" 2>/dev/null ;;
    mine)  # klineage mine on the mineable experts (scripts/gpu-mine.sh); lineages + skills in $out/mine.tgz
      TAIL=250 run mine bash scripts/gpu-mine.sh "$prefix" /tmp/kl-mine
      (cd /tmp/kl-mine && tar czf "$out/mine.tgz" --exclude=build skills mine_* 2>/dev/null) ;;
    *) echo "unknown part $p" ;;
  esac
done
if [ ${#failed_parts[@]} -gt 0 ]; then
  echo "gpu-check: failed: ${failed_parts[*]}"
  exit 1
fi
echo "gpu-check: every part passed (or was skipped)"
