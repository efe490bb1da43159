#!/bin/sh
# Is a vector kernel still slower than its scalar tiled version? For each
# kernel, interleaved `mqss measure --vs` pairs (outputs checked) compare the
# scalar tile-32 family baseline (A) with a register-tiled vector kernel (B):
# bench/peak/*_vector_only.sched.mlir tiles and vectorises and leaves the
# vector.contract ops and 2-D transfers to the finisher, lowered two ways:
#   now     the finisher as it is (outer-product FMAs, transfers fully
#           unrolled to rank 1);
#   before  the old finisher's vector steps, run explicitly before it:
#           plain convert-vector-to-scf (an alloca and a scalar loop per 2-D
#           transfer), then convert-vector-to-llvm (dot-product contractions).
# Prints time(A)/time(B) as the Hodges-Lehmann estimate over the pairs with
# its 95% interval: > 1 means the vector kernel is faster. Also prints the
# machine and commit.
# usage: bench/vector_vs_tiled.sh [BUILD_DIR] [PAIRS]
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PAIRS=${2:-11}
. bench/common.sh
cmake --build "$BUILD" -j2 --target mqss >/dev/null
BUF='one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}'
TILE32="$BUF,func.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=32})"
echo "# bench/vector_vs_tiled.sh: speedup of the vector schedule over tile-32"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cpus; commit $COMMIT; $PAIRS interleaved pairs"
printf '%-22s %-8s %9s %9s %8s  %s\n' kernel finisher tile32_ms vector_ms speedup '95% interval'
for k in matmul_256:matmul matmul_512:matmul batch_matmul_8x256:batch_matmul \
         conv1x1_56x56x256:conv1x1; do
  mod=bench/peak/${k%%:*}.mlir
  sched="transform-preload-library{transform-library-paths=bench/peak/${k##*:}_vector_only.sched.mlir},transform-interpreter"
  for how in now before; do
    vec=$sched
    [ $how = before ] &&
      vec="$sched,$BUF,func.func(convert-vector-to-scf),convert-vector-to-llvm"
    "$BUILD/mqss" measure "$mod" --pipeline "$TILE32" --vs "$vec" --no-cache \
        --warmup 2 --repeat "$PAIRS" --timeout 300000 --json |
      python3 -c '
import json, sys
d = json.load(sys.stdin)
bad = [x for x in ("a", "b") if d[x]["status"] != "ok"]
if bad:
    print("%-22s %-8s %s" % (sys.argv[1], sys.argv[2], " ".join(
        "%s: %s" % (x, d[x]["status"]) for x in bad)))
else:
    r = d["ratio_b_over_a"]
    print("%-22s %-8s %9.3f %9.3f %7.2fx  [%.2f, %.2f]" % (sys.argv[1],
          sys.argv[2], d["a"]["run_ms"]["median"], d["b"]["run_ms"]["median"],
          1 / r["hl"], 1 / r["hi"], 1 / r["lo"]))' "${k%%:*}" "$how"
  done
done
