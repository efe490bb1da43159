#!/bin/sh
# Builds (CMake target bench_env_bench) and runs bench/env_bench.c.
# usage: bench/env_bench.sh [BUILD_DIR] [FAMILY] [REPEATS]
#   BUILD_DIR defaults to ./build (configure with cmake first), FAMILY (of the
#   corpus generator; the module nearest 1000 lines is used) to transformer,
#   REPEATS to 101.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
FAMILY=${2:-transformer}
REPEATS=${3:-101}
. bench/common.sh
bench_build env_bench
exec "$BUILD/bench_env_bench" "$FAMILY" "$COMMIT" "$REPEATS"
