#!/bin/sh
# Builds (CMake target bench_policy_inference) and runs bench/policy_inference.c.
# usage: bench/policy_inference.sh [BUILD_DIR] [REPEATS] [MIN_OPS]
#   BUILD_DIR defaults to ./build, REPEATS to 101, MIN_OPS (module size) to 1000.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPEATS=${2:-101}
MIN_OPS=${3:-1000}
. bench/common.sh
bench_build policy_inference
exec "$BUILD/bench_policy_inference" "$COMMIT" "$REPEATS" "$MIN_OPS"
