#!/bin/sh
# Builds bench_peak_blas and runs bench/peak.py: GFLOP/s of the best searched
# pipeline and of the hand-written schedules vs single-thread OpenBLAS sgemm.
# usage: bench/peak.sh [BUILD_DIR] [peak.py options: --budget N (100)
#          --method greedy|random --repeat R (11) --no-search --no-schedule
#          --pipeline CASE=TEXT]
#   BUILD_DIR defaults to ./build. --pipeline measures a given pipeline too
#   on the kernels whose file name starts with CASE (for example a schedule:
#   --pipeline 'matmul_512=transform-preload-library{...},transform-interpreter').
#   A full run (greedy search, budget 100, four kernels) takes tens of
#   minutes to hours; --no-search takes about a minute.
set -eu
cd "$(dirname "$0")/.."
BUILD=build
case "${1:-}" in -*|'') ;; *) BUILD=$1; shift ;; esac
. bench/common.sh
bench_build peak_blas
cmake --build "$BUILD" -j2 --target mqss >/dev/null
exec python3 bench/peak.py "$BUILD/mqss" "$BUILD/bench_peak_blas" "$COMMIT" "$@"
