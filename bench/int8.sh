#!/bin/sh
# The int8 policy against its f32 original: builds bench/int8_agree.c, writes
# the int8 copy with `mqss quantize`, and runs both over a corpus hold-out.
# Prints the share of decision steps where they agree (target >= 99%), the
# file sizes, and the decision latency of each in one interleaved run
# (medians), with the machine and the commit.
# usage: bench/int8.sh [BUILD_DIR] [POLICY] [HOLDOUT_TSV] [REPEATS]
#   BUILD_DIR defaults to ./build, POLICY to models/default.safetensors,
#   REPEATS (timed decisions per state and policy) to 5. Without
#   HOLDOUT_TSV a corpus of 250 modules (seed 0, a hold-out of 50) is generated into a
#   temporary directory and its holdout.tsv used.
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
POLICY=${2:-models/default.safetensors}
HOLDOUT=${3:-}
REPEATS=${4:-5}
. bench/common.sh
bench_build int8_agree
cmake --build "$BUILD" -j2 --target mqss >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MQSS_CATALOG=${MQSS_CATALOG:-$PWD/data/catalog.yaml}
if [ -z "$HOLDOUT" ]; then
  "$BUILD/mqss" corpus gen --out "$tmp/corpus" --count 250 --seed 0 >/dev/null
  HOLDOUT="$tmp/corpus/holdout.tsv"
fi
dir=$(dirname "$HOLDOUT")
modules=$(awk -F'\t' -v d="$dir" '$1 !~ /^#/ && $1 != "file" {print d "/" $1}' "$HOLDOUT")
"$BUILD/mqss" quantize "$POLICY" "$tmp/int8.safetensors" >/dev/null
echo "hold-out: $HOLDOUT"
echo "file size: f32 $(wc -c < "$POLICY") bytes, int8 $(wc -c < "$tmp/int8.safetensors") bytes ($(awk -v a="$(wc -c < "$POLICY")" -v b="$(wc -c < "$tmp/int8.safetensors")" 'BEGIN{printf "%.2f", a/b}')x smaller)"
# shellcheck disable=SC2086
"$BUILD/bench_int8_agree" "$COMMIT" "$POLICY" "$tmp/int8.safetensors" "$REPEATS" $modules
