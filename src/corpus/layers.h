// Layer helpers of the corpus generator: one private func.func per layer,
// chained from @forward. Shared by the vision and NLP family files. Each
// returns the @forward value holding the layer's result, adds the layer's
// weights as @forward parameters, and adds its work to g->flops.
#ifndef MQSS_CORPUS_LAYERS_H
#define MQSS_CORPUS_LAYERS_H

#include "corpus.h"

// Opens `func.func private FN(names[i]: args[i].type, ...) -> rtype {`.
void fn_begin(gen *g, const char *fn, int n, const char *const *names,
              const val *args, const char *rtype);
// Closes it with `return res : rtype`.
void fn_end(gen *g, const char *res, const char *rtype);
// A new @forward tensor parameter.
val param_tensor(gen *g, elt t, int rank, const int *dims);

// pad (p on each spatial side) + conv + per-channel bias + act. i8 input:
// the conv accumulates in i32 and is dequantised to f32 by `dequant`.
val layer_conv(gen *g, val x, const conv_shape *cs, int pad, elt in_et,
               act_kind a, double dequant);
// NHWC depthwise conv (+ pad) + bias + act.
val layer_depthwise(gen *g, val x, const conv_shape *cs, int pad, elt et,
                    act_kind a);
val layer_pool(gen *g, val x, const conv_shape *cs, bool max, elt et);
// NHWC int8 conv (with zero points when cs->q) + i32 bias, requantised to
// i8 (op_requant4).
val layer_qconv(gen *g, val x, const conv_shape *cs);
// x + y, then act (rank 2 or 4).
val layer_add(gen *g, val x, val y, int rank, const int *dims, elt et,
              act_kind a);

// x[MxK] * W[KxN] (+ b[N]) then act. i8: i32 accumulate, dequant to f32.
val layer_linear(gen *g, val x, int M, int K, int N, elt et, bool bias,
                 act_kind a);
val layer_softmax(gen *g, val x, int M, int N, elt et, double scale,
                  bool log_softmax);
val layer_norm(gen *g, val x, int M, int N, elt et, bool rms);
// One attention head on x[SxD]: Q, K, V projections to dh, scaled QK^T,
// optional causal mask, softmax, PV, output projection back to D.
val layer_attention(gen *g, val x, int S, int D, int dh, elt et, bool causal);

#endif // MQSS_CORPUS_LAYERS_H
