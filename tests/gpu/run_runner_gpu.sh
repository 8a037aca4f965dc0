#!/usr/bin/env bash
# GPU test of klineage-runner: compiles kernels.cu for the probed device and checks each outcome.
#   usage: run_runner_gpu.sh <klineage-runner> <nvcc> <kernels.cu> <work dir>
# Exit 0: all checks passed; 1: a check failed; 77: skipped (no CUDA device, or no nvcc).
set -u
runner=$1 nvcc=$2 src=$3 work=$4

source "$(dirname "${BASH_SOURCE[0]}")/gpu_preamble.sh"

rm -rf "$work" && mkdir -p "$work"
cubin=$work/kernels.cubin
"$nvcc" -cubin -arch="sm_$sm" -O3 -o "$cubin" "$src" || { echo "FAIL: nvcc could not compile $src"; exit 1; }

n=1048576
block=256
grid=$(( (n + block - 1) / block ))
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # check, val, is

field() { grep -o "\"$2\":[^,}]*" "$1" | head -1 | cut -d: -f2- | tr -d '"'; }

# job <file> <original fn> <original grid> <variant fn> <variant grid> <params json> [profile json]
profiled='{"enabled": true, "warmup": 3, "min_runs": 20, "min_ms": 20, "max_runs": 500, "flush_bytes": 0}'
job() {
  local profile=${7:-$profiled}
  cat >"$1" <<JSON
{"format": "klineage-runner-job-1",
 "original": {"cubin": "$cubin", "function": "$2", "grid": [$3, 1, 1], "block": [$block, 1, 1], "shmem": 0},
 "variant":  {"cubin": "$cubin", "function": "$4", "grid": [$5, 1, 1], "block": [$block, 1, 1], "shmem": 0},
 "params": $6,
 "seeds": [1, 2],
 "tolerance": {"rtol": 1e-5, "atol": 1e-6},
 "profile": $profile}
JSON
}

inplace='[{"name": "n", "kind": "scalar", "type": "i32", "size_bytes": 4, "value": '$n'},
  {"name": "a", "kind": "scalar", "type": "f32", "size_bytes": 4, "value": 2.0},
  {"name": "x", "kind": "buffer", "type": "f32", "elements": '$n', "init": {"kind": "uniform", "lo": -1, "hi": 1}, "output": false},
  {"name": "y", "kind": "buffer", "type": "f32", "elements": '$n', "init": {"kind": "uniform", "lo": -1, "hi": 1}, "output": true}]'
outofplace='[{"name": "n", "kind": "scalar", "type": "i32", "size_bytes": 4, "value": '$n'},
  {"name": "a", "kind": "scalar", "type": "f32", "size_bytes": 4, "value": 2.0},
  {"name": "x", "kind": "buffer", "type": "f32", "elements": '$n', "init": {"kind": "uniform", "lo": -1, "hi": 1}, "output": false},
  {"name": "y", "kind": "buffer", "type": "f32", "elements": '$n', "init": {"kind": "uniform", "lo": -1, "hi": 1}, "output": false},
  {"name": "out", "kind": "buffer", "type": "f32", "elements": '$n', "init": {"kind": "poison"}, "output": true}]'
noprofile='{"enabled": false}'

# 0. the generated inputs written on the GPU are the host's bytes (klineage-runner --check-fill)
fill_out=$("$runner" --check-fill)
rc=$?
echo "$fill_out"
check "the GPU fill agrees with the host fill (exit $rc)" test $rc -eq 0
check "the GPU fill check compared cases" grep -q "agree on [1-9][0-9]* case" <<<"$fill_out"

# 1. a correct variant (other geometry, in place, so inputs must be restored): passed or slower
job "$work/correct.json" _Z5saxpyifPKfPf $grid _Z17saxpy_grid_strideifPKfPf $((grid / 4)) "$inplace"
"$runner" "$work/correct.json" "$work/correct.result.json"
rc=$?
echo "correct: $(cat "$work/correct.result.json")"
check "correct pair exits 0" test $rc -eq 0
out=$(field "$work/correct.result.json" outcome)
check "correct pair is passed or slower (got $out)" test "$out" = passed -o "$out" = slower
check "correct pair has both timings" grep -q '"original_time":{.*"variant_time":{' "$work/correct.result.json"
check "correct pair timed at least 20 runs" test "$(field "$work/correct.result.json" runs)" -ge 20

# 1b. a much faster variant: the original runs on a single block, the variant on the full grid
job "$work/faster.json" _Z17saxpy_grid_strideifPKfPf 1 _Z5saxpyifPKfPf $grid "$inplace"
"$runner" "$work/faster.json" "$work/faster.result.json"
echo "faster: $(cat "$work/faster.result.json")"
check "much faster variant is passed" test "$(field "$work/faster.result.json" outcome)" = passed
check "much faster variant has speedup above 2" awk -v s="$(field "$work/faster.result.json" speedup)" 'BEGIN { exit !(s > 2) }'
# the runner measures, the gate's judge() decides: its reason says what was checked, not the verdict
check "much faster variant's reason says what was checked" grep -q '"reason":"outputs match on [0-9]* input set(s), [0-9]* timed run(s) checked"' "$work/faster.result.json"
check "much faster variant's noise is measured" awk -v s="$(field "$work/faster.result.json" noise)" 'BEGIN { exit !(s > 0 && s < 1) }' 

