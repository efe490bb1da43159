#!/usr/bin/env bash
# Joins expert-iteration winner files of manifests that bench/merge_manifests.sh
# merged, for expit.winners_from on the merged manifest (configs/expit16.yaml).
# A winner names its module by its index in its own manifest (the first field
# of winners.tsv); each file is given with the number of modules that come
# before its manifest in the merged one, which is added to its indices.
#
# usage: bench/expit_concat_winners.sh WINNERS OFFSET [WINNERS OFFSET...] > OUT
set -euo pipefail
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] ||
  { echo "usage: $0 WINNERS OFFSET [WINNERS OFFSET...] > OUT" >&2; exit 2; }
while [ $# -gt 0 ]; do
  file=$1 offset=$2
  shift 2
  [ -f "$file" ] || { echo "expit_concat_winners: no file '$file'" >&2; exit 1; }
  [[ $offset =~ ^[0-9]+$ ]] ||
    { echo "expit_concat_winners: offset '$offset' is not a count of modules" >&2; exit 1; }
  awk -F'\t' -v OFS='\t' -v off="$offset" -v f="$file" '
    $1 !~ /^[0-9]+$/ { printf "expit_concat_winners: %s:%d: no module index\n", f, NR > "/dev/stderr"; exit 1 }
    { $1 = $1 + off; print }' "$file"
done
