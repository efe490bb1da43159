#!/bin/sh
# What a team of OpenMP threads costs on a small loop: the threshold of the
# safety layer's parallel.little-work (src/actions/parallel_work.h), under
# which the catalog's omp-parallel is masked. For an elementwise loop of N
# f32 elements (a multiply-add and a square, on memrefs), parallel loops
# (convert-linalg-to-parallel-loops) with and without omp-parallel, timed by
# `mqss measure --vs` (interleaved pairs, outputs checked). Prints, per N,
# the time with threads over the time without (< 1: threads pay) and its
# 95% interval, with the machine and the commit.
# usage: bench/omp_little_work.sh [BUILD_DIR] [PAIRS]
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
PAIRS=${2:-10}
. bench/common.sh
cmake --build "$BUILD" -j2 --target mqss >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
loops="builtin.module(func.func(convert-linalg-to-parallel-loops))"
omp=$(awk '/- name: omp-parallel$/ {f = 1} f && /pipeline:/ {sub(/.*pipeline: "/, ""); sub(/"$/, ""); print; exit}' data/catalog.yaml)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); commit $COMMIT; $(date -u '+%F %H:%M') UTC; $PAIRS pairs"
echo "N (iterations)   threads / no threads   95% interval"
for n in 1024 4096 16384 65536 262144 1048576; do
  cat > "$tmp/ew.mlir" <<MLIR
func.func @forward(%x: memref<${n}xf32>, %y: memref<${n}xf32>) attributes {llvm.emit_c_interface} {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : memref<${n}xf32>) outs(%y : memref<${n}xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 1.5 : f32
    %d = arith.constant 0.25 : f32
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %m, %d : f32
    %t = arith.mulf %s, %s : f32
    linalg.yield %t : f32
  }
  return
}
MLIR
  "$BUILD/mqss" measure "$tmp/ew.mlir" --pipeline "$loops" \
    --vs "${loops%)},$omp)" --warmup 1 --repeat "$PAIRS" --no-cache |
    awk -v n="$n" '/^ratio B\/A: [0-9.]+ \[/ {gsub(/[\[\],]/, " "); printf "%-16s %-22s [%s, %s]\n", n, $3 "x", $4, $5}'
done
