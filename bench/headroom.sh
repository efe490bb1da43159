#!/bin/sh
# Search headroom report (issue 12 items 6 and 7): runs `mqss search`
# (random and greedy, confirmed speedups) over examples/*.mlir and two
# modules of each corpus family, and prints per module the confirmed speedup
# over the reference, the speedup over the family baseline, compile time and
# code size of winner and baseline, then geomeans (matmul-class families
# apart), p95 compile time and code size, and whether every output checked
# correct. Prints the machine and commit.
# usage: bench/headroom.sh [BUILD_DIR] [headroom.py options: --budget N (60)
#          --methods random,greedy --per-family K (2) --corpus DIR
#          --families a,b --no-examples --examples a,b (stems; all)
#          --repeat R (5) --confirm P (10)
#          --out DIR --timeout-ms MS (300000)]
#   Without --corpus it generates a corpus (`mqss corpus gen`) and its
#   baselines (`mqss baseline`) in OUT (default a temporary directory). With
#   --corpus DIR, DIR holds manifest.tsv (and baseline.json, made if missing).
#   A full run (budget 60, two methods, ~50 modules) takes hours. A second
#   run with the same --out reuses its corpus and baselines, and resumes from
#   the rows it finished (OUT/rows.jsonl); matmul-class modules go first.
set -eu
cd "$(dirname "$0")/.."
BUILD=build
case "${1:-}" in -*|'') ;; *) BUILD=$1; shift ;; esac
. bench/common.sh
cmake --build "$BUILD" -j2 --target mqss >/dev/null
exec python3 bench/headroom.py "$BUILD/mqss" "$COMMIT" "$@"
