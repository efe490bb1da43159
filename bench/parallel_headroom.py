#!/usr/bin/env python3
"""What one catalog action adds at the end of a policy's pipelines.

For every module of an eval report (docs/eval/report.json: the file, its
policy pipeline), applies the policy pipeline (`mqss opt`), asks the safety
mask whether ACTION is allowed on the result, and where it is, measures

    mqss measure FILE --pipeline POLICY --vs POLICY+ACTION --json

(interleaved pairs in one sandbox child, both sides checked against the
reference). Prints per module the Hodges-Lehmann ratio time(POLICY) /
time(POLICY+ACTION) with its interval and verdict, then the geomean over the
measured modules and over all modules (a module the action does not apply
to counts as 1), the machine and the commit.

usage: bench/parallel_headroom.py MQSS REPORT_JSON CORPUS_DIR [ACTION]
  ACTION defaults to omp-parallel; env: PAIRS (10)
"""
import json
import os
import subprocess
import sys
import tempfile

from vs_line import geomean_line, header, measure_vs


def action_pipeline(mqss, name):
    out = subprocess.run([mqss, "catalog"], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split(maxsplit=6)
        if len(f) == 7 and f[1] == name:
            return f[2], f[6]
    sys.exit(f"no action '{name}' in the catalog")


def allowed(mqss, path, pipeline, name, tmp):
    after = os.path.join(tmp, "after.mlir")
    r = subprocess.run([mqss, "opt", path, "--pipeline", pipeline, "-o", after],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return False
    mask = subprocess.run([mqss, "catalog", "--mask", after], capture_output=True,
                          text=True).stdout
    return any(l.split()[:2] == [name, "allowed"] for l in mask.splitlines())


def appended(pipeline, anchor, text):
    step = text if anchor == "builtin.module" else f"func.func({text})"
    if not pipeline:
        return f"builtin.module({step})"
    return pipeline[:-1] + "," + step + ")"


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    mqss, report, corpus = sys.argv[1:4]
    name = sys.argv[4] if len(sys.argv) == 5 else "omp-parallel"
    pairs = os.environ.get("PAIRS", "10")
    anchor, text = action_pipeline(mqss, name)
    print(header(pairs, f"action {name}"))
    print("module\tratio\tinterval\tverdict")
    speeds, n_all = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for m in json.load(open(report))["modules"]:
            if m.get("status") != "ok":
                continue
            n_all += 1
            path = os.path.join(corpus, m["file"])
            policy = m["policy_pipeline"]
            if not allowed(mqss, path, policy, name, tmp):
                print(f"{m['file']}\t-\t-\tnot allowed", flush=True)
                continue
            speed, cell = measure_vs(mqss, path, policy, appended(policy, anchor, text),
                                     pairs)
            if speed is not None:
                speeds.append(speed)
            print(f"{m['file']}\t{cell}", flush=True)
    print(geomean_line(speeds, n_all))


if __name__ == "__main__":
    main()
