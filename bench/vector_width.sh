#!/bin/sh
# What capping vector registers at 256 bits (the catalog's vector-width-256,
# mqss-vector-width in src/ir/cxx_passes.cpp) does to the policy's own
# selections. Per module of MANIFEST (a `mqss corpus gen` manifest or
# examples/families.tsv): the policy's selection against the same followed
# by func.func(mqss-vector-width{bits=256}), timed by `mqss measure --vs`
# (interleaved pairs, outputs checked), on the module's kernel (its one
# public function besides @main) and, when it has one, on @main. Prints the
# time with the cap over the time without (< 1: the cap pays) with its 95%
# interval and verdict, the machine and the commit. Modules with an empty
# selection keep no explicit vectors and are listed as such.
# usage: bench/vector_width.sh MANIFEST [POLICY] [BUILD_DIR] [PAIRS]
set -eu
cd "$(dirname "$0")/.."
MAN=$1
POLICY=${2:-models/default.safetensors}
BUILD=${3:-build}
PAIRS=${4:-10}
. bench/common.sh
cmake --build "$BUILD" -j2 --target mqss >/dev/null
dir=$(dirname "$MAN")
cap="func.func(mqss-vector-width{bits=256})"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); commit $COMMIT; $(date -u '+%F %H:%M') UTC; $PAIRS pairs; policy $POLICY"
echo "module	entry	capped / uncapped	95% interval	verdict"
grep -v '^#' "$MAN" | cut -f1 | while read -r f; do
  [ -n "$f" ] || continue
  path=$dir/$f
  p=$("$BUILD/mqss" select "$path" --policy "$POLICY" 2>/dev/null || true)
  if [ -z "$p" ] || [ "$p" = "builtin.module()" ]; then printf '%s\t-\tempty selection\n' "$f"; continue; fi
  kernel=$(sed -n 's/^func\.func @\([A-Za-z0-9_]*\)(.*/\1/p' "$path" | grep -v '^main$' | head -1)
  entries=$kernel
  grep -q '^func\.func @main()' "$path" && entries="$entries main"
  for e in $entries; do
    "$BUILD/mqss" measure "$path" --entry "$e" --pipeline "$p" --vs "${p%)},$cap)" \
      --warmup 1 --repeat "$PAIRS" --no-cache 2>&1 |
      awk -v f="$f" -v e="$e" '/^ratio B\/A: [0-9.]+ \[/ {
        sub(/,/, "", $4); sub(/\]/, "", $5); v = $0; sub(/.*verdict: /, "", v); sub(/ \(min.*/, "", v)
        printf "%s\t%s\t%s\t[%s, %s]\t%s\n", f, e, $3, substr($4, 2), $5, v; ok = 1 }
        END { if (!ok) printf "%s\t%s\tfailed\n", f, e }'
  done
done
