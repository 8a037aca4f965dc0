#!/usr/bin/env python3
"""Merges effect histories (build/klineage/<target>/cache/effects.json, format 1) into one, e.g. the
skill library's skills/effects.json that the planner orders skills by (docs/pipeline.md, "The
planner"). Records are kept in order, exact duplicates once.
Usage: merge-effects.py <out.json> <effects.json>..."""
import json
import os
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, records, seen = argv[1], [], set()
    for path in argv[2:]:
        with open(path) as f:
            d = json.load(f)
        if d.get("format") != 1:
            print(f"{path}: \"format\": expected 1", file=sys.stderr)
            return 1
        for r in d["records"]:
            key = json.dumps(r, sort_keys=True)
            if key not in seen:
                seen.add(key)
                records.append(r)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"format": 1, "records": records}, f, indent=1)
        f.write("\n")
    os.replace(tmp, out)
    print(f"merge-effects: {len(records)} records -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
