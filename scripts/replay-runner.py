#!/usr/bin/env python3
"""A stand-in for klineage-runner that answers each job with what a recorded gate measured for the
same kernel and chain, so that a planner or effect-history change can be tried on the CPU against a
real GPU's results (how many variants it gates, which win, about how long the jobs would take).
  REPLAY_REPORT=<report.json of a GPU run>  (its runner logs beside it: REPLAY_LOGS=<dir with gate/>)
  replay-runner.py --probe                  the recorded device
  replay-runner.py <job.json> <result.json> the recorded times of <kernel>'s variant with the same
                                            skills (a re-check: passed); a chain the report has not
                                            measured is 1.00x and logged as "unmeasured"
Appends "<kernel> <chain> <measured|unmeasured|recheck> <seconds the recorded job took>" to
$REPLAY_LOG. Set it as "runner" in a build tree's klineage/<target>/config.json (a copy) and run
`klineage optimize --config <copy> --no-cache`."""
import json
import os
import re
import statistics
import sys

report = json.load(open(os.environ["REPLAY_REPORT"]))
if sys.argv[1:] == ["--probe"]:
    print(json.dumps({"status": "ok", "device": report.get("device", "Replayed GPU"), "sm": "90", "l2_bytes": 0, "count": 1}))
    sys.exit(0)
job_path, result_path = sys.argv[1], sys.argv[2]
job = json.load(open(job_path))
work = os.path.dirname(os.path.abspath(job_path))
kernel, n = os.path.basename(os.path.dirname(work)), os.path.basename(work)
out_dir = os.path.dirname(os.path.dirname(os.path.dirname(work)))
recheck = n.endswith("-recheck")
n = n.split("-")[0]
skills = json.load(open(os.path.join(out_dir, "variants", kernel, n, "variant.json")))["skills"]
chain = "+".join(skills)


def took(vid):
    """Seconds the recorded job of variant `vid` (kernel/n) took, from its runner.log."""
    logs = os.environ.get("REPLAY_LOGS")
    if not logs:
        return None
    k, m = vid.rsplit("/", 1)
    try:
        stamps = re.findall(r"\[(\d+\.\d+) s\]", open(os.path.join(logs, "gate", k, m + ("-recheck" if recheck else ""), "runner.log")).read())
    except OSError:
        return None
    return float(stamps[-1]) if stamps else None


rec = None
for v in report["variants"]:
    if v["variant"]["kernel"] == kernel and "+".join(v["variant"]["skills"]) == chain and (v.get("run") or {}).get("original_time"):
        rec = v
        break
result = {"format": "klineage-runner-result-1", "status": "ok", "device": report.get("device", "") + " (replayed)",
          "compares": [], "seeds_used": [1, 2, 3], "timed_runs_checked": 0, "probes_checked": len(job.get("probes", []))}
what, secs = "unmeasured", None
if recheck or not job.get("profile", {}).get("enabled", True):
    result.update(outcome="passed", reason="outputs match (replayed)")
    what = "recheck"
    if rec:
        secs = took(rec["variant"]["id"])
elif rec:
    run = rec["run"]
    result.update(outcome=run["outcome"] if run["outcome"] != "passed" else "passed", reason="replayed: " + rec["reason"][:200],
                  speedup=run.get("speedup", 0), noise=run.get("noise", 0.01),
                  original_time={k: run["original_time"][k] for k in ("median_ms", "p10_ms", "p90_ms", "min_ms", "runs")},
                  variant_time={k: run["variant_time"][k] for k in ("median_ms", "p10_ms", "p90_ms", "min_ms", "runs")})
    what, secs = "measured", took(rec["variant"]["id"])
else:
    o = 1.0
    result.update(outcome="passed", reason="unmeasured (replayed as 1.00x)", speedup=1.0, noise=0.01,
                  original_time={"median_ms": o, "p10_ms": o * 0.995, "p90_ms": o * 1.005, "min_ms": o, "runs": 20},
                  variant_time={"median_ms": o, "p10_ms": o * 0.995, "p90_ms": o * 1.005, "min_ms": o, "runs": 20})
json.dump(result, open(result_path, "w"))
log = os.environ.get("REPLAY_LOG")
if log:
    with open(log, "a") as f:
        f.write("%s %s %s %s\n" % (kernel, chain or "(original)", what, "%.2f" % secs if secs is not None else "-"))
