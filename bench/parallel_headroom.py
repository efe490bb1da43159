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
import math
import os
import platform
import subprocess
import sys
import tempfile
import time


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
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"# machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores; "
          f"commit {commit or 'unknown'}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{pairs} pairs per module; action {name}")
    print("module\tratio\tinterval\tverdict")
    logs, n_all = [], 0
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
            r = subprocess.run([mqss, "measure", path, "--pipeline", policy, "--vs",
                                appended(policy, anchor, text), "--json", "--repeat", pairs],
                               capture_output=True, text=True)
            try:
                d = json.loads(r.stdout)
            except json.JSONDecodeError:
                print(f"{m['file']}\t-\t-\tfailed: {r.stderr.strip()[-200:]}", flush=True)
                continue
            if d["b"]["status"] != "ok" or d["a"]["status"] != "ok":
                print(f"{m['file']}\t-\t-\t{d['a']['status']}/{d['b']['status']}: "
                      f"{d['b']['message'][:160]}", flush=True)
                continue
            q = d["ratio_b_over_a"]
            speed = 1 / q["hl"]
            logs.append(math.log(speed))
            lo, hi = (1 / q["hi"], 1 / q["lo"]) if q["lo"] > 0 else (math.nan, math.nan)
            print(f"{m['file']}\t{speed:.3f}\t[{lo:.3f}, {hi:.3f}]\t{d['verdict']}",
                  flush=True)
    if logs:
        print(f"geomean over {len(logs)} measured: {math.exp(sum(logs) / len(logs)):.3f}x; "
              f"over all {n_all}: {math.exp(sum(logs) / n_all):.3f}x")


if __name__ == "__main__":
    main()
