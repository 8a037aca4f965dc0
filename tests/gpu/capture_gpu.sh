#!/usr/bin/env bash
# GPU test of the capture library (libklineage_capture.so), injected into an unmodified program
# (capture_prog.cu) the way `klineage capture` does it: CUDA_INJECTION64_PATH + KLINEAGE_CAPTURE_*.
#   usage: capture_gpu.sh <klineage-runner> <nvcc> <libklineage_capture.so> <capture_record_check>
#                         <capture_prog.cu> <work dir>
# Exit 0: all checks passed; 1: a check failed; 77: skipped (no CUDA device, or no nvcc).
set -u
runner=$1 nvcc=$2 lib=$3 checker=$4 src=$5 work=$6

source "$(dirname "${BASH_SOURCE[0]}")/gpu_preamble.sh"

rm -rf "$work" && mkdir -p "$work"
prog=$work/capture_prog
"$nvcc" -arch="sm_$sm" -O2 -o "$prog" "$src" -lcuda || { echo "FAIL: nvcc could not compile $src"; exit 1; }

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # check, val, is

printf '_Z5saxpyifPKfPf\tsaxpy\n_Z8axpy_drvifPKfPf\taxpy_drv\n_Z8saxpy_exifPKfPf\tsaxpy_ex\n' >"$work/kernels.txt"

# capture <name> [VAR=value...] -- <program args...>: runs the program with the library injected;
# output in $work/<name>.out / .err, records in $work/<name>/, exit code in $work/<name>.rc.
capture() {
  local name=$1
  shift
  local vars=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  rm -rf "$work/$name"
  env CUDA_INJECTION64_PATH="$lib" KLINEAGE_CAPTURE_DIR="$work/$name" KLINEAGE_CAPTURE_KERNELS="$work/kernels.txt" \
    "${vars[@]}" "$prog" "$@" >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.rc"
  echo "--- $name: exit $(cat "$work/$name.rc"); stdout: $(cat "$work/$name.out")"
  sed 's/^/    stderr: /' "$work/$name.err" | head -20
}

# 0. without capture
"$prog" >"$work/plain.out" 2>"$work/plain.err"
plain_rc=$?
echo "--- plain: exit $plain_rc; stdout: $(cat "$work/plain.out")"
check "the program passes its own check without capture" test $plain_rc -eq 0

# 1. with capture (default: 3 shapes per kernel, 4 GiB)
capture cap --
cap=$work/cap
check "exit code unchanged under capture" test "$(cat "$work/cap.rc")" -eq $plain_rc
check "stdout unchanged under capture" cmp -s "$work/plain.out" "$work/cap.out"
check "seen.json exists" test -f "$cap/seen.json"
ls "$cap"
saxpy_dirs=$(cd "$cap" && ls -d saxpy.* 2>/dev/null | sort)
check "saxpy: 2 records (2 shapes in 3 launches), got: $(echo $saxpy_dirs)" test "$(echo "$saxpy_dirs" | grep -c .)" -eq 2
check "axpy_drv (CUfunction, kernelParams and extra buffer): 2 records" test "$(cd "$cap" && ls -d axpy_drv.* 2>/dev/null | wc -l)" -eq 2
check "saxpy_ex (cudaLaunchKernelEx): 1 record" test "$(cd "$cap" && ls -d saxpy_ex.* 2>/dev/null | wc -l)" -eq 1
check "the unlisted kernel scale is in seen.json" grep -q '"_Z5scaleifPf"' "$cap/seen.json"
check "the unlisted kernel scale has no record" test -z "$(cd "$cap" && ls -d scale* _Z5scale* 2>/dev/null)"
check "seen.json is complete (written at exit)" grep -q '"complete": true' "$cap/seen.json"
check "no library errors" grep -q '"errors": \[\]' "$cap/seen.json"

