#!/bin/sh
# The thread figures of docs/SCHEDULES.md "Threads" on OpenMP, read twice,
# interleaved pairs (mqss measure --vs, 10 pairs, outputs checked), on the
# quiet machine: runs/parallel42/remeasure/run.sh's splits (async runtime)
# again, and each split run on one thread (scf-forall-to-for) to separate
# the split from the threads.  usage: run.sh MQSS
set -u
M=$1
D=$(cd "$(dirname "$0")" && pwd)
C=/work/corpus-default
vs() { "$M" measure "$1" --pipeline "$2" --vs "$3" --no-cache --timeout 120000 2>&1 | grep -E "Hodges|^B status|^A status"; }
echo "# $(date -u '+%F %H:%M UTC'); $(git -C "$D" rev-parse --short HEAD)"
PT=$("$M" catalog --apply parallel-tile $C/pooling_512.mlir --params -1,-0.2 2>&1 >/dev/null | sed -n 's/^applied: //p')
I512="func.func(cse),func.func(linalg-fuse-elementwise-ops)"
P512="builtin.module($I512)"
ROWS="transform-preload-library{transform-library-paths=$D/forall_rows.mlir},transform-interpreter{entry-point=fc}"
P192=$("$M" select $C/matmul_chain_192.mlir 2>/dev/null | tail -1)
I192=${P192#builtin.module(}; I192=${I192%)}
MM="transform-preload-library{transform-library-paths=$D/forall_matmul.mlir},transform-interpreter{entry-point=fa}"
BUF="one-shot-bufferize{allow-return-allocs-from-loops bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}"
ONE="$BUF,func.func(canonicalize{region-simplify=disabled},cse,canonicalize{region-simplify=disabled},scf-forall-to-for)"
for r in 1 2; do
  echo "== reading $r"
  echo "pooling_512: reference vs parallel-tile D0 1 D1 8"; vs $C/pooling_512.mlir "" "$PT"
  echo "pooling_512: cse+fuse vs row forall then cse+fuse"; vs $C/pooling_512.mlir "$P512" "builtin.module($ROWS,$I512)"
  echo "pooling_512: cse+fuse vs row forall then cse+fuse, on one thread"; vs $C/pooling_512.mlir "$P512" "builtin.module($ROWS,$I512,$ONE)"
  echo "matmul_chain_192: policy vs matmul forall then policy"; vs $C/matmul_chain_192.mlir "$P192" "builtin.module($MM,$I192)"
  echo "matmul_chain_192: policy vs matmul forall then policy, on one thread"; vs $C/matmul_chain_192.mlir "$P192" "builtin.module($MM,$I192,$ONE)"
done
