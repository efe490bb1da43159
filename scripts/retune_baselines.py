#!/usr/bin/env python3
"""Re-tunes the family baselines (issue 14 item 1) with the current catalog.

For each corpus family in the train split:
  1. search: on up to MODULES of its train modules (taken in turn from each
     distinct set of named linalg ops, so both layouts of a family that
     mixes them), `mqss search --method
     greedy` (budget BUDGET) and `--method random` (same budget); every
     confirmed winner becomes a candidate recipe, and so does the family's
     current entry in data/baselines.yaml (a baseline is never weakened);
  2. confirm: every candidate is re-measured on every chosen module with
     `mqss measure --pipeline P --vs ""` (PAIRS interleaved pairs, outputs
     checked); a candidate whose check fails on any module is out;
  3. the family's pipeline is the candidate with the largest geometric-mean
     Hodges-Lehmann speedup above 1 + MIN_GAIN that is confirmed on every
     module (each module's paired 95% interval lies above 1, or it lowers
     to the current entry's code there: a step for one layout), unless the
     current entry (still passing its checks) measures at least as fast, or
     the candidate does not beat it head to head (`--vs` the current entry
     on each module: geomean above 1 + MIN_GAIN, no module confirmed
     slower; identical lowered code is a tie): then the current entry
     stands; else the reference (""). The table also
     gives the t interval over the modules' log speedups (how much the gain
     varies from module to module; one module: its own interval) and the
     lowest per-module bound.
Schedule scripts of the searches go to OUT/schedules; OUT/baselines.yaml
names the ones it uses as schedules/mqss_<hash>.mlir, relative to itself
(mqss resolves them against the YAML's directory), so it is copied over
data/baselines.yaml together with those scripts into data/schedules/.
Writes OUT/baselines.yaml (a candidate for data/baselines.yaml) and
OUT/baselines_table.md (gain and interval per family, for docs/CORPUS.md),
and prints the machine, the commit and the date. Slow: run it on a quiet
machine (scripts/retune_baselines.sh). Resumable: every finished search and
measurement is appended to OUT/progress.jsonl, and a second run with the
same OUT (and settings) skips them; a torn last line is dropped.

usage: retune_baselines.py MQSS CORPUS_DIR OUT_DIR
  env: BUDGET (24; 0: no search, only the current entry and EXTRA's
       candidates), MODULES (3), PAIRS (10), MIN_GAIN (0.02), FAMILIES (all),
       TIMEOUT_MS (300000: per measurement, as `mqss baseline`; tile-32 on
       attention JIT-compiles for over 30 s, mqss's default),
       EXTRA (a file of "family<TAB>pipeline" lines: more candidates, e.g.
       the winners of bench/headroom.sh; confirmed like the others)
"""
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time

import yaml

MQSS, CORPUS, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGET = int(os.environ.get("BUDGET", 24))
MODULES = int(os.environ.get("MODULES", 3))
PAIRS = int(os.environ.get("PAIRS", 10))
MIN_GAIN = float(os.environ.get("MIN_GAIN", 0.02))
ONLY = [f for f in os.environ.get("FAMILIES", "").split(",") if f]
EXTRA = os.environ.get("EXTRA", "")
TIMEOUT_MS = os.environ.get("TIMEOUT_MS", "300000")
CACHE = os.path.join(OUT, "cache.sqlite")
PROGRESS = os.path.join(OUT, "progress.jsonl")
SCHEDULES = os.path.join(OUT, "schedules")
LIBRARY = re.compile(r"(transform-library-paths=)([^,}]+)")


def resolve(pipe, base):
    """pipe with relative schedule library paths made absolute under base."""
    return LIBRARY.sub(lambda m: m.group(1) + (
        m.group(2) if m.group(2).startswith("/") else os.path.join(base, m.group(2))), pipe)


def portable(pipe):
    """pipe naming its schedule scripts as schedules/<file>, copied there."""
    def local(m):
        dest = os.path.join(SCHEDULES, os.path.basename(m.group(2)))
        if not os.path.exists(dest):
            shutil.copyfile(m.group(2), dest)
        return m.group(1) + "schedules/" + os.path.basename(m.group(2))
    return LIBRARY.sub(local, pipe)
