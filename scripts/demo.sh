#!/usr/bin/env bash
# `make demo`: lower every example to the LLVM dialect with the finisher, run
# it with MLIR's JIT runner, and print a table. Until a trained policy ships
# (see the issues), this is the main job: it shows that any input module goes
# all the way to runnable code.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
mqss="$build/mqss"
runner=/usr/lib/llvm-19/bin/mlir-cpu-runner
libs=/usr/lib/llvm-19/lib/libmlir_runner_utils.so,/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$mqss" version
printf '\n%-50s %6s %8s  %s\n' example steps run_ms "first output line"
ok=0 total=0
for f in "$root"/examples/*.mlir; do
  name=$(basename "$f" .mlir)
  total=$((total + 1))
  if ! "$mqss" opt "$f" --finish --print-finish -o "$tmp/$name.ll.mlir" 2>"$tmp/$name.err"; then
    printf '%-50s %6s %8s  %s\n' "$name" - - "FAILED: $(head -c 120 "$tmp/$name.err")"
    continue
  fi
  steps=$(sed -n 's/^finish: //p' "$tmp/$name.err" | tr ',' '\n' | grep -c .)
  t0=$(date +%s%N)
  if "$runner" "$tmp/$name.ll.mlir" -e main -entry-point-result=void -shared-libs="$libs" \
       >"$tmp/$name.out" 2>&1; then
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    first=$(grep -v 'base@' "$tmp/$name.out" | head -1 | cut -c1-60)
    printf '%-50s %6d %8d  %s\n' "$name" "$steps" "$ms" "$first"
    ok=$((ok + 1))
  else
    printf '%-50s %6d %8s  %s\n' "$name" "$steps" - "RUN FAILED: $(head -c 120 "$tmp/$name.out")"
  fi
done
printf '\n%d of %d examples lowered to LLVM and ran.\n' "$ok" "$total"
[ "$ok" -eq "$total" ]
