#!/bin/sh
# Two policies head to head on a manifest's modules (the validation step of
# docs/TRAINING.md: choose between candidates on one seed's sample, report
# the chosen one on another). For every module, `mqss select` with each
# policy (the pure policy, budget 0); where the two pipelines differ,
# `mqss measure --pipeline A --vs B` (PAIRS interleaved pairs,
# Hodges-Lehmann ratio time(B)/time(A) with its 95% interval), outputs
# checked. Identical selections count as 1. Prints per module the ratio and
# the decisions, then the geomean of A over B, the counts faster / within
# noise / slower (the interval clear of 1 +- 0.02), and the machine, the
# commit and the date. Run it alone.
#
# usage: bench/compare_policies.sh MANIFEST POLICY_A POLICY_B [BUILD_DIR]
#   env: PAIRS (10); A_FLAGS, B_FLAGS: more `mqss select` flags for one
#   side (e.g. A_FLAGS=--fit-sizes with the same policy on both sides);
#   B_MQSS: another mqss binary for side B's selections (a code change head
#   to head: the same policy, selected by the old build and the new); the
#   catalog of both policies is MQSS_CATALOG's, or data/catalog.yaml
set -eu
[ $# -ge 3 ] || { echo "usage: $0 MANIFEST POLICY_A POLICY_B [BUILD_DIR]" >&2; exit 2; }
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
manifest=$(abs "$1")
a=$(abs "$2")
b=$(abs "$3")
cd "$(dirname "$0")/.."
BUILD=${4:-build}
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
exec python3 - "$BUILD/mqss" "$manifest" "$a" "$b" "${PAIRS:-10}" "$COMMIT" \
  "${A_FLAGS:-}" "${B_FLAGS:-}" "${B_MQSS:-$BUILD/mqss}" <<'PY'
import json, math, os, platform, subprocess, sys, time
mqss, manifest, pa, pb, pairs, commit, fa, fb, mqss_b = sys.argv[1:]
rows = [l.split()[:2] for l in open(manifest) if l.strip() and not l.startswith("#")]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), platform.machine())
print(f"machine: {platform.node()}, {cpu}, {os.cpu_count()} cores; commit {commit}; "
      f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
print(f"A: {pa} {fa}\nB: {pb} {fb}{' (selected by ' + mqss_b + ')' if mqss_b != mqss else ''}\n{manifest}; {pairs} pairs; ratio = time(B) / time(A)")
def select(policy, path, flags, binary=mqss):
    r = subprocess.run([binary, "select", path, "--policy", policy, "--json"] + flags.split(),
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()[:80]
    j = json.loads(r.stdout)
    return j["pipeline"], " ".join(d["action"] for d in j["decisions"])
logs, faster, slower, failed = [], 0, 0, 0
for f, family in rows:
    path = os.path.join(os.path.dirname(manifest), f)
    (xa, da), (xb, db) = select(pa, path, fa), select(pb, path, fb, mqss_b)
    if xa is None or xb is None:
        failed += 1
        print(f"{f:28} {family:14} select failed: {da if xa is None else db}")
        continue
    if xa == xb:
        logs.append(0.0)
        print(f"{f:28} {family:14} {1:7.3f}x  identical")
        continue
    m = subprocess.run([mqss, "measure", path, "--pipeline", xa, "--vs", xb,
                        "--repeat", pairs, "--warmup", "1", "--json"],
                       capture_output=True, text=True)
    try:
        j = json.loads(m.stdout)
        sa, sb = j["a"]["status"], j["b"]["status"]
        hl, lo, hi = (j["ratio_b_over_a"][k] for k in ("hl", "lo", "hi"))
    except (json.JSONDecodeError, KeyError):
        sa = sb = "measure failed"
    if sa != "ok" or sb != "ok":
        failed += 1
        print(f"{f:28} {family:14} A {sa}, B {sb}")
        continue
    logs.append(math.log(hl))
    faster += lo > 1.02
    slower += 0 < hi < 1 / 1.02
    print(f"{f:28} {family:14} {hl:7.3f}x [{lo:6.3f}, {hi:6.3f}]\n    A: {da}\n    B: {db}")
g = math.exp(sum(logs) / len(logs)) if logs else float("nan")
print(f"\ngeomean A over B: {g:.3f}x on {len(logs)} modules "
      f"(A faster {faster} / within noise {len(logs) - faster - slower} / "
      f"A slower {slower}); failed: {failed}")
PY
