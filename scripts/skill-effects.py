#!/usr/bin/env python3
"""What each skill did in one `klineage optimize` run: for every skill of the given skill
directories, the kernels where a step with it paid (an accepted variant at least 1.02x faster than
the chain before it, the planner's rule), the step's gain and the best speedup over the original
reached through it; then each kernel's winner and how many variants were gated up to it.

usage: scripts/skill-effects.py <report.json> <skill-dir>...
       (e.g. build/klineage/naive/report.json skills/mined: which mined skills improve which kernels)
Exit 0; a skill with no paying step is listed under "paid nowhere".
"""
import glob
import json
import os
import re
import sys

MIN_GAIN = 1.02
ACCEPTED = {"passed", "slower"}  # judge.h accepted(): correct, timed


def skill_ids(dirs):
    ids = []
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "*.toml"))):
            with open(f) as fh:
                m = re.search(r'^id\s*=\s*"([^"]+)"', fh.read(), re.M)
            if m:
                ids.append(m.group(1))
    return ids


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as fh:
        report = json.load(fh)
    ids = skill_ids(sys.argv[2:])
    if not ids:
        sys.exit("skill-effects: no skill TOMLs in " + " ".join(sys.argv[2:]))
    by_chain = {}  # (kernel, tuple(skills)) -> report entry
    order = {}     # kernel -> gated variants in order
    for v in report["variants"]:
        var = v["variant"]
        by_chain[(var["kernel"], tuple(var["skills"]))] = v
        if not var["is_original"] and v["outcome"] not in ("not-run",) and not v.get("same_as"):
            order.setdefault(var["kernel"], []).append(v)

    def speedup(v):
        return v["speedup"] if v and v["outcome"] in ACCEPTED else 0.0

    paid = {s: [] for s in ids}
    for (kernel, chain), v in by_chain.items():
        if not chain or chain[-1] not in paid or speedup(v) <= 0:
            continue
        parent = 1.0 if len(chain) == 1 else speedup(by_chain.get((kernel, chain[:-1])))
        if parent <= 0 or speedup(v) < parent * MIN_GAIN:
            continue
        best = max(speedup(w) for (k, c), w in by_chain.items() if k == kernel and c[: len(chain)] == chain)
        paid[chain[-1]].append((kernel, speedup(v) / parent, best, "+".join(chain)))

    # A step the planner did not write because it made the same code as another variant (a twin:
    # mined skills of one transform from several experts) did what that variant's last step did.
    same = re.compile(r"skill (\S+)(?: \(after (\S+)\))? made the same code and launch as (\S+) \((\S+)\)")
    twins = {s: [] for s in ids}
    for k in report.get("kernels", []):
        for line in k.get("skills_not_applied", []):
            m = same.search(line)
            if not m or m.group(1) not in twins:
                continue
            other = tuple(m.group(4).split("+"))
            for kernel, gain, best, chain in paid.get(other[-1], []):
                if kernel == k["kernel"] and chain == m.group(4):
                    twins[m.group(1)].append((kernel, gain, best, m.group(4)))

    print(f"{len(ids)} skills; a step pays at >= {MIN_GAIN}x over the chain before it\n")
    print("| skill | kernel | step gain | best through it | chain |")
    print("|---|---|---|---|---|")
    for s in ids:
        for kernel, gain, best, chain in sorted(paid[s], key=lambda t: -t[1]):
            print(f"| {s} | {kernel} | {gain:.2f}x | {best:.2f}x | {chain} |")
        for kernel, gain, best, chain in sorted(set(twins[s]), key=lambda t: -t[1]):
            print(f"| {s} | {kernel} | {gain:.2f}x (twin) | {best:.2f}x | the same code as {chain} |")
    nowhere = [s for s in ids if not paid[s] and not twins[s]]
    only_twin = [s for s in ids if not paid[s] and twins[s]]
    print(f"\npaid on at least one kernel: {len(ids) - len(nowhere)} of {len(ids)}"
          f" ({len(only_twin)} of them only as a twin: the same code as another skill's paying step)")
    if nowhere:
        print("paid nowhere: " + ", ".join(nowhere))

    print("\n| kernel | winner | speedup | gated variants up to it | gated in all |")
    print("|---|---|---|---|---|")
    selected = report.get("selected", {})
    for kernel in sorted(order):
        sel = selected.get(kernel)
        if not sel:
            print(f"| {kernel} | original | 1.00x | - | {len(order[kernel])} |")
            continue
        at = next((i + 1 for i, v in enumerate(order[kernel]) if v["variant"]["id"] == sel["variant"]), "?")
        print(f"| {kernel} | {'+'.join(sel['skills'])} | {sel['speedup']:.2f}x | {at} | {len(order[kernel])} |")


if __name__ == "__main__":
    main()
