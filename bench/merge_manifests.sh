#!/usr/bin/env bash
# Merges train manifests of several corpora into one, for training on more
# modules than one corpus holds (configs/expit11.yaml). The first manifest's
# modules keep their names and order (carried expert-iteration winners refer
# to modules by index); those of manifest k > 1 are prefixed "sK_" so that
# same-named modules of different seeds do not collide. The modules are
# symlinked into OUT_DIR, which gets OUT_DIR/train.tsv.
#
# usage: bench/merge_manifests.sh OUT_DIR TRAIN_TSV [TRAIN_TSV...]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT_DIR TRAIN_TSV [TRAIN_TSV...]" >&2; exit 2; }
out=$1
shift
mkdir -p "$out"
tsv="$out/train.tsv"
head -n 2 "$1" | grep '^#' > "$tsv" || true
k=1
for m in "$@"; do
  [ -f "$m" ] || { echo "merge_manifests: no manifest '$m'" >&2; exit 1; }
  dir=$(cd "$(dirname "$m")" && pwd)
  prefix=""
  [ "$k" -eq 1 ] || prefix="s${k}_"
  grep -v '^#' "$m" | while IFS=$'\t' read -r file rest; do
    [ -f "$dir/$file" ] || { echo "merge_manifests: '$m' names '$file', which is not in $dir" >&2; exit 1; }
    ln -sfn "$dir/$file" "$out/$prefix$file"
    printf '%s%s\t%s\n' "$prefix" "$file" "$rest"
  done >> "$tsv"
  k=$((k + 1))
done
echo "merge_manifests: $(grep -vc '^#' "$tsv") modules in $tsv"
