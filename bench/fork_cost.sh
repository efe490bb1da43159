#!/usr/bin/env bash
# What handing a parallel loop over to threads costs (docs/MEASURE.md,
# "Threads"): bench/fork_cost/loop.mlir (a 2-iteration scf.parallel of
# about 0.2 us of work, called 20000 times) lowered three ways with upstream
# mlir-opt-19 and run with mlir-cpu-runner-19: sequentially, as tasks of
# MLIR's async runtime (async-parallel-for, the first version of the thread
# actions) and forked by libomp (convert-scf-to-openmp, what the finisher
# does now). Prints the median microseconds per call over REPEATS runs of
# each, interleaved, with the machine and the commit.
# usage: bench/fork_cost.sh [REPEATS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
repeats=${1:-5}
B=/usr/lib/llvm-19/bin
L=/usr/lib/llvm-19/lib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
low="convert-scf-to-cf,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm"
utils="$L/libmlir_c_runner_utils.so,$L/libmlir_runner_utils.so"
declare -A pipe libs
pipe[sequential]="builtin.module(func.func(convert-linalg-to-loops),$low,reconcile-unrealized-casts)"
libs[sequential]=$utils
pipe[async]="builtin.module(func.func(convert-linalg-to-loops),async-parallel-for{num-workers=-1 min-task-size=1},func.func(arith-expand),async-to-async-runtime,async-runtime-ref-counting,async-runtime-ref-counting-opt,convert-async-to-llvm,$low,reconcile-unrealized-casts)"
libs[async]="$utils,$L/libmlir_async_runtime.so"
pipe[openmp]="builtin.module(func.func(convert-linalg-to-loops),convert-scf-to-openmp,finalize-memref-to-llvm,convert-scf-to-cf,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,convert-openmp-to-llvm,reconcile-unrealized-casts)"
libs[openmp]="$utils,$L/libomp.so.5"
ways=(sequential async openmp)
for w in "${ways[@]}"; do
  "$B/mlir-opt" bench/fork_cost/loop.mlir --pass-pipeline="${pipe[$w]}" -o "$tmp/$w.mlir"
done
for ((r = 0; r < repeats; r++)); do
  for w in "${ways[@]}"; do
    "$B/mlir-cpu-runner" "$tmp/$w.mlir" -e main -entry-point-result=void -O3 \
      -shared-libs="${libs[$w]}" >> "$tmp/$w.txt"
  done
done
echo "# fork_cost: $(uname -n) $(uname -m), $(nproc) cores; commit $COMMIT; $(date -u '+%F %H:%M UTC'); median of $repeats runs of 20000 calls"
for w in "${ways[@]}"; do
  printf '%-10s %8.2f us per call  (runs: %s)\n' "$w" \
    "$(sort -g "$tmp/$w.txt" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')" \
    "$(sort -g "$tmp/$w.txt" | tr '\n' ' ' | sed 's/ $//')"
done
