#!/bin/sh
# Builds bench_peak_blas and runs bench/peak.py: GFLOP/s of the best searched
# pipeline and of the hand-written schedules vs single-thread OpenBLAS sgemm.
# usage: bench/peak.sh [BUILD_DIR] [peak.py options: --budget N --repeat R
#                       --no-search --no-schedule --pipeline CASE=TEXT]
#   BUILD_DIR defaults to ./build. A full run (search budget 30 on four
#   kernels) takes tens of minutes; --no-search takes about one.
set -eu
cd "$(dirname "$0")/.."
BUILD=build
case "${1:-}" in -*|'') ;; *) BUILD=$1; shift ;; esac
. bench/common.sh
bench_build peak_blas
cmake --build "$BUILD" -j2 --target mqss >/dev/null
exec python3 bench/peak.py "$BUILD/mqss" "$BUILD/bench_peak_blas" "$COMMIT" "$@"
