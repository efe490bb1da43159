#!/bin/sh
# Builds (CMake target bench_safety_mask) and runs bench/safety_mask.c.
# usage: bench/safety_mask.sh [BUILD_DIR] [REPEATS]
#   BUILD_DIR defaults to ./build, REPEATS to 101.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPEATS=${2:-101}
. bench/common.sh
bench_build safety_mask
exec "$BUILD/bench_safety_mask" "$COMMIT" "$REPEATS"
