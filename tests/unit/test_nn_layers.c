// Unit tests of the network layers (src/nn/layers.c): each forward pass is
// compared with a direct computation, and each backward pass with central
// finite differences of a random linear functional L = sum(out * w) of its
// output. Every check prints its maxdiff.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "nn/nn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// finite-difference helper

typedef double (*loss_fn)(void *ctx);

static nn_rng rng;

static void fill(float *x, int n, float scale) {
  for (int i = 0; i < n; i++)
    x[i] = scale * (2.0f * nn_rng_uniform(&rng) - 1.0f);
}

static double dot(const float *a, const float *w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (double)a[i] * w[i];
  return s;
}

// Compares analytic gradients of L with respect to x (n) with central
// differences; |fd - an| must be below atol + rtol * max(|fd|, |an|).
// `only` (n, may be NULL) selects the entries to check.
static void check_grad_only(const char *label, loss_fn L, void *ctx, float *x,
                            const float *an, int n, float eps,
                            const uint8_t *only) {
  const double atol = 2e-3, rtol = 1e-2;
  double maxdiff = 0;
  int worst = -1;
  int checked = 0;
  for (int i = 0; i < n; i++) {
    if (only && !only[i])
      continue;
    checked++;
    float keep = x[i];
    x[i] = keep + eps;
    double lp = L(ctx);
    x[i] = keep - eps;
    double lm = L(ctx);
    x[i] = keep;
    double fd = (lp - lm) / (2.0 * eps);
    double d = fabs(fd - an[i]);
    double bound = atol + rtol * fmax(fabs(fd), fabs(an[i]));
    if (d / bound > (worst < 0 ? 0 : maxdiff)) {
      maxdiff = d / bound;
      worst = i;
    }
    if (d > bound)
      fail_msg("%s[%d]: analytic %.6g vs finite difference %.6g", label, i,
               an[i], fd);
  }
  printf("  %-22s n=%-5d maxdiff/bound=%.3f\n", label, checked, maxdiff);
}

static void check_grad(const char *label, loss_fn L, void *ctx, float *x,
                       const float *an, int n, float eps) {
  check_grad_only(label, L, ctx, x, an, n, eps, NULL);
}

// ----------------------------------------------------------------------------
// linear

enum { LB = 3, LC = 5, LOC = 4 };
static struct {
  float inp[LB * LC], w[LOC * LC], b[LOC], out[LB * LOC], wout[LB * LOC];
} lin;

static double linear_loss(void *ctx) {
  (void)ctx;
  linear_forward(lin.out, lin.inp, lin.w, lin.b, LB, LC, LOC);
  return dot(lin.out, lin.wout, LB * LOC);
}

static void test_linear(void **state) {
  (void)state;
  nn_rng_seed(&rng, 1);
  fill(lin.inp, LB * LC, 1);
  fill(lin.w, LOC * LC, 1);
  fill(lin.b, LOC, 1);
  fill(lin.wout, LB * LOC, 1);
  linear_loss(NULL);
  for (int b = 0; b < LB; b++)
    for (int o = 0; o < LOC; o++) {
      double ref = lin.b[o];
      for (int c = 0; c < LC; c++)
        ref += (double)lin.inp[b * LC + c] * lin.w[o * LC + c];
      assert_true(fabs(ref - lin.out[b * LOC + o]) < 1e-5);
    }
  float dinp[LB * LC] = {0}, dw[LOC * LC] = {0}, db[LOC] = {0};
  linear_backward(dinp, dw, db, lin.wout, lin.inp, lin.w, LB, LC, LOC);
  check_grad("linear dinp", linear_loss, NULL, lin.inp, dinp, LB * LC, 1e-2f);
  check_grad("linear dweight", linear_loss, NULL, lin.w, dw, LOC * LC, 1e-2f);
  check_grad("linear dbias", linear_loss, NULL, lin.b, db, LOC, 1e-2f);
  // backward accumulates: a second call doubles the gradients
  float dw2[LOC * LC];
  memcpy(dw2, dw, sizeof dw);
  linear_backward(NULL, dw2, NULL, lin.wout, lin.inp, lin.w, LB, LC, LOC);
  for (int i = 0; i < LOC * LC; i++)
    assert_true(fabsf(dw2[i] - 2 * dw[i]) < 1e-5f);
}

