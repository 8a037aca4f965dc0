#!/usr/bin/env bash
# klineage-runner on malformed jobs (no GPU needed): each must exit 2, write status "error" and
# say what is wrong, naming the job file. A well-formed job then gets past the checks: exit 3
# (no-device) without a GPU, or exit 0 with runtime-failed on one (its cubin is not a cubin).
#   usage: run_runner_job_errors.sh <klineage-runner> <work dir>
set -u
runner=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

printf 'not a cubin' >"$work/fake.cubin"
good_params='[{"name": "n", "kind": "scalar", "type": "i32", "size_bytes": 4, "value": 16},
  {"name": "y", "kind": "buffer", "type": "f32", "elements": 16, "init": {"kind": "uniform", "lo": -1, "hi": 1}, "output": true}]'
# job <file> <cubin> <params json>
job() {
  cat >"$1" <<JSON
{"original": {"cubin": "$2", "function": "_Z1fiPf", "grid": [1, 1, 1], "block": [16, 1, 1]},
 "variant":  {"cubin": "$2", "function": "_Z1fiPf", "grid": [1, 1, 1], "block": [16, 1, 1]},
 "params": $3}
JSON
}

# expect_bad <name> <expected message fragment>: runs $work/<name>.json
expect_bad() {
  local j=$work/$1.json r=$work/$1.result.json
  "$runner" "$j" "$r" 2>"$work/$1.stderr"
  local rc=$?
  [ $rc -eq 2 ] || fail "$1: exit $rc, expected 2"
  grep -q '"status":"error"' "$r" 2>/dev/null || fail "$1: result has no status error: $(cat "$r" 2>/dev/null)"
  grep -qF "$j: $2" "$work/$1.stderr" || fail "$1: stderr lacks '$j: $2': $(cat "$work/$1.stderr")"
  grep -qF "${2//\"/\\\"}" "$r" 2>/dev/null || fail "$1: result reason lacks '$2'"  # quotes escaped in JSON
  echo "checked: $1: $(cat "$work/$1.stderr")"
}

printf '{"original": ' >"$work/not-json.json"
expect_bad not-json "not valid JSON"

echo '{"original": {}, "variant": {}}' >"$work/no-params.json"
expect_bad no-params 'missing "params"'

job "$work/missing-cubin.json" "$work/none.cubin" "$good_params"
expect_bad missing-cubin "original.cubin '$work/none.cubin' is not a file"

job "$work/bad-init.json" "$work/fake.cubin" '[{"name": "y", "kind": "buffer", "type": "f32", "elements": 4, "init": {"kind": "random"}, "output": true}]'
expect_bad bad-init 'params[0]: init kind "random" is not one of uniform, constant, iota, zeros, poison'

job "$work/bad-range.json" "$work/fake.cubin" '[{"name": "y", "kind": "buffer", "type": "i32", "elements": 4, "init": {"kind": "uniform", "lo": 0.2, "hi": 0.8}, "output": true}]'
expect_bad bad-range 'params[0] (y): uniform range [0.2, 0.8] holds no integer'

job "$work/bad-type.json" "$work/fake.cubin" '[{"name": "y", "kind": "buffer", "type": "f16", "elements": 4, "output": true}]'
expect_bad bad-type 'params[0]: type "f16" is not one of f32, f64, i8, u8, i16, u16, i32, u32, i64, u64'

job "$work/no-output.json" "$work/fake.cubin" '[{"name": "y", "kind": "buffer", "type": "f32", "elements": 4}]'
expect_bad no-output 'no buffer has "output": true'

job "$work/bad-scalar.json" "$work/fake.cubin" '[{"name": "s", "kind": "scalar", "type": "i32", "size_bytes": 3, "value": 1}, {"name": "y", "kind": "buffer", "type": "f32", "elements": 4, "output": true}]'
expect_bad bad-scalar 'params[0] (s): scalar size_bytes 3 is not 1, 2, 4 or 8'

"$runner" only-one-argument 2>/dev/null
rc=$?
[ $rc -eq 2 ] || fail "one argument: exit $rc, expected 2 (usage)"

# A well-formed job gets past the checks.
job "$work/good.json" "$work/fake.cubin" "$good_params"
"$runner" "$work/good.json" "$work/good.result.json" 2>/dev/null
rc=$?
echo "good job: exit $rc: $(cat "$work/good.result.json" 2>/dev/null)"
if [ $rc -eq 3 ]; then
  grep -q '"status":"no-device"' "$work/good.result.json" || fail "good job: exit 3 without status no-device"
elif [ $rc -eq 0 ]; then
  grep -q '"outcome":"runtime-failed".*loading the original cubin' "$work/good.result.json" ||
    fail "good job on a GPU: the fake cubin should fail to load"
else
  fail "good job: exit $rc, expected 3 (no device) or 0"
fi

[ $failures -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all runner job-error checks passed"
