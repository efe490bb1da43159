// NLP families of the corpus: matmul chains (f32/f64/i8->i32, batched),
// transformer MLPs with GELU/SiLU, classifier heads with softmax, norm
// stacks, attention heads and whole pre-LN transformer blocks, all on 2-D
// [tokens x features] tensors. Each family draws shapes and chains layer
// helpers (layers.c); none writes MLIR text itself except the batched
// matmul chain. Shapes keep one @forward call under ~NLP_BUDGET ops.
#include "layers.h"

#include <stdio.h>

enum { NLP_BUDGET = 400000000 };

static const int TOKENS[] = {64, 96, 128, 192, 256, 384};
static const int WIDTHS[] = {64, 96, 128, 192, 256, 384, 512};

static val tokens_param(gen *g, int M, int D, elt et) {
  return param_tensor(g, et, 2, (int[]){M, D});
}

static act_kind pick_mlp_act(pcg32 *r) {
  static const int acts[] = {ACT_GELU_TANH, ACT_GELU_ERF, ACT_SILU, ACT_RELU};
  return (act_kind)pcg_pick(r, acts, 4);
}

// ----------------------------------------------------------------------------
// matmul_chain: 4-8 linear layers, or a batched matmul chain

// Batched matmuls: B from 2-8, M from ms[0..n_m), K and N from ks[0..n_k),
// steps_lo to steps_hi of them chained.
typedef struct {
  const int *ms, *ks;
  int n_m, n_k, steps_lo, steps_hi;
} batch_shapes;

static void batched_chain(gen *g, elt et, const batch_shapes *bs) {
  pcg32 *r = &g->rng;
  int B = pcg_range(r, 2, 8), M = pcg_pick(r, bs->ms, bs->n_m);
  int K = pcg_pick(r, bs->ks, bs->n_k);
  char fn[64], ta[96];
  ty_tensor(ta, et, 3, (int[]){B, M, K});
  val x = param_tensor(g, et, 3, (int[]){B, M, K});
  int steps = pcg_range(r, bs->steps_lo, bs->steps_hi);
  for (int s = 0; s < steps; s++) {
    int N = pcg_pick(r, bs->ks, bs->n_k);
    if (g->flops + 2.0 * B * M * K * N > NLP_BUDGET)
      break;
    gen_func_name(g, "batch_matmul", fn);
    char to[96];
    ty_tensor(to, et, 3, (int[]){B, M, N});
    val args[2] = {x, param_tensor(g, et, 3, (int[]){B, K, N})};
    fn_begin(g, fn, 2, (const char *[]){"%x", "%w"}, args, to);
    op_batch_matmul(&g->helpers, "%y", "%x", "%w", B, M, K, N, et);
    fn_end(g, "%y", to);
    g->flops += 2.0 * B * M * K * N;
    char what[96];
    snprintf(what, sizeof what, "batch_matmul %dx%dx%dx%d %s", B, M, K, N,
             et_name(et));
    gen_note_kernel(g, what);
    x = gen_call(g, fn, to, 2, args);
    K = N;
  }
  gen_result(g, x);
}