// ----------------------------------------------------------------------------
// activations

enum { AN = 40 };
static struct {
  float x[AN], y[AN], w[AN];
  int relu;
} act;

static double act_loss(void *ctx) {
  (void)ctx;
  if (act.relu)
    relu_forward(act.y, act.x, AN);
  else
    tanh_forward(act.y, act.x, AN);
  return dot(act.y, act.w, AN);
}

static void test_activations(void **state) {
  (void)state;
  nn_rng_seed(&rng, 2);
  for (int relu = 0; relu < 2; relu++) {
    act.relu = relu;
    fill(act.x, AN, 2);
    for (int i = 0; i < AN; i++) // keep relu inputs away from the kink
      if (fabsf(act.x[i]) < 0.05f)
        act.x[i] = 0.5f;
    fill(act.w, AN, 1);
    act_loss(NULL);
    for (int i = 0; i < AN; i++)
      assert_true(fabsf(act.y[i] - (relu ? fmaxf(act.x[i], 0) : (float)tanh(act.x[i]))) < 1e-6f);
    float dx[AN] = {0};
    if (relu)
      relu_backward(dx, act.w, act.y, AN);
    else
      tanh_backward(dx, act.w, act.y, AN);
    check_grad(relu ? "relu" : "tanh", act_loss, NULL, act.x, dx, AN, 1e-3f);
  }
}

// ----------------------------------------------------------------------------
// mean aggregation and GraphSAGE

// 5 nodes: 0 <- {1,2}, 1 <- {0}, 2 <- {}, 3 <- {0,1,4}, 4 <- {3}
enum { GN = 5, GD = 3, GO = 4 };
static const int row_ptr[GN + 1] = {0, 2, 3, 3, 6, 7};
static const int col[7] = {1, 2, 0, 0, 1, 4, 3};

static void test_mean_agg_forward(void **state) {
  (void)state;
  float h[GN * GD], agg[GN * GD];
  for (int i = 0; i < GN * GD; i++)
    h[i] = (float)i;
  mean_agg_forward(agg, h, row_ptr, col, GN, GD);
  // node 0: mean of rows 1 and 2 = (3+6)/2, (4+7)/2, (5+8)/2
  assert_true(agg[0] == 4.5f && agg[1] == 5.5f && agg[2] == 6.5f);
  // node 2 has no neighbours
  assert_true(agg[6] == 0.0f && agg[7] == 0.0f && agg[8] == 0.0f);
  // node 3: mean of rows 0, 1, 4 = (0+3+12)/3
  assert_true(fabsf(agg[9] - 5.0f) < 1e-6f);
}

static struct {
  float h[GN * GD], ws[GO * GD], wn[GO * GD], b[GO], out[GN * GO],
      agg[GN * GD], w[GN * GO];
} sg;

static double sage_loss(void *ctx) {
  (void)ctx;
  sage_forward(sg.out, sg.agg, sg.h, row_ptr, col, sg.ws, sg.wn, sg.b, GN, GD,
               GO);
  return dot(sg.out, sg.w, GN * GO);
}

static void test_sage(void **state) {
  (void)state;
  nn_rng_seed(&rng, 3);
  fill(sg.h, GN * GD, 1);
  fill(sg.ws, GO * GD, 1);
  fill(sg.wn, GO * GD, 1);
  fill(sg.b, GO, 0.5f);
  fill(sg.w, GN * GO, 1);
  sage_loss(NULL);
  // forward against a direct computation for node 3
  for (int o = 0; o < GO; o++) {
    double pre = sg.b[o];
    for (int d = 0; d < GD; d++) {
      double m = (sg.h[0 * GD + d] + sg.h[1 * GD + d] + sg.h[4 * GD + d]) / 3.0;
      pre += sg.ws[o * GD + d] * sg.h[3 * GD + d] + sg.wn[o * GD + d] * m;
    }
    assert_true(fabs(fmax(pre, 0.0) - sg.out[3 * GO + o]) < 1e-5);
  }
  int active = 0;
  for (int i = 0; i < GN * GO; i++)
    active += sg.out[i] > 0;
  assert_true(active > 3 && active < GN * GO); // both relu branches are hit
  float dh[GN * GD] = {0}, dws[GO * GD] = {0}, dwn[GO * GD] = {0}, db[GO] = {0};
  float dpre[GN * GO], dagg[GN * GD];
  sage_backward(dh, dws, dwn, db, dpre, dagg, sg.w, sg.out, sg.agg, sg.h,
                row_ptr, col, sg.ws, sg.wn, GN, GD, GO);
  check_grad("sage dh", sage_loss, NULL, sg.h, dh, GN * GD, 1e-3f);
  check_grad("sage dw_self", sage_loss, NULL, sg.ws, dws, GO * GD, 1e-3f);
  check_grad("sage dw_neigh", sage_loss, NULL, sg.wn, dwn, GO * GD, 1e-3f);
  check_grad("sage dbias", sage_loss, NULL, sg.b, db, GO, 1e-3f);
}

