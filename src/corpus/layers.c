// Layer helpers shared by the vision and NLP families: each one emits a
// private func.func (its weights become @forward parameters) and chains a
// call to it in @forward, returning the call's result. Families are then a
// few lines of shape drawing plus a sequence of layer calls.
#include "layers.h"

#include <stdio.h>
#include <string.h>

// ----------------------------------------------------------------------------
// private function scaffolding

void fn_begin(gen *g, const char *fn, int n, const char *const *names,
              const val *args, const char *rtype) {
  sb_printf(&g->helpers, "func.func private %s(", fn);
  for (int i = 0; i < n; i++)
    sb_printf(&g->helpers, "%s%s: %s", i ? ", " : "", names[i], args[i].type);
  sb_printf(&g->helpers, ") -> %s {\n", rtype);
}

void fn_end(gen *g, const char *res, const char *rtype) {
  sb_printf(&g->helpers, "  return %s : %s\n}\n\n", res, rtype);
}

static val param4(gen *g, elt t, const int d[4]) {
  char ty[96];
  ty_tensor(ty, t, 4, d);
  return gen_param(g, ty);
}

val param_tensor(gen *g, elt t, int rank, const int *dims) {
  char ty[96];
  ty_tensor(ty, t, rank, dims);
  return gen_param(g, ty);
}

// ----------------------------------------------------------------------------
// vision layers

val layer_conv(gen *g, val x, const conv_shape *cs, int pad, elt in_et,
               act_kind a, double dequant) {
  conv_shape c = *cs;
  int di[4], dw[4], d_o[4];
  conv_dims_in(&c, di);
  char fn[64], rt[96];
  gen_func_name(g, c.nchw ? "conv_nchw" : "conv_nhwc", fn);
  c.h += 2 * pad;
  c.w += 2 * pad;
  conv_dims_w(&c, dw);
  conv_dims_out(&c, d_o);
  elt acc_et = in_et == ET_I8 ? ET_I32 : in_et;
  elt out_et = in_et == ET_I8 ? ET_F32 : in_et;
  ty_tensor(rt, out_et, 4, d_o);
  val args[3] = {x, param4(g, in_et, dw),
                 param_tensor(g, out_et, 1, (int[]){c.f})};
  fn_begin(g, fn, 3, (const char *[]){"%x", "%w", "%b"}, args, rt);
  const char *src = "%x";
  if (pad) {
    op_pad(&g->helpers, "%xp", "%x", di, c.nchw, pad, in_et);
    src = "%xp";
  }
  op_conv(&g->helpers, "%c", src, "%w", &c, in_et, acc_et);
  const char *conv = "%c";
  if (in_et == ET_I8) {
    op_dequant(&g->helpers, "%cq", "%c", 4, d_o, dequant);
    conv = "%cq";
  }
  op_bias_act4(&g->helpers, "%y", conv, "%b", d_o, c.nchw, out_et, a);
  fn_end(g, "%y", rt);
  g->flops += 2.0 * d_o[0] * d_o[1] * d_o[2] * d_o[3] * c.c * c.kh * c.kw;
  char what[128];
  snprintf(what, sizeof what,
           "conv_2d_%s %dx%d s%d d%d p%d %d->%d ch %s", c.nchw ? "nchw" : "nhwc",
           c.kh, c.kw, c.stride, c.dil, pad, c.c, c.f, act_name(a));
  gen_note_kernel(g, what);
  return gen_call(g, fn, rt, 3, args);
}

