#!/bin/sh
# What leaking buffers did to the timings (docs/BENCHMARKS.md, "Freeing
# buffers"). Per module of MANIFEST, three paired measurements (`mqss
# measure --vs`, PAIRS pairs, outputs checked), where FREE is the finisher's
# deallocation step (src/ir/finish.c) run as a pipeline:
#   reference   time(reference) / time(bufferize + FREE)
#   base_leak   time(reference) / time(family baseline)
#   base_free   time(bufferize + FREE) / time(family baseline + FREE)
# Run it with a build from before c55d52f (the finisher leaked then): with a
# later build the finisher frees on both sides and every ratio compares
# freeing code with freeing code. A module that frees its own buffers gets
# an error for FREE (the pass refuses existing deallocations). Run alone.
#
# usage: bench/free_buffers.sh MANIFEST [BUILD_DIR]   (env: PAIRS, 8)
set -eu
manifest=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
BUILD=${2:-build}
mqss=$(pwd)/$BUILD/mqss
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
FREE="one-shot-bufferize{allow-return-allocs-from-loops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},expand-realloc,ownership-based-buffer-deallocation,buffer-deallocation-simplification,bufferization-lower-deallocations,convert-bufferization-to-memref"
echo "machine: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; commit $COMMIT; binary $($mqss version | head -1); $(date -u '+%Y-%m-%d %H:%M UTC')"
ratio() { # PIPELINE_A PIPELINE_B: time(B) / time(A), or the failure
  "$mqss" measure "$path" --pipeline "$1" --vs "$2" --no-cache \
    --repeat "${PAIRS:-8}" 2>&1 | grep -E "Hodges|identical|message" | head -1 |
    sed 's/^ratio B\/A: //; s/ (Hodges-Lehmann.*//; s/^A message: //; s/(identical.*/identical/'
}
printf 'module\tfamily\treference\tbase_leak\tbase_free\n'
cd data # baselines.yaml's schedules are relative to it
grep -v '^#' "$manifest" | while read -r f fam _; do
  [ -n "$f" ] || continue
  path=$(dirname "$manifest")/$f
  base=$(python3 -c "import sys, yaml
print(yaml.safe_load(open('baselines.yaml'))['families'].get(sys.argv[1], {}).get('pipeline', ''))" "$fam")
  r1=$(ratio "builtin.module($FREE)" "")
  if [ -n "$base" ]; then
    inner=${base#builtin.module(}
    inner=${inner%)}
    r2=$(ratio "$base" "")
    r3=$(ratio "builtin.module($inner,$FREE)" "builtin.module($FREE)")
  else
    r2=-; r3=-
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$fam" "$r1" "$r2" "$r3"
done
