#!/bin/sh
# Random search (200 evaluations, seed 0, as docs/eval/expit15/search/) with
# the 74-action catalog (async-parallel, parallel-tile), one module at a
# time on the quiet machine; compare with expit15's searches.
# usage: runs/parallel42/search.sh MQSS [OUT_DIR]   (default: next to this
# script; runs/threads43/search was written by the same script, with the
# catalog of 090b15f in MQSS_CATALOG)
set -e
MQSS=$1
OUT=${2:-$(dirname "$0")/search}
for m in pooling_70 conv2d_68 cnn_55 layernorm_42 depthwise_137 poly_blas3_11; do
  [ -s "$OUT/$m.json" ] && continue
  "$MQSS" search --method random --budget 200 --seed 0 --json \
    /work/corpus-default/$m.mlir > "$OUT/$m.json.part" && mv "$OUT/$m.json.part" "$OUT/$m.json"
done
