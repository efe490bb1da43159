#!/usr/bin/env python3
"""Bisects the failures a search met to the step that causes them.

Reads every `mqss search --json` result in SEARCH_DIR (FILE.json for module
CORPUS_DIR/FILE.mlir), takes each evaluation whose status is STATUS
(wrong_output unless given; crashed, verify_failed, ...), measures its
pipeline again, and bisects it to the first step after which it fails so
(a transform-preload-library and its transform-interpreter count as one
step; a schedule names its catalog action). Prints one line per failure
(module, guilty step, the shortest failing prefix) and a tally by pass.
Slow: a few measurements per failure; timing does not matter, so it may
share the machine.

usage: scripts/triage_search.py MQSS SEARCH_DIR CORPUS_DIR [STATUS [OUT.json]]
"""
import collections
import glob
import json
import os
import re
import subprocess
import sys


def steps(pipeline):
    """The top-level steps of builtin.module(...)."""
    body = pipeline[len("builtin.module("):-1]
    parts, depth, cur = [], 0, ""
    for ch in body:
        depth += ch in "({"
        depth -= ch in ")}"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    out = []
    for p in parts:
        if p.startswith("transform-interpreter") and out and \
                out[-1].startswith("transform-preload-library"):
            out[-1] += "," + p
        else:
            out.append(p)
    return out


def pipeline(st):
    return "builtin.module(" + ",".join(st) + ")"


class Measure:
    def __init__(self, mqss):
        self.mqss, self.seen = mqss, {}

    def status(self, module, st):
        key = (module, pipeline(st))
        if key not in self.seen:
            r = subprocess.run([self.mqss, "measure", module, "--pipeline",
                                key[1], "--repeat", "1", "--warmup", "0",
                                "--no-code-size"], capture_output=True,
                               text=True)
            found = [l.split()[1] for l in r.stdout.splitlines()
                     if l.startswith("status:")]
            self.seen[key] = found[0] if found else "failed"
        return self.seen[key]


def guilty(m, module, st, status):
    """The number of steps of the shortest failing prefix (st fails)."""
    ok, bad = 0, len(st)
    while bad - ok > 1:
        mid = (ok + bad) // 2
        if m.status(module, st[:mid]) == status:
            bad = mid
        else:
            ok = mid
    return bad


def label(step):
    """A step's pass, or a schedule's catalog action (its first comment)."""
    path = re.search(r"transform-library-paths=([^},]+)", step)
    if not path:
        return re.sub(r"\{.*", "", step).replace("func.func(", "").rstrip(")")
    try:
        with open(path.group(1)) as f:
            action = re.search(r"catalog action '([^']+)'", f.read())
    except OSError:
        return "schedule (file gone)"
    return "schedule " + (action.group(1) if action else "?")


def main():
    if len(sys.argv) not in (4, 5, 6):
        sys.exit(__doc__)
    status = sys.argv[4] if len(sys.argv) > 4 else "wrong_output"
    m = Measure(sys.argv[1])
    rows = []
    for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.json"))):
        name = os.path.basename(path)[:-len(".json")]
        module = os.path.join(sys.argv[3], name + ".mlir")
        for e in json.load(open(path)).get("trace", []):
            if e.get("status") != status:
                continue
            st = steps(e["pipeline"])
            again = m.status(module, st)
            if again != status:
                rows.append({"module": name, "result": "not again: " + again,
                             "pipeline": e["pipeline"]})
                continue
            n = guilty(m, module, st, status)
            rows.append({"module": name, "result": "guilty",
                         "step": st[n - 1], "label": label(st[n - 1]),
                         "prefix": pipeline(st[:n])})
            print(f"{name}: {st[n - 1]}  <=  {pipeline(st[:n])}", flush=True)
    tally = collections.Counter(
        r["label"] if r["result"] == "guilty" else r["result"] for r in rows)
    print(f"\n{status} by guilty step:")
    for what, count in tally.most_common():
        print(f"{count:6d}  {what}")
    if len(sys.argv) == 6:
        with open(sys.argv[5], "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
