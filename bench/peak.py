#!/usr/bin/env python3
"""How far generated code is from the practical peak (run by bench/peak.sh).

For each kernel of bench/peak/ (f32 matmul 256^3 and 512^3, a batch matmul,
a 1x1 convolution) it prints, in one run on one machine:
  - the GFLOP/s of the best pipeline `mqss search` finds (greedy by default,
    budget 100, over the shipped catalog), re-measured with `mqss measure`,
    output checked;
  - the GFLOP/s of the hand-written transform schedule bench/peak/*.sched.mlir
    (preloaded, then the transform interpreter), output checked: what the
    catalog's cache-register-tile-fma action should reach;
  - single-thread OpenBLAS sgemm on the same shape (bench_peak_blas);
  - the ratio of each to OpenBLAS.
Times are medians of repeats (wall clock). Every mqss figure comes from a run
whose outputs matched the reference; a failed check prints the status instead
of a number.

usage: peak.py MQSS BLAS_BENCH COMMIT [--budget N] [--method M] [--repeat R]
               [--no-search] [--no-schedule] [--pipeline CASE=TEXT]...
"""
import argparse
import json
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEAK = os.path.join(HERE, "peak")

# name, module, (M, N, K, batch) of the equivalent sgemm, schedule file
CASES = [
    ("matmul 256^3", "matmul_256.mlir", (256, 256, 256, 1), "matmul.sched.mlir"),
    ("matmul 512^3", "matmul_512.mlir", (512, 512, 512, 1), "matmul.sched.mlir"),
    ("batch_matmul 8x256^3", "batch_matmul_8x256.mlir", (256, 256, 256, 8),
     "batch_matmul.sched.mlir"),
    ("conv1x1 56x56x256->256", "conv1x1_56x56x256.mlir", (3136, 256, 256, 1),
     "conv1x1.sched.mlir"),
]


def run(cmd, timeout):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def schedule_pipeline(path):
    return ("transform-preload-library{transform-library-paths=%s},"
            "transform-interpreter" % path)


def measure(mqss, module, pipeline, repeat):
    """(median ms, status) of `pipeline` on `module`, outputs checked."""
    cmd = [mqss, "measure", module, "--json", "--no-cache",
           "--repeat", str(repeat), "--warmup", "2", "--timeout", "300000"]
    if pipeline:
        cmd += ["--pipeline", pipeline]
    p = run(cmd, 900)
    try:
        d = json.loads(p.stdout)
    except json.JSONDecodeError:
        return None, "no output (%s)" % p.stderr.strip()[:120]
    if d["status"] != "ok":
        return None, "%s (%s)" % (d["status"], d.get("message", "")[:120])
    return d["run_ms"]["median"], "ok"


def search(mqss, module, method, budget):
    cmd = [mqss, "search", "--method", method, "--budget", str(budget),
           module, "--json", "--repeat", "5", "--warmup", "1", "--confirm", "5"]
    p = run(cmd, 7200)
    try:
        d = json.loads(p.stdout)
    except json.JSONDecodeError:
        return None, "search failed (%s)" % p.stderr.strip()[:120]
    return d["best_pipeline"], "ok"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return platform.processor() or "unknown"
    model = next((l.split(":", 1)[1].strip() for l in info.splitlines()
                  if l.startswith("model name")), "unknown")
    flags = next((l.split(":", 1)[1].split() for l in info.splitlines()
                  if l.startswith("flags")), [])
    simd = [f for f in ("avx2", "fma", "avx512f") if f in flags]
    return "%s (%s)" % (model, " ".join(simd) or "no avx2")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mqss")
    ap.add_argument("blas")
    ap.add_argument("commit")
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--method", default="greedy", choices=["greedy", "random"])
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--no-search", action="store_true")
    ap.add_argument("--no-schedule", action="store_true")
    ap.add_argument("--pipeline", action="append", default=[],
                    help="CASE=TEXT: also measure TEXT on the case whose "
                         "module file name starts with CASE")
    a = ap.parse_args()
    extra = [p.split("=", 1) for p in a.pipeline]

    print("# bench/peak.sh: GFLOP/s of generated code vs single-thread "
          "OpenBLAS sgemm")
    print("# machine: %s, %d cpus; commit %s; median of %d runs" %
          (cpu_model(), os.cpu_count() or 0, a.commit, a.repeat))
    print("%-24s %-9s %9s %9s %7s  %s" %
          ("kernel", "pipeline", "ms", "GFLOP/s", "vsBLAS", "status"))
    for name, fname, (m, n, k, batch), sched in CASES:
        module = os.path.join(PEAK, fname)
        flop = 2.0 * m * n * k * batch
        p = run([a.blas, str(m), str(n), str(k), str(batch), str(a.repeat)], 600)
        fields = p.stdout.split()
        blas_ms = float(fields[5]) if p.returncode == 0 and len(fields) == 7 \
            else None
        blas_gf = flop / (blas_ms * 1e6) if blas_ms else None
        rows = [("openblas", blas_ms, "ok" if blas_ms else p.stderr.strip())]
        candidates = []
        if not a.no_search:
            best, st = search(a.mqss, module, a.method, a.budget)
            if best is None:
                rows.append(("search", None, st))
            else:
                candidates.append(("search", best))
        if not a.no_schedule:
            candidates.append(("schedule",
                               schedule_pipeline(os.path.join(PEAK, sched))))
        candidates += [("given", text) for case, text in extra
                       if fname.startswith(case)]
        for label, pipeline in candidates:
            ms, st = measure(a.mqss, module, pipeline, a.repeat)
            if label == "search" and ms is not None:
                st = "ok: " + (pipeline or "(none better than the finisher alone)")
            rows.append((label, ms, st))
        for label, ms, st in rows:
            gf = flop / (ms * 1e6) if ms else None
            print("%-24s %-9s %9s %9s %7s  %s" % (
                name, label, "%.3f" % ms if ms else "-",
                "%.1f" % gf if gf else "-",
                "%.0f%%" % (100 * gf / blas_gf) if gf and blas_gf else "-", st))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
