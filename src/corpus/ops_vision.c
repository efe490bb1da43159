// Op-level emitters for convolutional (vision) kernels on 4-D tensors: 2-D
// convolution in NHWC/HWCF and NCHW/FCHW layouts with strides and dilations,
// depthwise convolution, max/sum pooling, zero padding and per-channel bias
// + activation. They write ops into a function body; shapes are the
// caller's business (conv_out() gives the output extent).
#include "corpus.h"

#include <stdio.h>

// ----------------------------------------------------------------------------
// shapes

int conv_out(int in, int k, int stride, int dil) {
  int span = dil * (k - 1) + 1;
  return in < span ? 0 : (in - span) / stride + 1;
}

void conv_dims_in(const conv_shape *cs, int d[4]) {
  if (cs->nchw) {
    d[0] = cs->n, d[1] = cs->c, d[2] = cs->h, d[3] = cs->w;
  } else {
    d[0] = cs->n, d[1] = cs->h, d[2] = cs->w, d[3] = cs->c;
  }
}

void conv_dims_w(const conv_shape *cs, int d[4]) {
  if (cs->nchw) {
    d[0] = cs->f, d[1] = cs->c, d[2] = cs->kh, d[3] = cs->kw;
  } else {
    d[0] = cs->kh, d[1] = cs->kw, d[2] = cs->c, d[3] = cs->f;
  }
}

void conv_dims_out(const conv_shape *cs, int d[4]) {
  int oh = conv_out(cs->h, cs->kh, cs->stride, cs->dil);
  int ow = conv_out(cs->w, cs->kw, cs->stride, cs->dil);
  if (cs->nchw) {
    d[0] = cs->n, d[1] = cs->f, d[2] = oh, d[3] = ow;
  } else {
    d[0] = cs->n, d[1] = oh, d[2] = ow, d[3] = cs->f;
  }
}

// ----------------------------------------------------------------------------
// helpers

static void empty_filled4(strbuf *sb, const char *res, const char *type, elt t,
                          const char *lit) {
  sb_printf(sb, "  %s_e = tensor.empty() : %s\n", res, type);
  sb_printf(sb, "  %s_z = arith.constant %s : %s\n", res, lit, et_name(t));
  sb_printf(sb, "  %s_f = linalg.fill ins(%s_z : %s) outs(%s_e : %s) -> %s\n",
            res, res, et_name(t), res, type, type);
}

static void conv_attrs(strbuf *sb, const conv_shape *cs) {
  sb_printf(sb,
            "{dilations = dense<%d> : tensor<2xi64>, strides = dense<%d> : "
            "tensor<2xi64>}",
            cs->dil, cs->stride);
}

// ----------------------------------------------------------------------------
// convolutions and pooling

void op_conv(strbuf *sb, const char *res, const char *x, const char *w,
             const conv_shape *cs, elt in_et, elt out_et) {
  int di[4], dw[4], d_o[4];
  char ti[96], tw[96], to[96];
  conv_dims_in(cs, di);
  conv_dims_w(cs, dw);
  conv_dims_out(cs, d_o);
  ty_tensor(ti, in_et, 4, di);
  ty_tensor(tw, in_et, 4, dw);
  ty_tensor(to, out_et, 4, d_o);
  empty_filled4(sb, res, to, out_et, et_is_float(out_et) ? "0.0" : "0");
  if (cs->q)
    sb_printf(sb, "  %s_izp = arith.constant -3 : i32\n"
                  "  %s_wzp = arith.constant 1 : i32\n", res, res);
  sb_printf(sb, "  %s = linalg.conv_2d_%s%s\n      ", res,
            cs->nchw ? "nchw_fchw" : "nhwc_hwcf", cs->q ? "_q" : "");
  conv_attrs(sb, cs);
  if (cs->q)
    sb_printf(sb, "\n      ins(%s, %s, %s_izp, %s_wzp : %s, %s, i32, i32) "
                  "outs(%s_f : %s) -> %s\n", x, w, res, res, ti, tw, res, to,
              to);
  else
    sb_printf(sb, "\n      ins(%s, %s : %s, %s) outs(%s_f : %s) -> %s\n", x,
              w, ti, tw, res, to, to);
}

void op_requant4(strbuf *sb, const char *res, const char *x, const char *bias,
                 const int dims[4], int mult, int shift, int ozp) {
  char tx[96], tb[96], to[96];
  ty_tensor(tx, ET_I32, 4, dims);
  ty_tensor(tb, ET_I32, 1, (int[]){dims[3]});
  ty_tensor(to, ET_I8, 4, dims);
  sb_printf(sb,
            "  %s_e = tensor.empty() : %s\n"
            "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, "
            "d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, "
            "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], "
            "iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
            "\"parallel\"]}\n"
            "      ins(%s, %s : %s, %s) outs(%s_e : %s) {\n"
            "  ^bb0(%%_x: i32, %%_b: i32, %%_o: i8):\n"
            "    %%_mul = arith.constant %d : i64\n"
            "    %%_rnd = arith.constant %lld : i64\n"
            "    %%_sh = arith.constant %d : i64\n"
            "    %%_zp = arith.constant %d : i32\n"
            "    %%_lo = arith.constant -128 : i32\n"
            "    %%_hi = arith.constant 127 : i32\n"
            "    %%_s = arith.addi %%_x, %%_b : i32\n"
            "    %%_w = arith.extsi %%_s : i32 to i64\n"
            "    %%_p = arith.muli %%_w, %%_mul : i64\n"
            "    %%_r = arith.addi %%_p, %%_rnd : i64\n"
            "    %%_q = arith.shrsi %%_r, %%_sh : i64\n"
            "    %%_t = arith.trunci %%_q : i64 to i32\n"
            "    %%_z = arith.addi %%_t, %%_zp : i32\n"
            "    %%_c0 = arith.maxsi %%_z, %%_lo : i32\n"
            "    %%_c1 = arith.minsi %%_c0, %%_hi : i32\n"
            "    %%_y = arith.trunci %%_c1 : i32 to i8\n"
            "    linalg.yield %%_y : i8\n  } -> %s\n",
            res, to, res, x, bias, tx, tb, res, to, mult,
            1LL << (shift - 1), shift, ozp, to);
}

