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
# --- packages (Debian 12) and CUDA toolkit; same block in scripts/test.sh and scripts/run-quickstart.sh
KLINEAGE_PACKAGES=(cmake ninja-build clang-16 libclang-16-dev libclang-cpp16-dev llvm-16-dev
                   libtomlplusplus-dev catch2 libcli11-dev nlohmann-json3-dev libcurl4-openssl-dev)

klineage_install_packages() {
  local missing=() p
  for p in "${KLINEAGE_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "klineage: installing ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "klineage: missing packages (${missing[*]}) and not root, no sudo: install them first" >&2
      return 1
    fi
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

klineage_find_cuda() {
  CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
  if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    echo "klineage: no nvcc at $CUDA_HOME/bin/nvcc; install the CUDA toolkit there (or set CUDA_HOME)" >&2
    return 1
  fi
  export CUDA_HOME
  export PATH="$CUDA_HOME/bin:$PATH"
  export CUDACXX="$CUDA_HOME/bin/nvcc"
}
# ---

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
