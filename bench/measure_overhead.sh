#!/bin/sh
# Builds (CMake target bench_measure_overhead) and runs bench/measure_overhead.c.
# usage: bench/measure_overhead.sh [BUILD_DIR] [MODULE] [REPEATS]
#   BUILD_DIR defaults to ./build (configure with cmake first), MODULE to
#   examples/matmul_tensor_f32.mlir, REPEATS to 21.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
MODULE=${2:-examples/matmul_tensor_f32.mlir}
REPEATS=${3:-21}
. bench/common.sh
bench_build measure_overhead
exec "$BUILD/bench_measure_overhead" "$MODULE" "$COMMIT" "$REPEATS"
