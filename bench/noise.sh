#!/bin/sh
# A/A noise benchmark of the paired comparison (`mqss measure --vs`): the
# same pipeline measured against itself on several modules (examples/ and a
# few corpus modules), in two conditions in the same run: quiet, and with a
# CPU hog (a busy loop pinned to the other core) while the measuring child is
# pinned to one core. For each module it prints the Hodges-Lehmann ratio,
# its 95% interval, the interval's width and the verdict; per condition the
# geomean and spread of the ratios, the interval widths and how many verdicts
# wrongly claim a difference. It prints the machine, the commit and the date.
#
# usage: bench/noise.sh [BUILD_DIR] [PAIRS] [WARMUP]
#   BUILD_DIR defaults to ./build, PAIRS (timed pairs per comparison) to 40,
#   WARMUP (untimed pairs) to 3. MEASURE_CPU (default 0) and HOG_CPU
#   (default 1) choose the cores; MIN_GAIN (default 0.02) the verdict's gain.
#
# Targets (docs/MEASURE.md): quiet A/A geomean within +-2%, median 95%
# interval width <= 5%, and under the hog no verdict other than "within
# noise" (the interval widens instead of the ratio lying).
#
# Two kinds of A/A pair per module:
#   same_code  "builtin.module(func.func(canonicalize),func.func(cse))" vs
#              "func.func(canonicalize,cse)": one pipeline spelled two ways
#              (two func.func groups vs one, wrapped vs bare). Both lower to
#              the same LLVM IR, so once measure_vs short-cuts identical
#              lowered code to a ratio of exactly 1 without timing, this row
#              checks that short-cut (pairs 0, ratio 1.000) and not the noise.
#   timed      A = "func.func(canonicalize,cse)", B = the same plus
#              llvm-request-c-wrappers: B's lowered module carries an extra,
#              never-called _mlir_ciface_ wrapper per function and is
#              otherwise the same code, so the lowered code differs (no
#              short-cut) while the kernel that is timed is identical. This
#              forces the timing path: it is the row that measures noise.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PAIRS=${2:-40}
WARMUP=${3:-3}
MEASURE_CPU=${MEASURE_CPU:-0}
HOG_CPU=${HOG_CPU:-1}
MIN_GAIN=${MIN_GAIN:-0.02}
. bench/common.sh
cmake --build "$BUILD" -j2 --target mqss >/dev/null
MQSS="$BUILD/mqss"

