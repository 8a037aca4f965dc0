# Sourced by the GPU test scripts (after `runner=... nvcc=...`): skips the test (exit 77, saying
# why) without a CUDA device or nvcc; otherwise sets $probe (the runner's probe line) and $sm
# (the device's compute capability digits, e.g. 90).
probe=$("$runner" --probe)
if [ $? -ne 0 ]; then
  echo "skipped: no CUDA device"
  echo "probe: $probe"
  exit 77
fi
if [ ! -x "$nvcc" ]; then
  echo "skipped: nvcc not found ('$nvcc')"
  exit 77
fi
sm=$(sed -n 's/.*"sm":"\([0-9]*\)".*/\1/p' <<<"$probe")
echo "probe: $probe"
