#!/bin/sh
# How much of each hand-written example's run time is its kernel (issue 14
# item 7, ">= 2x over the reference"): `mqss measure` times the whole entry
# (@main: input set-up, the kernel call, the printing of results). For every
# example of examples/families.tsv it finds the kernel (the one public
# function besides @main) and prints
#   - main_ms, kernel_ms: the reference's run time of @main and of the kernel
#     alone (--entry, on measure's generated inputs): the median over CHILDREN
#     measuring children, alternating, of each child's median of PAIRS runs
#     (a child's median moves by up to 1.5x from child to child at 10 us);
#   - share and bound: kernel_ms / main_ms, and main_ms / (main_ms -
#     kernel_ms), the program speedup an infinitely fast kernel would give
#     (Amdahl; "-" when the kernel alone takes 90% of @main's time or more:
#     the two timings, on different inputs, then cannot bound it);
#   - program and kernel: the policy's selection (`mqss select`) measured
#     against the reference, on @main and on the kernel alone (PAIRS
#     interleaved pairs, Hodges-Lehmann speedup and 95% interval; outputs
#     checked on both);
# and the geomeans (over every example measured, and over those with a
# bound), with the machine, the commit and the date. Run it alone.
#
# usage: bench/examples_kernels.sh [POLICY] [BUILD_DIR]
#   env: PAIRS (10), CHILDREN (5), MANIFEST (examples/families.tsv)
set -eu
policy=${1:-}
[ -z "$policy" ] || policy=$(cd "$(dirname "$policy")" && pwd)/$(basename "$policy")
cd "$(dirname "$0")/.."
policy=${policy:-$PWD/models/default.safetensors}
BUILD=${2:-build}
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
exec python3 - "$BUILD/mqss" "$policy" "${PAIRS:-10}" "${CHILDREN:-5}" "$COMMIT" \
  "${MANIFEST:-examples/families.tsv}" <<'PY'
import json, math, os, platform, re, statistics, subprocess, sys, time
mqss, policy, pairs, children, commit, manifest = sys.argv[1:]
files = [l.split()[0] for l in open(manifest) if l.strip() and not l.startswith("#")]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), platform.machine())
print(f"machine: {platform.node()}, {cpu}, {os.cpu_count()} cores; commit {commit}; "
      f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
print(f"policy: {policy}; {pairs} runs / interleaved pairs per figure; run times "
      f"over {children} children; {manifest}")

def measure(path, *args):
    r = subprocess.run([mqss, "measure", path, "--warmup", "1", "--repeat", pairs,
                        "--json", "--no-cache", *args], capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"status": "failed", "message": r.stderr.strip()[:80]}

def speedup(path, pipe, *entry):
    """Reference time over the selection's: Hodges-Lehmann and interval."""
    j = measure(path, "--pipeline", "", "--vs", pipe, *entry)
    if j.get("a", {}).get("status") != "ok" or j.get("b", {}).get("status") != "ok":
        return None
    r = j["ratio_b_over_a"]
    if r["lo"] <= 0:  # no interval: under 6 pairs
        return (1 / r["hl"], math.nan, math.nan)
    return (1 / r["hl"], 1 / r["hi"], 1 / r["lo"])

print(f"{'module':48} {'kernel':18} {'main_ms':>8} {'kernel_ms':>9} {'share':>6} "
      f"{'bound':>7} {'program':>24} {'kernel':>24}")
logs = {"bound": [], "program": [], "kernel": []}
every = {"program": [], "kernel": []}  # every example measured
def median_ms(runs):
    return statistics.median(j["run_ms"]["median"] for j in runs)

cell = lambda s: f"{s[0]:7.3f}x [{s[1]:6.3f}, {s[2]:6.3f}]" if s else f"{'-':>24}"
for f in files:
    path = os.path.join(os.path.dirname(manifest), f)
    names = re.findall(r"^func\.func @([A-Za-z0-9_]+)", open(path).read(), re.M)
    kernel = next((n for n in names if n != "main"), "-")
    sel = subprocess.run([mqss, "select", path, "--policy", policy],
                         capture_output=True, text=True)
    runs = [(measure(path), measure(path, "--entry", kernel)) for _ in range(int(children))]
    mains, kerns = [m for m, _ in runs], [k for _, k in runs]
    if sel.returncode or any(m.get("status") != "ok" for m in mains):
        why = sel.stderr if sel.returncode else mains[0].get("message", "")
        print(f"{f:48} failed: {why.strip()[:80]}")
        continue
    # the kernel alone may not run: measure generates no bf16 inputs
    timed = all(k.get("status") == "ok" for k in kerns)
    tm, tk = median_ms(mains), median_ms(kerns) if timed else math.nan
    bound = tm / (tm - tk) if timed and tk < 0.9 * tm else None
    pipe = sel.stdout.strip().splitlines()[-1] if sel.stdout.strip() else ""
    prog = speedup(path, pipe)
    kspd = speedup(path, pipe, "--entry", kernel) if timed else None
    print(f"{f:48} {kernel:18} {tm:8.4f} {tk:9.4f} {tk / tm:6.1%} "
          f"{(f'{bound:6.2f}x' if bound else '-'):>7} {cell(prog)} {cell(kspd)}"
          f"{'' if timed else '  (kernel alone: ' + kerns[0].get('message', '')[:60] + ')'}")
    if prog:
        every["program"].append(math.log(prog[0]))
    if kspd:
        every["kernel"].append(math.log(kspd[0]))
    if bound and prog and kspd:
        logs["bound"].append(math.log(bound))
        logs["program"].append(math.log(prog[0]))
        logs["kernel"].append(math.log(kspd[0]))
geo = lambda v: math.exp(sum(v) / len(v)) if v else math.nan
print(f"geomean over every example measured: program {geo(every['program']):.3f}x "
      f"({len(every['program'])}), kernel {geo(every['kernel']):.3f}x ({len(every['kernel'])})")
print(f"geomean over the {len(logs['bound'])} examples with a bound: Amdahl bound "
      f"{geo(logs['bound']):.3f}x, program {geo(logs['program']):.3f}x, kernel "
      f"{geo(logs['kernel']):.3f}x")
PY
