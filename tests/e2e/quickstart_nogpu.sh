#!/usr/bin/env bash
# End-to-end test of examples/quickstart with the klineage tools of this build (nothing installed):
#   quickstart_nogpu.sh <klineage> <klineage-runner> <klineage source dir> <work dir> <ninja> <nvcc> <cmake>
# 1. configure the quickstart (find_package(KLineage) through a two-line package file that includes
#    cmake/KLineage.cmake; the tools are given with -DKLINEAGE_EXECUTABLE=... and friends);
# 2. `ninja optimize`: without a GPU it must succeed, say "no CUDA device", compile every variant and
#    run none, select nothing; with a GPU it must select saxpy;
# 3. `ninja`: builds; without a selection the build-tree copies are the originals behind a #line;
#    with a GPU the program's own check must pass;
# 4. KLINEAGE_REQUIRE_GPU=ON: `ninja optimize` must fail without a GPU;
# 5. on a copy of the quickstart, a fabricated selection is used while fresh and dropped, with a
#    warning naming the stale kernel, once the kernel is edited.
# The quickstart source tree must be left exactly as it was.
set -u
if [ $# -ne 7 ]; then
  echo "usage: $0 <klineage> <klineage-runner> <klineage source dir> <work dir> <ninja> <nvcc> <cmake>"
  exit 2
fi
klineage=$1 runner=$2 root=$3 work=$4 ninja=$5 nvcc=$6 cmake=$7
qs=$root/examples/quickstart
target=kernels

fail() {
  echo "FAIL: $*"
  exit 1
}
ok() { echo "ok: $*"; }

rm -rf "$work" && mkdir -p "$work/pkg" || fail "cannot create $work"

# --- helpers ---------------------------------------------------------------------------------------
# JSON queries with CMake's string(JSON): json <file> <GET|LENGTH|TYPE> <key;index;...>
cat >"$work/json.cmake" <<'EOF'
file(READ "${FILE}" j)
string(JSON v ERROR_VARIABLE err ${OP} "${j}" ${QUERY})
if(err)
  message(FATAL_ERROR "${FILE}: ${err}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E echo "${v}")
EOF
json() { "$cmake" "-DFILE=$1" "-DOP=$2" "-DQUERY=$3" -P "$work/json.cmake"; }

# Names and contents of every file of the quickstart source tree.
snapshot() { (cd "$1" && find . -print | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }

# FNV-1a 64 of a file's bytes, hex (the hash selection.json's depends_on holds). Bash integers wrap
# modulo 2^64, which is what FNV's multiplication needs.
fnv1a64() {
  local h=$((0xcbf29ce484222325)) b
  for b in $(od -An -v -tu1 "$1"); do
    h=$(((h ^ b) * 0x100000001b3))
  done
  printf '%016x\n' "$h"
}
printf '' >"$work/empty" && printf 'a' >"$work/a" && printf 'foobar' >"$work/foobar"
[ "$(fnv1a64 "$work/empty")" = cbf29ce484222325 ] && [ "$(fnv1a64 "$work/a")" = af63dc4c8601ec8c ] &&
  [ "$(fnv1a64 "$work/foobar")" = 85944171f73967e8 ] || fail "the FNV-1a helper of this script is wrong"

# find_package(KLineage) without an install: the package file only includes the module; the tools
# come from -D options (KLineage.cmake: a value given by the user wins).
echo "include(\"$root/cmake/KLineage.cmake\")" >"$work/pkg/KLineageConfig.cmake"
configure() {  # configure <source dir> <build dir> [cmake args...]
  local src=$1 bld=$2
  shift 2
  "$cmake" -S "$src" -B "$bld" -G Ninja "-DCMAKE_MAKE_PROGRAM=$ninja" "-DCMAKE_CUDA_COMPILER=$nvcc" \
    "-DKLineage_DIR=$work/pkg" "-DKLINEAGE_EXECUTABLE=$klineage" "-DKLINEAGE_RUNNER_EXECUTABLE=$runner" \
    "-DKLINEAGE_SKILLS_DIR=$root/skills" "$@" >"$bld.configure.log" 2>&1 ||
    { cat "$bld.configure.log"; fail "configuring $src failed"; }
}

before=$(snapshot "$qs")

probe=$("$runner" --probe 2>&1)
gpu=0
if grep -q '"status":"ok"' <<<"$probe"; then gpu=1; fi
echo "probe: $probe (gpu=$gpu)"

# --- 1-3: configure, optimize, build -----------------------------------------------------------------
b1=$work/build
configure "$qs" "$b1"
out=$b1/klineage/$target
[ -f "$out/config.json" ] || fail "no $out/config.json after configuring"

"$ninja" -C "$b1" optimize >"$work/optimize.log" 2>&1
rc=$?
cat "$work/optimize.log"
[ $rc -eq 0 ] || fail "ninja optimize exited $rc"
ok "ninja optimize exited 0"

# manifest: both kernels, with their launch sites
[ -f "$out/manifest.json" ] || fail "no manifest.json"
names=""
for ((i = 0; i < $(json "$out/manifest.json" LENGTH kernels); i++)); do
  names="$names $(json "$out/manifest.json" GET "kernels;$i;name")"
done
[[ " $names " == *" saxpy "* && " $names " == *" relu "* ]] || fail "manifest kernels are '$names', expected saxpy and relu"
ok "manifest lists saxpy and relu"

# report: every generated variant, each compiled; saxpy's grid-stride-loop+vectorize-float4 among them
report=$out/report.json
[ -f "$report" ] || fail "no report.json"
found=0
nvariants=$(json "$report" LENGTH variants)
for ((i = 0; i < nvariants; i++)); do
  kernel=$(json "$report" GET "variants;$i;variant;kernel")
  chain=""
  for ((s = 0; s < $(json "$report" LENGTH "variants;$i;variant;skills"); s++)); do
    chain="$chain${chain:++}$(json "$report" GET "variants;$i;variant;skills;$s")"
  done
  outcome=$(json "$report" GET "variants;$i;outcome")
  cubin=$(json "$report" GET "variants;$i;cubin")
  echo "variant $i: $kernel ${chain:-(original)} $outcome $cubin"
  [ "$outcome" != compile-failed ] || fail "$kernel ${chain:-(original)} did not compile: $(json "$report" GET "variants;$i;reason")"
  [ -s "$cubin" ] || fail "$kernel ${chain:-(original)}: no cubin at '$cubin'"
  if [ $gpu -eq 0 ]; then
    [ "$outcome" = not-run ] || fail "$kernel ${chain:-(original)} is '$outcome' without a GPU"
  fi
  if [ "$kernel" = saxpy ] && [ "$chain" = grid-stride-loop+vectorize-float4 ]; then found=1; fi
done
[ $found -eq 1 ] || fail "no saxpy variant grid-stride-loop+vectorize-float4 in the report"
ok "$nvariants variants in the report, all compiled; saxpy grid-stride-loop+vectorize-float4 among them"

nsel=$(json "$out/selection.json" LENGTH sources)
mat_saxpy=$out/src/src/saxpy.cu
mat_relu=$out/src/src/relu.cu
if [ $gpu -eq 0 ]; then
  grep -q "no CUDA device" "$work/optimize.log" || fail "optimize did not say 'no CUDA device'"
  grep -Eq "^saxpy  grid-stride-loop\+vectorize-float4( \[grid\.x/[0-9]+\])?  not-run" "$work/optimize.log" ||
    fail "optimize did not list saxpy grid-stride-loop+vectorize-float4 as not-run"
  [ "$(json "$report" TYPE device)" = NULL ] || fail "report names a device without a GPU"
  [ "$nsel" = 0 ] || fail "selection.json has $nsel sources without a GPU"
  ok "no CUDA device: variants not run, nothing selected"
else
  [ "$(json "$report" TYPE "selected;saxpy")" = OBJECT ] || fail "optimize did not select saxpy on a GPU"
  sel_has_saxpy=0
  for ((i = 0; i < nsel; i++)); do
    [[ "$(json "$out/selection.json" GET "sources;$i;original")" == */src/saxpy.cu ]] && sel_has_saxpy=1
  done
  [ $sel_has_saxpy -eq 1 ] || fail "selection.json has no entry for saxpy.cu"
  ok "saxpy selected: $(json "$report" GET "selected;saxpy;variant")"
fi

# A second `ninja optimize` with nothing changed stops before extracting (docs/pipeline.md, the
# no-op run); its time is printed, benchmarks judge it.
t0=$(date +%s%N)
"$ninja" -C "$b1" optimize >"$work/optimize-again.log" 2>&1 || { cat "$work/optimize-again.log"; fail "the second ninja optimize failed"; }
t1=$(date +%s%N)
cat "$work/optimize-again.log"
grep -q "nothing changed since the last run" "$work/optimize-again.log" ||
  fail "the second ninja optimize did not say 'nothing changed since the last run'"
ok "a second ninja optimize with nothing changed kept the selection ($(( (t1 - t0) / 1000000 )) ms)"

"$ninja" -C "$b1" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "ninja (the build) failed"; }
cat "$work/build.log"
[ -x "$b1/quickstart" ] || fail "no quickstart program built"
for pair in "saxpy:$mat_saxpy" "relu:$mat_relu"; do
  name=${pair%%:*} mat=${pair#*:}
  [ -f "$mat" ] || fail "no materialized copy $mat"
  if [ $gpu -eq 0 ]; then
    [ "$(head -n 1 "$mat")" = "#line 1 \"$qs/src/$name.cu\"" ] || fail "$mat does not start with #line 1 \"$qs/src/$name.cu\""
    tail -n +2 "$mat" | cmp -s - "$qs/src/$name.cu" || fail "$mat is not the original $name.cu behind a #line"
  fi
done
if [ $gpu -eq 0 ]; then
  ok "ninja built the originals (materialized copies = originals + #line)"
  "$b1/quickstart" >"$work/run.log" 2>&1
  rc=$?
  cat "$work/run.log"
  [ $rc -eq 77 ] || fail "quickstart exited $rc without a GPU (expected 77)"
else
  cmp -s "$mat_saxpy" "$qs/src/saxpy.cu" && fail "the build compiles the original saxpy.cu although it was selected"
  "$b1/quickstart" >"$work/run.log" 2>&1 || { cat "$work/run.log"; fail "the quickstart's check failed with the selected kernels"; }
  cat "$work/run.log"
  grep -q "all checks passed" "$work/run.log" || fail "quickstart did not report 'all checks passed'"
  ok "the optimized build passes the quickstart's own check"
fi

# --- 4: KLINEAGE_REQUIRE_GPU -------------------------------------------------------------------------
if [ $gpu -eq 0 ]; then
  b2=$work/build-require-gpu
  configure "$qs" "$b2" -DKLINEAGE_REQUIRE_GPU=ON
  "$ninja" -C "$b2" optimize >"$work/optimize-require.log" 2>&1
  rc=$?
  tail -n 5 "$work/optimize-require.log"
  [ $rc -ne 0 ] || fail "ninja optimize succeeded without a GPU although KLINEAGE_REQUIRE_GPU=ON"
  grep -q "KLINEAGE_REQUIRE_GPU" "$work/optimize-require.log" || fail "the failure does not name KLINEAGE_REQUIRE_GPU"
  ok "KLINEAGE_REQUIRE_GPU=ON: ninja optimize fails ($rc)"
fi

# --- 5: a fabricated selection, fresh then stale (on a copy) -----------------------------------------
copy=$work/quickstart-copy
cp -R "$qs" "$copy" || fail "cannot copy the quickstart"
b3=$work/build-stale
configure "$copy" "$b3"
out3=$b3/klineage/$target
"$klineage" extract --config "$out3/config.json" -o "$work/manifest-copy.json" >/dev/null ||
  fail "klineage extract failed on the copy"
kernel_hash=""
for ((i = 0; i < $(json "$work/manifest-copy.json" LENGTH kernels); i++)); do
  if [ "$(json "$work/manifest-copy.json" GET "kernels;$i;name")" = saxpy ]; then
    kernel_hash=$(json "$work/manifest-copy.json" GET "kernels;$i;source_hash")
  fi
done
[ -n "$kernel_hash" ] || fail "no saxpy in the copy's manifest"

orig=$copy/src/saxpy.cu
selected=$out3/selected/e2e/src/saxpy.cu
mkdir -p "$(dirname "$selected")"
marker="// KLINEAGE-E2E-MARKER: fabricated selected copy"
{ cat "$orig"; echo "$marker"; } >"$selected"
cat >"$out3/selection.json" <<EOF
{"format": "klineage-selection-1",
 "sources": [{"original": "$orig", "selected": "$selected",
              "kernels": [{"name": "saxpy", "kernel_hash": "$kernel_hash", "variant_id": "saxpy/1",
                           "skills": ["restrict-pointers"], "geometry": {"grid_x_divisor": 1, "block_x": null},
                           "speedup": 1.5}],
              "launches_rewritten_for": [],
              "depends_on": {"$orig": "$(fnv1a64 "$orig")"}}]}
EOF

"$ninja" -C "$b3" >"$work/stale-fresh.log" 2>&1 || { cat "$work/stale-fresh.log"; fail "build with a fresh selection failed"; }
cat "$work/stale-fresh.log"
cmp -s "$out3/src/src/saxpy.cu" "$selected" || fail "a fresh selection was not used (depends_on hash or materialize is wrong)"
grep -q "saxpy.cu: using the optimized version (saxpy)" "$work/stale-fresh.log" || fail "materialize did not say it used the optimized saxpy.cu"
grep -q "version is stale" "$work/stale-fresh.log" && fail "a fresh selection was reported stale"
ok "a fresh selection is compiled"

# A comment outside the kernel: the file is stale, the kernel is not.
sed -i '1s|^|// an edit outside the kernel\n|' "$orig"
"$ninja" -C "$b3" >"$work/stale-comment.log" 2>&1 || { cat "$work/stale-comment.log"; fail "build after a comment edit failed"; }
cat "$work/stale-comment.log"
grep -q "saxpy.cu: the optimized version is stale" "$work/stale-comment.log" || fail "no staleness warning after editing saxpy.cu"
grep -q "stale kernels: saxpy" "$work/stale-comment.log" && fail "saxpy named stale though only a comment outside it changed"
grep -q "$marker" "$out3/src/src/saxpy.cu" && fail "the stale selected copy is still compiled"
ok "an edit outside the kernel: original compiled, warning without kernel names"

# The kernel body: the warning names saxpy, the (edited) original is compiled.
sed -i 's|y\[i\] = a \* x\[i\] + y\[i\];|y[i] = a * x[i] + y[i] + 0.0f;|' "$orig"
grep -q 'y\[i\] + 0.0f;' "$orig" || fail "could not edit the kernel body of $orig"
"$ninja" -C "$b3" >"$work/stale-kernel.log" 2>&1 || { cat "$work/stale-kernel.log"; fail "build after a kernel edit failed"; }
cat "$work/stale-kernel.log"
grep -q "saxpy.cu: the optimized version is stale" "$work/stale-kernel.log" || fail "no staleness warning after editing the kernel"
grep -q "stale kernels: saxpy" "$work/stale-kernel.log" || fail "the warning does not name saxpy as stale"
[ "$(head -n 1 "$out3/src/src/saxpy.cu")" = "#line 1 \"$orig\"" ] || fail "the stale copy is not the original behind a #line"
tail -n +2 "$out3/src/src/saxpy.cu" | cmp -s - "$orig" || fail "the build does not compile the edited original"
ok "a kernel edit: the warning names saxpy, the edited original is compiled"

# --- the source tree ---------------------------------------------------------------------------------
after=$(snapshot "$qs")
if [ "$before" != "$after" ]; then
  diff <(echo "$before") <(echo "$after")
  fail "examples/quickstart changed"
fi
ok "examples/quickstart is unchanged"
echo "PASS"