TMP=$(mktemp -d /tmp/mqss_noise.XXXXXX)
HOG=""
cleanup() {
  if [ -n "$HOG" ]; then kill "$HOG" 2>/dev/null || true; wait "$HOG" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

# Modules: fast examples and corpus modules of tens to hundreds of ms.
MODULES="examples/matmul_tensor_f32.mlir examples/batch_matmul_tensor_f32.mlir
examples/conv2d_nhwc_hwcf_bias_relu_tensor_f32.mlir
examples/jacobi2d_affine_memref_f32.mlir examples/layernorm_rsqrt_memref_f32.mlir
examples/gemm_affine_polybench_memref_f64.mlir"
for fam in poly_stencil attention; do
  "$MQSS" corpus emit "$fam" --seed 1 > "$TMP/corpus_$fam.mlir"
  MODULES="$MODULES $TMP/corpus_$fam.mlir"
done

A_SAME="builtin.module(func.func(canonicalize),func.func(cse))"
B_SAME="func.func(canonicalize,cse)"
A_TIMED="func.func(canonicalize,cse)"
B_TIMED="func.func(canonicalize,cse,llvm-request-c-wrappers)"

# run CONDITION: one JSON line per (module, kind) into $TMP/CONDITION.jsonl
run() {
  for m in $MODULES; do
    for kind in same_code timed; do
      if [ "$kind" = same_code ]; then a=$A_SAME; b=$B_SAME; else a=$A_TIMED; b=$B_TIMED; fi
      "$MQSS" measure "$m" --pipeline "$a" --vs "$b" --repeat "$PAIRS" \
        --warmup "$WARMUP" --pin "$MEASURE_CPU" --min-gain "$MIN_GAIN" \
        --timeout 600000 --no-code-size --json > "$TMP/one.json" || true
      python3 - "$TMP/one.json" "$m" "$kind" "$1" >> "$TMP/$1.jsonl" <<'PY'
import json, os, sys
path, module, kind, cond = sys.argv[1:5]
try:
    d = json.load(open(path))
except ValueError:
    d = {"a": {"status": "no_output"}, "b": {"status": "no_output"}}
r = d.get("ratio_b_over_a", {})
print(json.dumps({"module": os.path.basename(module), "kind": kind, "cond": cond,
                  "status": d["a"]["status"] + "/" + d["b"]["status"],
                  "pairs": d.get("pairs", 0), "hl": r.get("hl", 0),
                  "lo": r.get("lo", 0), "hi": r.get("hi", 0),
                  "run_ms": d["a"].get("run_ms", {}).get("median", 0),
                  "verdict": d.get("verdict", "failed")}))
PY
    done
  done
}

echo "# bench/noise.sh: A/A paired ratios (mqss measure --vs), commit $COMMIT"
echo "# machine: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# settings: $PAIRS pairs, $WARMUP warm-up pairs, child pinned to CPU $MEASURE_CPU, hog on CPU $HOG_CPU, min gain $MIN_GAIN"
run quiet
taskset -c "$HOG_CPU" sh -c 'while :; do :; done' &
HOG=$!
run hog
kill "$HOG"; wait "$HOG" 2>/dev/null || true
HOG=""

python3 - "$TMP/quiet.jsonl" "$TMP/hog.jsonl" "$MIN_GAIN" <<'PY'
import json, math, sys
rows = [json.loads(l) for f in sys.argv[1:3] for l in open(f)]
min_gain = float(sys.argv[3])
def width(r):  # relative width of the interval, hi/lo - 1
    return r["hi"] / r["lo"] - 1 if r["lo"] > 0 else float("nan")
print("%-6s %-9s %-42s %-11s %6s %9s %8s %8s %8s %7s  %s" % (
    "cond", "kind", "module", "status", "pairs", "run_ms", "ratio", "lo", "hi",
    "width", "verdict"))
for r in rows:
    print("%-6s %-9s %-42.42s %-11s %6d %9.4f %8.4f %8.4f %8.4f %6.1f%%  %s" % (
        r["cond"], r["kind"], r["module"], r["status"].replace("ok/ok", "ok"),
        r["pairs"], r["run_ms"], r["hl"], r["lo"], r["hi"], 100 * width(r),
        r["verdict"]))
print()
def median(v):
    v = sorted(v)
    n = len(v)
    return float("nan") if not n else v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
for cond in ("quiet", "hog"):
    for kind in ("timed", "same_code"):
        sel = [r for r in rows if r["cond"] == cond and r["kind"] == kind and r["hl"] > 0]
        failed = sum(1 for r in rows if r["cond"] == cond and r["kind"] == kind and r["hl"] <= 0)
        if not sel:
            print("%-5s %-9s no ratio (%d failed)" % (cond, kind, failed))
            continue
        logs = [math.log(r["hl"]) for r in sel]
        geo = math.exp(sum(logs) / len(logs))
        ws = [width(r) for r in sel if r["lo"] > 0]
        wrong = sum(1 for r in sel if r["verdict"] != "within noise")
        print("%-5s %-9s geomean %.4f (%+.2f%%), ratios %.4f..%.4f, 95%% interval width "
              "median %.1f%% max %.1f%%, verdicts claiming a difference: %d of %d%s" % (
                  cond, kind, geo, 100 * (geo - 1), min(r["hl"] for r in sel),
                  max(r["hl"] for r in sel), 100 * median(ws), 100 * max(ws) if ws else float("nan"),
                  wrong, len(sel), ", %d failed" % failed if failed else ""))
q = [r for r in rows if r["cond"] == "quiet" and r["kind"] == "timed" and r["hl"] > 0]
if q:
    geo = math.exp(sum(math.log(r["hl"]) for r in q) / len(q))
    w = median([width(r) for r in q if r["lo"] > 0])
    print("targets (timed, quiet): geomean within +-2%%: %s; median interval width <= 5%%: %s"
          % ("met" if abs(geo - 1) <= 0.02 else "NOT met", "met" if w <= 0.05 else "NOT met"))
h = [r for r in rows if r["cond"] == "hog" and r["hl"] > 0]
print("target (hog): every verdict 'within noise': %s" %
      ("met" if h and all(r["verdict"] == "within noise" for r in h) else "NOT met"))
PY
