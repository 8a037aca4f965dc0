#!/usr/bin/env bash
# Builds and installs KLineage (build/, build/install), then builds examples/quickstart against the
# install (build/quickstart): `ninja optimize`, `ninja`, and runs the quickstart program.
# Usage: bash scripts/run-quickstart.sh
# Installs the Debian 12 packages it needs (apt-get, only if some are missing); expects the CUDA
# toolkit at /usr/local/cuda (or $CUDA_HOME). Without a GPU, optimize keeps the original kernels,
# the example still builds, and running it is skipped.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
source "$root/scripts/setup-env.sh"

klineage_install_packages
klineage_find_cuda

cmake -G Ninja -S . -B build -DKLINEAGE_BUILD_TESTS=OFF
cmake --build build
cmake --install build --prefix "$root/build/install"

cmake -G Ninja -S examples/quickstart -B build/quickstart -DCMAKE_PREFIX_PATH="$root/build/install"
ninja -C build/quickstart optimize
ninja -C build/quickstart

set +e
build/quickstart/quickstart
rc=$?
set -e
case $rc in
  0) echo "run-quickstart: done (report: build/quickstart/klineage/kernels/report.json)" ;;
  77) echo "run-quickstart: no CUDA device here: KLineage kept the original kernels; built, not run" ;;
  *) echo "run-quickstart: quickstart failed (exit $rc)" >&2; exit "$rc" ;;
esac
