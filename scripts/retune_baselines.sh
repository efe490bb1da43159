#!/bin/sh
# Re-tunes data/baselines.yaml with the current catalog (issue 14 item 1):
# per corpus family, greedy and random search over the train split, every
# winner (and the current baseline) confirmed by re-measurement on each
# module with outputs checked; writes a candidate OUT/baselines.yaml and
# OUT/baselines_table.md (each family's gain and 95% interval, for
# docs/CORPUS.md). Slow (hours on the default corpus): run it on a quiet
# machine, then review and copy the candidate over data/baselines.yaml.
#
# usage: scripts/retune_baselines.sh [CORPUS_DIR] [OUT_DIR] [BUILD_DIR]
#   env: BUDGET (24; 0: no search), MODULES (3 per family), PAIRS (10), MIN_GAIN (0.02),
#        FAMILIES (comma-separated; default all)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-/work/corpus-default}
out=${2:-$root/runs/retune}
build=${3:-$root/build}
export OPENBLAS_NUM_THREADS=1
exec python3 "$root/scripts/retune_baselines.py" "$build/mqss" "$corpus" "$out"
