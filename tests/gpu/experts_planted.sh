#!/usr/bin/env bash
# On a GPU machine, after bench/experts.sh: gates the planted wrong variants of the catalogue's
# transforms (tests/gpu/planted/: a block sum, a block max, a privatized histogram, a tiled transpose, a tiled sgemm
# and a warp-per-row softmax each missing its barrier, combine step or bounds guard, a softmax with its row
# in registers whose sum skips column 0, a 4-wide block sum and block max without their n % 4 tail, and
# a float4 softmax row and a float4 bias read without their cols % 4 == 0 test, and a softmax that
# multiplies by the reciprocal of each lane's partial sum, taken before the warp adds them up, and a
# float4-layout tiled sgemm that stores at the strided layout's columns)
# against the optimized experts build's config with `klineage gate`, which must reject each one
# (wrong-result, exit 10; or runtime-failed, exit 11, when the guards around a buffer catch a write
# outside it first). An entry's third word is a workload file of tests/gpu/planted/ that the
# plant is gated with instead of the config's (a copy of the config naming it, the same out_dir):
# the tail-less reductions need sizes with a tail and inputs whose result it changes exactly.
# usage: tests/gpu/experts_planted.sh <klineage-install-prefix> <experts-work-dir> [repeat]
set -uo pipefail
prefix=$(realpath "$1"); work=$(realpath "$2"); repeat=${3:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/gpu/lib.sh"
cfg="$work/optimized/klineage/naive/config.json"
[ -f "$cfg" ] || { echo "no $cfg: run bench/experts.sh first"; exit 1; }
for planted in "reduce_no_sync reduce_sum" "reduce_max_no_sync reduce_max" "histogram_no_sync histogram" \
  "softmax_no_allreduce softmax_rows" "transpose_tile_no_sync transpose" "sgemm_tile_unguarded sgemm" "softmax_registers_skip_first softmax_rows" \
  "reduce_sum_vec4_no_tail reduce_sum vec4_tail.toml" "reduce_max_vec4_no_tail reduce_max vec4_tail.toml" \
  "softmax_vec4_no_multiple_check softmax_rows" "bias_gelu_vec4_no_multiple_check bias_gelu" \
  "softmax_reciprocal_before_allreduce softmax_rows" "sgemm_vec4_strided_store sgemm"; do
  set -- $planted
  c=$cfg
  if [ $# -ge 3 ]; then
    c=$work/config-${3%.toml}.json
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["workload"] = sys.argv[2]; json.dump(d, open(sys.argv[3], "w"), indent=2)' \
      "$cfg" "$root/tests/gpu/planted/$3" "$c" || { echo "cannot write $c"; exit 1; }
  fi
  "$prefix/bin/klineage" gate --config "$c" --kernel "$2" --variant "$root/tests/gpu/planted/$1.cu" \
    --repeat "$repeat" >"$work/gate-$1.log" 2>&1
  rc=$?
  gr="$work/optimized/klineage/naive/gate-report.json"
  got=$(val "$gr" '",".join(sorted(set(v["outcome"] for v in d["variants"] if not v["variant"]["is_original"])))')
  tail -3 "$work/gate-$1.log"
  # Rejected: wrong-result (exit 10), or runtime-failed (exit 11) where the plant writes outside a
  # buffer and the guards catch it first (softmax_vec4_no_multiple_check's last row).
  check "planted $1 ($2) is rejected: wrong-result, exit 10, or runtime-failed, exit 11 (got $got, exit $rc)" \
    test \( "$got" = "wrong-result" -a "$rc" -eq 10 \) -o \( "$got" = "runtime-failed" -a "$rc" -eq 11 \)
done
finish experts-planted
