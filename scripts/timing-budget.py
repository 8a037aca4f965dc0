#!/usr/bin/env python3
"""What a shorter timing phase would have measured: replays each gated variant's timed runs
(report.json keeps up to 500 samples per kernel, in run order) under another stopping rule
(min_runs, min_ms, max_ms as in ProfileSpec) and prints, per rule, how many runs it keeps, how
far each speedup moves from the full run's, whether any verdict (faster beyond noise) or any
kernel's winner changes, and the timing seconds it would save (from runner.log, when given).
Usage: timing-budget.py <report.json> [runner-logs dir]"""
import json
import os
import re
import statistics
import sys

NOISE_FLOOR = 0.01  # core/stats.h kNoiseFloor


def quantile(s, q):
    rank = q * (len(s) - 1)
    lo = int(rank)
    if lo + 1 >= len(s):
        return s[-1]
    return s[lo] + (rank - lo) * (s[lo + 1] - s[lo])


def stats(ms):
    s = sorted(ms)
    return quantile(s, 0.5), quantile(s, 0.1), quantile(s, 0.9)


def verdict(o, v):
    mo, o10, o90 = stats(o)
    mv, v10, v90 = stats(v)
    noise = max((o90 - o10) / (2 * mo), (v90 - v10) / (2 * mv), NOISE_FLOOR)
    s = mo / mv
    return s, s > 1 + noise


def stop_at(o, v, runs, min_runs, min_ms, max_ms):
    """Runs the rule keeps; samples are spread evenly over `runs` when runs > len(samples)."""
    scale = runs / len(o)
    t0 = t1 = 0.0
    for r in range(runs):
        if r >= min_runs and (min(t0, t1) >= min_ms or max(t0, t1) >= max_ms):
            return r
        i = min(int(r / scale), len(o) - 1)
        t0 += o[i]
        t1 += v[i]
    return runs


def timing_seconds(logdir, vid):
    if not logdir:
        return None
    kernel, n = vid.rsplit("/", 1)
    path = os.path.join(logdir, "gate", kernel, n, "runner.log")
    try:
        stamps = [float(m.group(1)) for m in re.finditer(r"\[(\d+\.\d+) s\]", open(path).read())]
    except OSError:
        return None
    return stamps[-1] - stamps[-2] if len(stamps) >= 2 else None


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    report = json.load(open(argv[1]))
    logdir = argv[2] if len(argv) > 2 else None
    jobs = []
    for v in report["variants"]:
        run = v.get("run") or {}
        ot, vt = run.get("original_time"), run.get("variant_time")
        if not ot or not vt or not ot.get("samples_ms"):
            continue
        jobs.append((v["variant"]["id"], v["variant"]["kernel"], ot, vt, timing_seconds(logdir, v["variant"]["id"])))
    print(f"timing-budget: {len(jobs)} timed variant(s) on {report.get('device')}")
    rules = [(20, 100, 1000), (20, 50, 500), (20, 50, 250), (20, 25, 250), (20, 25, 100), (10, 25, 100), (20, 10, 100)]
    for min_runs, min_ms, max_ms in rules:
        moved, flips, kept, full, saved = [], [], 0, 0, 0.0
        best_full, best_cut = {}, {}
        for vid, kernel, ot, vt, secs in jobs:
            o, v, runs = ot["samples_ms"], vt["samples_ms"], ot["runs"]
            s_full, f_full = verdict(o, v)
            k = stop_at(o, v, runs, min_runs, min_ms, max_ms)
            n = max(1, min(len(o), round(k * len(o) / runs)))
            s_cut, f_cut = verdict(o[:n], v[:n])
            moved.append(abs(s_cut / s_full - 1))
            if f_cut != f_full:
                flips.append(f"{vid} {s_full:.3f}x->{s_cut:.3f}x")
            kept += k
            full += runs
            if secs is not None:
                saved += secs * (1 - k / runs)
            for best, s, f in ((best_full, s_full, f_full), (best_cut, s_cut, f_cut)):
                if f and s > best.get(kernel, (0, ""))[0]:
                    best[kernel] = (s, vid)
        winners = [f"{k}: {best_full[k][1]} ({best_full[k][0]:.3f}x) -> {best_cut.get(k, (0, 'none'))[1]} "
                   f"({best_cut.get(k, (0, ''))[0]:.3f}x, full {verdict_of(jobs, best_cut.get(k, (0, ''))[1]):.3f}x)"
                   for k in best_full if best_cut.get(k, (0, ""))[1] != best_full[k][1]]
        print(f"\nmin_runs {min_runs}, min_ms {min_ms}, max_ms {max_ms}: {kept} of {full} runs kept "
              f"({100 * kept / full:.0f}%), timing saved ~{saved:.1f} s")
        print(f"  speedup moved: median {100 * statistics.median(moved):.2f}%, max {100 * max(moved):.2f}%")
        print(f"  verdicts changed: {len(flips)}" + "".join("\n    " + f for f in flips))
        print(f"  winners changed: {len(winners)}" + "".join("\n    " + w for w in winners))
    return 0


def verdict_of(jobs, vid):
    for j in jobs:
        if j[0] == vid:
            return verdict(j[2]["samples_ms"], j[3]["samples_ms"])[0]
    return 0.0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