blocks=""
for d in "$cap"/saxpy.* "$cap"/axpy_drv.* "$cap"/saxpy_ex.*; do
  [ -d "$d" ] || continue
  facts=$("$checker" "$d")
  rc=$?
  echo "$facts" | sed 's/^/    /'
  check "$(basename "$d"): loadRecord verifies every blob" test $rc -eq 0
  check "$(basename "$d"): 4 params, 2 allocations" grep -q "params=4 allocations=2" <<<"$facts"
  # x is parameter 2, y parameter 3; both start at their allocation's base.
  xa=$(sed -n 's/^param 2 size 8 pointer allocation \([0-9]*\) offset 0$/\1/p' <<<"$facts")
  ya=$(sed -n 's/^param 3 size 8 pointer allocation \([0-9]*\) offset 0$/\1/p' <<<"$facts")
  check "$(basename "$d"): x points into an allocation at offset 0" test -n "$xa"
  check "$(basename "$d"): y points into an allocation at offset 0" test -n "$ya"
  check "$(basename "$d"): x's allocation is unchanged by the launch" grep -q "^alloc $xa size 4194304 changed 0 after a$xa.before.bin$" <<<"$facts"
  check "$(basename "$d"): x's unchanged allocation is stored once" test ! -e "$d/a$xa.after.bin"
  check "$(basename "$d"): y's after blob differs from its before blob" grep -q "^alloc $ya size 4194304 changed 1 after a$ya.after.bin$" <<<"$facts"
  check "$(basename "$d"): n is recorded as bytes 00001000" grep -q '"bytes": "00001000"' "$d/record.json"
  case $(basename "$d") in saxpy.*) blocks="$blocks $(sed -n 's/.* block=\([0-9]*\),.*/\1/p' <<<"$facts")" ;; esac
done
check "saxpy records are the 256- and 128-thread shapes (got:$blocks)" test "$(echo $blocks | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "128 256 "
# The first saxpy record's before blob of y is the program's initial y (all 1.0f = 0x3f800000).
first=$(cd "$cap" && ls -d saxpy.* | sort | head -1)
yb=$(sed -n 's/^param 3 size 8 pointer allocation \([0-9]*\) offset 0$/\1/p' <<<"$("$checker" "$cap/$first")")
check "$first: y before the first launch is all 1.0f" \
  test "$(od -An -tx4 -v -N 64 "$cap/$first/a$yb.before.bin" | tr -s ' \n' ' ')" = " $(printf '3f800000 %.0s' $(seq 16))"

# 2. a failing program keeps its exit code and output
"$prog" --fail >"$work/plainfail.out" 2>/dev/null
plainfail_rc=$?
capture capfail -- --fail
check "a failing program exits 3 without capture" test $plainfail_rc -eq 3
check "a failing program still exits 3 under capture" test "$(cat "$work/capfail.rc")" -eq 3
check "its output is unchanged" cmp -s "$work/plainfail.out" "$work/capfail.out"

# 3. the byte cap: every launch skipped with a message, the program unaffected
capture capcap KLINEAGE_CAPTURE_MAX_BYTES=1000 --
check "over the cap: exit code unchanged" test "$(cat "$work/capcap.rc")" -eq 0
check "over the cap: no records" test -z "$(cd "$work/capcap" && ls -d */ 2>/dev/null)"
check "over the cap: message names the kernel and its size" \
  grep -q "^klineage capture: skipped saxpy: 16777216 bytes would exceed the cap of 1000$" "$work/capcap.err"
check "over the cap: the skip is in seen.json" grep -q "saxpy: 16777216 bytes would exceed the cap of 1000" "$work/capcap/seen.json"

# 4. one shape per kernel
capture capone KLINEAGE_CAPTURE_MAX_SHAPES=1 --
check "max 1 shape: one saxpy record" test "$(cd "$work/capone" && ls -d saxpy.* 2>/dev/null | wc -l)" -eq 1
check "max 1 shape: the first launch's shape (256)" grep -q " block=256,1,1 " <<<"$("$checker" "$work/capone/saxpy.0")"

# 5. stats line
capture capstats KLINEAGE_CAPTURE_STATS=1 --
check "KLINEAGE_CAPTURE_STATS=1 prints the snapshot statistics" grep -q "^klineage capture: stats: records=5 snapshot_bytes=" "$work/capstats.err"

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all capture GPU checks passed"
