#!/usr/bin/env bash
# End-to-end test of examples/experts with the klineage tools of this build, without a GPU:
#   experts_nogpu.sh <klineage> <klineage-runner> <klineage source dir> <work dir> <ninja> <nvcc> <cmake>
# Configures the experts (EXPERTS_BUDGET=2) and runs `ninja optimize`, which must: extract the 16
# naive kernels (the header template scale_add<float> among them, rewritten through the .cu that
# includes it), validate both workloads (klineage.toml for `naive`, mine.toml for `mine_experts`),
# write and compile every variant the skill search makes (none may fail to compile: each is what
# bench/experts.sh gates on the GPU), gate none, and leave the source tree exactly as it was.
# With a GPU it is skipped (77): bench/experts.sh is the GPU run.
set -u
if [ $# -ne 7 ]; then
  echo "usage: $0 <klineage> <klineage-runner> <klineage source dir> <work dir> <ninja> <nvcc> <cmake>"
  exit 2
fi
klineage=$1 runner=$2 root=$3 work=$4 ninja=$5 nvcc=$6 cmake=$7
src=$root/examples/experts
fail() {
  echo "FAIL: $*"
  exit 1
}
ok() { echo "ok: $*"; }
if grep -q '"status":"ok"' <<<"$("$runner" --probe 2>&1)"; then
  echo "skipped: a CUDA device is present (bench/experts.sh is the GPU run of the experts)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/pkg" || fail "cannot create $work"
snapshot() { (cd "$1" && find . -print | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
before=$(snapshot "$src")

echo "include(\"$root/cmake/KLineage.cmake\")" >"$work/pkg/KLineageConfig.cmake"
b=$work/build
"$cmake" -S "$src" -B "$b" -G Ninja "-DCMAKE_MAKE_PROGRAM=$ninja" "-DCMAKE_CUDA_COMPILER=$nvcc" \
  "-DKLineage_DIR=$work/pkg" "-DKLINEAGE_EXECUTABLE=$klineage" "-DKLINEAGE_RUNNER_EXECUTABLE=$runner" \
  "-DKLINEAGE_SKILLS_DIR=$root/skills" -DEXPERTS_BUDGET=2 >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configuring examples/experts failed"; }
ok "examples/experts configures"

"$ninja" -C "$b" optimize >"$work/optimize.log" 2>&1
rc=$?
grep -vE "not applicable|made no edit|not materialized|^\[|^--" "$work/optimize.log"
[ $rc -eq 0 ] || fail "ninja optimize exited $rc"
ok "ninja optimize exited 0"

log=$work/optimize.log
grep -q "klineage: 16 kernels in the manifest" "$log" || fail "the manifest of naive does not list 16 kernels"
ok "16 naive kernels extracted"
grep -q "scale_add: template kernel: gated as scale_add<float>" "$log" || fail "scale_add<float> is not planned as a template"
grep -q "scale_add: defined in .*naive_templates.cuh: variants rewrite the header" "$log" ||
  fail "scale_add's variants do not rewrite its header"
grep -qE "^scale_add  grid-stride-loop\+vectorize-float4 \[grid.x/4\]  not-run" "$log" ||
  fail "scale_add<float> has no vectorized variant"
ok "the header template scale_add<float> has variants rewriting its header"
line=$(grep -E "^klineage: [0-9]+ variants: " "$log" | head -1)
n=$(sed -E 's/^klineage: ([0-9]+) variants.*/\1/' <<<"$line")
[ "${n:-0}" -ge 30 ] || fail "expected >= 30 variants of naive (2 per kernel), got: $line"
grep -q " 0 compile-failed" <<<"$line" || fail "a variant did not compile: $line"
grep -q "not run" <<<"$line" || fail "no variant left not run: $line"
ok "$n variants of naive written and compiled, none gated ($line)"
for k in reduce_max softmax_rows bias_gelu; do
  grep -qE "^$k  .*not-run  \(no CUDA device\)" "$log" || fail "no variant of $k"
done
for k in reduce_sum reduce_dot; do
  grep -qE "^$k  block-reduce-atomic-vec4 " "$log" || fail "$k has no block-reduce-atomic-vec4 variant (float4 loads)"
done
# (its scalar block-reduce-cas is not among reduce_max's two since run 9's records: the history
# ranks launch-bounds, the first step of run 9's winner launch-bounds+block-reduce-cas-vec4, above it)
grep -qE "^reduce_max  block-reduce-cas-vec4 " "$log" || fail "reduce_max has no block-reduce-cas-vec4 variant (float4 loads)"
# row-registers-vec4 ranks before row-registers until measured: within BUDGET 2 the rows take its float4 form
# (after warp-per-row or its unrolled form: the shipped history measured the two within 1%)
for k in softmax_rows layernorm_rows; do
  grep -qE "^$k  warp-per-row(-unrolled)?\+row-registers-vec4 " "$log" || fail "$k has no row-registers-vec4 chain (float4 rows)"
done
grep -qE "^bias_gelu  grid-stride-loop\+vectorize-float4 " "$log" || fail "bias_gelu has no vectorized variant"
ok "reduce_max, softmax_rows and bias_gelu reach their catalogue variants within BUDGET 2 (the reductions and the rows their float4 forms too)"
grep -q "klineage: optimizing target 'mine_experts'" "$log" || fail "mine_experts was not optimized (its workload unchecked)"
ok "mine_experts' workload (mine.toml) validates"

[ "$before" = "$(snapshot "$src")" ] || fail "the examples/experts source tree changed"
ok "the examples/experts source tree is unchanged"
echo "experts_nogpu: all checks passed"
