#!/usr/bin/env bash
# On a machine with a GPU: configure the quickstart against an installed KLineage, run
# `ninja optimize`, rebuild, run the program's own check, then gate the planted wrong and hanging
# variants; asserts what each step must give and exits 1 when one differs.
# Usage: scripts/gpu-quickstart.sh <klineage-install-prefix> <build-dir> [out-dir]
#   QS_MIN_SAXPY (1.25) and QS_MIN_RELU (1.5): the speedups the selection must reach.
set -uo pipefail
prefix=$(realpath "$1"); build=$2; out=${3:-$build}
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/gpu/lib.sh"
mkdir -p "$out"
cmake -S "$root/examples/quickstart" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$out/configure.log" ||
  { cat "$out/configure.log"; exit 1; }
t0=$SECONDS
ninja -C "$build" optimize 2>&1 | tee "$out/optimize.log"
check "ninja optimize exits 0 ($((SECONDS - t0)) s)" test "${PIPESTATUS[0]}" -eq 0
ninja -C "$build" 2>&1 | tee "$out/build.log"
check "the optimized build builds" test "${PIPESTATUS[0]}" -eq 0
"$build/quickstart" 2>&1 | tee "$out/quickstart.log"
check "the program's own check passes with the selected kernels" test "${PIPESTATUS[0]}" -eq 0
report="$build/klineage/kernels/report.json"
cp "$report" "$out/report.json"
check "saxpy selected at >= ${QS_MIN_SAXPY:-1.25}x ($(val "$report" 'd["selected"].get("saxpy", {}).get("speedup")'))" \
  is "$report" "d['selected'].get('saxpy', {}).get('speedup', 0) >= ${QS_MIN_SAXPY:-1.25}"
check "relu selected at >= ${QS_MIN_RELU:-1.5}x ($(val "$report" 'd["selected"].get("relu", {}).get("speedup")'))" \
  is "$report" "d['selected'].get('relu', {}).get('speedup', 0) >= ${QS_MIN_RELU:-1.5}"
check "no variant wrong-result or runtime-failed among the generated ones" \
  is "$report" "all(v['outcome'] not in ('wrong-result', 'runtime-failed') for v in d['variants'])"
cfg="$build/klineage/kernels/config.json"
# planted variant, the outcome and the exit status `klineage gate` must give it
for planted in "saxpy_off_by_one wrong-result 10" "saxpy_hang timeout 12"; do
  set -- $planted
  "$prefix/bin/klineage" gate --config "$cfg" --kernel saxpy --variant "$root/tests/gpu/planted/$1.cu" \
    2>&1 | tee "$out/gate-$1.log"
  rc=${PIPESTATUS[0]}
  gr="$build/klineage/kernels/gate-report.json"
  got=$(val "$gr" '[v["outcome"] for v in d["variants"] if not v["variant"]["is_original"]][0]')
  check "planted $1 is $2 (got $got) and klineage gate exits $3 (got $rc)" test "$got" = "$2" -a "$rc" -eq "$3"
done
finish gpu-quickstart
