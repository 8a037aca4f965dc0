#!/usr/bin/env bash
# Put what scripts/gpu-mine.sh mined for some experts into a mined skill library (skills/mined, or
# an installed copy of it), replacing what that library held for the same experts:
#   <mine-out>/<kernel>/lineage.json, versions/, and <mine-out>/<kernel>.log as mine.log
#                                        -> <dest>/<kernel>/
#   <mine-out>/skills/mined-<kernel>-*.toml -> <dest>/, their lineage path made relative to <dest>
#                                        (gpu-mine writes "../<kernel>/lineage.json", which
#                                        resolves only from <mine-out>/skills)
# The old skills of those experts are removed from <dest> and <dest>/unpaid/ first, so a skill that
# a new mining no longer makes does not linger. Which new skills paid (and stay) and which go to
# unpaid/ is decided afterwards, from the `mined` bench (skills/mined/README.md).
# usage: scripts/install-mined.sh <mine-out> <dest> <kernel>...
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 <mine-out> <dest> <kernel>..." >&2
  exit 2
fi
src=$(realpath "$1"); dest=$(realpath "$2"); shift 2
for kernel in "$@"; do
  dash=${kernel//_/-}
  [ -f "$src/$kernel/lineage.json" ] || { echo "install-mined: no lineage for $kernel: $src/$kernel/lineage.json" >&2; exit 1; }
  new=("$src/skills/mined-$dash-"*.toml)
  [ -e "${new[0]}" ] || { echo "install-mined: no mined skill of $kernel in $src/skills" >&2; exit 1; }
  rm -f "$dest/mined-$dash-"*.toml "$dest/unpaid/mined-$dash-"*.toml
  # Written next to <dest>/<kernel> and renamed over it, so a failed copy leaves the old lineage.
  tmp=$(mktemp -d "$dest/.$kernel.XXXXXX")
  cp -r "$src/$kernel/." "$tmp/"
  [ -f "$src/$kernel.log" ] && cp "$src/$kernel.log" "$tmp/mine.log"
  rm -rf "$dest/$kernel" && mv "$tmp" "$dest/$kernel"
  for f in "${new[@]}"; do
    sed "s#\.\./$kernel/lineage\.json#$kernel/lineage.json#g" "$f" >"$dest/.$(basename "$f").tmp"
    mv "$dest/.$(basename "$f").tmp" "$dest/$(basename "$f")"
    echo "install-mined: $(basename "$f")"
  done
done
