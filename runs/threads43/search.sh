#!/bin/sh
# Random search (200 evaluations, seed 0, as docs/eval/expit15/search/) with
# the 74-action catalog, its thread actions on OpenMP (FINISH_VERSION 6),
# one module at a
# time on the quiet machine; compare with runs/parallel42 (the async runtime, FINISH_VERSION 4).
# usage: runs/threads43/search.sh MQSS
set -e
MQSS=$1
OUT=$(dirname "$0")/search
for m in pooling_70 conv2d_68 cnn_55 layernorm_42 depthwise_137 poly_blas3_11; do
  [ -s "$OUT/$m.json" ] && continue
  "$MQSS" search --method random --budget 200 --seed 0 --json \
    /work/corpus-default/$m.mlir > "$OUT/$m.json.part" && mv "$OUT/$m.json.part" "$OUT/$m.json"
done
