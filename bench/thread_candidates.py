#!/usr/bin/env python3
"""Thread candidates for the family baselines (issue 14 item 1: re-tune
with the new actions): an EXTRA file for scripts/retune_baselines.sh.

For each family of data/baselines.yaml, its entry with the thread actions
(docs/SCHEDULES.md, "Threads") added as a fixed recipe would add them:
  omp   the entry, then omp-parallel (outer parallel loops on OpenMP);
and where the family's train modules have named heavy ops (convolutions,
poolings, matmuls), every such op split in two first, then the entry:
  split0  along its first loop (parallel-tile T0=2, T1=1),
  split1  along its second (T0=1, T1=2),
  split1+omp  both.
The split addresses op kinds, as a recipe's steps do, but not
linalg.generic: the kind-wide parallel-tile would split every elementwise
op too. Its schedule is the catalog's own forall step, written by
`mqss catalog --apply` from a one-action catalog restricted to those kinds.

usage: bench/thread_candidates.py MQSS CORPUS_DIR OUT_FILE SCHEDULE_DIR
"""
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ["linalg.matmul", "linalg.batch_matmul", "linalg.conv_2d_nhwc_hwcf",
         "linalg.conv_2d_nchw_fchw", "linalg.depthwise_conv_2d_nhwc_hwc",
         "linalg.pooling_nhwc_max", "linalg.pooling_nhwc_sum",
         "linalg.pooling_nchw_max", "linalg.pooling_nchw_sum"]
# raw values at the middle of choice [1, 2, 4, 8]'s bins for 1 and 2
ONE, TWO = "-0.75", "-0.25"
HEAVY_RE = re.compile("|".join(re.escape(k) + r"\b" for k in HEAVY))
LIBRARY = re.compile(r"(transform-library-paths=)([^,}]+)")


def split_step(mqss, module, params, sched_dir, catalog):
    """The pipeline fragment of the named-kinds split with params."""
    env = dict(os.environ, MQSS_SCHEDULE_DIR=sched_dir)
    r = subprocess.run([mqss, "catalog", "--catalog", catalog, "--apply",
                        "parallel-tile-named", module, "--params", params],
                       capture_output=True, text=True, env=env, check=True)
    m = re.search(r"applied: builtin\.module\((.*)\)\s*$", r.stderr, re.M)
    if not m:
        sys.exit(f"thread_candidates: no pipeline from mqss catalog --apply: {r.stderr}")
    return m.group(1)


def inner(pipe):
    """The passes inside builtin.module(...), "" for the reference."""
    return pipe[len("builtin.module("):-1] if pipe else ""


def join(*parts):
    return "builtin.module(" + ",".join(p for p in parts if p) + ")"


def main():
    mqss, corpus, out, sched_dir = sys.argv[1:5]
    os.makedirs(sched_dir, exist_ok=True)
    with open(os.path.join(ROOT, "data", "catalog.yaml")) as f:
        actions = yaml.safe_load(f)["actions"]
    omp = next(a["pipeline"] for a in actions if a["name"] == "omp-parallel")
    tile = dict(next(a for a in actions if a["name"] == "parallel-tile"))
    tile.update(name="parallel-tile-named", ops=HEAVY, needs=HEAVY)
    catalog = os.path.join(sched_dir, "parallel_tile_named.yaml")
    with open(catalog, "w") as f:
        yaml.safe_dump({"version": 1, "actions": [tile]}, f)
    with open(os.path.join(ROOT, "data", "baselines.yaml")) as f:
        entries = {k: (v or {}).get("pipeline", "")
                   for k, v in yaml.safe_load(f)["families"].items()}
    # candidates are measured as they are written: schedule paths absolute
    data = os.path.join(ROOT, "data")
    entries = {k: LIBRARY.sub(lambda m: m.group(1) + os.path.join(data, m.group(2)), v)
               for k, v in entries.items()}
    heavy_module = {}
    with open(os.path.join(corpus, "train.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            path, fam = line.split("\t")[:2]
            path = os.path.join(corpus, path)
            if fam not in heavy_module:
                with open(path) as m:
                    if HEAVY_RE.search(m.read()):
                        heavy_module[fam] = path
    rows = []
    for fam, pipe in sorted(entries.items()):
        rows.append((fam, join(inner(pipe), omp)))
        if fam not in heavy_module:
            continue
        s0 = split_step(mqss, heavy_module[fam], f"{TWO},{ONE}", sched_dir, catalog)
        s1 = split_step(mqss, heavy_module[fam], f"{ONE},{TWO}", sched_dir, catalog)
        rows += [(fam, join(s0, inner(pipe))), (fam, join(s1, inner(pipe))),
                 (fam, join(s1, inner(pipe), omp))]
    with open(out, "w") as f:
        f.write("# family<TAB>pipeline: bench/thread_candidates.py\n")
        for fam, pipe in rows:
            f.write(f"{fam}\t{pipe}\n")
    print(f"{out}: {len(rows)} candidates for {len(entries)} families "
          f"({len(heavy_module)} with named heavy ops)")


if __name__ == "__main__":
    main()
