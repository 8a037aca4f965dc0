#!/usr/bin/env python3
# A stand-in for klineage-runner on a Slurm node without a GPU (tests/slurm/quickstart_slurm.sh).
#   fake_runner.py --probe                   one JSON line, a fake sm_90 device
#   fake_runner.py <job.json> <result.json>  checks the job reads only files of its bundle, then
#                                             "measures": a variant with fewer threads than the
#                                             original (grid.x * block.x: the vectorized ones) is 1.3x
#                                             faster, any other (block-size keeps them) is as fast
# It appends one line per job to $KLINEAGE_FAKE_LOG, and fails the job (runtime-failed, with the
# reason) when a path in the job is absolute, missing from the bundle, or under
# $KLINEAGE_FAKE_SUBMIT_DIR (the submitting machine's build tree).
import json
import os
import socket
import sys

if sys.argv[1:] == ["--probe"]:
    print(json.dumps({"status": "ok", "device": "Fake GPU", "sm": "90", "l2_bytes": 0, "count": 1}))
    sys.exit(0)
job_path, result_path = sys.argv[1], sys.argv[2]
job = json.load(open(job_path))
cwd = os.getcwd()
submit = os.environ.get("KLINEAGE_FAKE_SUBMIT_DIR", "")
paths = [job["original"]["cubin"], job["variant"]["cubin"]]
if job.get("replay"):
    paths.append(job["replay"]["record_dir"])
problems = []
for p in paths:
    if os.path.isabs(p):
        problems.append("absolute path in the job: " + p)
    elif not os.path.exists(os.path.join(cwd, p)):
        problems.append("not in the bundle: " + p)
if submit and os.path.realpath(cwd).startswith(os.path.realpath(submit)):
    problems.append("the job runs inside the submitting build tree " + cwd)
if open(job_path).read().find(submit) >= 0 and submit:
    problems.append("the job names the submitting build tree")

def threads(launch):
    return launch["grid"][0] * launch["block"][0]


faster = threads(job["variant"]) < threads(job["original"])
result = {"format": "klineage-runner-result-1", "status": "ok", "device": "Fake GPU (sm_90)", "compares": [],
          "seeds_used": [1, 2, 3], "timed_runs_checked": 0, "probes_checked": len(job.get("probes", []))}
if problems:
    result.update(outcome="runtime-failed", reason="; ".join(problems))
elif not job.get("profile", {}).get("enabled", True):
    result.update(outcome="passed", reason="outputs match (fake runner on %s)" % socket.gethostname())
else:
    o, v = 0.24, (0.24 / 1.3 if faster else 0.24)
    result.update(outcome="passed", reason="outputs match (fake runner on %s)" % socket.gethostname(),
                  speedup=o / v, noise=0.01,
                  original_time={"median_ms": o, "p10_ms": o * 0.995, "p90_ms": o * 1.005, "min_ms": o, "runs": 20},
                  variant_time={"median_ms": v, "p10_ms": v * 0.995, "p90_ms": v * 1.005, "min_ms": v, "runs": 20})
json.dump(result, open(result_path, "w"))
log = os.environ.get("KLINEAGE_FAKE_LOG")
if log:
    with open(log, "a") as f:
        f.write("%s %s %s %s\n" % (job["variant"]["function"], result["outcome"], cwd, ",".join(sorted(os.listdir(cwd)))))
print("fake-runner: %s in %s" % (result["outcome"], cwd), file=sys.stderr)
