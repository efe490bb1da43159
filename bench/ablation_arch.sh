#!/bin/sh
# Ablation of the graph features (docs/TRAINING.md, "Ablations"): clones the
# same demonstrations, an earlier run's winners (WINNERS, a round_R/
# winners.tsv) and the family recipes of the modules without one, into a
# GNN policy and into an MLP policy that sees the state vector only
# (configs/clone_only.yaml, from fresh weights, no search, no PPO), then
# evaluates both on the hold-out split with `mqss eval` (PAIRS interleaved
# pairs against the family baselines and the reference). Needs the machine
# to itself for the evaluations. Writes OUT/<arch>/ (the training log, the
# policy, eval/report.md) and prints the machine, the commit, the date and
# each policy's aggregate.
#
# usage: bench/ablation_arch.sh CORPUS_DIR WINNERS [OUT] [BUILD_DIR]
#   env: PAIRS (default 10)
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
corpus=$(cd "$1" && pwd)
winners=$(abs "$2")
out=$(mkdir -p "${3:-runs/ablation}" && cd "${3:-runs/ablation}" && pwd)
cd "$(dirname "$0")/.."
BUILD=${4:-build}
mqss="$BUILD/mqss"
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
echo "machine: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; commit $COMMIT; $(date -u '+%Y-%m-%d %H:%M UTC')"
for arch in gnn mlp; do
  mkdir -p "$out/$arch"
  [ -s "$out/$arch/policy.safetensors" ] && continue
  sed -e "s|^  arch: gnn .*|  arch: $arch|" \
      -e "s|^  manifest: .*|  manifest: $corpus/train.tsv|" \
      -e "s|^  winners_from: .*|  winners_from: $winners|" \
      configs/clone_only.yaml > "$out/$arch/config.yaml"
  "$mqss" train --config "$out/$arch/config.yaml" --log-dir "$out/$arch" \
    --quiet 2> "$out/$arch/train.log"
done
for arch in gnn mlp; do
  "$mqss" eval --policy "$out/$arch/policy.safetensors" \
    --manifest "$corpus/holdout.tsv" --pairs "${PAIRS:-10}" --warmup 1 \
    --out "$out/$arch/eval" -q > /dev/null
  echo "== $arch"
  sed -n '/^## Aggregate/,/^## Per family/p' "$out/$arch/eval/report.md" \
    | grep -E 'geomean|compile|faster|crashes|wrong'
done