val layer_qconv(gen *g, val x, const conv_shape *cs) {
  conv_shape c = *cs;
  c.nchw = false;
  int dw[4], d_o[4];
  conv_dims_w(&c, dw);
  conv_dims_out(&c, d_o);
  char fn[64], rt[96];
  gen_func_name(g, "qconv", fn);
  ty_tensor(rt, ET_I8, 4, d_o);
  val args[3] = {x, param4(g, ET_I8, dw),
                 param_tensor(g, ET_I32, 1, (int[]){c.f})};
  fn_begin(g, fn, 3, (const char *[]){"%x", "%w", "%b"}, args, rt);
  op_conv(&g->helpers, "%c", "%x", "%w", &c, ET_I8, ET_I32);
  int shift = pcg_range(&g->rng, 14, 20);
  int mult = pcg_range(&g->rng, 100, 500);
  op_requant4(&g->helpers, "%y", "%c", "%b", d_o, mult, shift,
              pcg_range(&g->rng, -4, 4));
  fn_end(g, "%y", rt);
  g->flops += 2.0 * d_o[0] * d_o[1] * d_o[2] * d_o[3] * c.c * c.kh * c.kw;
  char what[128];
  snprintf(what, sizeof what, "conv_2d_nhwc_hwcf%s %dx%d s%d %d->%d ch i8 "
           "requant", c.q ? "_q" : "", c.kh, c.kw, c.stride, c.c, c.f);
  gen_note_kernel(g, what);
  return gen_call(g, fn, rt, 3, args);
}

val layer_depthwise(gen *g, val x, const conv_shape *cs, int pad, elt et,
                    act_kind a) {
  conv_shape c = *cs;
  c.nchw = false;
  c.f = c.c;
  int di[4], d_o[4];
  conv_dims_in(&c, di);
  c.h += 2 * pad;
  c.w += 2 * pad;
  conv_dims_out(&c, d_o);
  char fn[64], rt[96];
  gen_func_name(g, "depthwise", fn);
  ty_tensor(rt, et, 4, d_o);
  val args[3] = {x, param_tensor(g, et, 3, (int[]){c.kh, c.kw, c.c}),
                 param_tensor(g, et, 1, (int[]){c.c})};
  fn_begin(g, fn, 3, (const char *[]){"%x", "%w", "%b"}, args, rt);
  const char *src = "%x";
  if (pad) {
    op_pad(&g->helpers, "%xp", "%x", di, false, pad, et);
    src = "%xp";
  }
  op_depthwise(&g->helpers, "%c", src, "%w", &c, et);
  op_bias_act4(&g->helpers, "%y", "%c", "%b", d_o, false, et, a);
  fn_end(g, "%y", rt);
  g->flops += 2.0 * d_o[0] * d_o[1] * d_o[2] * d_o[3] * c.kh * c.kw;
  char what[96];
  snprintf(what, sizeof what, "depthwise %dx%d s%d d%d %d ch %s", c.kh, c.kw,
           c.stride, c.dil, c.c, act_name(a));
  gen_note_kernel(g, what);
  return gen_call(g, fn, rt, 3, args);
}

val layer_pool(gen *g, val x, const conv_shape *cs, bool max, elt et) {
  int d_o[4];
  conv_shape c = *cs;
  c.f = c.c;
  conv_dims_out(&c, d_o);
  char fn[64], rt[96];
  gen_func_name(g, max ? "maxpool" : "sumpool", fn);
  ty_tensor(rt, et, 4, d_o);
  fn_begin(g, fn, 1, (const char *[]){"%x"}, &x, rt);
  op_pool(&g->helpers, "%y", "%x", &c, max, et);
  fn_end(g, "%y", rt);
  g->flops += 1.0 * d_o[0] * d_o[1] * d_o[2] * d_o[3] * c.kh * c.kw;
  char what[96];
  snprintf(what, sizeof what, "%s_pool %dx%d s%d %s", max ? "max" : "sum",
           c.kh, c.kw, c.stride, c.nchw ? "nchw" : "nhwc");
  gen_note_kernel(g, what);
  return gen_call(g, fn, rt, 1, &x);
}

