#!/usr/bin/env bash
# The mutant suite (README.md beside this): every variant of expected.tsv through `klineage gate`
# on this machine's GPU, each outcome compared with the expected one; then every correct variant
# gated REPEAT more times (fresh random inputs each) to show the gate never rejects it.
# Ends with "N of M as expected; false passes: X; false rejections: Y"; exit 0 only when all are.
#
# usage: run.sh <klineage-install-prefix> <work-dir> [repeat (default 10)] [results-dir]
# results-dir (default: work-dir) gets outcomes.tsv, appended after every gate call, so a run cut
# short still says what it found, and mutants.txt / summary.txt at the end.
# Needs a CUDA device (exit 77, "skipped: no CUDA device", without one), cmake, ninja, nvcc, python3.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=$(realpath "$1"); work=$(realpath -m "$2"); repeat=${3:-10}; results=$(realpath -m "${4:-$2}")
klineage="$prefix/bin/klineage"
if ! "$prefix/bin/klineage-runner" --probe >/dev/null 2>&1; then
  echo "skipped: no CUDA device"
  exit 77
fi
rm -rf "$work"; mkdir -p "$work" "$results"
build="$work/build"
cmake -S "$here/project" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "mutants: configure failed"; exit 1; }
cfg="$build/klineage/mkernels/config.json"
report="$build/klineage/mkernels/gate-report.json"

# One `klineage gate` per kernel and pass, all its variants at once (they compile in parallel).
gate() {  # <label> <kernel> <repeat> <file>...
  local label=$1 kernel=$2 rep=$3; shift 3
  local args=()
  for f in "$@"; do args+=(--variant "$here/$f"); done
  local t0=$SECONDS
  "$klineage" gate --config "$cfg" --kernel "$kernel" --repeat "$rep" "${args[@]}" > "$work/$label.log" 2>&1
  echo "mutants: $label: $# variant(s), exit $?, $((SECONDS - t0)) s"
  cp "$report" "$work/$label.json" 2>/dev/null || echo '{"variants": []}' > "$work/$label.json"
  python3 -c 'import json, sys
for v in json.load(open(sys.argv[1])).get("variants", []):
    if not v["variant"].get("is_original"):
        print("\t".join([sys.argv[2], v["variant"]["id"], v["outcome"], v["reason"].replace("\n", " ")[:300]]))' \
    "$work/$label.json" "$label" >> "$results/outcomes.tsv"
}

kernels=$(awk -F'\t' 'NR > 1 {print $1}' "$here/expected.tsv" | sort -u)
for k in $kernels; do
  mapfile -t files < <(awk -F'\t' -v k="$k" 'NR > 1 && $1 == k {print $2}' "$here/expected.tsv")
  gate "check-$k" "$k" 1 "${files[@]}"
  mapfile -t good < <(awk -F'\t' -v k="$k" 'NR > 1 && $1 == k && $3 == "accepted" {print $2}' "$here/expected.tsv")
  [ "$repeat" -gt 0 ] && [ ${#good[@]} -gt 0 ] && gate "repeat-$k" "$k" "$repeat" "${good[@]}"
done

python3 - "$here/expected.tsv" "$work" "$repeat" "$results" <<'PY'
import csv, json, os, sys
expected_tsv, work, repeat, results = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = list(csv.DictReader(open(expected_tsv), delimiter="\t"))
def outcomes(label):
    path = os.path.join(work, label + ".json")
    out = {}
    if os.path.exists(path):
        for v in json.load(open(path)).get("variants", []):
            out[v["variant"]["id"]] = (v["outcome"], v["reason"])
    return out
accepted = {"passed", "slower"}
as_expected = false_pass = false_reject = 0
lines = []
for r in rows:
    vid = r["kernel"] + "/hand-written-" + os.path.splitext(os.path.basename(r["file"]))[0]
    got, why = outcomes("check-" + r["kernel"]).get(vid, ("missing", "not in the gate report"))
    want = r["expected"]
    ok = got in accepted if want == "accepted" else got == want
    note = ""
    if want == "accepted" and ok and repeat > 0:
        rgot, rwhy = outcomes("repeat-" + r["kernel"]).get(vid, ("missing", "not in the repeat report"))
        if rgot not in accepted:
            ok, got, why, note = False, rgot, rwhy, " (in the %d repeated runs)" % repeat
        else:
            note = " (and %d repeated runs)" % repeat
    if want != "accepted" and got in accepted: false_pass += 1
    if want == "accepted" and got not in accepted: false_reject += 1
    as_expected += ok
    lines.append("%-4s %-10s %-46s expected %-14s got %-14s%s  %s" % (
        "ok" if ok else "FAIL", r["kernel"], os.path.basename(r["file"]), want, got, note, why[:150].replace("\n", " ")))
open(os.path.join(results, "mutants.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
summary = "%d of %d as expected; false passes: %d; false rejections: %d" % (as_expected, len(rows), false_pass, false_reject)
print(summary)
open(os.path.join(results, "summary.txt"), "w").write(summary + "\n")
sys.exit(0 if as_expected == len(rows) and false_pass == 0 and false_reject == 0 else 1)
PY
