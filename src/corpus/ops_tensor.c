// Op-level emitters for tensor-level linear algebra (NLP-style kernels):
// matmul variants, bias + activation, residual add, softmax, layer norm and
// dequantisation, each printed as linalg named ops or linalg.generic on
// tensors. They write into a function body; they do not make functions.
//
// Naming: outer values are %<res> and %<res>_<suffix>; names inside regions
// start with "%_" so they never clash with the enclosing function's values.
#include "corpus.h"

#include <stdio.h>

// ----------------------------------------------------------------------------
// shared helpers

static const char *zero_lit(elt t) { return et_is_float(t) ? "0.0" : "0"; }

// Most negative finite-safe start value for a max reduction, as a literal.
static const char *neg_inf_lit(elt t) {
  return t == ET_F64 ? "0xFFF0000000000000" : "0xFF800000";
}

// "d0, d1, d2" for rank 3.
static void dim_list(char out[48], int rank) {
  int n = 0;
  out[0] = '\0';
  for (int i = 0; i < rank; i++)
    n += snprintf(out + n, (size_t)(48 - n), "%sd%d", i ? ", " : "", i);
}

// `"parallel", "parallel"` for rank 2.
static void par_list(char out[96], int rank) {
  int n = 0;
  out[0] = '\0';
  for (int i = 0; i < rank; i++)
    n += snprintf(out + n, (size_t)(96 - n), "%s\"parallel\"", i ? ", " : "");
}

// %<res>_e = tensor.empty, %<res>_z = constant `lit`, %<res>_f = fill.
static void empty_filled(strbuf *sb, const char *res, const char *type, elt t,
                         const char *lit) {
  sb_printf(sb, "  %s_e = tensor.empty() : %s\n", res, type);
  sb_printf(sb, "  %s_z = arith.constant %s : %s\n", res, lit, et_name(t));
  sb_printf(sb, "  %s_f = linalg.fill ins(%s_z : %s) outs(%s_e : %s) -> %s\n",
            res, res, et_name(t), res, type, type);
}

// ----------------------------------------------------------------------------
// activations

const char *act_name(act_kind a) {
  static const char *names[] = {"none", "relu",     "relu6", "gelu_tanh",
                                "gelu_erf", "silu", "tanh"};
  return names[a];
}

const char *emit_act(strbuf *sb, const char *src, act_kind a, elt et) {
  const char *t = et_name(et);
  switch (a) {
  case ACT_NONE:
    return src;
  case ACT_RELU:
    sb_printf(sb, "    %%_act0 = arith.constant 0.0 : %s\n"
                  "    %%_acty = arith.maximumf %s, %%_act0 : %s\n",
              t, src, t);
    break;
  case ACT_RELU6:
    sb_printf(sb, "    %%_act0 = arith.constant 0.0 : %s\n"
                  "    %%_act6 = arith.constant 6.0 : %s\n"
                  "    %%_act1 = arith.maximumf %s, %%_act0 : %s\n"
                  "    %%_acty = arith.minimumf %%_act1, %%_act6 : %s\n",
              t, t, src, t, t);
    break;
  case ACT_GELU_TANH:
    sb_printf(sb,
              "    %%_acth = arith.constant 0.5 : %s\n"
              "    %%_act1 = arith.constant 1.0 : %s\n"
              "    %%_actc = arith.constant 0.044715 : %s\n"
              "    %%_acts = arith.constant 0.7978845608 : %s\n"
              "    %%_actx2 = arith.mulf %s, %s : %s\n"
              "    %%_actx3 = arith.mulf %%_actx2, %s : %s\n"
              "    %%_actt0 = arith.mulf %%_actx3, %%_actc : %s\n"
              "    %%_actt1 = arith.addf %s, %%_actt0 : %s\n"
              "    %%_actt2 = arith.mulf %%_actt1, %%_acts : %s\n"
              "    %%_actt3 = math.tanh %%_actt2 : %s\n"
              "    %%_actt4 = arith.addf %%_actt3, %%_act1 : %s\n"
              "    %%_actt5 = arith.mulf %s, %%_acth : %s\n"
              "    %%_acty = arith.mulf %%_actt5, %%_actt4 : %s\n",
              t, t, t, t, src, src, t, src, t, t, src, t, t, t, t, src, t, t);
    break;
  case ACT_GELU_ERF:
    sb_printf(sb,
              "    %%_acth = arith.constant 0.5 : %s\n"
              "    %%_act1 = arith.constant 1.0 : %s\n"
              "    %%_acts = arith.constant 0.7071067812 : %s\n"
              "    %%_actt0 = arith.mulf %s, %%_acts : %s\n"
              "    %%_actt1 = math.erf %%_actt0 : %s\n"
              "    %%_actt2 = arith.addf %%_actt1, %%_act1 : %s\n"
              "    %%_actt3 = arith.mulf %s, %%_acth : %s\n"
              "    %%_acty = arith.mulf %%_actt3, %%_actt2 : %s\n",
              t, t, t, src, t, t, t, src, t, t);
    break;
  case ACT_SILU:
    sb_printf(sb, "    %%_act1 = arith.constant 1.0 : %s\n"
                  "    %%_actn = arith.negf %s : %s\n"
                  "    %%_acte = math.exp %%_actn : %s\n"
                  "    %%_actd = arith.addf %%_acte, %%_act1 : %s\n"
                  "    %%_acty = arith.divf %s, %%_actd : %s\n",
              t, src, t, t, t, src, t);
    break;
  case ACT_TANH:
  case ACT_COUNT:
    sb_printf(sb, "    %%_acty = math.tanh %s : %s\n", src, t);
    break;
  }
  return "%_acty";
}

