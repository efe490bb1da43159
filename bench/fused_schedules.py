#!/usr/bin/env python3
"""What running consecutive schedule decisions with one transform
interpreter (src/actions/join.c) saves in compile time.

For each module of MANIFEST whose selection by POLICY has a run of two or
more schedule decisions, it takes the printed pipeline (the run fused) and
the same decisions joined one interpreter per decision (the text a
selection printed before join.c: each decision's own pipeline from
`mqss select --json`), checks with `mqss opt` that both give the same IR,
and takes SAMPLES compile-only samples of each side (bench_compile_samples:
one sandboxed child per sample, order A B B A ..., no cache). It prints per
module the median pipeline and compile times of both sides and their
ratios, then the medians over modules, with the machine, the commit and the
date. Run it alone on a quiet machine.

usage: bench/fused_schedules.py MANIFEST [POLICY] [BUILD_DIR]
  env: SAMPLES (7) per side; LIMIT (0: all) modules with a run.
"""
import json, os, platform, statistics, subprocess, sys, time

PRELOAD = "transform-preload-library{transform-library-paths="


def unwrap(p):
    head = "builtin.module("
    return p[len(head):-1] if p.startswith(head) and p.endswith(")") else p


def separate(steps):
    """One interpreter per decision; a library preloaded once (mlir-opt
    rejects a second copy), as selection.c joined them."""
    out, seen = [], set()
    for s in steps:
        s = unwrap(s)
        if s.startswith(PRELOAD):
            path = s[len(PRELOAD):s.index("}")]
            if path in seen:
                s = s[s.index("},") + 2:]
            seen.add(path)
        out.append(s)
    return "builtin.module(" + ",".join(out) + ")"


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    manifest = sys.argv[1]
    policy = sys.argv[2] if len(sys.argv) > 2 else "models/default.safetensors"
    build = sys.argv[3] if len(sys.argv) > 3 else "build"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    subprocess.run(["cmake", "--build", build, "-j2", "--target",
                    "bench_compile_samples"], check=True, capture_output=True)
    commit = run(["git", "rev-parse", "--short", "HEAD"]).stdout.strip()
    if run(["git", "status", "--porcelain"]).stdout.strip():
        commit += "+dirty"
    n = int(os.environ.get("SAMPLES", "7"))
    limit = int(os.environ.get("LIMIT", "0"))
    mqss = f"{build}/mqss"
    mdir = os.path.dirname(os.path.abspath(manifest))
    files = []
    for line in open(manifest):
        cols = line.rstrip("\n").split("\t")
        if cols and cols[0].endswith(".mlir") and not line.startswith("#"):
            files.append(cols[0] if os.path.isabs(cols[0])
                         else os.path.join(mdir, cols[0]))
    print(f"# fused_schedules: {platform.node()}, {os.cpu_count()} cores; "
          f"commit {commit}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# policy {policy}; {n} compile-only samples per side per module")
    print("module\tdecisions\tinterpreters fused/separate\t"
          "pipeline ms fused/separate\tratio\tcompile ms fused/separate\tratio")
    pr, cr, done = [], [], 0
    for f in files:
        sel = run([mqss, "select", f, "--policy", policy, "--json"])
        if sel.returncode:
            print(f"{os.path.basename(f)}\tselect failed: {sel.stderr.strip()}")
            continue
        d = json.loads(sel.stdout)
        fused = d["pipeline"]
        sep = separate([x["pipeline"] for x in d["decisions"]])
        if fused.count("transform-interpreter") == sep.count("transform-interpreter"):
            continue
        irs = [run([mqss, "opt", f, "--pipeline", p]) for p in (fused, sep)]
        if irs[0].returncode or irs[0].stdout != irs[1].stdout:
            print(f"{os.path.basename(f)}\tDIFFERENT IR (or failed): "
                  f"{irs[0].stderr.strip()[:200]}")
            continue
        out = run([f"{build}/bench_compile_samples", f, fused, sep,
                   "SAMPLES", str(n)])
        if out.returncode:
            print(f"{os.path.basename(f)}\tsamples failed: {out.stderr.strip()}")
            continue
        side = {"A": [], "B": []}
        for line in out.stdout.splitlines():
            c = line.split()
            if c and c[0] in side:
                side[c[0]].append((float(c[1]), float(c[2])))
        med = {k: (statistics.median(x[1] for x in v),
                   statistics.median(x[0] for x in v)) for k, v in side.items()}
        pr.append(med["A"][0] / med["B"][0])
        cr.append(med["A"][1] / med["B"][1])
        print(f"{os.path.basename(f)}\t{len(d['decisions'])}\t"
              f"{fused.count('transform-interpreter')}/"
              f"{sep.count('transform-interpreter')}\t"
              f"{med['A'][0]:.1f}/{med['B'][0]:.1f}\t{pr[-1]:.3f}\t"
              f"{med['A'][1]:.1f}/{med['B'][1]:.1f}\t{cr[-1]:.3f}", flush=True)
        done += 1
        if limit and done >= limit:
            break
    if pr:
        print(f"median over {len(pr)} modules: pipeline {statistics.median(pr):.3f}x "
              f"(min {min(pr):.3f}, max {max(pr):.3f}), compile "
              f"{statistics.median(cr):.3f}x (min {min(cr):.3f}, max {max(cr):.3f}) "
              "of the separate interpreters' time")


if __name__ == "__main__":
    main()