val layer_add(gen *g, val x, val y, int rank, const int *dims, elt et,
              act_kind a) {
  char fn[64];
  gen_func_name(g, "residual_add", fn);
  fn_begin(g, fn, 2, (const char *[]){"%x", "%y"}, (val[]){x, y}, x.type);
  op_add(&g->helpers, "%s", "%x", "%y", rank, dims, et);
  const char *res = "%s";
  if (a != ACT_NONE && rank == 2) {
    op_bias_act(&g->helpers, "%r", "%s", NULL, dims[0], dims[1], et, a);
    res = "%r";
  } else if (a != ACT_NONE && rank == 4) {
    // Bias-free activation: reuse the 4-D bias op with a zero bias.
    int ch = dims[3];
    char tb[96];
    ty_tensor(tb, et, 1, (int[]){ch});
    sb_printf(&g->helpers,
              "  %%zb_e = tensor.empty() : %s\n"
              "  %%zb_z = arith.constant 0.0 : %s\n"
              "  %%zb = linalg.fill ins(%%zb_z : %s) outs(%%zb_e : %s) -> %s\n",
              tb, et_name(et), et_name(et), tb, tb);
    op_bias_act4(&g->helpers, "%r", "%s", "%zb", dims, false, et, a);
    res = "%r";
  }
  fn_end(g, res, x.type);
  double n = 1;
  for (int i = 0; i < rank; i++)
    n *= dims[i];
  g->flops += n;
  gen_note_kernel(g, "residual add");
  return gen_call(g, fn, x.type, 2, (val[]){x, y});
}

// ----------------------------------------------------------------------------
// 2-D (token x feature) layers

// 1/sqrt(n) by Newton's method (keeps libm out of the link line).
static double inv_sqrt(int n) {
  double y = 1.0;
  while (y * y * n > 1.0)
    y *= 0.5;
  for (int i = 0; i < 60; i++)
    y = y * (1.5 - 0.5 * n * y * y);
  return y;
}

val layer_linear(gen *g, val x, int M, int K, int N, elt et, bool bias,
                 act_kind a) {
  char fn[64], rt[96];
  gen_func_name(g, a == ACT_NONE ? "linear" : "linear_act", fn);
  elt out_et = et == ET_I8 ? ET_F32 : et;
  ty_tensor(rt, out_et, 2, (int[]){M, N});
  val args[3] = {x, param_tensor(g, et, 2, (int[]){K, N}), {{0}, {0}}};
  int nargs = 2;
  if (bias)
    args[nargs++] = param_tensor(g, out_et, 1, (int[]){N});
  fn_begin(g, fn, nargs, (const char *[]){"%x", "%w", "%b"}, args, rt);
  op_matmul(&g->helpers, "%m", "%x", "%w", M, K, N, et,
            et == ET_I8 ? ET_I32 : et, false);
  const char *mm = "%m";
  if (et == ET_I8) {
    op_dequant(&g->helpers, "%mq", "%m", 2, (int[]){M, N}, 1.0 / 256);
    mm = "%mq";
  }
  const char *res = mm;
  if (bias || a != ACT_NONE) {
    op_bias_act(&g->helpers, "%y", mm, bias ? "%b" : NULL, M, N, out_et, a);
    res = "%y";
  }
  fn_end(g, res, rt);
  g->flops += 2.0 * M * K * N;
  char what[96];
  snprintf(what, sizeof what, "matmul %dx%dx%d %s%s %s", M, K, N, et_name(et),
           bias ? " +bias" : "", act_name(a));
  gen_note_kernel(g, what);
  return gen_call(g, fn, rt, nargs, args);
}

val layer_softmax(gen *g, val x, int M, int N, elt et, double scale,
                  bool log_softmax) {
  char fn[64];
  gen_func_name(g, log_softmax ? "log_softmax" : "softmax", fn);
  fn_begin(g, fn, 1, (const char *[]){"%x"}, &x, x.type);
  op_softmax(&g->helpers, "%y", "%x", M, N, et, scale, log_softmax);
  fn_end(g, "%y", x.type);
  g->flops += 6.0 * M * N;
  gen_note_kernel(g, log_softmax ? "log_softmax" : "softmax");
  return gen_call(g, fn, x.type, 1, &x);
}