// ----------------------------------------------------------------------------
// pooling and concatenation

static struct {
  float h[GN * GD], out[2 * GD], w[2 * GD];
} pool;
static const int graph_ptr[3] = {0, 2, 5};

static double pool_loss(void *ctx) {
  (void)ctx;
  sum_pool_forward(pool.out, pool.h, graph_ptr, 2, GD);
  return dot(pool.out, pool.w, 2 * GD);
}

static void test_sum_pool(void **state) {
  (void)state;
  nn_rng_seed(&rng, 4);
  fill(pool.h, GN * GD, 1);
  fill(pool.w, 2 * GD, 1);
  pool_loss(NULL);
  assert_true(fabsf(pool.out[GD + 1] - (pool.h[2 * GD + 1] + pool.h[3 * GD + 1] +
                                        pool.h[4 * GD + 1])) < 1e-6f);
  float dh[GN * GD] = {0};
  sum_pool_backward(dh, pool.w, graph_ptr, 2, GD);
  check_grad("sum_pool", pool_loss, NULL, pool.h, dh, GN * GD, 1e-2f);
}

static void test_concat(void **state) {
  (void)state;
  float a[2 * 2] = {1, 2, 3, 4}, b[2 * 3] = {5, 6, 7, 8, 9, 10}, out[2 * 5];
  concat_forward(out, a, b, 2, 2, 3);
  const float want[10] = {1, 2, 5, 6, 7, 3, 4, 8, 9, 10};
  assert_memory_equal(out, want, sizeof want);
  float da[4] = {0}, db[6] = {0};
  concat_backward(da, db, want, 2, 2, 3);
  assert_memory_equal(da, a, sizeof a);
  assert_memory_equal(db, b, sizeof b);
}

// ----------------------------------------------------------------------------
// masked log-softmax

enum { SB = 2, SA = 6 };
static const uint8_t smask[SB * SA] = {1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1};
static struct {
  float z[SB * SA], l[SB * SA], w[SB * SA];
} sm;

static double softmax_loss(void *ctx) {
  (void)ctx;
  masked_log_softmax_forward(sm.l, sm.z, smask, SB, SA);
  double s = 0;
  for (int i = 0; i < SB * SA; i++)
    if (smask[i])
      s += (double)sm.l[i] * sm.w[i];
  return s;
}

static void test_masked_log_softmax(void **state) {
  (void)state;
  nn_rng_seed(&rng, 5);
  fill(sm.z, SB * SA, 3);
  fill(sm.w, SB * SA, 1);
  softmax_loss(NULL);
  // row 0: four allowed entries, probabilities sum to 1, masked are -inf
  double s = 0, ref = 0;
  for (int j = 0; j < SA; j++)
    if (smask[j])
      ref += exp((double)sm.z[j]);
  for (int j = 0; j < SA; j++) {
    if (!smask[j]) {
      assert_true(isinf(sm.l[j]) && sm.l[j] < 0);
      continue;
    }
    assert_true(fabs(sm.l[j] - (sm.z[j] - log(ref))) < 1e-5);
    s += exp(sm.l[j]);
  }
  assert_true(fabs(s - 1.0) < 1e-6);
  // row 1: only the last action (STOP) is allowed: log-prob 0
  assert_true(sm.l[SA + SA - 1] == 0.0f);
  float dz[SB * SA] = {0}, dl[SB * SA];
  for (int i = 0; i < SB * SA; i++)
    dl[i] = smask[i] ? sm.w[i] : 0.0f;
  masked_log_softmax_backward(dz, dl, sm.l, smask, SB, SA);
  for (int i = 0; i < SB * SA; i++)
    if (!smask[i])
      assert_true(dz[i] == 0.0f);
  check_grad("masked_log_softmax", softmax_loss, NULL, sm.z, dz, SB * SA, 1e-3f);
}