// ----------------------------------------------------------------------------
// contractions

void op_matmul(strbuf *sb, const char *res, const char *a, const char *b,
               int M, int K, int N, elt in_et, elt out_et, bool transpose_b) {
  char ta[96], tb[96], to[96];
  ty_tensor(ta, in_et, 2, (int[]){M, K});
  ty_tensor(tb, in_et, 2, transpose_b ? (int[]){N, K} : (int[]){K, N});
  ty_tensor(to, out_et, 2, (int[]){M, N});
  empty_filled(sb, res, to, out_et, zero_lit(out_et));
  sb_printf(sb, "  %s = linalg.matmul%s ins(%s, %s : %s, %s) outs(%s_f : %s) "
                "-> %s\n",
            res, transpose_b ? "_transpose_b" : "", a, b, ta, tb, res, to, to);
}

void op_batch_matmul(strbuf *sb, const char *res, const char *a,
                     const char *b, int B, int M, int K, int N, elt et) {
  char ta[96], tb[96], to[96];
  ty_tensor(ta, et, 3, (int[]){B, M, K});
  ty_tensor(tb, et, 3, (int[]){B, K, N});
  ty_tensor(to, et, 3, (int[]){B, M, N});
  empty_filled(sb, res, to, et, zero_lit(et));
  sb_printf(sb, "  %s = linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s_f : "
                "%s) -> %s\n",
            res, a, b, ta, tb, res, to, to);
}

// ----------------------------------------------------------------------------
// elementwise

void op_bias_act(strbuf *sb, const char *res, const char *x, const char *bias,
                 int M, int N, elt et, act_kind a) {
  const char *t = et_name(et);
  char tx[96], tb[96];
  ty_tensor(tx, et, 2, (int[]){M, N});
  ty_tensor(tb, et, 1, (int[]){N});
  sb_printf(sb, "  %s_e = tensor.empty() : %s\n", res, tx);
  if (bias) {
    sb_printf(sb,
              "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
              "(d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) "
              "-> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}\n"
              "      ins(%s, %s : %s, %s) outs(%s_e : %s) {\n"
              "  ^bb0(%%_x: %s, %%_b: %s, %%_o: %s):\n"
              "    %%_s = arith.addf %%_x, %%_b : %s\n",
              res, x, bias, tx, tb, res, tx, t, t, t, t);
  } else {
    sb_printf(sb,
              "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
              "(d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = "
              "[\"parallel\", \"parallel\"]}\n"
              "      ins(%s : %s) outs(%s_e : %s) {\n"
              "  ^bb0(%%_s: %s, %%_o: %s):\n",
              res, x, tx, res, tx, t, t);
  }
  const char *y = emit_act(sb, "%_s", a, et);
  sb_printf(sb, "    linalg.yield %s : %s\n  } -> %s\n", y, t, tx);
}

void op_dequant(strbuf *sb, const char *res, const char *x, int rank,
                const int *dims, double scale) {
  char ti[96], to[96], dl[48], pl[96];
  ty_tensor(ti, ET_I32, rank, dims);
  ty_tensor(to, ET_F32, rank, dims);
  dim_list(dl, rank);
  par_list(pl, rank);
  sb_printf(sb,
            "  %s_e = tensor.empty() : %s\n"
            "  %s = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>, "
            "affine_map<(%s) -> (%s)>], iterator_types = [%s]}\n"
            "      ins(%s : %s) outs(%s_e : %s) {\n"
            "  ^bb0(%%_q: i32, %%_o: f32):\n"
            "    %%_c = arith.constant %.8e : f32\n"
            "    %%_f = arith.sitofp %%_q : i32 to f32\n"
            "    %%_y = arith.mulf %%_f, %%_c : f32\n"
            "    linalg.yield %%_y : f32\n"
            "  } -> %s\n",
            res, to, res, dl, dl, dl, dl, pl, x, ti, res, to, scale, to);
}

