#!/bin/sh
# Builds and runs bench/env_bench.c against a built libmqss.a.
# usage: bench/env_bench.sh [BUILD_DIR] [FAMILY] [REPEATS]
#   BUILD_DIR defaults to ./build (configure with cmake first), FAMILY (of the
#   corpus generator; the module nearest 1000 lines is used) to transformer,
#   REPEATS to 101.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
FAMILY=${2:-transformer}
REPEATS=${3:-101}
cmake --build "$BUILD" -j2 --target mqss_static >/dev/null
OUT="$BUILD/env_bench"
LLVM=/usr/lib/llvm-19
cc -std=c11 -O2 -D_DEFAULT_SOURCE -Iinclude bench/env_bench.c -o "$OUT" \
  "$BUILD/libmqss.a" -L$LLVM/lib \
  -Wl,--start-group -lMLIRCAPIIR -lMLIRCAPIRegisterEverything -lMLIRCAPITransforms \
  -lMLIRCAPIConversion -lMLIRCAPIExecutionEngine -lMLIRCAPITarget -Wl,--end-group \
  -lMLIR -lLLVM $(pkg-config --libs sqlite3 libcjson yaml-0.1 openblas) -lopenblas \
  -lstdc++ -lpthread -lm -Wl,-rpath,$LLVM/lib
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | head -1)" ]; then COMMIT="$COMMIT+dirty"; fi
exec "$OUT" "$FAMILY" "$COMMIT" "$REPEATS"
