#!/usr/bin/env python3
"""Position bias of compile times in the paired measurement (mqss measure --vs).

mqss eval reports a compile-time ratio from one paired child: the policy's
pipeline is side A, the family baseline side B. If the side compiled first pays
warm-ups the other does not, that ratio is biased against the policy. This
benchmark measures the bias with two pipelines X and Y on each module, in both
orders:

    mqss measure FILE --pipeline X --vs Y   (X first)
    mqss measure FILE --pipeline Y --vs X   (Y first)

X is the module's family baseline (data/baselines.yaml, schedule paths made
absolute) and Y is X plus llvm-request-c-wrappers, which lowers to different
code at the same cost. For a field f (pipeline_ms, jit_ms, compile_ms) the bias
of one round is sqrt((X_f as A / X_f as B) * (Y_f as A / Y_f as B)): how much
longer a pipeline takes when it is compiled first. 1.000 is no bias. Prints per
module the median over ROUNDS of each field's bias, their geomean over modules,
the machine, the commit and the date. Runs are --no-cache (the JIT is never an
object-cache hit), 1 timed pair. Run it alone on a quiet machine.

With KNOWN_REF=1 the comparisons are made as `mqss eval` makes them: in one
process (bench/measure_vs_rounds.c), after a first comparison that computes
the reference outputs, so that no later child lowers the reference for them
(docs/MEASURE.md, "The first JIT in a child is not a side's").

usage: bench/compile_order.py CORPUS_DIR [BUILD_DIR] [ROUNDS]
  CORPUS_DIR: a default corpus (mqss corpus gen); BUILD_DIR defaults to build,
  ROUNDS to 5. MODULES=a.mlir,b.mlir picks the modules (default: five hold-out
  modules whose baseline applies schedules).
"""
import json
import math
import os
import statistics
import subprocess
import sys
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ("pipeline_ms", "jit_ms", "compile_ms")
DEFAULT_MODULES = ("mlp_176.mlir", "resblock_547.mlir", "softmax_228.mlir",
                   "attention_145.mlir", "layernorm_42.mlir")


def baseline(family):
    path = os.path.join(ROOT, "data", "baselines.yaml")
    with open(path) as f:
        fam = yaml.safe_load(f)["families"]
    pipe = fam[family]["pipeline"]
    key = "transform-library-paths="
    return pipe.replace(key + "schedules/",
                        key + os.path.join(ROOT, "data", "schedules") + "/")


def measure(mqss, module, a, b):
    out = subprocess.run(
        [mqss, "measure", module, "--pipeline", a, "--vs", b, "--json",
         "--no-cache", "--warmup", "0", "--repeat", "1", "--no-code-size"],
        capture_output=True, text=True, check=False)
    try:
        j = json.loads(out.stdout)
    except json.JSONDecodeError:
        sys.exit(f"compile_order: {module}: no JSON from mqss measure:\n"
                 f"{out.stderr.strip()}")
    for side in ("a", "b"):
        if j[side]["status"] != "ok":
            sys.exit(f"compile_order: {module}: side {side}: "
                     f"{j[side]['status']}: {j[side].get('message', '')}")
    return j["a"], j["b"]


def measure_known_ref(helper, module, x, y, rounds):
    """Yields (xa, yb, ya, xb) per round from one bench_measure_vs_rounds run."""
    out = subprocess.run([helper, module, x, y, str(rounds)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"compile_order: {module}: {out.stderr.strip()}")
    rows = {"XY": [], "YX": []}
    for line in out.stdout.splitlines():
        order, *v = line.split()
        a = dict(zip(FIELDS, map(float, v[:3])))
        b = dict(zip(FIELDS, map(float, v[3:])))
        rows[order].append((a, b))
    for (xa, yb), (ya, xb) in zip(rows["XY"], rows["YX"]):
        yield xa, yb, ya, xb


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[-1])
    corpus = sys.argv[1]
    mqss = os.path.join(sys.argv[2] if len(sys.argv) > 2 else "build", "mqss")
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    modules = os.environ.get("MODULES")
    modules = modules.split(",") if modules else DEFAULT_MODULES
    known_ref = os.environ.get("KNOWN_REF") == "1"
    helper = os.path.join(os.path.dirname(mqss), "bench_measure_vs_rounds")
    if known_ref:
        subprocess.run(["cmake", "--build", os.path.dirname(mqss) or ".",
                        "-j2", "--target", "bench_measure_vs_rounds"],
                       check=True, stdout=subprocess.DEVNULL)
    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always",
                             "--dirty=+dirty"], capture_output=True,
                            text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "?")
    print(f"machine: {os.uname().nodename}, {cpu}, {os.cpu_count()} cores; "
          f"commit {commit}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"binary: {helper if known_ref else mqss}; {rounds} rounds per "
          f"module, both orders each; reference "
          f"{'known (as in mqss eval)' if known_ref else 'fresh in each child'}")
    print(f"{'module':24} " + " ".join(f"{f:>12}" for f in FIELDS))
    per_field = {f: [] for f in FIELDS}
    for name in modules:
        path = os.path.join(corpus, name)
        family = name.rsplit("_", 1)[0]
        x = baseline(family)
        y = x[:-1] + ",func.func(llvm-request-c-wrappers))"
        bias = {f: [] for f in FIELDS}
        if known_ref:
            samples = measure_known_ref(helper, path, x, y, rounds)
        else:
            samples = (measure(mqss, path, x, y) + measure(mqss, path, y, x)
                       for _ in range(rounds))
        for xa, yb, ya, xb in samples:
            for f in FIELDS:
                if min(xa[f], xb[f], ya[f], yb[f]) > 0:
                    bias[f].append(math.sqrt(xa[f] / xb[f] * ya[f] / yb[f]))
        med = {f: statistics.median(bias[f]) if bias[f] else float("nan")
               for f in FIELDS}
        for f in FIELDS:
            per_field[f].append(med[f])
        print(f"{name:24} " + " ".join(f"{med[f]:12.3f}" for f in FIELDS))
    geo = {f: math.exp(statistics.mean(math.log(v) for v in per_field[f]
                                       if v == v)) for f in FIELDS}
    print(f"{'geomean':24} " + " ".join(f"{geo[f]:12.3f}" for f in FIELDS))


if __name__ == "__main__":
    main()