void op_add(strbuf *sb, const char *res, const char *x, const char *y,
            int rank, const int *dims, elt et) {
  const char *t = et_name(et);
  char tt[96], dl[48], pl[96];
  ty_tensor(tt, et, rank, dims);
  dim_list(dl, rank);
  par_list(pl, rank);
  sb_printf(sb,
            "  %s_e = tensor.empty() : %s\n"
            "  %s = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>, "
            "affine_map<(%s) -> (%s)>, affine_map<(%s) -> (%s)>], "
            "iterator_types = [%s]}\n"
            "      ins(%s, %s : %s, %s) outs(%s_e : %s) {\n"
            "  ^bb0(%%_x: %s, %%_y: %s, %%_o: %s):\n"
            "    %%_s = arith.add%s %%_x, %%_y : %s\n"
            "    linalg.yield %%_s : %s\n"
            "  } -> %s\n",
            res, tt, res, dl, dl, dl, dl, dl, dl, pl, x, y, tt, tt, res, tt, t,
            t, t, et_is_float(et) ? "f" : "i", t, t, tt);
}

// ----------------------------------------------------------------------------
// reductions: softmax and layer norm

// %<res>_<name> = row reduction of x[MxN] into tensor<M>, starting from
// `init`; `body` computes %_r from %_v (the element) and %_acc.
static void row_reduce(strbuf *sb, const char *res, const char *name,
                       const char *x, const char *ins_extra_val,
                       const char *ins_extra_type, int M, int N, elt et,
                       const char *init, const char *body) {
  const char *t = et_name(et);
  char tx[96], tr[96];
  ty_tensor(tx, et, 2, (int[]){M, N});
  ty_tensor(tr, et, 1, (int[]){M});
  sb_printf(sb, "  %s_%se = tensor.empty() : %s\n", res, name, tr);
  sb_printf(sb, "  %s_%sz = arith.constant %s : %s\n", res, name, init, t);
  sb_printf(sb,
            "  %s_%sf = linalg.fill ins(%s_%sz : %s) outs(%s_%se : %s) -> %s\n",
            res, name, res, name, t, res, name, tr, tr);
  sb_printf(sb,
            "  %s_%s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
            "(d0, d1)>, %saffine_map<(d0, d1) -> (d0)>], iterator_types = "
            "[\"parallel\", \"reduction\"]}\n"
            "      ins(%s%s%s : %s%s%s) outs(%s_%sf : %s) {\n"
            "  ^bb0(%%_v: %s, %s%%_acc: %s):\n"
            "%s"
            "    linalg.yield %%_r : %s\n"
            "  } -> %s\n",
            res, name, ins_extra_val ? "affine_map<(d0, d1) -> (d0)>, " : "",
            x, ins_extra_val ? ", " : "", ins_extra_val ? ins_extra_val : "",
            tx, ins_extra_val ? ", " : "",
            ins_extra_type ? ins_extra_type : "", res, name, tr, t,
            ins_extra_val ? (et == ET_F64 ? "%_m: f64, " : "%_m: f32, ") : "",
            t, body, t, tr);
}

void op_softmax(strbuf *sb, const char *res, const char *x, int M, int N,
                elt et, double scale, bool log_softmax) {
  const char *t = et_name(et);
  char tx[96], tr[96], body[512];
  ty_tensor(tx, et, 2, (int[]){M, N});
  ty_tensor(tr, et, 1, (int[]){M});
  snprintf(body, sizeof body,
           "    %%_c = arith.constant %.8e : %s\n"
           "    %%_s = arith.mulf %%_v, %%_c : %s\n"
           "    %%_r = arith.maximumf %%_acc, %%_s : %s\n",
           scale, t, t, t);
  row_reduce(sb, res, "max", x, NULL, NULL, M, N, et, neg_inf_lit(et), body);
  char mx[64];
  snprintf(mx, sizeof mx, "%s_max", res);
  snprintf(body, sizeof body,
           "    %%_c = arith.constant %.8e : %s\n"
           "    %%_s = arith.mulf %%_v, %%_c : %s\n"
           "    %%_d = arith.subf %%_s, %%_m : %s\n"
           "    %%_x = math.exp %%_d : %s\n"
           "    %%_r = arith.addf %%_acc, %%_x : %s\n",
           scale, t, t, t, t, t);
  row_reduce(sb, res, "sum", x, mx, tr, M, N, et, "0.0", body);
  sb_printf(sb,
            "  %s_e = tensor.empty() : %s\n"
            "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
            "(d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> "
            "(d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = "
            "[\"parallel\", \"parallel\"]}\n"
            "      ins(%s, %s_max, %s_sum : %s, %s, %s) outs(%s_e : %s) {\n"
            "  ^bb0(%%_v: %s, %%_m: %s, %%_z: %s, %%_o: %s):\n"
            "    %%_c = arith.constant %.8e : %s\n"
            "    %%_s = arith.mulf %%_v, %%_c : %s\n"
            "    %%_d = arith.subf %%_s, %%_m : %s\n",
            res, tx, res, x, res, res, tx, tr, tr, res, tx, t, t, t, t, scale,
            t, t, t);
  if (log_softmax)
    sb_printf(sb, "    %%_l = math.log %%_z : %s\n"
                  "    %%_y = arith.subf %%_d, %%_l : %s\n",
              t, t);
  else
    sb_printf(sb, "    %%_x = math.exp %%_d : %s\n"
                  "    %%_y = arith.divf %%_x, %%_z : %s\n",
              t, t);
  sb_printf(sb, "    linalg.yield %%_y : %s\n  } -> %s\n", t, tx);
}