// ----------------------------------------------------------------------------
// hybrid log-probability and entropy

// 3 actions + STOP with 2, 0, 1 parameters (P = 3)
enum { HB = 3, HA = 4, HP = 3 };
static const int param_off[HA + 1] = {0, 2, 2, 3, 3};
static const uint8_t hmask[HB * HA] = {1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1};
static const int haction[HB] = {0, 2, 3};
static struct {
  float l[HB * HA], mu[HB * HP], log_std[HP], u[HB * HP], logp[HB], ent[HB];
  float wl[HB], we[HB];
} hy;

static double hybrid_loss(void *ctx) {
  (void)ctx;
  hybrid_logprob_forward(hy.logp, hy.ent, hy.l, hmask, hy.mu, hy.log_std,
                         haction, hy.u, param_off, HB, HA, HP);
  return dot(hy.logp, hy.wl, HB) + dot(hy.ent, hy.we, HB);
}

static void test_hybrid_logprob(void **state) {
  (void)state;
  nn_rng_seed(&rng, 6);
  float z[HB * HA];
  fill(z, HB * HA, 2);
  masked_log_softmax_forward(hy.l, z, hmask, HB, HA);
  fill(hy.mu, HB * HP, 1);
  fill(hy.log_std, HP, 0.5f);
  fill(hy.u, HB * HP, 1.5f);
  fill(hy.wl, HB, 1);
  fill(hy.we, HB, 1);
  hybrid_loss(NULL);
  // sample 0 took action 0 with parameters 0 and 1: direct densities
  double ref = hy.l[0];
  for (int k = 0; k < 2; k++) {
    double s = exp((double)hy.log_std[k]), x = hy.u[k] - hy.mu[k];
    ref += log(exp(-x * x / (2 * s * s)) / (s * sqrt(2 * M_PI)));
  }
  assert_true(fabs(ref - hy.logp[0]) < 1e-5);
  // sample 2 took STOP (no parameters): the discrete log-prob alone
  assert_true(hy.logp[2] == hy.l[2 * HA + 3]);
  // entropy of sample 1 = -sum p log p + sum_a p_a * Gaussian entropies
  double ent = 0;
  for (int j = 0; j < HA; j++) {
    if (!hmask[HA + j])
      continue;
    double p = exp((double)hy.l[HA + j]), g = 0;
    for (int k = param_off[j]; k < param_off[j + 1]; k++)
      g += 0.5 * log(2 * M_PI * M_E) + hy.log_std[k];
    ent += -p * log(p) + p * g;
  }
  assert_true(fabs(ent - hy.ent[1]) < 1e-5);

  float dl[HB * HA] = {0}, dmu[HB * HP] = {0}, dls[HP] = {0};
  hybrid_logprob_backward(dl, dmu, dls, hy.wl, hy.we, hy.l, hmask, hy.mu,
                          hy.log_std, haction, hy.u, param_off, HB, HA, HP);
  // the masked entries of l are -inf and never perturbed
  for (int i = 0; i < HB * HA; i++)
    if (!hmask[i])
      assert_true(dl[i] == 0.0f);
  check_grad_only("hybrid dlogp_disc", hybrid_loss, NULL, hy.l, dl, HB * HA,
                  1e-3f, hmask);
  check_grad("hybrid dmu", hybrid_loss, NULL, hy.mu, dmu, HB * HP, 1e-3f);
  check_grad("hybrid dlog_std", hybrid_loss, NULL, hy.log_std, dls, HP, 1e-3f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_linear),
      cmocka_unit_test(test_activations),
      cmocka_unit_test(test_mean_agg_forward),
      cmocka_unit_test(test_sage),
      cmocka_unit_test(test_sum_pool),
      cmocka_unit_test(test_concat),
      cmocka_unit_test(test_masked_log_softmax),
      cmocka_unit_test(test_hybrid_logprob),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