val layer_norm(gen *g, val x, int M, int N, elt et, bool rms) {
  char fn[64];
  gen_func_name(g, rms ? "rmsnorm" : "layernorm", fn);
  val args[3] = {x, param_tensor(g, et, 1, (int[]){N}), {{0}, {0}}};
  int nargs = 2;
  if (!rms)
    args[nargs++] = param_tensor(g, et, 1, (int[]){N});
  fn_begin(g, fn, nargs, (const char *[]){"%x", "%g", "%b"}, args, x.type);
  op_layernorm(&g->helpers, "%y", "%x", "%g", "%b", M, N, et, rms);
  fn_end(g, "%y", x.type);
  g->flops += 8.0 * M * N;
  gen_note_kernel(g, rms ? "rmsnorm" : "layernorm");
  return gen_call(g, fn, x.type, nargs, args);
}

val layer_attention(gen *g, val x, int S, int D, int dh, elt et, bool causal) {
  char fn[64], tx[96];
  gen_func_name(g, "attention_head", fn);
  ty_tensor(tx, et, 2, (int[]){S, D});
  val args[5] = {x, param_tensor(g, et, 2, (int[]){D, dh}),
                 param_tensor(g, et, 2, (int[]){D, dh}),
                 param_tensor(g, et, 2, (int[]){D, dh}),
                 param_tensor(g, et, 2, (int[]){dh, D})};
  fn_begin(g, fn, 5, (const char *[]){"%x", "%wq", "%wk", "%wv", "%wo"}, args,
           tx);
  strbuf *sb = &g->helpers;
  op_matmul(sb, "%q", "%x", "%wq", S, D, dh, et, et, false);
  op_matmul(sb, "%k", "%x", "%wk", S, D, dh, et, et, false);
  op_matmul(sb, "%v", "%x", "%wv", S, D, dh, et, et, false);
  op_matmul(sb, "%s", "%q", "%k", S, dh, S, et, et, true);
  const char *scores = "%s";
  if (causal) {
    char ts[96];
    const char *t = et_name(et);
    ty_tensor(ts, et, 2, (int[]){S, S});
    sb_printf(sb,
              "  %%sm_e = tensor.empty() : %s\n"
              "  %%sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) "
              "-> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], "
              "iterator_types = [\"parallel\", \"parallel\"]}\n"
              "      ins(%%s : %s) outs(%%sm_e : %s) {\n"
              "  ^bb0(%%_v: %s, %%_o: %s):\n"
              "    %%_i = linalg.index 0 : index\n"
              "    %%_j = linalg.index 1 : index\n"
              "    %%_future = arith.cmpi ugt, %%_j, %%_i : index\n"
              "    %%_neg = arith.constant -1.0e+04 : %s\n"
              "    %%_y = arith.select %%_future, %%_neg, %%_v : %s\n"
              "    linalg.yield %%_y : %s\n"
              "  } -> %s\n",
              ts, ts, ts, t, t, t, t, t, ts);
    scores = "%sm";
  }
  op_softmax(sb, "%p", scores, S, S, et, inv_sqrt(dh), false);
  op_matmul(sb, "%o", "%p", "%v", S, S, dh, et, et, false);
  op_matmul(sb, "%y", "%o", "%wo", S, dh, D, et, et, false);
  fn_end(g, "%y", tx);
  g->flops += 2.0 * S * D * dh * 4 + 4.0 * S * S * dh + 6.0 * S * S;
  char what[96];
  snprintf(what, sizeof what, "attention head S%d D%d dh%d%s", S, D, dh,
           causal ? " causal" : "");
  gen_note_kernel(g, what);
  return gen_call(g, fn, tx, 5, args);
}
