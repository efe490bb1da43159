#!/usr/bin/env python3
"""What a change to data/baselines.yaml does, module by module.

For every module of the manifests whose family has a different pipeline in
NEW than in OLD, runs

    mqss measure FILE --pipeline NEW --vs OLD --json --repeat PAIRS

(interleaved pairs in one sandbox child, both sides checked against the
reference) and prints the Hodges-Lehmann ratio time(OLD) / time(NEW) with
its 95% interval ("identical" when both lower to the same code), then per
family the geomean and how many modules are faster, within noise, slower,
identical or failed. Relative schedule paths resolve against each YAML's
directory, as mqss does. OLD is typically `git show REV:data/baselines.yaml`
saved next to a copy of REV's data/schedules/.

usage: bench/baseline_change.py MQSS OLD_YAML NEW_YAML MANIFEST...
  env: PAIRS (10), FAMILIES (comma-separated; default every changed family)
"""
import json
import math
import os
import platform
import re
import subprocess
import sys
import time

import yaml

LIBRARY = re.compile(r"(transform-library-paths=)([^,}]+)")
PAIRS = os.environ.get("PAIRS", "10")
ONLY = [f for f in os.environ.get("FAMILIES", "").split(",") if f]


def entries(path):
    """{family: pipeline as written}, and a function that resolves its schedule paths."""
    base = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        fams = yaml.safe_load(f)["families"]
    return ({k: (v or {}).get("pipeline", "") for k, v in fams.items()},
            lambda pipe: LIBRARY.sub(lambda m: m.group(1) + os.path.join(base, m.group(2)), pipe))


def modules(manifests, changed):
    for tsv in manifests:
        root = os.path.dirname(os.path.abspath(tsv))
        with open(tsv) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if line.startswith("#") or len(cols) < 2 or cols[1] not in changed:
                    continue
                yield os.path.join(root, cols[0]), cols[1]


def compare(mqss, path, new, old):
    """('identical'|'faster'|'noise'|'slower'|'failed', hl, lo, hi)."""
    p = subprocess.run([mqss, "measure", path, "--pipeline", new, "--vs", old,
                        "--json", "--repeat", PAIRS, "--warmup", "1", "--no-cache",
                        "--no-code-size"], capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
    except json.JSONDecodeError:
        return ("failed", 0, 0, 0)
    if any(j.get(s, {}).get("status") != "ok" for s in ("a", "b")):
        return ("failed", 0, 0, 0)
    r = j["ratio_b_over_a"]
    if j.get("identical"):
        return ("identical", 1.0, 1.0, 1.0)
    verdict = {"A faster": "faster", "B faster": "slower"}.get(j.get("verdict"), "noise")
    return (verdict, r["hl"], r["lo"], r["hi"])


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__.strip().splitlines()[-2])
    mqss, old_path, new_path, manifests = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    (old, old_abs), (new, new_abs) = entries(old_path), entries(new_path)
    changed = {f for f in new if new[f] != old.get(f, "") and (not ONLY or f in ONLY)}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    print(f"# machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores; "
          f"commit {commit or 'unknown'}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{PAIRS} pairs; changed families: {', '.join(sorted(changed)) or 'none'}")
    print("module\tfamily\tverdict\told/new\t95% interval")
    per = {}
    for path, fam in modules(manifests, changed):
        v, hl, lo, hi = compare(mqss, path, new_abs(new[fam]), old_abs(old.get(fam, "")))
        per.setdefault(fam, []).append((v, hl))
        print(f"{os.path.basename(path)}\t{fam}\t{v}\t{hl:.3f}x\t[{lo:.3f}, {hi:.3f}]", flush=True)
    print("\nfamily\tmodules\tgeomean old/new\tfaster\tnoise\tslower\tidentical\tfailed")
    for fam, rs in sorted(per.items()):
        ok = [hl for v, hl in rs if v != "failed"]
        g = math.exp(sum(math.log(x) for x in ok) / len(ok)) if ok else float("nan")
        counts = [sum(v == k for v, _ in rs)
                  for k in ("faster", "noise", "slower", "identical", "failed")]
        print(f"{fam}\t{len(rs)}\t{g:.3f}x\t" + "\t".join(map(str, counts)))


if __name__ == "__main__":
    main()
