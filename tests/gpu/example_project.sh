# Sourced by the GPU scripts that run one of examples/ through `ninja optimize`:
#   example_optimize <label> <example> <klineage-install-prefix> <work-dir>
# Skips (exit 77, "skipped: no CUDA device") without a GPU; otherwise configures examples/<example>
# in <work-dir>/build against the install, runs `ninja optimize` (log: <work-dir>/optimize.log)
# and sets root, prefix, work and build. Exits 1 naming <label> when either step fails.
# EXAMPLE_CMAKE_ARGS (optional): more -D arguments for the configure step, e.g.
#   EXAMPLE_CMAKE_ARGS=-DKLINEAGE_SKILLS_DIR=/path/to/skills   (gate with another skill library)
example_optimize() {
  local label=$1 example=$2
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  prefix=$(realpath "$3"); work=$(realpath -m "$4")
  if ! "$prefix/bin/klineage-runner" --probe >/dev/null 2>&1; then
    echo "skipped: no CUDA device"
    exit 77
  fi
  rm -rf "$work"; mkdir -p "$work"
  build="$work/build"
  # shellcheck disable=SC2086  # EXAMPLE_CMAKE_ARGS is a list of words
  cmake -S "$root/examples/$example" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" ${EXAMPLE_CMAKE_ARGS:-} \
    > "$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; echo "$label: configure failed"; exit 1; }
  local t0=$SECONDS
  ninja -C "$build" optimize > "$work/optimize.log" 2>&1 || { tail -40 "$work/optimize.log"; echo "$label: ninja optimize failed"; exit 1; }
  echo "$label: ninja optimize in $((SECONDS - t0)) s"
}
