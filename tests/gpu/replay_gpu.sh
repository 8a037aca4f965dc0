#!/usr/bin/env bash
# GPU test of klineage-runner's replay path: make_record.cu launches real kernels on real buffers
# and writes launch records (before/after snapshots); the runner then replays them.
#   usage: replay_gpu.sh <klineage-runner> <nvcc> <make_record.cu> <work dir>
# Exit 0: all checks passed; 1: a check failed; 77: skipped (no CUDA device, no nvcc or no python3).
set -u
runner=$1 nvcc=$2 src=$3 work=$4

source "$(dirname "${BASH_SOURCE[0]}")/gpu_preamble.sh"
if ! command -v python3 >/dev/null; then
  echo "skipped: python3 not found (needed to read the results)"
  exit 77
fi

rm -rf "$work" && mkdir -p "$work"
cubin=$work/replay.cubin
"$nvcc" -cubin -arch="sm_$sm" -O3 -o "$cubin" "$src" || { echo "FAIL: nvcc could not compile $src to a cubin"; exit 1; }
"$nvcc" -O2 -arch="sm_$sm" -o "$work/make_record" "$src" || { echo "FAIL: nvcc could not build make_record"; exit 1; }
"$work/make_record" "$work/rec" || { echo "FAIL: make_record failed"; exit 1; }

n=1048576
block=256
grid=$(( (n + block - 1) / block ))
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # check, val, is


profiled='{"enabled": true, "warmup": 3, "min_runs": 20, "min_ms": 20, "max_runs": 500, "flush_bytes": 0}'
noprofile='{"enabled": false}'
saxpy_types='[null, null, "f32", "f32"]'
saxpy_names='["n", "a", "x", "y"]'
# job <file> <record> <original fn> <variant fn> <variant grid> <elem types> <names> [profile] [extra replay json]
job() {
  local profile=${8:-$profiled} extra=${9:-}
  cat >"$1" <<JSON
{"format": "klineage-runner-job-1",
 "original": {"cubin": "$cubin", "function": "$3", "grid": [$grid, 1, 1], "block": [$block, 1, 1], "shmem": 0},
 "variant":  {"cubin": "$cubin", "function": "$4", "grid": [$5, 1, 1], "block": [$block, 1, 1], "shmem": 0},
 "replay": {"record_dir": "$work/rec/$2", "param_elem_types": $6, "param_names": $7$extra},
 "tolerance": {"rtol": 1e-5, "atol": 1e-6},
 "profile": $profile}
JSON
}
# runit <name>: runs $work/<name>.json, prints the result, sets rc
runit() {
  "$runner" "$work/$1.json" "$work/$1.result.json" 2>"$work/$1.stderr"
  rc=$?
  echo "$1 (exit $rc): $(cat "$work/$1.result.json" 2>/dev/null)"
}

# 1. saxpy against itself at a quarter of the grid (grid-stride): reproducible, correct, timed
job "$work/saxpy.json" saxpy _Z5saxpyifPKfPf _Z17saxpy_grid_strideifPKfPf $((grid / 4)) "$saxpy_types" "$saxpy_names"
runit saxpy
r=$work/saxpy.result.json
check "saxpy replay exits 0" test $rc -eq 0
check "saxpy replay reproduces the capture" is "$r" 'd["fidelity_ok"] is True'
check "saxpy replay is deterministic" is "$r" 'd["nondeterministic"] is False and d["widened_atol"] == 0'
check "saxpy replay is passed or slower ($(val "$r" 'd["outcome"]'))" is "$r" 'd["outcome"] in ("passed", "slower")'
check "saxpy replay is timed" is "$r" 'd["original_time"]["runs"] >= 20 and d["variant_time"]["runs"] >= 20'
check "saxpy replay compares both allocations" is "$r" '[c["param"] for c in d["compares"]] == ["x", "y"]'

# 2. an off-by-one variant: wrong-result at y[n-1]
job "$work/skip.json" saxpy _Z5saxpyifPKfPf _Z15saxpy_skip_lastifPKfPf $grid "$saxpy_types" "$saxpy_names" "$noprofile"
runit skip
r=$work/skip.result.json
check "off-by-one replay is wrong-result" is "$r" 'd["outcome"] == "wrong-result"'
check "off-by-one replay names y[n-1]" is "$r" '"replayed launch: y['$((n - 1))']: expected" in d["reason"]'
check "off-by-one: one element differs" is "$r" '[c["mismatches"] for c in d["compares"]] == [0, 1]'

