#!/usr/bin/env bash
# One device session's GPU work, resumable: the same command, called again and again (each call is
# limited to 10 minutes and the machine is given back after ~30 s idle), runs the parts not done yet
# in order and stops at a part boundary before its time is up. State and work dirs stay under
# <work> (.gpuwork/session by default, kept on a warm machine); each call's results go to <out>.
#
#   experts    bench/experts.sh at BUDGET 10 (the planner with the installed library, its effect
#              history skills/effects.json included): issue 7's table; resumes from the result
#              cache when cut off
#   mine       scripts/gpu-mine.sh (every mineable expert, --probe); resumes expert by expert
#   soundness  runner, replay and capture scripts, the mutants (MUTANT_REPEAT, default 2)
#   planted    the catalogue's planted wrong variants against the experts build
#   speed      the quickstart's cold / no-op / edit `ninja optimize`
#   history    the experts bench again, cold, with the library's effect history (skills/effects.json,
#              installed with it) and whatever `experts` and `mine` of this session learned, merged
#              into a copy of the skill library: the planner with what it learned
#   mined      the experts bench with the mined skills (skills/mined, with what `mine` mined whole
#              this session in place of the installed skills of those experts) standing in for the library's
#              hand-written skills of the same transforms (vectorize-float4, tile-sgemm,
#              unroll-constant-loops are left out; the rest of the library stays, since the mined
#              anchors are their experts' versions: a grid-stride loop, restrict, ...): which naive
#              kernels each mined skill speeds up on its own
#   blocksize  the experts bench with only the block-size skills (the Kernel-Tuner-like baseline)
#
# usage: scripts/gpu-session.sh <klineage-install-prefix> <capture_record_check> <out> [part...]
# Environment: SESSION_SECONDS (default 560: this call's time), SESSION_WORK (default
# $PWD/.gpuwork/session). Exit 0 when every part asked for is done, 3 when some are left for the next
# call, 1 when a part failed (it is not run again; remove <work>/<part>.done to rerun one).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(realpath "$1"); check=$(realpath "$2"); out=$(realpath -m "$3"); shift 3
parts=${*:-experts mine soundness planted speed history mined blocksize}
work=$(mkdir -p "${SESSION_WORK:-$root/.gpuwork/session}" && realpath "${SESSION_WORK:-$root/.gpuwork/session}")
end=$((SECONDS + ${SESSION_SECONDS:-560}))
mkdir -p "$out"
cd "$root"

# The least time a part needs to be worth starting: the parts that cannot resume need their whole run.
need() {
  case $1 in
    experts|history|mined|blocksize|mine) echo 60 ;;
    soundness) echo 420 ;;
    planted) echo 200 ;;
    speed) echo 180 ;;
    *) echo 60 ;;
  esac
}

gpu_check() {  # gpu_check <seconds> <out-dir> <part...>
  local t=$1 o=$2; shift 2
  timeout --kill-after=10 "$t" bash scripts/gpu-check.sh "$prefix" "$check" "$o" "$@"
}

