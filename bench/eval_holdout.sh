#!/bin/sh
# The hold-out evaluation of a policy, in one command (issue 14 items 5, 6
# and 8; docs/eval/): on a quiet machine, in this order,
#   1. the random-search comparator: `mqss search --method random --budget
#      200` (confirmed, JSON) on SEARCH_MODULES hold-out modules, the first of
#      each family in the manifest (kept in OUT/search/ and reused when
#      present: it does not depend on the policy);
#   2. `mqss eval` of the policy on every hold-out module against the family
#      baselines (data/baselines.yaml), the reference and the best fixed
#      pipeline chosen on a training sample, with the random-search figures,
#      written to OUT (report.md, report.html, report.json, plots);
#   3. `mqss eval` of the policy on the hand-written examples/ (their
#      families in examples/families.tsv) to OUT/examples/ (item 7);
#   4. the any-time curve, bench/budget_curve.sh (budgets 0, 4, 16), to
#      OUT/budget_curve.txt (the longest step, last).
# Every step prints the machine, the commit and the date.
#
# usage: bench/eval_holdout.sh CORPUS_DIR [POLICY] [OUT] [BUILD_DIR]
#   CORPUS_DIR holds holdout.tsv and train.tsv (mqss corpus gen)
#   env: SEARCH_MODULES (default 10), PAIRS (10), BUDGETS ("0 4 16")
set -eu
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
corpus=$(cd "$1" && pwd)
policy=$(abs "${2:-models/default.safetensors}")
out=$(abs "${3:-docs/eval}")
cd "$(dirname "$0")/.."
BUILD=${4:-build}
mqss="$BUILD/mqss"
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
mkdir -p "$out/search"
echo "machine: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; commit $COMMIT; $(date -u '+%Y-%m-%d %H:%M UTC')"

# 1. random search, 200 evaluations, on the first module of each family;
# the schedule scripts its pipelines name go next to the results, so that a
# later `mqss eval --search-json` can still run the best one (in /tmp they
# were gone on the next machine, and the share fell back to cross-run)
export MQSS_SCHEDULE_DIR="$out/search/schedules"
n=0
for f in $(awk -F'\t' '!/^#/ && !seen[$2]++ {print $1}' "$corpus/holdout.tsv"); do
  [ "$n" -lt "${SEARCH_MODULES:-10}" ] || break
  n=$((n + 1))
  json="$out/search/${f%.mlir}.json"
  [ -s "$json" ] && continue
  echo "random search 200: $f" >&2
  "$mqss" search --method random --budget 200 --seed 0 --repeat 3 \
    --warmup 1 --json "$corpus/$f" > "$json.tmp"
  mv "$json.tmp" "$json"
done

# 2. the evaluation
"$mqss" eval --policy "$policy" --manifest "$corpus/holdout.tsv" \
  --fixed-from-train "$corpus/train.tsv" --search-json "$out/search" \
  --pairs "${PAIRS:-10}" --warmup 1 --out "$out"

# 3. the hand-written examples
"$mqss" eval --policy "$policy" --manifest examples/families.tsv \
  --pairs "${PAIRS:-10}" --warmup 1 --out "$out/examples"

# 4. the any-time curve
BUDGETS="${BUDGETS:-0 4 16}" PAIRS="${PAIRS:-10}" \
  bench/budget_curve.sh "$corpus/holdout.tsv" "$policy" "$BUILD" \
  | tee "$out/budget_curve.txt"
