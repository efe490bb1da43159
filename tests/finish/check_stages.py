#!/usr/bin/env python3
"""End-to-end test of the finisher on every example, at every IR stage.

For each examples/*.mlir and each stage-producing pipeline below, runs
`mqss opt FILE --pipeline STAGE --finish`, checks that only LLVM-dialect ops
remain, JIT-runs the result with mlir-cpu-runner and compares every printed
number with the reference: the same staged IR lowered by upstream mlir-opt
with docs/DESIGN.md's lowering recipe (plus the vector conversions). The reference
is independent of our code, so a finisher that drops or reorders work fails
here. The reference follows the stage, not the source, because a stage
pipeline may itself miscompile: affine-super-vectorize does on jacobi-2d.
When upstream's stage pipeline itself fails (affine-super-vectorize emits a
transfer_write that does not verify on an i32 reduction with an innermost
reduction loop), there is no reference; `mqss opt` must then refuse the
stage too.

usage: check_stages.py MQSS_BINARY EXAMPLES_DIR
"""
import glob
import math
import os
import re
import subprocess
import sys

BIN = "/usr/lib/llvm-19/bin"
LIBS = ",".join(f"/usr/lib/llvm-19/lib/lib{n}.so"
                for n in ("mlir_runner_utils", "mlir_c_runner_utils"))
BUFFERIZE = ("one-shot-bufferize{bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map}")
# convert-vector-to-scf unrolls: MLIR 19's default (loop) lowering of a 1-D
# transfer with a transposing permutation map crashes at run time (the
# vector stage of batch_matmul_transpose_b).
RECIPE = ("func.func(convert-linalg-to-loops),"
          "func.func(convert-vector-to-scf{full-unroll=true}),"
          "lower-affine,convert-scf-to-cf,convert-math-to-llvm,"
          "convert-math-to-libm,convert-vector-to-llvm,expand-strided-metadata,finalize-memref-to-llvm,"
          "convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
          "reconcile-unrealized-casts")

# stage name -> pipeline that leaves the module at that stage ("" = as written)
STAGES = {
    "source": "",
    "bufferized": BUFFERIZE,
    "affine": BUFFERIZE + ",func.func(convert-linalg-to-affine-loops)",
    "tiled": BUFFERIZE + ",func.func(convert-linalg-to-affine-loops),"
             "func.func(affine-loop-tile{tile-size=8})",
    "vector": BUFFERIZE + ",func.func(convert-linalg-to-affine-loops),"
              "func.func(affine-super-vectorize{virtual-vector-size=4})",
    "scf": BUFFERIZE + ",func.func(convert-linalg-to-loops)",
    "cf": BUFFERIZE + ",func.func(convert-linalg-to-loops),lower-affine,convert-scf-to-cf",
}

OP = re.compile(r'(?:^|=\s)"?([a-z_][a-z0-9_]*)\.[a-z_][a-z0-9_.]*[\s"(<{:]')
NUM = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)")


def run(cmd, stdin=None, timeout=120):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def numbers(output):
    # Drop the descriptor line (it holds a heap address) and keep the data.
    lines = [l for l in output.splitlines() if "base@" not in l]
    return [float(x) for x in NUM.findall("\n".join(lines))]


def execute(lowered):
    r = run([f"{BIN}/mlir-cpu-runner", "-e", "main", "-entry-point-result=void",
             f"-shared-libs={LIBS}"], lowered)
    return r.returncode, r.stdout + r.stderr


def close(a, b):
    return a == b or abs(a - b) <= 1e-4 * max(1.0, abs(a), abs(b)) or \
        (math.isnan(a) and math.isnan(b))


def main():
    mqss, examples = sys.argv[1], sys.argv[2]
    files = sorted(glob.glob(os.path.join(examples, "*.mlir")))
    if not files:
        sys.exit(f"no examples in {examples}")
    passed = failed = 0
    for f in files:
        name = os.path.basename(f)
        for stage, pipe in STAGES.items():
            ref = run([f"{BIN}/mlir-opt", f, "--pass-pipeline=builtin.module(" +
                       ",".join(p for p in (BUFFERIZE, pipe, RECIPE) if p) + ")"])
            rc, ref_out = execute(ref.stdout) if ref.returncode == 0 else (1, ref.stderr)
            if ref.returncode != 0 and pipe and run(
                    [f"{BIN}/mlir-opt", f, "--pass-pipeline=builtin.module(" +
                     BUFFERIZE + "," + pipe + ")"]).returncode != 0:
                r = run([mqss, "opt", f, "--finish", "--pipeline", pipe])
                if r.returncode == 0:
                    print(f"FAIL {name} [{stage}]: upstream's stage pipeline "
                          f"fails, but mqss opt accepted it")
                    failed += 1
                else:
                    passed += 1
                continue
            if rc != 0:
                print(f"FAIL {name} [{stage}]: reference failed:\n{ref_out[:400]}")
                failed += 1
                continue
            want = numbers(ref_out)
            cmd = [mqss, "opt", f, "--finish"] + (["--pipeline", pipe] if pipe else [])
            r = run(cmd)
            err = None
            if r.returncode != 0:
                err = f"mqss opt failed: {r.stderr.strip()}"
            else:
                left = sorted({d for d in OP.findall(r.stdout) if d not in ("llvm", "builtin")})
                if left:
                    err = f"non-LLVM dialects remain: {left}"
                else:
                    rc, out = execute(r.stdout)
                    got = numbers(out) if rc == 0 else None
                    if got is None:
                        err = f"run failed: {out.strip()[:400]}"
                    elif len(got) != len(want) or not all(map(close, got, want)):
                        bad = next((i for i, (a, b) in enumerate(zip(got, want))
                                    if not close(a, b)), min(len(got), len(want)))
                        err = (f"output differs from reference at number {bad} "
                               f"(got {len(got)} numbers, want {len(want)})")
            if err:
                print(f"FAIL {name} [{stage}]: {err}")
                failed += 1
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
