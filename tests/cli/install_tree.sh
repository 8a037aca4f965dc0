#!/usr/bin/env bash
# `cmake --install` of this build: the installed skill library carries what the tools read beside
# the TOML files (the planner's effect history skills/effects.json, each mined skill's lineage), and
# the installed klineage finds its library and prints a mined skill's lineage from there.
# usage: install_tree.sh <cmake> <build-dir> <klineage source dir> <work-dir>
set -uo pipefail
cmake=$1; build=$2; root=$3; work=$4
rm -rf "$work"; mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
skills=$prefix/share/klineage/skills
klineage=$prefix/bin/klineage
[ -x "$klineage" ] || fail "no $klineage"

# Every file of skills/ that the tools read is installed, byte for byte.
n=0
while IFS= read -r -d '' f; do
  rel=${f#"$root/skills/"}
  n=$((n + 1))
  cmp -s "$f" "$skills/$rel" || fail "skills/$rel is not installed (or differs) at $skills/$rel"
done < <(find "$root/skills" -type f \( -name '*.toml' -o -name '*.json' -o -name '*.md' -o -name '*.cu' \) -print0)
[ "$n" -gt 0 ] || fail "no skill files found under $root/skills"
[ -f "$skills/effects.json" ] || fail "the effect history effects.json is not installed"
echo "ok: $n files of skills/ installed"

# The installed klineage uses the installed library by default.
"$klineage" skills validate >"$work/validate.out" 2>&1 || fail "installed 'klineage skills validate': $(cat "$work/validate.out")"
grep -q "skills valid" "$work/validate.out" || fail "installed 'klineage skills validate' printed: $(cat "$work/validate.out")"

# Every mined skill's lineage is read from the installed tree (skills/mined and the skills kept
# aside in skills/mined/unpaid): a path that resolves only where the skill was mined fails here.
shown=0
while IFS= read -r -d '' f; do
  id=$(sed -n 's/^id = "\(.*\)"/\1/p' "$f")
  dir=$(dirname "${f#"$root/skills/"}")
  [ -n "$id" ] || { fail "no id in $f"; continue; }
  if "$klineage" skills show "$id" --skills "$skills/$dir" >"$work/show.out" 2>&1; then
    grep -q "^lineage $skills/mined/.*lineage.json: mined from" "$work/show.out" ||
      fail "'klineage skills show $id' does not print the installed lineage: $(grep -m2 lineage "$work/show.out")"
  else
    fail "installed 'klineage skills show $id' failed: $(tail -3 "$work/show.out")"
  fi
  shown=$((shown + 1))
done < <(find "$root/skills/mined" -name '*.toml' -print0)
[ "$shown" -gt 0 ] || fail "no mined skill found in $root/skills/mined"
echo "ok: installed 'klineage skills show' prints the lineage of each of $shown mined skills"
# scripts/install-mined.sh: what gpu-mine.sh writes (skills naming "../<kernel>/lineage.json")
# put into a copy of the installed mined library, replacing that expert's skills there, kept
# aside ones included; the skill then shows its lineage from its new place.
mo=$work/mine-out lib=$work/mined-copy
mkdir -p "$mo/skills" && cp -r "$skills/mined" "$lib" && cp -r "$skills/mined/mine_sgemm" "$mo/"
echo "a mining log" >"$mo/mine_sgemm.log"
one=$(ls "$skills/mined/unpaid/"mined-mine-sgemm-*.toml | head -n 1)
cp "$one" "$mo/skills/"
oneid=$(sed -n 's/^id = "\(.*\)"/\1/p' "$one")
before=$(ls "$lib"/mined-mine-sgemm-*.toml "$lib"/unpaid/mined-mine-sgemm-*.toml | wc -l)
if bash "$root/scripts/install-mined.sh" "$mo" "$lib" mine_sgemm >"$work/install-mined.out" 2>&1; then
  after=$(ls "$lib"/mined-mine-sgemm-*.toml "$lib"/unpaid/mined-mine-sgemm-*.toml 2>/dev/null | wc -l)
  [ "$before" -gt 1 ] && [ "$after" -eq 1 ] || fail "install-mined left $after of mine_sgemm's skills (before: $before; want only the new one)"
  grep -q '^lineage = "mine_sgemm/lineage.json"' "$lib/$(basename "$one")" || fail "install-mined did not make the lineage path relative to $lib"
  cmp -s "$mo/mine_sgemm.log" "$lib/mine_sgemm/mine.log" || fail "install-mined did not keep the mining log as mine_sgemm/mine.log"
  "$klineage" skills show "$oneid" --skills "$lib" >"$work/show.out" 2>&1 && grep -q "^lineage $lib/mine_sgemm/lineage.json: mined from" "$work/show.out" ||
    fail "after install-mined, 'klineage skills show $oneid' does not print its lineage: $(tail -3 "$work/show.out")"
  ls -a "$lib" | grep -q '^\.mine_sgemm' && fail "install-mined left its temporary directory in $lib"
else
  fail "install-mined.sh failed: $(cat "$work/install-mined.out")"
fi
bash "$root/scripts/install-mined.sh" "$mo" "$lib" mine_nothing >"$work/install-mined.out" 2>&1 &&
  fail "install-mined.sh accepted an expert with no lineage"
grep -q "no lineage for mine_nothing" "$work/install-mined.out" || fail "install-mined.sh's error does not name the expert: $(cat "$work/install-mined.out")"
echo "ok: scripts/install-mined.sh"
# `klineage skills emit`: a stored lineage's skills written again, the anchor narrowed to what the
# transform's library skills require (style_jacobi's coarsen-rows steps: pointer_params only).
em=$work/emitted
if "$klineage" skills emit "$skills/mined/style_jacobi/lineage.json" --out "$em" >"$work/emit.out" 2>&1; then
  f=$(grep -l '^transform = "coarsen-rows"' "$em"/*.toml | head -n 1)
  [ -n "$f" ] || fail "skills emit wrote no coarsen-rows skill: $(cat "$work/emit.out")"
  [ -n "$f" ] && { grep -q '^requires_features = \["pointer_params"\]' "$f" || fail "skills emit: $f's anchor is not narrowed: $(grep requires_features "$f")"; }
  "$klineage" skills validate --skills "$em" >/dev/null 2>&1 || fail "the emitted skills do not load"
else
  fail "klineage skills emit failed: $(cat "$work/emit.out")"
fi
"$klineage" skills emit "$work/no-such/lineage.json" --out "$em" >"$work/emit.out" 2>&1
[ $? -eq 2 ] && grep -q "no such lineage file" "$work/emit.out" || fail "skills emit of a missing lineage: $(cat "$work/emit.out")"
echo "ok: klineage skills emit"
[ $failures -eq 0 ] && echo "PASS" || { echo "$failures failure(s)"; exit 1; }
