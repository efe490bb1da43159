#!/bin/sh
# The selection-bias check (docs/eval/README.md, "A fresh sample"): a policy
# chosen by comparing candidates on one hold-out split is measured on modules
# nothing was chosen on. Generates the corpus of SEED (`mqss corpus gen`,
# same generator and split rule as the default corpus, seed 0), then
# `mqss eval` of POLICY on its hold-out split (family baselines, reference,
# and the best fixed pipeline chosen on TRAIN_TSV), and, unless GUARD=0, the
# guarded `--budget 4` compile on the same modules (bench/guard_examples.sh).
# Prints the machine, the commit and the date; reports go to OUT. Use one
# seed (2, 3, ...) to choose among candidates and report the chosen one
# once on another (run 17 used seed 1).
#
# usage: bench/fresh_sample.sh SEED TRAIN_TSV [POLICY] [OUT] [BUILD_DIR]
#   env: PAIRS (10), GUARD (1), COUNT (500, the corpus size; its hold-out
#        split is 10%, at least min(50, COUNT/5) modules)
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
seed=$1
train=$(abs "$2")
policy=$(abs "${3:-models/default.safetensors}")
out=$(abs "${4:-/tmp/mqss_fresh_$seed}")
cd "$(dirname "$0")/.."
BUILD=${5:-build}
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
mkdir -p "$out"
echo "machine: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; commit $COMMIT; $(date -u '+%Y-%m-%d %H:%M UTC')"
"$BUILD/mqss" corpus gen --out "$out/corpus" --seed "$seed" --count "${COUNT:-500}"
"$BUILD/mqss" eval --policy "$policy" --manifest "$out/corpus/holdout.tsv" \
  --fixed-from-train "$train" --pairs "${PAIRS:-10}" --warmup 1 --out "$out"
[ "${GUARD:-1}" = 0 ] || MANIFEST="$out/corpus/holdout.tsv" PAIRS="${PAIRS:-10}" \
  bench/guard_examples.sh "$policy" "$BUILD" | tee "$out/guard.txt"
