#!/usr/bin/env bash
# `make test-static`: checks the static single binary (make static) and runs
# the demo with it. Not part of ctest: linking the binary reads ~600 MB of
# archives and the demo takes a minute or two; .ci/run calls it.
#
# 1. ldd: no libMLIR / libLLVM (nor libz3 / libxml2 that libLLVM.so drags in).
# 2. It selects the same pipeline as the shared-library build on an example,
#    runs the C++ passes (src/ir/cxx_passes.cpp) with the same result, and
#    measures (JIT through ORC) with status ok.
# 3. scripts/demo.sh runs end to end with it.
# Prints the binary's size (and its size stripped).
#
# usage: tests/static/check_static.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
# From the build directory, as ctest runs: the default catalog and policy
# paths are found from the sources' __FILE__, which a compiler cache may
# have made relative to it.
cd "$build"
static="$build/mqss-static"
shared="$build/mqss"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

[ -x "$static" ] || { echo "FAIL: $static missing: run 'make static'" >&2; exit 1; }
[ -x "$shared" ] || { echo "FAIL: $shared missing: run 'make build'" >&2; exit 1; }

deps=$(ldd "$static")
if grep -E -i 'libMLIR|libLLVM|libz3|libxml2' <<<"$deps"; then
  fail "$static still loads MLIR/LLVM shared libraries (above)"
fi
grep -q 'libc.so' <<<"$deps" || fail "ldd output looks wrong: $deps"

"$static" version | grep -q 'MLIR/LLVM 19' || fail "version"

ex="$root/examples/matmul_tensor_f32.mlir"
a=$("$shared" select "$ex" --policy "$root/models/default.safetensors")
sel=$("$static" select "$ex" --policy "$root/models/default.safetensors")
[ -n "$sel" ] && [ "$a" = "$sel" ] || fail "select differs: shared '$a', static '$sel'"

mlp="$root/examples/mlp_gelu_tanh_tensor_f32.mlir"
pass='func.func(mqss-math-approx)'
a=$("$shared" opt "$mlp" --pipeline "$pass" | md5sum)
b=$("$static" opt "$mlp" --pipeline "$pass" | md5sum)
[ "$a" = "$b" ] || fail "the C++ pass $pass gives different IR"
"$static" opt "$mlp" --pipeline "$pass" | grep -q 'math.tanh' &&
  fail "$pass left math.tanh in place (did the pass run?)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$static" measure "$ex" --pipeline "$sel" --repeat 3 --no-cache) ||
  fail "measure failed: $out"
grep -q '^status: ok' <<<"$out" || fail "measure status: $out"
out=$("$static" measure "$root/examples/softmax_tensor_f32.mlir" --repeat 2 --no-cache) ||
  fail "measure of a printing program failed: $out"

echo "== demo with $static"
"$root/scripts/demo.sh" "$build" "$static" || fail "demo.sh with the static binary"

strip -o "$tmp/stripped" "$static"
echo "size: $(stat -c %s "$static") bytes ($(du -h "$static" | cut -f1)), stripped $(stat -c %s "$tmp/stripped") bytes ($(du -h "$tmp/stripped" | cut -f1))"
if [ "$fails" -ne 0 ]; then
  echo "check_static: $fails failure(s)" >&2
  exit 1
fi
echo "check_static: ok"