void fam_matmul_chain(gen *g) {
  pcg32 *r = &g->rng;
  int q = pcg_range(r, 0, 5);
  elt et = q == 0 ? ET_I8 : q == 1 ? ET_F64 : ET_F32;
  if (et != ET_I8 && pcg_chance(r, 1, 4)) {
    g->note = "A chain of batched matmuls, as in multi-head projections.";
    batched_chain(g, et, &(batch_shapes){TOKENS, WIDTHS, 6, 5, 3, 5});
    return;
  }
  g->note = "A chain of dense layers (matmul, optional bias and activation).";
  int M = pcg_pick(r, TOKENS, 6), K = pcg_pick(r, WIDTHS, 7);
  val x = tokens_param(g, M, K, et);
  int layers = pcg_range(r, 4, 8);
  for (int l = 0; l < layers; l++) {
    int N = pcg_pick(r, WIDTHS, 7);
    if (g->flops + 2.0 * M * K * N > NLP_BUDGET)
      break;
    elt in_et = l == 0 ? et : (et == ET_I8 ? ET_F32 : et);
    bool bias = pcg_chance(r, 2, 3);
    act_kind a = pcg_chance(r, 1, 2) ? ACT_RELU : ACT_NONE;
    x = layer_linear(g, x, M, K, N, in_et, bias, a);
    K = N;
  }
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// matmul_layer (opt-in): one matmul (optional bias and ReLU) or one batched
// matmul on small operands, the scale of a hand-written kernel, which
// matmul_chain's 4-8 layers of width 64-512 do not reach

static const int SMALL[] = {8, 16, 24, 32, 40, 48, 64, 96, 128};

void fam_matmul_layer(gen *g) {
  pcg32 *r = &g->rng;
  int q = pcg_range(r, 0, 7);
  elt et = q == 0 ? ET_I8 : q <= 2 ? ET_F64 : ET_F32;
  if (et != ET_I8 && pcg_chance(r, 1, 4)) {
    g->note = "One batched matmul, as a hand-written kernel.";
    batched_chain(g, et, &(batch_shapes){SMALL, SMALL, 9, 9, 1, 1});
    return;
  }
  g->note = "One matmul with optional bias and ReLU, as a hand-written kernel.";
  int M = pcg_pick(r, SMALL, 9), K = pcg_pick(r, SMALL, 9);
  int N = pcg_pick(r, SMALL, 9);
  bool bias = pcg_chance(r, 1, 2);
  act_kind a = pcg_chance(r, 1, 3) ? ACT_RELU : ACT_NONE;
  gen_result(g, layer_linear(g, tokens_param(g, M, K, et), M, K, N, et, bias,
                             a));
}

// ----------------------------------------------------------------------------
// mlp_layer (opt-in): one dense layer with bias and a transcendental
// activation (GELU by tanh or erf, SiLU, tanh) on small operands, the scale
// of a hand-written kernel; mlp's blocks are 2-4 layers of width 64-512

void fam_mlp_layer(gen *g) {
  static const int acts[] = {ACT_GELU_TANH, ACT_GELU_ERF, ACT_SILU, ACT_TANH};
  pcg32 *r = &g->rng;
  elt et = et_pick_float(r);
  g->note = "One dense layer with bias and a GELU, SiLU or tanh activation, "
            "as a hand-written kernel.";
  int M = pcg_pick(r, SMALL, 9), K = pcg_pick(r, SMALL, 9);
  int N = pcg_pick(r, SMALL, 9);
  act_kind a = (act_kind)pcg_pick(r, acts, 4);
  gen_result(g, layer_linear(g, tokens_param(g, M, K, et), M, K, N, et, true,
                             a));
}

// ----------------------------------------------------------------------------
// mlp: transformer feed-forward blocks with residuals

void fam_mlp(gen *g) {
  pcg32 *r = &g->rng;
  elt et = et_pick_float(r);
  int M = pcg_pick(r, TOKENS, 6), D = pcg_pick(r, WIDTHS, 6);
  int H = D * pcg_range(r, 2, 4);
  act_kind a = pick_mlp_act(r);
  g->note = "Transformer feed-forward blocks: up-projection, activation, "
            "down-projection, residual.";
  int blocks = pcg_range(r, 2, 4);
  while (M > 16 && blocks * 4.0 * M * D * H > NLP_BUDGET)
    M /= 2;
  val x = tokens_param(g, M, D, et);
  for (int b = 0; b < blocks && g->flops + 4.0 * M * D * H < NLP_BUDGET; b++) {
    val h = layer_linear(g, x, M, D, H, et, true, a);
    h = layer_linear(g, h, M, H, D, et, true, ACT_NONE);
    x = layer_add(g, h, x, 2, (int[]){M, D}, et, ACT_NONE);
  }
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// softmax: several classifier/scoring heads on shared features

void fam_softmax(gen *g) {
  pcg32 *r = &g->rng;
  elt et = et_pick_float(r);
  int M = pcg_pick(r, TOKENS, 6), D = pcg_pick(r, WIDTHS, 7);
  g->note = "Scoring heads: linear projection then (log-)softmax with a "
            "temperature, several heads on shared features.";
  val x = tokens_param(g, M, D, et);
  x = layer_linear(g, x, M, D, D, et, true, ACT_TANH);
  int heads = pcg_range(r, 2, 4);
  for (int h = 0; h < heads; h++) {
    int C = pcg_pick(r, (int[]){10, 32, 100, 256, 1000}, 5);
    if (g->flops + 2.0 * M * D * C > NLP_BUDGET)
      C = 10;
    val s = layer_linear(g, x, M, D, C, et, pcg_chance(r, 1, 2), ACT_NONE);
    double temp = pcg_pick(r, (int[]){1, 2, 4}, 3);
    s = layer_softmax(g, s, M, C, et, 1.0 / temp, pcg_chance(r, 1, 3));
    gen_result(g, s);
  }
}

// ----------------------------------------------------------------------------
// layernorm: pre-norm residual stacks with LayerNorm or RMSNorm

void fam_layernorm(gen *g) {
  pcg32 *r = &g->rng;
  elt et = et_pick_float(r);
  int M = pcg_pick(r, TOKENS, 6), D = pcg_pick(r, WIDTHS, 7);
  bool rms = pcg_chance(r, 1, 3);
  g->note = "Normalisation stacks: (RMS)LayerNorm, linear, residual add.";
  val x = tokens_param(g, M, D, et);
  int layers = pcg_range(r, 2, 4);
  for (int l = 0; l < layers && g->flops + 2.0 * M * D * D < NLP_BUDGET; l++) {
    val h = layer_norm(g, x, M, D, et, rms);
    h = layer_linear(g, h, M, D, D, et, pcg_chance(r, 1, 2), ACT_NONE);
    x = layer_add(g, h, x, 2, (int[]){M, D}, et, ACT_NONE);
  }
  x = layer_norm(g, x, M, D, et, rms);
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// attention: 2-4 heads, summed into a residual stream

void fam_attention(gen *g) {
  pcg32 *r = &g->rng;
  elt et = et_pick_float(r);
  int S = pcg_pick(r, TOKENS, 6), D = pcg_pick(r, WIDTHS, 5);
  int dh = pcg_pick(r, (int[]){32, 64, 128}, 3);
  bool causal = pcg_chance(r, 1, 2);
  g->note = "Self-attention: per-head Q/K/V projections, scaled dot products, "
            "softmax, output projection, heads summed.";
  val x = tokens_param(g, S, D, et);
  val acc = x;
  int heads = pcg_range(r, 2, 4);
  for (int h = 0; h < heads; h++) {
    val o = layer_attention(g, x, S, D, dh, et, causal);
    acc = layer_add(g, o, acc, 2, (int[]){S, D}, et, ACT_NONE);
    if (g->flops > NLP_BUDGET / 2)
      break;
  }
  gen_result(g, acc);
}

// ----------------------------------------------------------------------------
// transformer: pre-LN blocks (norm, attention, residual, norm, MLP, residual)

void fam_transformer(gen *g) {
  pcg32 *r = &g->rng;
  elt et = et_pick_float(r);
  int S = pcg_pick(r, (int[]){64, 96, 128, 192, 256}, 5);
  int D = pcg_pick(r, (int[]){64, 128, 192, 256}, 4);
  int dh = pcg_pick(r, (int[]){32, 64}, 2), H = D * pcg_range(r, 2, 4);
  bool rms = pcg_chance(r, 1, 3);
  act_kind a = pick_mlp_act(r);
  g->note = "Pre-LN transformer blocks: norm, attention heads, residual, norm, "
            "MLP, residual.";
  val x = tokens_param(g, S, D, et);
  int blocks = pcg_range(r, 1, 2);
  for (int b = 0; b < blocks && gen_has_room(g, 15); b++) {
    val h = layer_norm(g, x, S, D, et, rms);
    int heads = pcg_range(r, 1, 2);
    for (int i = 0; i < heads; i++) {
      val o = layer_attention(g, h, S, D, dh, et, true);
      x = layer_add(g, o, x, 2, (int[]){S, D}, et, ACT_NONE);
    }
    h = layer_norm(g, x, S, D, et, rms);
    h = layer_linear(g, h, S, D, H, et, true, a);
    h = layer_linear(g, h, S, H, D, et, true, ACT_NONE);
    x = layer_add(g, h, x, 2, (int[]){S, D}, et, ACT_NONE);
    if (g->flops > NLP_BUDGET / 2)
      break;
  }
  x = layer_norm(g, x, S, D, et, rms);
  gen_result(g, x);
}
