#!/usr/bin/env bash
# On a machine with a GPU: `klineage ci` on the quickstart. Optimizes saxpy, records a baseline of
# the build as optimized, checks that the same build passes, that a planted slower saxpy (the
# original slowed by a loop, put where the build's selected copy is) fails with exit 1, and that
# re-running the passing case RERUNS times never fails.
# Usage: tests/gpu/ci_gate.sh <klineage-install-prefix> <work-dir> <out-dir> [setup|reruns|all] [reruns]
set -uo pipefail
prefix=$(realpath "$1"); work=$2; out=$3; phase=${4:-all}; reruns=${5:-10}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/gpu/lib.sh"
mkdir -p "$out"
kl="$prefix/bin/klineage"
build="$work/build"
cfg="$build/klineage/kernels/config.json"
baseline="$work/klineage-baseline.json"
ci() { "$kl" ci --config "$cfg" --baseline "$baseline" "$@"; }

if [ "$phase" = setup ] || [ "$phase" = all ]; then
  rm -rf "$work"; mkdir -p "$work"
  cmake -S "$root/examples/quickstart" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$out/ci-configure.log" ||
    { cat "$out/ci-configure.log"; exit 1; }
  t0=$SECONDS
  "$kl" optimize --config "$cfg" --kernel saxpy > "$out/ci-optimize.log" 2>&1
  check "klineage optimize --kernel saxpy exits 0 ($((SECONDS - t0)) s)" test $? -eq 0
  tail -4 "$out/ci-optimize.log"
  check "saxpy has a selected variant" is "$build/klineage/kernels/report.json" "'saxpy' in d['selected']"
  cp "$build/klineage/kernels/report.html" "$out/optimize-report.html" 2>/dev/null
  t0=$SECONDS
  ci --update-baseline > "$out/ci-update.log" 2>&1
  rc=$?
  cat "$out/ci-update.log"
  check "klineage ci --update-baseline exits 0 ($((SECONDS - t0)) s)" test $rc -eq 0
  cp "$baseline" "$out/klineage-baseline.json"
  check "the baseline records the selected saxpy" is "$baseline" \
    "[k['variant'] for k in d['kernels'] if k['kernel'] == 'saxpy'][0] != 'saxpy/original'"

  # the planted slower kernel where the build's selected saxpy is
  sel=$(val "$build/klineage/kernels/selection.json" \
    '[s["selected"] for s in d["sources"] if s["original"].endswith("saxpy.cu")][0]')
  cp "$sel" "$work/selected-saxpy.bak"
  cp "$root/tests/gpu/planted/saxpy_slow.cu" "$sel"
  ci > "$out/ci-planted.log" 2>&1
  rc=$?
  cat "$out/ci-planted.log"
  cp "$build/klineage/kernels/ci/ci-junit.xml" "$out/ci-planted-junit.xml"
  cp "$build/klineage/kernels/ci/ci-summary.md" "$out/ci-planted-summary.md"
  cp "$build/klineage/kernels/ci/report.html" "$out/ci-planted-report.html"
  check "the planted slower saxpy fails klineage ci with exit 1 (got $rc)" test $rc -eq 1
  check "saxpy's verdict is slower" is "$build/klineage/kernels/ci/ci.json" \
    "[k['verdict'] for k in d['kernels'] if k['kernel'] == 'saxpy'][0] == 'slower'"
  cp "$work/selected-saxpy.bak" "$sel"
fi

if [ "$phase" = reruns ] || [ "$phase" = all ]; then
  fails=0
  : > "$out/ci-reruns.tsv"
  for i in $(seq 1 "$reruns"); do
    t0=$SECONDS
    ci > "$out/ci-rerun.log" 2>&1
    rc=$?
    line=$(python3 -c "import json; d=json.load(open('$build/klineage/kernels/ci/ci.json'));
print('\t'.join('%s %s %.4f/%.4f %.2fx' % (k['kernel'], k['verdict'], k['median_ms'] or 0, k['expected_ms'] or 0,
      k['speedup_vs_original']) for k in d['kernels']))")
    printf '%s\trc=%s\t%s\t%ss\n' "$i" "$rc" "$line" "$((SECONDS - t0))" | tee -a "$out/ci-reruns.tsv"
    [ $rc -eq 0 ] || { fails=$((fails + 1)); cat "$out/ci-rerun.log"; }
  done
  cp "$build/klineage/kernels/ci/ci-summary.md" "$out/ci-pass-summary.md"
  cp "$build/klineage/kernels/ci/report.html" "$out/ci-pass-report.html"
  check "$reruns re-runs of the passing case: $fails failed" test $fails -eq 0
fi
finish ci-gate
