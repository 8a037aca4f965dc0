#!/usr/bin/env python3
"""Where klineage-runner jobs spend their time: reads runner.log files (each line
"klineage-runner: [12.34 s] what happened", seconds since the process started) and prints, per
phase, the median and total seconds over the jobs, then each job's stamps.
Usage: runner-phases.py <runner.log>..."""
import re
import statistics
import sys

STAMP = re.compile(r"klineage-runner: \[(\d+\.\d+) s\] (.*)")
# The phase a stamped line ends, by how the line starts.
PHASES = [
    ("start-up, kernels loaded, inputs allocated", re.compile(r"kernels? loaded")),
    # "outputs match on 3 input set(s)", since followed by " (3 checked on the GPU)"
    ("input sets run and compared", re.compile(r"outputs match on \d+ input set\(s\)( \(\d+ checked on the GPU.*\))?$")),
    ("probes (and replay checks)", re.compile(r"(outputs match|every allocation matches|\d+ probe shape\(s\) match)")),
    ("timing", re.compile(r"\d+ timed runs each")),
]


# a runner of its own ("the runner process took"), or a serving runner's job ("the serving runner
# took ... for this job": its stamps count from the job's start, so outside them is only the
# request and the answer)
TOOK = re.compile(r"klineage: the (?:runner process|serving runner) took (\d+\.\d+) s")


def phases(path):
    out, last = {}, 0.0
    with open(path, errors="replace") as f:
        for line in f:
            took = TOOK.search(line)
            if took and "total" in out:
                # the process outside the runner's clock: before main's first stamp's clock started
                # (exec, loading) and after its last line (result written, context torn down)
                out["outside the runner's stamps"] = float(took.group(1)) - out["total"]
                continue
            m = STAMP.search(line)
            if not m:
                continue
            t, text = float(m.group(1)), m.group(2)
            for name, pat in PHASES:
                if name not in out and pat.match(text):
                    out[name] = t - last
                    last = t
                    break
            out["total"] = t
    return out


def main(paths):
    if not paths:
        print("runner-phases: no runner.log")
        return 0
    jobs = [(p, phases(p)) for p in paths]
    print(f"runner-phases: {len(jobs)} job(s)")
    for name in [n for n, _ in PHASES] + ["total", "outside the runner's stamps"]:
        vals = [j[name] for _, j in jobs if name in j]
        if vals:
            print(f"  {name:45s} median {statistics.median(vals):6.2f} s  sum {sum(vals):7.1f} s  ({len(vals)} jobs)")
    for p, j in jobs[:40]:
        print("  " + p.split("/gate/")[-1] + ": " + ", ".join(f"{k.split(',')[0]} {v:.2f}" for k, v in j.items()))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # piped into head
        sys.exit(0)
