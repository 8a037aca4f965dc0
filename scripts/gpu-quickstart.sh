#!/usr/bin/env bash
# On a machine with a GPU: configure the quickstart against an installed KLineage, run
# `ninja optimize`, rebuild, run the program's own check, then gate the planted wrong and hanging
# variants. Usage: scripts/gpu-quickstart.sh <klineage-install-prefix> <build-dir> [out-dir]
set -euo pipefail
prefix=$(realpath "$1"); build=$2; out=${3:-$build}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
cmake -S "$root/examples/quickstart" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$out/configure.log"
ninja -C "$build" optimize 2>&1 | tee "$out/optimize.log"
ninja -C "$build" 2>&1 | tee "$out/build.log"
"$build/quickstart" 2>&1 | tee "$out/quickstart.log"
cfg="$build/klineage/kernels/config.json"
for planted in saxpy_off_by_one saxpy_hang; do
  "$prefix/bin/klineage" gate --config "$cfg" --kernel saxpy --variant "$root/tests/gpu/planted/$planted.cu" \
    2>&1 | tee "$out/gate-$planted.log"
done
cp "$build/klineage/kernels/report.json" "$out/report.json"
