#!/usr/bin/env bash
# `make demo`: the main job on the shipped default policy. Generates a small
# sample corpus (one module per workload family of a few), lets the policy
# choose a pipeline for each, measures it against the family's hand-tuned
# baseline and the reference in interleaved pairs, with outputs checked, and
# prints the table. Then compiles one module to an object file through the
# guard. Takes a few minutes on 2 cores.
#
# usage: demo.sh [BUILD_DIR] [MQSS_BINARY]   (defaults: build, BUILD_DIR/mqss;
# tests/static/check_static.sh passes build/mqss-static)
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
mqss=${2:-$build/mqss}
policy="$root/models/default.safetensors"
out="$build/demo"
rm -rf "$out"
mkdir -p "$out"

"$mqss" version
echo "policy: $policy"
echo
echo "== a sample corpus: one module of each of 8 families (seed 0)"
"$mqss" corpus gen --out "$out/corpus" --count 8 --seed 0 --min-lines 1 \
  --families matmul_chain,mlp,softmax,attention,poly_blas2,poly_stencil,conv2d,spmv

echo
echo "== select + measure: the policy's pipeline vs the family baseline and the reference"
"$mqss" eval --policy "$policy" --manifest "$out/corpus/manifest.tsv" \
  --pairs 8 --warmup 1 --cache-dir "$out/cache" --out "$out/report"

echo
echo "== compile with the guard (falls back to the baseline if the output differs)"
first=$(grep -v '^#' "$out/corpus/manifest.tsv" | head -1 | cut -f1)
"$mqss" compile "$out/corpus/$first" --policy "$policy" --guard -o "$out/$first.o"
ls -l "$out/$first.o"
echo
echo "report: $out/report/report.html (and report.md, PNG plots)"