# The effect histories learned so far (the library's own, then this session's), merged into a copy
# of the skill library (for `history`).
history_skills() {
  local dir=$work/skills-history
  rm -rf "$dir" && cp -r "$prefix/share/klineage/skills" "$dir" || return 1
  local hist=()
  for f in "$prefix/share/klineage/skills/effects.json" "$work/experts/optimized/klineage/naive/cache/effects.json" \
           "$work/mine/build/klineage/mine_experts/cache/effects.json"; do
    [ -f "$f" ] && hist+=("$f")
  done
  [ ${#hist[@]} -gt 0 ] || { echo "gpu-session: no effect history: none installed with the skills, none learned yet" >&2; return 1; }
  python3 scripts/merge-effects.py "$dir/effects.json" "${hist[@]}" >&2 || return 1
  echo "history from: ${hist[*]}" >&2
  echo "$dir"
}

run_part() {  # run_part <part> <seconds>: 0 done, 124 cut off, else failed
  local p=$1 t=$2 o=$out/$1
  mkdir -p "$o"
  case $p in
    experts)
      EXPERTS_WORK=$work/experts EXPERTS_BUDGET=10 EXPERTS_PLANTED=0 gpu_check "$t" "$o" experts ;;
    mine)
      timeout --kill-after=10 "$t" bash scripts/gpu-mine.sh "$prefix" "$work/mine" >"$o/mine.log" 2>&1
      local rc=$?
      tail -n 120 "$o/mine.log"
      (cd "$work/mine" && tar czf "$o/mine.tgz" --exclude=build skills mine_* 2>/dev/null)
      cp "$work/mine/build/klineage/mine_experts/cache/effects.json" "$o/mine-effects.json" 2>/dev/null
      return $rc ;;
    soundness)
      MUTANT_REPEAT=${MUTANT_REPEAT:-2} gpu_check "$t" "$o" runner replay capture mutants ;;
    planted)
      EXPERTS_WORK=$work/experts gpu_check "$t" "$o" planted ;;
    speed)
      gpu_check "$t" "$o" speed ;;
    history)
      local skills
      skills=$(history_skills | tail -n 1) && [ -d "$skills" ] || return 1
      EXPERTS_SKILLS=$skills EXPERTS_WORK=$work/experts-history EXPERTS_BUDGET=10 EXPERTS_PLANTED=0 \
        gpu_check "$t" "$o" experts ;;
    mined)
      local md=$work/skills-mined tr
      [ -d "$prefix/share/klineage/skills/mined" ] || { echo "gpu-session: no mined skills installed"; return 1; }
      rm -rf "$md" && cp -r "$prefix/share/klineage/skills" "$md" || return 1
      # The experts `mine` mined whole this session stand in for their installed skills.
      local k mined_now=()
      for k in "$work"/mine/mine_*.done; do [ -e "$k" ] && mined_now+=("$(basename "$k" .done)"); done
      if [ ${#mined_now[@]} -gt 0 ]; then
        bash scripts/install-mined.sh "$work/mine" "$md/mined" "${mined_now[@]}" || return 1
      fi
      for tr in $(sed -n 's/^transform = "\(.*\)"/\1/p' "$md"/mined/*.toml | sort -u); do
        grep -l "^transform = \"$tr\"" "$md"/*.toml | xargs -r rm -v
      done
      EXPERTS_SKILLS="$md;$md/mined" EXPERTS_WORK=$work/experts-mined EXPERTS_BUDGET=10 \
        EXPERTS_PLANTED=0 gpu_check "$t" "$o" experts
      local rc=$?
      # Which mined skills paid on which naive kernels, and where each kernel's winner came.
      python3 scripts/skill-effects.py "$work/experts-mined/optimized/klineage/naive/report.json" "$md/mined" \
        | tee "$o/skill-effects.md"
      return $rc ;;
    blocksize)
      local bs=$work/skills-blocksize
      rm -rf "$bs" && mkdir -p "$bs" && cp "$prefix/share/klineage/skills"/block-size-*.toml "$bs"/ || return 1
      EXPERTS_SKILLS=$bs EXPERTS_WORK=$work/experts-blocksize EXPERTS_BUDGET=10 EXPERTS_PLANTED=0 \
        gpu_check "$t" "$o" experts ;;
    *) echo "gpu-session: unknown part $p"; return 2 ;;
  esac
}

left=() failed=()
for p in $parts; do
  if [ -e "$work/$p.done" ]; then echo "=== $p: done in an earlier call"; continue; fi
  if [ -e "$work/$p.failed" ]; then echo "=== $p: failed in an earlier call"; failed+=("$p"); continue; fi
  remaining=$((end - SECONDS))
  if [ "$remaining" -lt "$(need "$p")" ]; then left+=("$p"); continue; fi
  echo "=== $p (up to $remaining s)"
  t0=$SECONDS
  run_part "$p" "$remaining"
  rc=$?
  echo "=== $p: rc=$rc ($((SECONDS - t0)) s)"
  case $rc in
    0) touch "$work/$p.done" ;;
    124|137) left+=("$p") ;;  # cut off: the next call goes on
    *) touch "$work/$p.failed"; failed+=("$p") ;;
  esac
done
echo "gpu-session: done: $(cd "$work" && ls *.done 2>/dev/null | sed 's/\.done//' | tr '\n' ' ')"
[ ${#failed[@]} -eq 0 ] || echo "gpu-session: failed: ${failed[*]}"
[ ${#left[@]} -eq 0 ] || echo "gpu-session: left for the next call: ${left[*]}"
[ ${#failed[@]} -eq 0 ] || exit 1
[ ${#left[@]} -eq 0 ] || exit 3
exit 0
