#!/bin/sh
# Builds and runs bench/policy_inference.c against a built libmqss.a.
# usage: bench/policy_inference.sh [BUILD_DIR] [REPEATS] [MIN_OPS]
#   BUILD_DIR defaults to ./build, REPEATS to 101, MIN_OPS (module size) to 1000.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPEATS=${2:-101}
MIN_OPS=${3:-1000}
cmake --build "$BUILD" -j2 --target mqss_static >/dev/null
OUT="$BUILD/policy_inference"
LLVM=/usr/lib/llvm-19
cc -std=c11 -O2 -D_DEFAULT_SOURCE -Iinclude -Isrc -I$LLVM/include \
  bench/policy_inference.c -o "$OUT" \
  "$BUILD/libmqss.a" -L$LLVM/lib \
  -Wl,--start-group -lMLIRCAPIIR -lMLIRCAPIRegisterEverything -lMLIRCAPITransforms \
  -lMLIRCAPIConversion -lMLIRCAPIExecutionEngine -lMLIRCAPITarget -Wl,--end-group \
  -lMLIR -lLLVM $(pkg-config --libs sqlite3 libcjson yaml-0.1 openblas) -lopenblas \
  -lstdc++ -lpthread -lm -Wl,-rpath,$LLVM/lib
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | head -1)" ]; then COMMIT="$COMMIT+dirty"; fi
exec "$OUT" "$COMMIT" "$REPEATS" "$MIN_OPS"
