#!/bin/sh
# The guarded any-time compile on the hand-written examples (issue 14 item
# 7, "never below the family baseline"): for every example with a family in
# examples/families.tsv, `mqss compile --guard --budget N --baseline B` with
# B that family's pipeline from data/baselines.yaml (docs/POLICY.md,
# "Any-time selection", step 6), then `mqss measure --vs B` of the pipeline
# it used against B (PAIRS interleaved pairs, Hodges-Lehmann ratio). Prints
# per module which pipeline was used and its speedup over the baseline, and
# the geomean and the count confirmed below the baseline (the interval under
# 1/1.02), each of those with the guard's reason for keeping the selection;
# with the machine, the commit and the date. Run it alone.
#
# usage: bench/guard_examples.sh [POLICY] [BUILD_DIR]
#   env: BUDGET (4), PAIRS (10), MANIFEST (examples/families.tsv; any
#        manifest whose first two columns are file and family, such as a
#        corpus's holdout.tsv, paths relative to it)
set -eu
policy=${1:-}
[ -z "$policy" ] || policy=$(cd "$(dirname "$policy")" && pwd)/$(basename "$policy")
cd "$(dirname "$0")/.."
policy=${policy:-$PWD/models/default.safetensors}
BUILD=${2:-build}
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
manifest=${MANIFEST:-examples/families.tsv}
exec python3 - "$BUILD/mqss" "$policy" "${BUDGET:-4}" "${PAIRS:-10}" "$COMMIT" "$manifest" <<'PY'
import json, math, os, platform, re, subprocess, sys, tempfile, time, yaml
mqss, policy, budget, pairs, commit, manifest = sys.argv[1:]
data = os.path.abspath("data")
fams = yaml.safe_load(open(os.path.join(data, "baselines.yaml")))["families"]
def baseline(family):  # schedule paths are relative to data/
    return re.sub(r"(transform-library-paths=)(?!/)", r"\1" + data + "/",
                  fams[family]["pipeline"])
rows = [l.split()[:2] for l in open(manifest)
        if l.strip() and not l.startswith("#")]
cache = tempfile.mkdtemp(prefix="mqss_guard_")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), platform.machine())
print(f"machine: {platform.node()}, {cpu}, {os.cpu_count()} cores; commit {commit}; "
      f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
print(f"policy: {policy}; compile --guard --budget {budget}; {pairs} pairs per comparison; {manifest}")
print(f"{'module':48} {'family':12} {'used':8} {'vs baseline':>8} {'interval':>17} {'guard_s':>8}")
speedups, below = [], 0
for f, family in rows:
    if family == "-":
        continue
    path, base = os.path.join(os.path.dirname(manifest), f), baseline(family)
    t0 = time.time()
    g = subprocess.run([mqss, "compile", path, "--policy", policy, "--guard",
                        "--budget", budget, "--baseline", base, "--cache-dir", cache,
                        "-o", os.path.join(cache, "out.o")], capture_output=True, text=True)
    secs = time.time() - t0
    used = re.search(r"^guard: (baseline|selected) pipeline '(.*)'$", g.stderr, re.M)
    if g.returncode != 0 or not used:
        print(f"{f:48} {family:12} compile failed: {g.stderr.strip()[:80]}")
        continue
    # a baseline that fails on the module counts as the reference (as in
    # mqss eval): the guard then has nothing to fall back on but no passes
    for vs in (base, ""):
        m = subprocess.run([mqss, "measure", path, "--pipeline", used.group(2), "--vs",
                            vs, "--repeat", pairs, "--warmup", "1", "--json"],
                           capture_output=True, text=True)
        try:
            j = json.loads(m.stdout)
            ok = j["a"]["status"] == "ok"
            if ok and j["b"]["status"] != "ok":
                continue
            hl, lo, hi = (j["ratio_b_over_a"][k] for k in ("hl", "lo", "hi"))
        except (json.JSONDecodeError, KeyError):
            ok = False
        break
    if not ok:
        print(f"{f:48} {family:12} measure failed: {m.stderr.strip()[:80]}")
        continue
    speedups.append(hl)
    below += 0 < hi < 1 / 1.02  # (0, 0): no interval, under 6 pairs
    print(f"{f:48} {family:12} {'baseline' if used.group(1) == 'baseline' else 'policy':8} "
          f"{hl:7.3f}x [{lo:6.3f}, {hi:6.3f}] {secs:8.1f}{'  (baseline failed: vs reference)' if vs != base else ''}")
    if 0 < hi < 1 / 1.02:  # below its baseline: why the guard kept the selection
        why = [l for l in g.stderr.splitlines() if l.strip() and not used.re.match(l)]
        print("\n".join(f"  {l}" for l in why[-3:]) or "  (the guard said nothing more)")
g = math.exp(sum(map(math.log, speedups)) / len(speedups)) if speedups else float("nan")
print(f"\ngeomean vs the family baselines: {g:.3f}x ({len(speedups)} modules); "
      f"confirmed below a baseline: {below}")
PY
