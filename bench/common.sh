# Sourced by the bench/*.sh scripts (from the project root): bench_build NAME
# builds bench/NAME.c as $BUILD/bench_NAME; COMMIT names the source tree.
bench_build() { cmake --build "$BUILD" -j2 --target "bench_$1" >/dev/null; }
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | head -1)" ]; then COMMIT="$COMMIT+dirty"; fi