void op_layernorm(strbuf *sb, const char *res, const char *x,
                  const char *gamma, const char *beta, int M, int N, elt et,
                  bool rms) {
  const char *t = et_name(et);
  char tx[96], tr[96], tv[96], body[512], mean[64];
  ty_tensor(tx, et, 2, (int[]){M, N});
  ty_tensor(tr, et, 1, (int[]){M});
  ty_tensor(tv, et, 1, (int[]){N});
  double inv_n = 1.0 / N;
  if (!rms) {
    snprintf(body, sizeof body,
             "    %%_c = arith.constant %.8e : %s\n"
             "    %%_s = arith.mulf %%_v, %%_c : %s\n"
             "    %%_r = arith.addf %%_acc, %%_s : %s\n",
             inv_n, t, t, t);
    row_reduce(sb, res, "mean", x, NULL, NULL, M, N, et, "0.0", body);
    snprintf(mean, sizeof mean, "%s_mean", res);
    snprintf(body, sizeof body,
             "    %%_c = arith.constant %.8e : %s\n"
             "    %%_d = arith.subf %%_v, %%_m : %s\n"
             "    %%_d2 = arith.mulf %%_d, %%_d : %s\n"
             "    %%_s = arith.mulf %%_d2, %%_c : %s\n"
             "    %%_r = arith.addf %%_acc, %%_s : %s\n",
             inv_n, t, t, t, t, t);
    row_reduce(sb, res, "var", x, mean, tr, M, N, et, "0.0", body);
  } else {
    snprintf(body, sizeof body,
             "    %%_c = arith.constant %.8e : %s\n"
             "    %%_d2 = arith.mulf %%_v, %%_v : %s\n"
             "    %%_s = arith.mulf %%_d2, %%_c : %s\n"
             "    %%_r = arith.addf %%_acc, %%_s : %s\n",
             inv_n, t, t, t, t);
    row_reduce(sb, res, "var", x, NULL, NULL, M, N, et, "0.0", body);
  }
  sb_printf(sb, "  %s_e = tensor.empty() : %s\n", res, tx);
  if (!rms)
    sb_printf(sb,
              "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
              "(d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> "
              "(d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> "
              "(d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = "
              "[\"parallel\", \"parallel\"]}\n"
              "      ins(%s, %s_mean, %s_var, %s, %s : %s, %s, %s, %s, %s) "
              "outs(%s_e : %s) {\n"
              "  ^bb0(%%_v: %s, %%_m: %s, %%_s2: %s, %%_g: %s, %%_b: %s, "
              "%%_o: %s):\n"
              "    %%_d = arith.subf %%_v, %%_m : %s\n",
              res, x, res, res, gamma, beta, tx, tr, tr, tv, tv, res, tx, t, t,
              t, t, t, t, t);
  else
    sb_printf(sb,
              "  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> "
              "(d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> "
              "(d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = "
              "[\"parallel\", \"parallel\"]}\n"
              "      ins(%s, %s_var, %s : %s, %s, %s) outs(%s_e : %s) {\n"
              "  ^bb0(%%_d: %s, %%_s2: %s, %%_g: %s, %%_o: %s):\n",
              res, x, res, gamma, tx, tr, tv, res, tx, t, t, t, t);
  sb_printf(sb,
            "    %%_eps = arith.constant 1.0e-05 : %s\n"
            "    %%_ve = arith.addf %%_s2, %%_eps : %s\n"
            "    %%_inv = math.rsqrt %%_ve : %s\n"
            "    %%_n = arith.mulf %%_d, %%_inv : %s\n"
            "    %%_sc = arith.mulf %%_n, %%_g : %s\n",
            t, t, t, t, t);
  if (!rms)
    sb_printf(sb, "    %%_y = arith.addf %%_sc, %%_b : %s\n"
                  "    linalg.yield %%_y : %s\n  } -> %s\n",
              t, t, tx);
  else
    sb_printf(sb, "    linalg.yield %%_sc : %s\n  } -> %s\n", t, tx);
}
