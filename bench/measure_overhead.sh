#!/bin/sh
# Builds and runs bench/measure_overhead.c against a built libmqss.a.
# usage: bench/measure_overhead.sh [BUILD_DIR] [MODULE] [REPEATS]
#   BUILD_DIR defaults to ./build (configure with cmake first), MODULE to
#   examples/matmul_tensor_f32.mlir, REPEATS to 21.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
MODULE=${2:-examples/matmul_tensor_f32.mlir}
REPEATS=${3:-21}
cmake --build "$BUILD" -j2 --target mqss_static >/dev/null
OUT="$BUILD/measure_overhead"
LLVM=/usr/lib/llvm-19
cc -std=c11 -O2 -D_DEFAULT_SOURCE -Iinclude bench/measure_overhead.c -o "$OUT" \
  "$BUILD/libmqss.a" -L$LLVM/lib \
  -Wl,--start-group -lMLIRCAPIIR -lMLIRCAPIRegisterEverything -lMLIRCAPITransforms \
  -lMLIRCAPIConversion -lMLIRCAPIExecutionEngine -lMLIRCAPITarget -Wl,--end-group \
  -lMLIR -lLLVM $(pkg-config --libs sqlite3 libcjson yaml-0.1 openblas) -lopenblas \
  -lstdc++ -lpthread -lm -Wl,-rpath,$LLVM/lib
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | head -1)" ]; then COMMIT="$COMMIT+dirty"; fi
exec "$OUT" "$MODULE" "$COMMIT" "$REPEATS"
