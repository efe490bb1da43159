#!/usr/bin/env python3
"""Whether a threaded program's time still moves from child to child.

A program that runs its loops on libomp's team used to read one of two times
from one sandboxed child to the next: the kernel starts each process's stack
at a random offset within a page, and some offsets made the layer norms'
baselines twice as slow (docs/MEASURE.md, "Stack offset"). Since then
run_once starts each call at a new offset. This takes rows of an eval report
(FILES, or those whose policy or baseline pipeline holds
`convert-scf-to-openmp`; a split of named ops onto threads is lowered to
OpenMP by the finisher, so name such rows in FILES) and measures each in
CHILDREN children (`mqss measure --repeat REPEAT --warmup 1 --no-cache`, one
child each), under each setting of SETTINGS, interleaved child by child:
libomp as it is, its threads bound to distinct cores, and the process
without address-space randomisation. Each child's median is one sample. Per
row and setting it prints the samples' median, min, max, max / min and how
many read over 1.5x the fastest: a setting with a second mode shows them
there. Prints the machine, the commit and the date. Run it alone on a quiet
machine.

usage: bench/omp_modes.py REPORT.json MODULE_DIR [BUILD_DIR]
  env: FILES=a.mlir,b.mlir (default: the rows whose
  pipeline holds convert-scf-to-openmp, at most ROWS=3),
  SIDE=baseline|policy (baseline), CHILDREN (10), REPEAT (10).
"""
import json, os, platform, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peak import cpu_model  # noqa: E402

# name, environment added to the child's (libomp reads it when loaded),
# command prefix
SETTINGS = [
    ("libomp default", {}, []),
    ("OMP_PROC_BIND=spread OMP_PLACES=cores",
     {"OMP_PROC_BIND": "spread", "OMP_PLACES": "cores"}, []),
    ("setarch -R (no address randomisation)", {}, ["setarch", "-R"]),
]


def child_ms(mqss, path, pipe, repeat, extra, prefix):
    env = dict(os.environ, **extra)
    p = subprocess.run(prefix + [mqss, "measure", path, "--pipeline", pipe, "--json",
                        "--no-cache", "--warmup", "1", "--repeat",
                        str(repeat)], capture_output=True, text=True, env=env)
    r = json.loads(p.stdout)
    if r.get("status") != "ok":
        sys.exit(f"{path}: {r.get('status')}: {r.get('message', '')}")
    return r["run_ms"]["median"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    report, mdir = sys.argv[1], sys.argv[2]
    build = sys.argv[3] if len(sys.argv) > 3 else "build"
    mqss = os.path.join(build, "mqss")
    side = os.environ.get("SIDE", "baseline")
    key = side + "_pipeline"
    children = int(os.environ.get("CHILDREN", "10"))
    repeat = int(os.environ.get("REPEAT", "10"))
    rows = [r for r in json.load(open(report))["modules"]
            if r["status"] == "ok" and r.get(key)]
    if os.environ.get("FILES"):
        want = os.environ["FILES"].split(",")
        rows = [r for r in rows if r["file"] in want]
    else:
        rows = [r for r in rows if "openmp" in r[key]]
        rows = rows[:int(os.environ.get("ROWS", "3"))]
    if not rows:
        sys.exit(f"{report}: no {side} pipeline to measure among the rows")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    if subprocess.run(["git", "status", "--porcelain"], capture_output=True,
                      text=True).stdout.strip():
        commit += "+dirty"
    print(f"machine: {platform.node()}, {cpu_model()}, {os.cpu_count()} cores; "
          f"commit {commit}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{report}: {len(rows)} rows, the {side} pipeline; {children} "
          f"children per setting (interleaved), each the median of {repeat} "
          f"runs after 1 warm-up")
    for r in rows:
        path = os.path.join(mdir, r["file"])
        got = {name: [] for name, _, _ in SETTINGS}
        for _ in range(children):
            for name, extra, prefix in SETTINGS:
                got[name].append(child_ms(mqss, path, r[key], repeat, extra,
                                          prefix))
        print(f"\n{r['file']}")
        for name, xs in got.items():
            print(f"  {name:40s} median {statistics.median(xs):8.3f} ms  "
                  f"min {min(xs):8.3f}  max {max(xs):8.3f}  "
                  f"max/min {max(xs) / min(xs):5.2f}  "
                  f"over 1.5x min: {sum(x > 1.5 * min(xs) for x in xs)}  "
                  f"[{' '.join(f'{x:.3f}' for x in xs)}]")


if __name__ == "__main__":
    main()