# 2. off-by-one, in place: y[n-1] keeps its initial value
job "$work/skip.json" _Z5saxpyifPKfPf $grid _Z15saxpy_skip_lastifPKfPf $grid "$inplace"
"$runner" "$work/skip.json" "$work/skip.result.json"
rc=$?
echo "off-by-one: $(cat "$work/skip.result.json")"
check "off-by-one exits 0" test $rc -eq 0
check "off-by-one is wrong-result" test "$(field "$work/skip.result.json" outcome)" = wrong-result
check "off-by-one first_mismatch is n-1" test "$(field "$work/skip.result.json" first_mismatch)" = $((n - 1))
check "off-by-one: one element differs" test "$(field "$work/skip.result.json" mismatches)" = 1
check "off-by-one reason names y[n-1] and seed 1" grep -q "seed 1: y\[$((n - 1))\]: expected" "$work/skip.result.json"

# 3. off-by-one into a poisoned output: the unwritten element is reported as such
job "$work/poison.json" _Z9saxpy_outifPKfS0_Pf $grid _Z19saxpy_out_skip_lastifPKfS0_Pf $grid "$outofplace" "$noprofile"
"$runner" "$work/poison.json" "$work/poison.result.json"
echo "poison: $(cat "$work/poison.result.json")"
check "unwritten output is wrong-result" test "$(field "$work/poison.result.json" outcome)" = wrong-result
check "unwritten output first_mismatch is n-1" test "$(field "$work/poison.result.json" first_mismatch)" = $((n - 1))
check "unwritten output prints as such" test "$(field "$work/poison.result.json" actual)" = "nan (unwritten)"

# 4. the same out-of-place kernel on both sides, unprofiled: passed
job "$work/same.json" _Z9saxpy_outifPKfS0_Pf $grid _Z9saxpy_outifPKfS0_Pf $grid "$outofplace" "$noprofile"
"$runner" "$work/same.json" "$work/same.result.json"
check "identical kernels unprofiled are passed" test "$(field "$work/same.result.json" outcome)" = passed

# 5. out-of-bounds write: runtime-failed, naming the variant
job "$work/oob.json" _Z5saxpyifPKfPf $grid _Z9oob_writeifPKfPf $grid "$inplace"
"$runner" "$work/oob.json" "$work/oob.result.json"
rc=$?
echo "oob: $(cat "$work/oob.result.json")"
check "out-of-bounds exits 0" test $rc -eq 0
check "out-of-bounds is runtime-failed" test "$(field "$work/oob.result.json" outcome)" = runtime-failed
check "out-of-bounds reason names the variant kernel" grep -q 'the variant kernel _Z9oob_writeifPKfPf failed: CUDA_ERROR' "$work/oob.result.json"

# 6. a function missing from the cubin: runtime-failed naming it
job "$work/missing.json" _Z5saxpyifPKfPf $grid _Z7nothere $grid "$inplace"
"$runner" "$work/missing.json" "$work/missing.result.json"
check "missing function is runtime-failed" test "$(field "$work/missing.result.json" outcome)" = runtime-failed
check "missing function is named" grep -q 'no function _Z7nothere in the variant cubin' "$work/missing.result.json"

# 7. a variant that never returns: the parent's timeout kills the runner
job "$work/hang.json" _Z5saxpyifPKfPf $grid _Z4spinifPKfPf $grid "$inplace"
timeout -k 10 5 "$runner" "$work/hang.json" "$work/hang.result.json"
rc=$?
check "hanging variant is killed by timeout (exit $rc)" test $rc -eq 124 -o $rc -eq 137
check "hanging variant leaves no result" test ! -e "$work/hang.result.json"

# 8. a serving runner (--serve): the same jobs one after another in one process give the same
# outcomes; after a runtime failure it takes no more jobs (its context may be dead)
for j in correct skip same oob missing; do
  printf '%s\t%s\t%s\n' "$work/$j.json" "$work/serve-$j.result.json" "$work/serve-$j.log"
done | "$runner" --serve > "$work/serve.answers"
rc=$?
cat "$work/serve.answers"
check "serving runner says it serves" grep -q '^klineage-runner: serving {"status":"ok"' "$work/serve.answers"
check "serving runner answers 3 jobs and goes on" test "$(grep -c '^klineage-runner: done 0 next$' "$work/serve.answers")" = 3
check "serving runner exits after the failed kernel (exit $rc)" test "$(tail -n 1 "$work/serve.answers")" = "klineage-runner: done 0 exit"
check "serving runner took no job after it" test ! -e "$work/serve-missing.result.json"
for j in correct skip same oob; do
  one=$(field "$work/$j.result.json" outcome) served=$(field "$work/serve-$j.result.json" outcome)
  [ "$j" = correct ] && [ "$one" = slower ] && one=passed
  [ "$j" = correct ] && [ "$served" = slower ] && served=passed
  check "served $j has the one-process outcome ($one, got $served)" test "$one" = "$served"
done
check "served jobs log their order" grep -q "job 3 of this serving runner" "$work/serve-same.log"
check "served off-by-one names y[n-1]" grep -q "seed 1: y\[$((n - 1))\]: expected" "$work/serve-skip.result.json"

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all runner GPU checks passed"
