#!/usr/bin/env bash
# Merges train manifests of several corpora into one, for training on more
# modules than one corpus holds (configs/expit11.yaml). The first manifest's
# modules keep their names and order (carried expert-iteration winners refer
# to modules by index, so a merge that appends a manifest keeps them valid);
# those of the later ones are prefixed "sN_", N the corpus seed of their
# header, so that same-named modules of different seeds do not collide.
# The modules are symlinked into OUT_DIR, which gets OUT_DIR/train.tsv.
#
# usage: bench/merge_manifests.sh OUT_DIR TRAIN_TSV [TRAIN_TSV...]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT_DIR TRAIN_TSV [TRAIN_TSV...]" >&2; exit 2; }
out=$1
shift
mkdir -p "$out"
tsv="$out/train.tsv"
head -n 2 "$1" | grep '^#' > "$tsv" || true
first=1
for m in "$@"; do
  [ -f "$m" ] || { echo "merge_manifests: no manifest '$m'" >&2; exit 1; }
  dir=$(cd "$(dirname "$m")" && pwd)
  prefix=""
  if [ "$first" -eq 0 ]; then
    seed=$(head -n 1 "$m" | sed -n 's/.* seed=\([0-9][0-9]*\) .*/\1/p')
    [ -n "$seed" ] || { echo "merge_manifests: '$m' has no seed= in its header line" >&2; exit 1; }
    prefix="s${seed}_"
  fi
  grep -v '^#' "$m" | while IFS=$'\t' read -r file rest; do
    [ -f "$dir/$file" ] || { echo "merge_manifests: '$m' names '$file', which is not in $dir" >&2; exit 1; }
    ln -sfn "$dir/$file" "$out/$prefix$file"
    printf '%s%s\t%s\n' "$prefix" "$file" "$rest"
  done >> "$tsv"
  first=0
done
echo "merge_manifests: $(grep -vc '^#' "$tsv") modules in $tsv"