void op_depthwise(strbuf *sb, const char *res, const char *x, const char *w,
                  const conv_shape *cs, elt et) {
  int di[4], d_o[4];
  char ti[96], tw[96], to[96];
  conv_shape c = *cs;
  c.nchw = false;
  c.f = c.c;
  conv_dims_in(&c, di);
  conv_dims_out(&c, d_o);
  ty_tensor(ti, et, 4, di);
  ty_tensor(tw, et, 3, (int[]){c.kh, c.kw, c.c});
  ty_tensor(to, et, 4, d_o);
  empty_filled4(sb, res, to, et, "0.0");
  sb_printf(sb, "  %s = linalg.depthwise_conv_2d_nhwc_hwc\n      ", res);
  conv_attrs(sb, &c);
  sb_printf(sb, "\n      ins(%s, %s : %s, %s) outs(%s_f : %s) -> %s\n", x, w,
            ti, tw, res, to, to);
}

void op_pool(strbuf *sb, const char *res, const char *x, const conv_shape *cs,
             bool max, elt et) {
  int di[4], d_o[4];
  char ti[96], tw[96], to[96];
  conv_shape c = *cs;
  c.f = c.c;
  conv_dims_in(&c, di);
  conv_dims_out(&c, d_o);
  ty_tensor(ti, et, 4, di);
  ty_tensor(tw, et, 2, (int[]){c.kh, c.kw});
  ty_tensor(to, et, 4, d_o);
  empty_filled4(sb, res, to, et,
                max ? (et == ET_F64 ? "0xFFF0000000000000" : "0xFF800000")
                    : "0.0");
  sb_printf(sb, "  %s_w = tensor.empty() : %s\n", res, tw);
  sb_printf(sb, "  %s = linalg.pooling_%s_%s\n      ", res,
            c.nchw ? "nchw" : "nhwc", max ? "max" : "sum");
  conv_attrs(sb, &c);
  sb_printf(sb, "\n      ins(%s, %s_w : %s, %s) outs(%s_f : %s) -> %s\n", x,
            res, ti, tw, res, to, to);
}

// ----------------------------------------------------------------------------
// elementwise

void op_bias_act4(strbuf *sb, const char *res, const char *x, const char *bias,
                  const int dims[4], bool nchw, elt et, act_kind a) {
  const char *t = et_name(et);
  char tx[96], tb[96];
  ty_tensor(tx, et, 4, dims);
  ty_tensor(tb, et, 1, (int[]){nchw ? dims[1] : dims[3]});
  sb_printf(sb,
            "  %s_e = tensor.empty() : %s\n"
            "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, "
            "d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (%s)>, "
            "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], "
            "iterator_types = [\"parallel\", \"parallel\", \"parallel\", "
            "\"parallel\"]}\n"
            "      ins(%s, %s : %s, %s) outs(%s_e : %s) {\n"
            "  ^bb0(%%_x: %s, %%_b: %s, %%_o: %s):\n"
            "    %%_s = arith.addf %%_x, %%_b : %s\n",
            res, tx, res, nchw ? "d1" : "d3", x, bias, tx, tb, res, tx, t, t, t,
            t);
  const char *y = emit_act(sb, "%_s", a, et);
  sb_printf(sb, "    linalg.yield %s : %s\n  } -> %s\n", y, t, tx);
}

void op_pad(strbuf *sb, const char *res, const char *x, const int dims[4],
            bool nchw, int p, elt et) {
  int od[4] = {dims[0], dims[1], dims[2], dims[3]};
  if (nchw)
    od[2] += 2 * p, od[3] += 2 * p;
  else
    od[1] += 2 * p, od[2] += 2 * p;
  char ti[96], to[96];
  ty_tensor(ti, et, 4, dims);
  ty_tensor(to, et, 4, od);
  const char *lo = nchw ? "0, 0, %d, %d" : "0, %d, %d, 0";
  char los[32];
  snprintf(los, sizeof los, lo, p, p);
  sb_printf(sb,
            "  %s_z = arith.constant %s : %s\n"
            "  %s = tensor.pad %s low[%s] high[%s] {\n"
            "  ^bb0(%%_i0: index, %%_i1: index, %%_i2: index, %%_i3: index):\n"
            "    tensor.yield %s_z : %s\n"
            "  } : %s to %s\n",
            res, et_is_float(et) ? "0.0" : "0", et_name(et), res, x, los, los,
            res, et_name(et), ti, to);
}
