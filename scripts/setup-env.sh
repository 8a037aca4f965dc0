# Sourced by scripts/test.sh and scripts/run-quickstart.sh: the Debian 12 packages KLineage needs
# (installed with apt-get only when some are missing) and the CUDA toolkit.
KLINEAGE_PACKAGES=(cmake ninja-build clang-16 libclang-16-dev libclang-cpp16-dev llvm-16-dev
                   libtomlplusplus-dev catch2 libcli11-dev nlohmann-json3-dev libcurl4-openssl-dev libssl-dev zlib1g-dev python3
                   libclang-rt-16-dev  # libFuzzer and the sanitizer runtimes of clang-16 (tests/fuzz)
                   chromium fonts-liberation  # headless, opens report.html in its test (tests/report)
                   slurmctld slurmd slurm-client munge)  # a single-node Slurm cluster on localhost (tests/slurm)

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
