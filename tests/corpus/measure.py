#!/usr/bin/env python3
"""Extraction accuracy on the public-code corpus (see README.md).

For every file nvcc compiled (ground_truth.tsv), runs `klineage extract --source` with the same
include flags and counts a ground-truth kernel as listed with correct parameters when its mangled
name (which encodes every parameter type) is among the names the manifest gives: the kernel's own
mangled name, or one of a template's instantiations.

usage: measure.py <klineage> <corpus-dir> <ground_truth.tsv> [--origin project|all]
Prints per-repository and total figures, and the kernels that were missed.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile


def include_flags(corpus, rel):
    path = os.path.join(corpus, rel)
    repo_root = os.path.join(corpus, rel.split("/")[0])
    flags = ["-I" + os.path.dirname(path), "-I" + repo_root]
    for sub in ("Common", "common", "include", "inc"):
        if os.path.isdir(os.path.join(repo_root, sub)):
            flags.append("-I" + os.path.join(repo_root, sub))
    return flags + ["-std=c++17", "-arch=sm_90"]


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    klineage, corpus, truth_path = sys.argv[1:4]
    origin = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--origin" else "project"
    truth = collections.defaultdict(list)
    with open(truth_path) as f:
        for line in f:
            file, mangled, demangled, org = line.rstrip("\n").split("\t")
            if origin == "all" or org == origin:
                truth[file].append((mangled, demangled))
    per_repo = collections.defaultdict(lambda: [0, 0])
    missed, parse_errors = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for rel, kernels in sorted(truth.items()):
            out = os.path.join(tmp, "m.json")
            cmd = [klineage, "extract", "--source", os.path.join(corpus, rel), "-o", out, "--"] + include_flags(corpus, rel)
            p = subprocess.run(cmd, capture_output=True, text=True)
            names = set()
            if p.returncode == 0 and os.path.exists(out):
                m = json.load(open(out))
                parse_errors += 1 if m.get("diagnostics") else 0
                for k in m["kernels"]:
                    names.add(k["mangled_name"])
                    names.update(k.get("instantiations", []))
            repo = rel.split("/")[0]
            for mangled, demangled in kernels:
                per_repo[repo][1] += 1
                if mangled in names:
                    per_repo[repo][0] += 1
                else:
                    missed.append(f"{rel}: {demangled} ({mangled})" + ("" if p.returncode == 0 else f" [extract exit {p.returncode}]"))
    total_ok = sum(v[0] for v in per_repo.values())
    total = sum(v[1] for v in per_repo.values())
    for repo, (ok, n) in sorted(per_repo.items()):
        print(f"{repo:45s} {ok:4d} / {n:4d}")
    print(f"{'total (' + origin + ' kernels)':45s} {total_ok:4d} / {total:4d} = {100.0 * total_ok / max(total, 1):.1f}%")
    print(f"files with clang parse errors (kernels may still be listed): {parse_errors} of {len(truth)}")
    for m in missed:
        print("missed: " + m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
