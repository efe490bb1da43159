#!/usr/bin/env bash
# `make fuzz`: runs every libFuzzer harness of BUILD/fuzz for SECONDS each,
# starting from its seed corpus fuzz/corpus/NAME (read only; what the fuzzer
# finds goes to BUILD/fuzz-corpus/NAME). Inputs are capped at 16 KiB, each
# run at 10 s and 2 GiB. A crash leaves BUILD/fuzz-artifacts/NAME-crash-*
# and makes the script fail after the other harnesses have run.
# Usage: scripts/fuzz.sh BUILD SECONDS
set -uo pipefail
build=${1:?usage: fuzz.sh BUILD SECONDS}
secs=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for bin in "$build"/fuzz/fuzz_*; do
  name=$(basename "$bin")
  name=${name#fuzz_}
  seeds="$root/fuzz/corpus/$name"
  work="$build/fuzz-corpus/$name"
  arts="$build/fuzz-artifacts"
  mkdir -p "$work" "$arts"
  echo "== fuzz_$name: ${secs} s from $(ls "$seeds" | wc -l) seeds"
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
      -max_len=16384 -print_final_stats=1 -artifact_prefix="$arts/$name-" \
      "$work" "$seeds" >"$build/fuzz-$name.log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' \
      "$build/fuzz-$name.log" | sed 's/^/   /'
  else
    echo "   FAILED: see $build/fuzz-$name.log and $arts/$name-*"
    tail -40 "$build/fuzz-$name.log"
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]}"
  exit 1
fi
echo "fuzz: no crash"
