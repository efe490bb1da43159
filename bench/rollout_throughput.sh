#!/bin/sh
# Rollout throughput of the trainer with 1 and 2 workers: episodes/s of the
# rollout phase (passes + sandboxed final measurement, no cache), median over
# iterations and repeats, and the parallel efficiency eps(2) / (2 eps(1)).
# usage: bench/rollout_throughput.sh [BUILD_DIR] [REPEATS]
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPEATS=${2:-3}
MQSS=$BUILD/mqss
. bench/common.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

$MQSS corpus gen --out "$TMP/corpus" --count 12 --seed 0 \
  --families matmul_chain,poly_blas2,poly_stencil,conv2d,softmax,spmv >/dev/null
for W in 1 2; do
  for R in $(seq "$REPEATS"); do
    cat >"$TMP/cfg.yaml" <<CFG
rl:
  num_workers: $W
  rollout_steps: 48
  batch_size: 48
  minibatch: 16
  iterations: 3
  max_steps: 4
  seed: $R
env:
  manifest: $TMP/corpus/train.tsv
  baseline_json: ""
  measure:
    warmup: 1
    repeat: 3
    cache: $TMP/cache-$W-$R.sqlite
CFG
    $MQSS train --config "$TMP/cfg.yaml" --log-dir "$TMP/log-$W-$R" --quiet >/dev/null
    # episodes/s of every iteration (column perf/episodes_per_s)
    awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="perf/episodes_per_s") c=i; next} {print $c}' \
      "$TMP/log-$W-$R/metrics.csv" >>"$TMP/eps-$W"
  done
done
median() { sort -g "$1" | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
E1=$(median "$TMP/eps-1")
E2=$(median "$TMP/eps-2")
echo "machine: $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "commit: $COMMIT"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "rollout: 12 modules (6 families), max 4 steps, 48 steps/iteration, no cache, $REPEATS runs x 3 iterations"
printf 'workers  episodes/s (median)\n'
printf '%7d  %.3f\n' 1 "$E1" 2 "$E2"
awk -v a="$E1" -v b="$E2" 'BEGIN{printf "efficiency eps(2)/(2*eps(1)) = %.3f (target >= 0.85)\n", b/(2*a)}'