# two-sided 97.5% t quantiles by degrees of freedom (1..10), then normal
T975 = [12.71, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def run_json(args):
    """mqss's JSON answer, None when it gave none. A call killed by a signal
    ends the run instead: its outcome is unknown, and recording it as a
    failure would make the resume skip it."""
    r = subprocess.run([MQSS, *args, "--json"], capture_output=True, text=True)
    if r.returncode < 0:
        sys.exit(f"retune: mqss {args[0]} was killed by signal {-r.returncode}; "
                 f"nothing was recorded for it: run again with the same OUT to resume")
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        return None


def load_progress():
    """{key: value} of the steps an earlier run with this OUT finished."""
    done = {}
    if not os.path.exists(PROGRESS):
        return done
    with open(PROGRESS) as f:
        for n, line in enumerate(f, 1):
            try:
                row = json.loads(line) if line.endswith("\n") else None
            except json.JSONDecodeError:
                row = None
            if not isinstance(row, dict) or "key" not in row:
                print(f"{PROGRESS}:{n}: damaged or torn line dropped")
                continue
            done[row["key"]] = row["value"]
    return done


def remembered(done, key, compute):
    """done[key], computing and appending it (fsynced) when missing."""
    if key not in done:
        done[key] = compute()
        with open(PROGRESS, "a") as f:
            f.write(json.dumps({"key": key, "value": done[key]}) + "\n")
            f.flush()
            os.fsync(f.fileno())
    return done[key]


def search(path, method):
    # kind-wide: a winner's schedules address op kinds, not one module's
    # mqss.id tags, so they replay on the family's other modules
    j = run_json(["search", "--method", method, "--budget", str(BUDGET), path,
                  "--kind-wide", "--cache", CACHE, "--min-gain", str(MIN_GAIN),
                  "--timeout", TIMEOUT_MS,
                  "--confirm", str(PAIRS)])
    return j.get("winner_pipeline", "") if j else ""


def extra_candidates():
    """family -> set of pipelines from the EXTRA file."""
    out = {}
    if EXTRA:
        with open(EXTRA) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    fam, pipe = line.rstrip("\n").split("\t", 1)
                    out.setdefault(fam, set()).add(pipe)
    return out


def train_modules():
    fams = {}
    with open(os.path.join(CORPUS, "train.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            fams.setdefault(cols[1], []).append(os.path.join(CORPUS, cols[0]))
    return fams


NAMED_OP = re.compile(r"\blinalg\.([a-z0-9_]+)")
COMMON_OPS = {"generic", "yield", "index", "fill"}


def op_kinds(path):
    """The named linalg ops of a module (a convolution's layout among them),
    empty when it cannot be read."""
    try:
        with open(path) as f:
            return frozenset(NAMED_OP.findall(f.read())) - COMMON_OPS
    except OSError:
        return frozenset()


def spread(paths, k):
    """k of paths taken in turn from each distinct set of named ops (in order
    of first appearance), so that a family that mixes layouts is tuned on
    each: its first k modules can all be of one."""
    groups = {}
    for p in paths:
        groups.setdefault(op_kinds(p), []).append(p)
    out, i = [], 0
    while len(out) < min(k, len(paths)):
        out += [g[i] for g in groups.values() if i < len(g)][:k - len(out)]
        i += 1
    return out


def measure(path, pipeline):
    """(hl, lo, hi) of time(reference) / time(pipeline), or None when not OK."""
    j = run_json(["measure", path, "--pipeline", pipeline, "--vs", "", "--repeat",
                  str(PAIRS), "--warmup", "1", "--cache", CACHE, "--no-code-size",
                  "--timeout", TIMEOUT_MS])
    if not j or any(j.get(side, {}).get("status") != "ok" for side in ("a", "b")):
        return None
    r = j.get("ratio_b_over_a")
    return (r["hl"], r["lo"], r["hi"]) if r else None


def head_to_head(path, challenger, current):
    """(hl, lo, hi) of time(current) / time(challenger), (1, 1, 1) when they
    lower to identical code, None when a side is not OK."""
    j = run_json(["measure", path, "--pipeline", challenger, "--vs", current,
                  "--repeat", str(PAIRS), "--warmup", "1", "--no-code-size",
                  "--timeout", TIMEOUT_MS])
    if not j or any(j.get(side, {}).get("status") != "ok" for side in ("a", "b")):
        return None
    r = j.get("ratio_b_over_a")
    return (r["hl"], r["lo"], r["hi"]) if r else None


def same_as_current(done, fam, cand, current, paths, res):
    """Whether cand lowers to the current entry's code on every module where
    it is not confirmed faster than the reference: a step for one layout
    leaves the other layout's modules as they were, and those need not clear
    the reference again to keep the entry they already have."""
    cur = current.get(fam, "")
    if not cur or cand == cur:
        return cand == cur
    return all(list(remembered(done, f"h2h\t{p}\t{cand}\t{cur}\t{PAIRS}",
                               lambda: head_to_head(p, cand, cur)) or []) == [1, 1, 1]
               for p, r in zip(paths, res) if r[1] <= 1)


def summary(results):
    """Geomean speedup and its 95% interval over the modules."""
    logs = [math.log(r[0]) for r in results]
    g = math.exp(sum(logs) / len(logs))
    if len(logs) == 1:
        return g, results[0][1], results[0][2]
    mean = sum(logs) / len(logs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    t = T975[len(logs) - 2] if len(logs) - 1 <= len(T975) else 1.96
    half = t * sd / math.sqrt(len(logs))
    return g, math.exp(mean - half), math.exp(mean + half)


def main():
    os.makedirs(SCHEDULES, exist_ok=True)
    os.environ["MQSS_SCHEDULE_DIR"] = SCHEDULES
    data = os.path.join(ROOT, "data")
    with open(os.path.join(data, "baselines.yaml")) as f:
        current = {k: resolve((v or {}).get("pipeline", ""), data)
                   for k, v in yaml.safe_load(f)["families"].items()}
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    print(f"machine: {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; commit {commit}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"settings: budget {BUDGET} (greedy and random), {MODULES} modules per family, "
          f"{PAIRS} pairs, min gain {MIN_GAIN}")
    chosen, rows, extra = {}, [], extra_candidates()
    done = load_progress()
    if done:
        print(f"resuming: {len(done)} finished steps in {PROGRESS}")
    for fam, paths in sorted(train_modules().items()):
        if ONLY and fam not in ONLY:
            continue
        paths = spread(paths, MODULES)
        cands = {current.get(fam, "")} | extra.get(fam, set())
        for p in paths if BUDGET > 0 else []:
            for method in ("greedy", "random"):
                key = f"search\t{p}\t{method}\t{BUDGET}\t{PAIRS}"
                cands.add(remembered(done, key, lambda: search(p, method)))
        best = ("", 1.0, 1.0, 1.0, 1.0)
        cur = None
        for c in sorted(cands):
            if not c:
                continue
            res = [remembered(done, f"measure\t{p}\t{c}\t{PAIRS}",
                              lambda: measure(p, c)) for p in paths]
            if any(r is None for r in res):
                print(f"  {fam}: '{c}' failed on a module (wrong output, crash or error): out")
                continue
            g, lo, hi = summary(res)
            low = min(r[1] for r in res) # the slowest module's lower bound
            print(f"  {fam}: {g:.3f}x [{lo:.3f}, {hi:.3f}] lowest {low:.3f} {c}")
            if c == current.get(fam, ""):
                cur = (g, lo, hi, low)
            if g > 1 + MIN_GAIN and g > best[1] and (
                    low > 1 or same_as_current(done, fam, c, current, paths, res)):
                best = (c, g, lo, hi, low)
        if cur and best[0] != current.get(fam, "") and best[1] <= cur[0]:
            best = (current[fam], *cur) # never weaken: the current entry stands
        elif cur and best[0] != current.get(fam, ""):
            # Separate comparisons with the reference differ by their noise:
            # a challenger replaces the entry only when it beats it head to
            # head (geomean over the modules above 1 + MIN_GAIN, no module
            # confirmed slower); code that lowers identically never does.
            h2h = [remembered(done, f"h2h\t{p}\t{best[0]}\t{current[fam]}\t{PAIRS}",
                              lambda: head_to_head(p, best[0], current[fam]))
                   for p in paths]
            ok = all(r is not None for r in h2h)
            g2 = summary(h2h)[0] if ok else 0
            print(f"  {fam}: head to head with the current entry: "
                  + (f"{g2:.3f}x, per module " + ", ".join(
                      f"{r[0]:.3f}x [{r[1]:.3f}, {r[2]:.3f}]" for r in h2h)
                     if ok else "a side failed"))
            if not ok or g2 <= 1 + MIN_GAIN or any(r[2] < 1 for r in h2h):
                best = (current[fam], *cur)
        chosen[fam] = best[0]
        cur_text = "reference" if not current.get(fam) else (
            f"{cur[0]:.2f}x [{cur[1]:.2f}, {cur[2]:.2f}]" if cur else "failed")
        rows.append((fam, *best, len(paths), cur_text))
    with open(os.path.join(OUT, "baselines.yaml"), "w") as f:
        f.write(f"# Candidate family baselines from scripts/retune_baselines.sh (commit {commit}):\n"
                f"# greedy + random search (budget {BUDGET}) on {MODULES} train modules per family,\n"
                f"# confirmed with {PAIRS} interleaved pairs per module, outputs checked.\n"
                "version: 1\nfamilies:\n")
        for fam, pipe, g, lo, hi, low, n, _ in rows:
            f.write(f"  # {g:.2f}x [{lo:.2f}, {hi:.2f}] over the reference on {n} modules\n")
            f.write(f"  {fam}:\n    pipeline: {json.dumps(portable(pipe))}\n")
        for fam in sorted(set(current) - set(chosen)):
            f.write(f"  # not re-tuned (no train modules or not selected): kept\n")
            f.write(f"  {fam}:\n    pipeline: {json.dumps(portable(current[fam]))}\n")
    with open(os.path.join(OUT, "baselines_table.md"), "w") as f:
        f.write("| family | pipeline | gain vs reference | 95% interval over modules "
                "| lowest module bound | modules | old baseline |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- |\n")
        for fam, pipe, g, lo, hi, low, n, cur_text in rows:
            f.write(f"| {fam} | `{portable(pipe) or '(reference)'}` | {g:.2f}x | [{lo:.2f}, {hi:.2f}] "
                    f"| {low:.2f} | {n} | {cur_text} |\n")
    print(open(os.path.join(OUT, "baselines_table.md")).read())
    print(f"wrote {OUT}/baselines.yaml and {OUT}/baselines_table.md")


if __name__ == "__main__":
    main()
