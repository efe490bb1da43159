#!/bin/sh
# Any-time selection: speedup against budget (issue 14 item 5). For each
# module of a hold-out manifest and each budget N in BUDGETS (default
# "0 4 16"), `mqss select --budget N` chooses a pipeline (the policy's own
# choice plus N measured proposals, outputs checked; N = 0 is the pure
# policy), then `mqss measure --vs ""` measures it against the reference
# (PAIRS interleaved pairs, Hodges-Lehmann ratio). Prints per module and
# budget the speedup and the selection time, and per budget the geomean
# speedup, the median selection time and how many outputs were wrong; with
# the machine, the commit and the date. compile_x is the selection's
# compile time (pipeline + finisher + JIT, the best of the paired runs) over
# the reference's; per budget its median and maximum are printed too.
# pipeline is a hash of the chosen pipeline, to tell which selections two
# runs share, followed by slow=K when K proposals were left out for their
# compile time (--max-compile).
#
# METHOD=random (or greedy) is the search-alone ablation at the same budget:
# `mqss search --budget N+2` chooses instead of the policy. Its evaluation 0
# is the reference, so it measures N + 1 candidates, as many as the policy's
# own choice plus its N proposals, with the same measurement settings
# (1 warm-up, 5 timed runs); the confirmed winner, or the reference when
# none is confirmed, is then measured as above. Budget 0 has no search.
#
# usage: bench/budget_curve.sh HOLDOUT_TSV [POLICY] [BUILD_DIR]
#   env: BUDGETS ("0 4 16"), PAIRS (10), LIMIT (modules, default all),
#        METHOD (policy, random or greedy; default policy),
#        MAX_COMPILE (select/search --max-compile; default: select's own
#        default, 4, and no limit for search)
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
manifest=$(abs "$1")
policy=${2:-}
[ -z "$policy" ] || policy=$(abs "$policy")
cd "$(dirname "$0")/.."
policy=${policy:-$PWD/models/default.safetensors}
BUILD=${3:-build}
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
exec python3 - "$BUILD/mqss" "$manifest" "$policy" "${BUDGETS:-0 4 16}" \
  "${PAIRS:-10}" "${LIMIT:-0}" "$COMMIT" "${METHOD:-policy}" "${MAX_COMPILE:-}" <<'PY'
import hashlib, json, re, math, os, platform, statistics, subprocess, sys, tempfile, time
mqss, manifest, policy, budgets, pairs, limit, commit, method, max_compile = sys.argv[1:]
budgets = [int(b) for b in budgets.split()]
base = os.path.dirname(manifest)
files = [os.path.join(base, l.split("\t")[0]) for l in open(manifest)
         if l.strip() and not l.startswith("#")]
if int(limit) > 0:
    files = files[:int(limit)]
cache = tempfile.mkdtemp(prefix="mqss_budget_")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), platform.machine())
print(f"machine: {platform.node()}, {cpu}, {os.cpu_count()} cores; commit {commit}; "
      f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
chooser = f"policy: {policy}" if method == "policy" else f"{method} search alone (no policy)"
limit_text = f"--max-compile {max_compile}" if max_compile else "default --max-compile"
print(f"{chooser}; {len(files)} modules; {pairs} pairs per comparison; {limit_text}")
print(f"{'module':32} {'budget':>6} {'speedup':>8} {'interval':>17} {'select_s':>9} {'compile_x':>9} pipeline")
per = {b: [] for b in budgets}
for f in files:
    for b in budgets:
        t0 = time.time()
        if method == "policy":
            cmd = [mqss, "select", f, "--policy", policy, "--budget", str(b),
                   "--cache-dir", cache]
        else:
            cmd = [mqss, "search", f, "--method", method, "--budget", str(b + 2),
                   "--seed", "0", "--warmup", "1", "--repeat", "5", "--json",
                   "--cache", os.path.join(cache, "measure.sqlite")]
        if max_compile:
            cmd += ["--max-compile", max_compile]
        sel = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.time() - t0
        if sel.returncode != 0:
            print(f"{os.path.basename(f):32} {b:6} {cmd[1]} failed: {sel.stderr.strip()[:80]}")
            per[b].append((None, secs, "error", None))
            continue
        pipe = sel.stdout.strip()
        if method != "policy":
            pipe = json.loads(pipe).get("winner_pipeline") or ""
        m = subprocess.run([mqss, "measure", f, "--pipeline", pipe, "--vs", "", "--repeat",
                            pairs, "--warmup", "1", "--json"], capture_output=True, text=True)
        try:
            j = json.loads(m.stdout)
            st = j["a"]["status"]
            r = j["ratio_b_over_a"]
            cx = j["a"]["compile_ms"] / j["b"]["compile_ms"]
        except (json.JSONDecodeError, KeyError):
            st, r = "error", None
        if st != "ok" or not r:
            print(f"{os.path.basename(f):32} {b:6} {st}")
            per[b].append((None, secs, st, None))
            continue
        tag = hashlib.sha1(pipe.encode()).hexdigest()[:8] if pipe else "(none)"
        slow = re.search(r"(\d+) proposal\(s\) compiled over", sel.stderr)
        tag += f" slow={slow.group(1)}" if slow else ""
        print(f"{os.path.basename(f):32} {b:6} {r['hl']:7.3f}x [{r['lo']:6.3f}, {r['hi']:6.3f}] {secs:9.2f} {cx:8.2f}x {tag}")
        per[b].append((r["hl"], secs, st, cx))
print()
print(f"{'budget':>6} {'geomean speedup':>16} {'median select_s':>16} {'wrong/failed':>13}"
      f" {'compile_x median':>17} {'max':>8}")
for b in budgets:
    ok = [s for s, _, _, _ in per[b] if s]
    g = math.exp(sum(map(math.log, ok)) / len(ok)) if ok else float("nan")
    med = statistics.median(t for _, t, _, _ in per[b]) if per[b] else float("nan")
    bad = sum(1 for s, _, _, _ in per[b] if s is None)
    cxs = [c for _, _, _, c in per[b] if c]
    cmed = statistics.median(cxs) if cxs else float("nan")
    cmax = max(cxs) if cxs else float("nan")
    print(f"{b:6} {g:15.3f}x {med:16.2f} {bad:13} {cmed:16.2f}x {cmax:7.2f}x")
PY
