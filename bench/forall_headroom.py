#!/usr/bin/env python3
"""What a thread split of every heavy op adds in front of a policy's pipelines.

For every module of a manifest, takes the policy's pipeline (`mqss select`)
and puts in front of it a transform script that tiles each convolution,
pooling, matmul and batch matmul (by its mqss.id) with an scf.forall of
NUM_THREADS tiles along its first output loop of extent >= 2 (the loops
parallel-tile splits; docs/SCHEDULES.md, "Threads"). The policy's own
schedule then applies to the op inside the forall, and the finisher runs the
forall's tiles on the async runtime's workers. Measures

    mqss measure FILE --pipeline POLICY --vs SPLIT+POLICY --json

(interleaved pairs in one sandbox child, both sides checked against the
reference) and prints per module the Hodges-Lehmann ratio
time(POLICY) / time(SPLIT+POLICY) with its interval and verdict, then the
geomean over the measured modules and over all (a module with no such op
counts as 1), the machine and the commit. A reading of what threads could
add to the policy's pipelines, not a policy's result.

usage: bench/forall_headroom.py MQSS MANIFEST_TSV [OUT_DIR]
  env: PAIRS (10), NUM_THREADS (2)
"""
import os
import re
import subprocess
import sys
import tempfile

from vs_line import geomean_line, header, measure_vs

# Ops whose leading loops are the dimensions of their output, in order.
KINDS = ("conv_", "pooling_", "depthwise_conv_", "matmul", "batch_matmul")
OP = re.compile(r"linalg\.([a-z0-9_]+) .*mqss\.id = (\d+) : i64.*"
                r"outs\(%\w+ : (?:tensor|memref)<([0-9x]+)x[a-z0-9]+")


def split_ops(mqss, path):
    """(kind, id, loop) of each op to split."""
    r = subprocess.run([mqss, "opt", path, "--tag"], capture_output=True, text=True)
    if r.returncode:
        return []
    ops = []
    for m in OP.finditer(r.stdout):
        kind, op_id, shape = m.group(1), int(m.group(2)), m.group(3)
        if not kind.startswith(KINDS):
            continue
        dims = [int(x) for x in shape.split("x")]
        loop = next((i for i, e in enumerate(dims) if e >= 2), None)
        if loop is not None:
            ops.append((kind, op_id, loop))
    return ops


def script(ops, threads):
    lines = ["module attributes {transform.with_named_sequence} {",
             "  transform.named_sequence @mqss_split(%root: !transform.any_op "
             "{transform.readonly}) {"]
    for k, (kind, op_id, loop) in enumerate(ops):
        nt = ", ".join(["0"] * loop + [str(threads)])
        lines += [f'    %m{k} = transform.structured.match ops{{["linalg.{kind}"]}} '
                  f"attributes {{mqss.id = {op_id} : i64}} in %root : "
                  "(!transform.any_op) -> !transform.any_op",
                  f"    %t{k}, %f{k} = transform.structured.tile_using_forall %m{k} "
                  f"num_threads [{nt}] : (!transform.any_op) -> "
                  "(!transform.any_op, !transform.any_op)"]
    lines += ["    transform.yield", "  }", "}"]
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    mqss, manifest = sys.argv[1:3]
    out = sys.argv[3] if len(sys.argv) == 4 else tempfile.mkdtemp()
    os.makedirs(out, exist_ok=True)
    pairs = os.environ.get("PAIRS", "10")
    threads = int(os.environ.get("NUM_THREADS", "2"))
    corpus = os.path.dirname(os.path.abspath(manifest))
    print(header(pairs, f"{threads} tiles per op"))
    print("module\tops split\tratio\tinterval\tverdict")
    speeds, n_all = [], 0
    for line in open(manifest):
        if line.startswith("#") or not line.strip():
            continue
        name = line.split("\t")[0]
        path = os.path.join(corpus, name)
        n_all += 1
        ops = split_ops(mqss, path)
        if not ops:
            print(f"{name}\t0\t-\t-\tno op to split", flush=True)
            continue
        lib = os.path.join(out, name.replace(".mlir", "_split.mlir"))
        with open(lib, "w") as f:
            f.write(script(ops, threads))
        sel = subprocess.run([mqss, "select", path], capture_output=True, text=True)
        policy = sel.stdout.strip().splitlines()[-1] if sel.returncode == 0 else ""
        split = (f"transform-preload-library{{transform-library-paths={lib}}},"
                 "transform-interpreter{entry-point=mqss_split}")
        inner = policy[len("builtin.module("):-1] if policy.startswith("builtin.module(") else ""
        both = f"builtin.module({split}{',' + inner if inner else ''})"
        speed, cell = measure_vs(mqss, path, policy, both, pairs,
                                 ("--no-cache", "--timeout", "120000"))
        if speed is not None:
            speeds.append(speed)
        print(f"{name}\t{len(ops)}\t{cell}", flush=True)
    print(geomean_line(speeds, n_all))


if __name__ == "__main__":
    main()
