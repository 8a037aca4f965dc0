#!/usr/bin/env bash
# Builds KLineage with its tests in build/ and runs them. Usage: bash scripts/test.sh
# Installs the Debian 12 packages it needs (apt-get, only if some are missing); expects the CUDA
# toolkit at /usr/local/cuda (or $CUDA_HOME). Tests that need a GPU report "skipped" without one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup-env.sh

klineage_install_packages
klineage_find_cuda

cmake -G Ninja -S . -B build -DKLINEAGE_BUILD_TESTS=ON
cmake --build build
ctest --test-dir build --output-on-failure
