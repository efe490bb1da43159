#!/usr/bin/env python3
"""Per-family table: is each hand-tuned baseline at least as fast as the reference?

For every family in data/baselines.yaml, takes the first K modules of that
family from a corpus manifest and runs

    mqss measure FILE --pipeline BASELINE --vs '' --json --repeat PAIRS

(interleaved A/B pairs in one sandbox child, both sides checked against the
reference). The per-module speedup is the median per-pair ratio
time(reference) / time(baseline); the table gives its geometric mean and
minimum over the family's modules. A family whose baseline is "" (the
reference itself) is reported as 1.000 without measuring: both sides would be
the same pipeline.

It does not generate the corpus or change any baseline; it only measures and
prints a Markdown table plus the machine and commit.

The notes column lists each module's ratio. FAMILIES=a,b in the environment
restricts the table to those families.

usage: bench/baseline_vs_reference.py MQSS MANIFEST [BASELINES_YAML] [K] [PAIRS]
"""
import json
import math
import os
import platform
import re
import subprocess
import sys


def read_baselines(path):
    """family -> pipeline text, from the small YAML format of baselines.yaml
    (relative schedule library paths resolved against its directory, as
    mqss does)."""
    here = os.path.dirname(os.path.abspath(path))
    out, fam = {}, None
    for line in open(path):
        m = re.match(r"^  ([a-z0-9_]+):\s*$", line)
        if m:
            fam = m.group(1)
            continue
        m = re.match(r'^    pipeline:\s*"(.*)"\s*$', line)
        if m and fam:
            out[fam] = re.sub(r"(transform-library-paths=)(?!/)",
                              lambda k: k.group(1) + here + "/", m.group(1))
    return out


def read_manifest(path):
    """[(file, family)] in manifest order."""
    rows = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        cols = line.rstrip("\n").split("\t")
        rows.append((cols[0], cols[1]))
    return rows


def measure(mqss, path, pipeline, pairs):
    """Median ratio ref/baseline for one module, or (None, status)."""
    p = subprocess.run([mqss, "measure", path, "--pipeline", pipeline,
                        "--vs", "", "--json", "--no-cache",
                        "--warmup", "2", "--repeat", str(pairs),
                        "--timeout", "300000"],
                       capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
    except json.JSONDecodeError:
        return None, "harness_error"
    if j["a"]["status"] != "ok" or j["b"]["status"] != "ok":
        return None, j["a"]["status"] + "/" + j["b"]["status"]
    return j["ratio_b_over_a"]["median"], "ok"


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0]
    return f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, " \
           f"{cpu}, load {load:.1f} at start"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    mqss, manifest = sys.argv[1], sys.argv[2]
    here = os.path.dirname(os.path.abspath(__file__))
    yaml = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        here, "..", "data", "baselines.yaml")
    k = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    pairs = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    base = read_baselines(yaml)
    rows = read_manifest(manifest)
    cdir = os.path.dirname(os.path.abspath(manifest))
    commit = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "-uno"],
                           capture_output=True, text=True).stdout.strip()
    print(f"machine: {machine()}")
    print(f"commit: {commit or '?'}{' (plus working-tree changes)' if dirty else ''}; "
          f"manifest: {manifest}; {k} modules/family, {pairs} pairs each")
    print()
    print("| family | baseline | modules | geomean speedup (ref/baseline) | min | notes |")
    print("| --- | --- | --- | --- | --- | --- |")
    only = [f for f in os.environ.get("FAMILIES", "").split(",") if f]
    for fam, pipe in base.items():
        if only and fam not in only:
            continue
        files = [f for f, fa in rows if fa == fam][:k]
        label = "reference" if not pipe else (
            "tile32" if "tile-size=32" in pipe else "custom")
        if not pipe:
            print(f"| {fam} | {label} | {len(files)} | 1.000 | 1.000 | "
                  "same pipeline as the reference |")
            continue
        ratios, notes = [], []
        for f in files:
            r, st = measure(mqss, os.path.join(cdir, f), pipe, pairs)
            if r is None:
                notes.append(f"{f}: {st}")
            else:
                ratios.append(r)
                notes.append(f"{f} {r:.2f}")
        if ratios:
            g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print(f"| {fam} | {label} | {len(ratios)} | {g:.3f} | "
                  f"{min(ratios):.3f} | {'; '.join(notes)} |", flush=True)
        else:
            print(f"| {fam} | {label} | 0 | - | - | {'; '.join(notes)} |",
                  flush=True)


if __name__ == "__main__":
    main()