# 2b. a float4 variant whose path for unaligned pointers is wrong (a = 2 there): right on the
# captured (aligned) launch; wrong-result once replay.misalign_bytes puts x and y 8 bytes past a
# 16-byte boundary (what the gate adds for a variant with the vectorizing transforms' test)
job "$work/vec4.json" saxpy _Z5saxpyifPKfPf _Z26saxpy_vec4_wrong_unalignedifPKfPf $((grid / 4)) "$saxpy_types" "$saxpy_names" "$noprofile"
runit vec4
r=$work/vec4.result.json
check "float4 variant passes on the aligned replay (the blind spot)" is "$r" 'd["outcome"] == "passed"'
job "$work/vec4mis.json" saxpy _Z5saxpyifPKfPf _Z26saxpy_vec4_wrong_unalignedifPKfPf $((grid / 4)) "$saxpy_types" "$saxpy_names" "$noprofile" ', "check_fidelity": false, "misalign_bytes": 8'
runit vec4mis
r=$work/vec4mis.result.json
check "float4 variant is wrong-result on the misaligned replay" is "$r" 'd["outcome"] == "wrong-result"'
check "misaligned replay names the shifted allocations" \
  is "$r" 'd["reason"].startswith("replayed launch, x (allocation 0), y (allocation 1) 8 bytes past a 16-byte boundary: y[")'
job "$work/saxpymis.json" saxpy _Z5saxpyifPKfPf _Z17saxpy_grid_strideifPKfPf $((grid / 4)) "$saxpy_types" "$saxpy_names" "$noprofile" ', "misalign_bytes": 8'
runit saxpymis
r=$work/saxpymis.result.json
check "a correct variant passes the misaligned replay, and the original reproduces the capture there" \
  is "$r" 'd["outcome"] == "passed" and d["fidelity_ok"] is True'

# 3. x and y in one allocation, x = buf + n + 1: pointers patched at their recorded offsets
job "$work/shared.json" shared _Z5saxpyifPKfPf _Z5saxpyifPKfPf $grid "$saxpy_types" "$saxpy_names" "$noprofile"
runit shared
r=$work/shared.result.json
check "shared-allocation replay reproduces the capture" is "$r" 'd["fidelity_ok"] is True'
check "shared-allocation replay is passed" is "$r" 'd["outcome"] == "passed"'
check "shared allocation is compared once, named after x" is "$r" '[c["param"] for c in d["compares"]] == ["x"]'

# 3b. the same with no element types: compared byte for byte
job "$work/bytes.json" shared _Z5saxpyifPKfPf _Z5saxpyifPKfPf $grid '[]' '[]' "$noprofile"
runit bytes
check "untyped replay is passed" is "$work/bytes.result.json" 'd["outcome"] == "passed" and d["fidelity_ok"] is True'

# 4. a kernel reading a __constant__ table the program set: the replay does not reproduce it
job "$work/const.json" const_table _Z14scale_by_tableiPKfPf _Z14scale_by_tableiPKfPf $grid \
  '[null, "f32", "f32"]' '["n", "x", "y"]' "$noprofile"
runit const
r=$work/const.result.json
check "constant-table replay exits 0" test $rc -eq 0
check "constant-table replay: fidelity_ok false" is "$r" 'd["status"] == "ok" and d["fidelity_ok"] is False'
check "constant-table replay is not-run" is "$r" 'd["outcome"] == "not-run"'
check "constant-table reason names y and __constant__" \
  is "$r" 'd["fidelity_reason"].startswith("replaying the original does not reproduce y (allocation 1): ") and "__constant__" in d["fidelity_reason"]'

# 5. float atomics: nondeterministic, or within tolerance; any named outcome, no crash
job "$work/atomic.json" atomic_sum _Z10atomic_sumiPKfPf _Z10atomic_sumiPKfPf $grid \
  '[null, "f32", "f32"]' '["n", "x", "sum"]' "$noprofile" ', "determinism_runs": 5'
runit atomic
r=$work/atomic.result.json
check "atomic-sum replay exits 0" test $rc -eq 0
check "atomic-sum replay has a named outcome" \
  is "$r" 'd["status"] == "ok" and d["outcome"] in ("passed", "slower", "wrong-result", "not-run")'
echo "observed: atomic sum: outcome $(val "$r" 'd["outcome"]'), fidelity_ok $(val "$r" 'd["fidelity_ok"]'), nondeterministic $(val "$r" 'd["nondeterministic"]'), widened atol $(val "$r" 'd["widened_atol"]') rtol $(val "$r" 'd["widened_rtol"]'): $(val "$r" 'd["reason"]')"
if is "$r" 'd["nondeterministic"]'; then
  check "nondeterminism widens the tolerance" is "$r" 'd["widened_atol"] > 1e-6'
fi

# 6. a corrupt blob: status error, exit 2, naming the file
cp -r "$work/rec/saxpy" "$work/rec/corrupt"
printf '\xde\xad\xbe\xef' | dd of="$work/rec/corrupt/a1.after.bin" bs=1 seek=100 conv=notrunc 2>/dev/null
job "$work/corrupt.json" corrupt _Z5saxpyifPKfPf _Z5saxpyifPKfPf $grid "$saxpy_types" "$saxpy_names" "$noprofile"
runit corrupt
r=$work/corrupt.result.json
check "corrupt record exits 2" test $rc -eq 2
check "corrupt record is status error naming the blob" \
  is "$r" 'd["status"] == "error" and "a1.after.bin" in d["reason"] and "CRC-32" in d["reason"]'

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all replay GPU checks passed"
