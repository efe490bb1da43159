// The family table of the corpus generator: name, domain, a one-line
// description and the emitter of every workload family, plus the function
// that turns (family, seed, index) into one module's text. Adding a family
// is one row here and one emitter; nothing else changes. A family added to
// the default mix changes every default corpus (module i is of family
// i mod F): new ones are opt-in.
#include "corpus.h"

#include <string.h>

// ----------------------------------------------------------------------------
// the table

const corpus_family corpus_families[] = {
    // vision: convolutional networks on 4-D tensors
    {"conv2d", "vision",
     "conv_2d stacks, NHWC/NCHW, strides, dilations, padding, f32/f64/i8",
     fam_conv2d, false},
    {"depthwise", "vision",
     "MobileNetV2 blocks: 1x1 expand, depthwise 3x3, 1x1 project, skip",
     fam_depthwise, false},
    {"pooling", "vision", "1x1 stem, max/sum pooling pyramid, global pool",
     fam_pooling, false},
    {"resblock", "vision", "ResNet basic blocks with identity skips",
     fam_resblock, false},
    {"cnn", "vision", "small CNN: conv/relu/maxpool, flatten, dense, softmax",
     fam_cnn, false},
    // NLP: transformer pieces on 2-D [tokens x features] tensors
    {"matmul_chain", "nlp", "dense layer chains (f32/f64/i8->i32), batched",
     fam_matmul_chain, false},
    {"mlp", "nlp", "feed-forward blocks with GELU/SiLU/ReLU and residuals",
     fam_mlp, false},
    {"softmax", "nlp", "scoring heads: linear + (log-)softmax, temperature",
     fam_softmax, false},
    {"layernorm", "nlp", "LayerNorm/RMSNorm + linear + residual stacks",
     fam_layernorm, false},
    {"attention", "nlp", "self-attention heads (causal or not), summed",
     fam_attention, false},
    {"transformer", "nlp", "pre-LN transformer blocks", fam_transformer, false},
    // HPC: PolyBench kernels as affine.for nests on memrefs
    {"poly_blas3", "hpc", "gemm, 2mm, 3mm, syrk, doitgen", fam_poly_blas3, false},
    {"poly_blas2", "hpc", "atax, bicg, mvt, gesummv", fam_poly_blas2, false},
    {"poly_stencil", "hpc", "jacobi-1d/2d, seidel-2d, heat-3d, fdtd-2d",
     fam_poly_stencil, false},
    // irregular: index arrays and data-dependent control flow
    {"spmv", "irregular", "CSR SpMV, transposed SpMV (scatter), SpMM, ELL",
     fam_spmv, false},
    {"gather_scatter", "irregular",
     "embedding gather, scatter-add, segment sum, permuted axpy",
     fam_gather_scatter, false},
    {"recurrence", "irregular",
     "scf.while Newton/logistic/power iteration, IIR filter (iter_args)",
     fam_recurrence, false},
    // opt-in: outside the default mix, so the default corpora stay as they are
    {"conv2d_layer", "vision",
     "(opt-in) one conv_2d + bias + ReLU on a small image, batch 1",
     fam_conv2d_layer, true},
    {"matmul_layer", "nlp",
     "(opt-in) one matmul (+ bias, ReLU) or one batched matmul, small operands",
     fam_matmul_layer, true},
    {"depthwise_layer", "vision",
     "(opt-in) one depthwise 3x3 conv + bias + ReLU(6), maybe a 2x2 max pool",
     fam_depthwise_layer, true},
    {"qconv_layer", "vision",
     "(opt-in) one int8 conv_2d (zero points or not) + bias, requantised to i8",
     fam_qconv_layer, true},
    {"memref_layer", "vision",
     "(opt-in) one pooling, matmul or strided conv on memrefs, buffer style",
     fam_memref_layer, true},
    {"mlp_layer", "nlp",
     "(opt-in) one dense layer + bias + GELU/SiLU/tanh, small operands",
     fam_mlp_layer, true},
};

const int corpus_nfamilies = sizeof corpus_families / sizeof corpus_families[0];

const corpus_family *corpus_family_find(const char *name) {
  for (int i = 0; i < corpus_nfamilies; i++)
    if (!strcmp(corpus_families[i].name, name))
      return &corpus_families[i];
  return NULL;
}

// ----------------------------------------------------------------------------
// one module

// splitmix64: spreads the user's seed over the whole state space, so seeds
// S and S+1 do not give shifted copies of the same streams.
static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

bool corpus_emit_module(const corpus_family *f, uint64_t seed, int index,
                        strbuf *out, strbuf *drv) {
  gen g;
  // Module `index` depends only on (seed, index): state from the index,
  // stream from the seed. It does not depend on how many modules are made.
  gen_init(&g, splitmix64(splitmix64(seed) + (uint64_t)index), seed);
  f->emit(&g);
  if (out)
    gen_finish(&g, f->name, f->domain, seed, index, false, out);
  bool ok = !drv || gen_finish(&g, f->name, f->domain, seed, index, true, drv);
  gen_free(&g);
  return ok;
}

// ----------------------------------------------------------------------------
// public accessors

int mqss_corpus_family_count(void) { return corpus_nfamilies; }

const char *mqss_corpus_family_name(int i) {
  return i >= 0 && i < corpus_nfamilies ? corpus_families[i].name : NULL;
}

const char *mqss_corpus_family_domain(int i) {
  return i >= 0 && i < corpus_nfamilies ? corpus_families[i].domain : NULL;
}

const char *mqss_corpus_family_about(int i) {
  return i >= 0 && i < corpus_nfamilies ? corpus_families[i].about : NULL;
}

static char *emit(const char *family, uint64_t seed, int index, bool driver) {
  const corpus_family *f = family ? corpus_family_find(family) : NULL;
  if (!f || index < 0)
    return NULL;
  strbuf sb = {0};
  if (!corpus_emit_module(f, seed, index, driver ? NULL : &sb,
                          driver ? &sb : NULL))
    sb_free(&sb);
  return sb.data;
}

char *mqss_corpus_emit(const char *family, uint64_t seed, int index) {
  return emit(family, seed, index, false);
}

char *mqss_corpus_emit_driver(const char *family, uint64_t seed, int index) {
  return emit(family, seed, index, true);
}
