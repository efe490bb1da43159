#!/usr/bin/env python3
"""How far a compile-time ratio moves between repeated measurements.

`mqss eval` reports each module's compile-time ratio (policy pipeline over
its base) from compile-only samples of each side (eval_run.c, compile_cost),
and the p95 of those ratios is a target (docs/EVAL.md). This benchmark takes
SAMPLES compile-only samples of each side of some rows of an eval report
(bench_compile_samples: one sandboxed child per sample, order A B B A ...)
and asks, by resampling them, how widely an estimate from k samples per side
spreads: for each estimator (the ratio of the sides' medians or minima of k
samples, or the median of k ratios of samples taken next to each other,
"paired") it draws DRAWS random
k-subsets of each side and prints the ratio's median and the width of its
central 90% (p95 / p5 - 1), per module and as the median over modules. The
narrower, the better an eval's p95 can be trusted. It also splits the spread
by component (pipeline, finisher, LLVM). Then the estimator `mqss eval`
uses: CHILDREN sandboxed children, each compiling each side CHILD_K times
(A B B A ...) and keeping its fastest (mqss_measure_vs, compile_only); it
prints the children's ratios (median, min, max, width max / min - 1).
Prints the machine, the commit and the date. Run it alone on a quiet
machine.

usage: bench/compile_spread.py REPORT.json MODULE_DIR [BUILD_DIR]
  env: ROWS (4): the rows with the largest compile ratios (other than
  exactly 1: same pipeline); FILES=a.mlir,b.mlir picks rows by name
  instead; SAMPLES (15) per side; DRAWS (2000); CHILDREN (10), CHILD_K (5).
"""
import json, os, platform, random, statistics, subprocess, sys, time

def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    report, mdir = sys.argv[1], sys.argv[2]
    build = sys.argv[3] if len(sys.argv) > 3 else "build"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    subprocess.run(["cmake", "--build", build, "-j2", "--target",
                    "bench_compile_samples"], check=True, capture_output=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    if subprocess.run(["git", "status", "--porcelain"], capture_output=True,
                      text=True).stdout.strip():
        commit += "+dirty"
    n = int(os.environ.get("SAMPLES", "15"))
    draws = int(os.environ.get("DRAWS", "2000"))
    ck, cr = int(os.environ.get("CHILD_K", "5")), int(os.environ.get("CHILDREN", "10"))
    rows = [r for r in json.load(open(report))["modules"]
            if r["status"] == "ok" and r["compile_ratio"] not in (None, 0, 1)]
    if os.environ.get("FILES"):
        want = os.environ["FILES"].split(",")
        rows = [r for r in rows if r["file"] in want]
    else:
        rows.sort(key=lambda r: -r["compile_ratio"])
        rows = rows[:int(os.environ.get("ROWS", "4"))]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), platform.machine())
    print(f"machine: {platform.node()}, {cpu}, {os.cpu_count()} cores; "
          f"commit {commit}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{report}: {len(rows)} rows; {n} compile-only samples per side "
          f"(order A B B A ...); {draws} draws per estimator; then {cr} "
          f"children of {ck} compiles per side; ratio = A / B (policy / base)")
    # k <= n / 3: larger subsets of the n samples overlap too much to show
    # the spread of k fresh samples
    ests = [(f, k) for f in ("median", "min", "paired") for k in (1, 3, 5, 9)
            if 3 * k <= n]
    widths = {e: [] for e in ests + [("child", ck)]}
    rng = random.Random(1)
    for r in rows:
        cmd = [f"{build}/bench_compile_samples", os.path.join(mdir, r["file"]),
               r["policy_pipeline"], r["baseline_pipeline"]]
        out = subprocess.run(cmd + ["SAMPLES", str(n)], capture_output=True,
                             text=True)
        if out.returncode != 0:
            print(f"{r['file']}: failed: {out.stderr.strip()}")
            continue
        side = {"A": [], "B": []}
        for line in out.stdout.splitlines():
            f = line.split()
            side[f[0]].append([float(x) for x in f[1:]])
        comp = lambda s, i: [x[i] for x in side[s]]
        cv = lambda v: statistics.pstdev(v) / statistics.mean(v) if any(v) else 0
        print(f"\n{r['file']} (eval's ratio {r['compile_ratio']:.3f}): "
              f"A {statistics.median(comp('A', 0)):.1f} ms, "
              f"B {statistics.median(comp('B', 0)):.1f} ms; spread of one "
              f"sample (CV) A/B: total {cv(comp('A', 0)):.3f}/{cv(comp('B', 0)):.3f}, "
              f"pipeline {cv(comp('A', 1)):.3f}/{cv(comp('B', 1)):.3f}, "
              f"finisher {cv(comp('A', 2)):.3f}/{cv(comp('B', 2)):.3f}, "
              f"llvm {cv(comp('A', 3)):.3f}/{cv(comp('B', 3)):.3f}")
        # the samples of the two sides taken next to each other: A0 B0, B1
        # A1, ... (the order A B B A): a slow spell slows both of a pair
        pairs = list(zip(comp("A", 0), comp("B", 0)))
        for f, k in ests:
            if f == "paired":
                ratios = sorted(statistics.median(a / b for a, b in
                                                  rng.sample(pairs, k))
                                for _ in range(draws))
            else:
                agg = statistics.median if f == "median" else min
                ratios = sorted(agg(rng.sample(comp("A", 0), k)) /
                                agg(rng.sample(comp("B", 0), k))
                                for _ in range(draws))
            lo, mid, hi = (ratios[int(q * (draws - 1))] for q in (0.05, 0.5, 0.95))
            widths[(f, k)].append(hi / lo - 1)
            print(f"  {f:6s} of {k}: ratio {mid:.3f}, 90% of estimates in "
                  f"[{lo:.3f}, {hi:.3f}] (width {100 * (hi / lo - 1):.1f}%)")
        out = subprocess.run(cmd + ["CHILDREN", str(ck), str(cr)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"  children: failed: {out.stderr.strip()}")
            continue
        ratios = sorted(float(f[1]) / float(f[2]) for f in
                        (l.split() for l in out.stdout.splitlines()))
        widths[("child", ck)].append(ratios[-1] / ratios[0] - 1)
        print(f"  one child, fastest of {ck} per side: ratio "
              f"{statistics.median(ratios):.3f}, {cr} children in "
              f"[{ratios[0]:.3f}, {ratios[-1]:.3f}] (width "
              f"{100 * (ratios[-1] / ratios[0] - 1):.1f}%)")
    print("\nmedian width over modules (p95 / p5 - 1 of the ratio; for the "
          "children, max / min - 1):")
    for e in ests + [("child", ck)]:
        if widths[e]:
            print(f"  {e[0]:6s} of {e[1]}: {100 * statistics.median(widths[e]):.1f}%")

if __name__ == "__main__":
    main()
