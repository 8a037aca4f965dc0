#!/usr/bin/env bash
# Overhead and snapshot throughput of the capture library on capture_prog.cu with n = 2^26 floats
# (x and y: 512 MiB of allocations a launch). Only saxpy is listed: 2 shapes are recorded, each
# snapshotting both allocations before and after (2 GiB of blobs in all).
#   usage: capture_bench.sh <klineage-runner> <nvcc> <libklineage_capture.so> <capture_prog.cu> <work dir> [log2 n]
# Prints the median wall time of 3 runs without and with capture, and the library's own count
# (KLINEAGE_CAPTURE_STATS=1): bytes snapshotted / seconds spent snapshotting. Exit 77 without a GPU.
set -u
runner=$1 nvcc=$2 lib=$3 src=$4 work=$5 log2n=${6:-26}

source "$(dirname "${BASH_SOURCE[0]}")/gpu_preamble.sh"
rm -rf "$work" && mkdir -p "$work"
prog=$work/capture_prog
"$nvcc" -arch="sm_$sm" -O2 -o "$prog" "$src" -lcuda || { echo "FAIL: nvcc could not compile $src"; exit 1; }
n=$((1 << log2n))
printf '_Z5saxpyifPKfPf\tsaxpy\n' >"$work/kernels.txt"
echo "n = 2^$log2n = $n floats; $((2 * n * 4 / 1048576)) MiB of allocations a launch; disk: $(df -h "$work" | tail -1)"

now() { date +%s.%N; }
median() { sort -g | sed -n 2p; }
fail=0

plain=()
for i in 1 2 3; do
  t0=$(now)
  "$prog" $n >"$work/plain.$i.out" 2>&1 || { echo "FAIL: the program failed without capture: $(cat "$work/plain.$i.out")"; fail=1; }
  plain+=("$(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')")
done
captured=()
for i in 1 2 3; do
  rm -rf "$work/cap"
  t0=$(now)
  CUDA_INJECTION64_PATH="$lib" KLINEAGE_CAPTURE_DIR="$work/cap" KLINEAGE_CAPTURE_KERNELS="$work/kernels.txt" \
    KLINEAGE_CAPTURE_STATS=1 "$prog" $n >"$work/cap.$i.out" 2>"$work/cap.$i.err" ||
    { echo "FAIL: the program failed under capture: $(cat "$work/cap.$i.out" "$work/cap.$i.err")"; fail=1; }
  captured+=("$(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')")
  grep "klineage capture:" "$work/cap.$i.err" | sed "s/^/  run $i: /"
done
tp=$(printf '%s\n' "$work"/cap.*.err | xargs grep -ho 'throughput_GBps=[0-9.]*' | cut -d= -f2 | median)
echo "records: $(cd "$work/cap" && ls -d */ | tr '\n' ' ')($(du -sh "$work/cap" | cut -f1))"
echo "wall time without capture (median of 3): $(printf '%s\n' "${plain[@]}" | median) s   [${plain[*]}]"
echo "wall time with capture    (median of 3): $(printf '%s\n' "${captured[@]}" | median) s   [${captured[*]}]"
echo "snapshot throughput (median of 3): $tp GB/s (bytes snapshotted / seconds snapshotting, D2H + CRC + write)"
rm -rf "$work/cap"
exit $fail
