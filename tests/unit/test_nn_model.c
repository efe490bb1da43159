// Unit tests of the whole network (src/nn/model.c, ppo.c, adam.c): the
// backward pass of both architectures and of the full PPO loss against
// central finite differences over every parameter, batching of graphs,
// acting (greedy and sampled), Adam on a quadratic, gradient clipping, and
// bit-identical training from the same seed.
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
// a small random problem: B graphs, A = 3 actions (+ STOP) with 2, 0, 1 params

enum { B = 4, A = 3, S = 6, F = 4 };

typedef struct {
  nn_model *m;
  nn_acts acts;
  nn_graph_batch gb;
  float state[B * S];
  uint8_t mask[B * (A + 1)];
  nn_batch in;
  // PPO targets
  int action[B];
  float u[B * 3], logp_old[B], adv[B], ret[B];
  nn_ppo_batch t;
  nn_ppo_config pc;
  float bc_kl; // the anchor weight of bc_loss (t.anchor_logp: the anchor's)
  // random head weights for the plain network check
  float wl[B * (A + 1)], wmu[B * 3], wv[B];
} problem;

static void fill(nn_rng *r, float *x, int n, float scale) {
  for (int i = 0; i < n; i++)
    x[i] = scale * (2.0f * nn_rng_uniform(r) - 1.0f);
}

static void make_graphs(nn_graph_batch *gb, nn_rng *r, int n, int min_nodes,
                        int max_nodes, int feat) {
  nn_graph gs[16] = {0};
  float *xs[16];
  int *rps[16], *cols[16];
  for (int g = 0; g < n; g++) {
    int N = min_nodes + (int)(nn_rng_u64(r) % (uint64_t)(max_nodes - min_nodes + 1));
    xs[g] = malloc(sizeof(float) * N * feat);
    rps[g] = malloc(sizeof(int) * (N + 1));
    cols[g] = malloc(sizeof(int) * N * 3);
    fill(r, xs[g], N * feat, 1.0f);
    int e = 0;
    rps[g][0] = 0;
    for (int i = 0; i < N; i++) { // up to 3 random neighbours, some none
      int deg = (int)(nn_rng_u64(r) % 4);
      for (int k = 0; k < deg; k++)
        cols[g][e++] = (int)(nn_rng_u64(r) % (uint64_t)N);
      rps[g][i + 1] = e;
    }
    gs[g] = (nn_graph){N, feat, xs[g], rps[g], cols[g]};
  }
  assert_int_equal(nn_graph_batch_build(gb, gs, n), 0);
  for (int g = 0; g < n; g++) {
    free(xs[g]);
    free(rps[g]);
    free(cols[g]);
  }
}

// Op-kind embedding width of the GNN problems (0: none); see
// test_network_fd_embed.
static int embed_dim = 0;

static void problem_init(problem *p, nn_arch arch, uint64_t seed) {
  memset(p, 0, sizeof *p);
  nn_config cfg;
  nn_config_default(&cfg);
  cfg.arch = arch;
  cfg.state_dim = S;
  cfg.node_dim = F;
  cfg.gnn_dim = 5;
  cfg.hidden_dim = 7;
  cfg.n_actions = A;
  cfg.param_count[0] = 2;
  cfg.param_count[2] = 1;
  // give log-std some spread so its gradient is not symmetric
  cfg.init_log_std = -0.3f;
  if (arch == NN_ARCH_GNN && embed_dim > 0) {
    cfg.embed_dim = embed_dim;
    cfg.embed_rows = 4; // ids 0..2, and row 3 for everything else
  }
  p->m = nn_model_create(&cfg, seed);
  assert_non_null(p->m);
  assert_int_equal(p->m->P, 3);
  nn_rng r;
  nn_rng_seed(&r, seed + 100);
  // bigger logits than the 0.01-scaled init, so the policy is not uniform
  fill(&r, p->m->params.pi_w, (A + 1) * 7, 0.8f);
  fill(&r, p->m->params.log_std, 3, 0.5f);
  make_graphs(&p->gb, &r, B, 3, 6, F);
  if (p->m->cfg.embed_dim > 0) { // column 0 holds ids: in range, -1, 7
    static const float ids[] = {0, 1, 2, -1, 1, 7, 2};
    for (int i = 0; i < p->gb.g.n_nodes; i++)
      p->gb.x[(size_t)i * F] = ids[i % 7];
  }
  fill(&r, p->state, B * S, 1.0f);
  static const uint8_t mask[B * (A + 1)] = {1, 1, 1, 1, 1, 0, 1, 1,
                                            0, 1, 0, 1, 1, 1, 1, 1};
  memcpy(p->mask, mask, sizeof mask);
  p->in = (nn_batch){B, p->state, p->gb.g, p->gb.graph_ptr, p->mask};
  assert_int_equal(nn_acts_ensure(&p->acts, p->m, B, p->gb.g.n_nodes), 0);
  static const int action[B] = {0, 2, 3, 1};
  memcpy(p->action, action, sizeof action);
  fill(&r, p->u, B * 3, 1.0f);
  fill(&r, p->ret, B, 1.0f);
  fill(&r, p->wl, B * (A + 1), 1.0f);
  fill(&r, p->wmu, B * 3, 1.0f);
  fill(&r, p->wv, B, 1.0f);
  p->t = (nn_ppo_batch){p->action, p->u, p->logp_old, p->adv, p->ret, NULL, NULL, NULL};
  p->pc = (nn_ppo_config){.clip_eps = 0.2f, .vf_coef = 0.5f, .ent_coef = 0.05f};
  // old log-probs: r = exp(offset); with these advantages sample 0 and 3 are
  // unclipped, sample 1 (r > 1.2, A > 0) and 2 (r < 0.8, A < 0) are clipped
  static const float offset[B] = {0.1f, 0.5f, -0.5f, -0.5f};
  static const float adv[B] = {1.0f, 0.7f, -1.2f, 0.8f};
  nn_forward(p->m, &p->acts, &p->in);
  hybrid_logprob_forward(p->logp_old, NULL, p->acts.logp, p->mask, p->acts.mu,
                         p->m->params.log_std, p->action, p->u,
                         p->m->param_off, B, A + 1, 3);
  for (int b = 0; b < B; b++) {
    p->logp_old[b] -= offset[b];
    p->adv[b] = adv[b];
  }
}

static void problem_free(problem *p) {
  nn_model_destroy(p->m);
  nn_acts_free(&p->acts);
  nn_graph_batch_free(&p->gb);
}

// ----------------------------------------------------------------------------
// finite differences over every parameter

typedef double (*loss_fn)(problem *p);

static double net_loss(problem *p) {
  nn_forward(p->m, &p->acts, &p->in);
  double s = 0;
  for (int i = 0; i < B * (A + 1); i++)
    if (p->mask[i])
      s += (double)p->acts.logp[i] * p->wl[i];
  for (int i = 0; i < B * 3; i++)
    s += (double)p->acts.mu[i] * p->wmu[i];
  for (int i = 0; i < B; i++)
    s += (double)p->acts.value[i] * p->wv[i];
  return s;
}

static double ppo_loss(problem *p) {
  return nn_ppo_forward(p->m, &p->acts, &p->in, &p->t, &p->pc, NULL);
}

static double central_diff(problem *p, loss_fn L, float *x, float eps) {
  float keep = *x;
  *x = keep + eps;
  double lp = L(p);
  *x = keep - eps;
  double lm = L(p);
  *x = keep;
  return (lp - lm) / (2.0 * eps);
}

// Checks every parameter's gradient. A relu pre-activation within eps of 0
// spoils one step size, so a mismatch at eps is retried at eps/4; a wrong
// gradient fails both.
static void check_all_params(const char *label, problem *p, loss_fn L) {
  const double atol = 2e-3, rtol = 2e-2;
  const float eps = 1e-3f;
  double maxratio = 0, maxdiff = 0;
  int retried = 0;
  float *x = p->m->params_memory, *an = p->m->grads_memory;
  for (size_t i = 0; i < p->m->n_params; i++) {
    double fd = central_diff(p, L, &x[i], eps);
    double d = fabs(fd - an[i]);
    double bound = atol + rtol * fmax(fabs(fd), fabs(an[i]));
    if (d > bound) {
      retried++;
      fd = central_diff(p, L, &x[i], eps / 4);
      d = fabs(fd - an[i]);
      bound = atol + rtol * fmax(fabs(fd), fabs(an[i]));
    }
    maxratio = fmax(maxratio, d / bound);
    maxdiff = fmax(maxdiff, d);
    if (d > bound) {
      const char *name = "?";
      for (int t = 0; t < p->m->n_tensors; t++)
        if (i >= p->m->tensors[t].offset &&
            i < p->m->tensors[t].offset + p->m->tensors[t].size)
          name = p->m->tensors[t].name;
      fail_msg("%s: d/d%s (param %zu): analytic %.6g vs finite difference "
               "%.6g",
               label, name, i, an[i], fd);
    }
  }
  printf("  %-16s %zu params, maxdiff=%.3g maxdiff/bound=%.3f (%d retried "
         "at eps/4)\n",
         label, p->m->n_params, maxdiff, maxratio, retried);
  assert_true(retried <= 3); // more would mean something other than a kink
}

static void net_fd(nn_arch arch) {
  problem p;
  problem_init(&p, arch, 11);
  nn_zero_grad(p.m);
  net_loss(&p);
  nn_acts_zero_head_grads(&p.acts, p.m);
  for (int i = 0; i < B * (A + 1); i++)
    p.acts.dlogp[i] = p.mask[i] ? p.wl[i] : 0.0f;
  memcpy(p.acts.dmu, p.wmu, sizeof p.wmu);
  memcpy(p.acts.dvalue, p.wv, sizeof p.wv);
  nn_backward(p.m, &p.acts, &p.in);
  check_all_params(arch == NN_ARCH_GNN ? "gnn network" : "mlp network", &p,
                   net_loss);
  problem_free(&p);
}

static void test_network_fd_gnn(void **state) {
  (void)state;
  net_fd(NN_ARCH_GNN);
}

// The same with an op-kind embedding: its rows get gradients through the
// first GraphSAGE layer (ids out of range share the last row).
static void test_network_fd_embed(void **state) {
  (void)state;
  embed_dim = 3;
  net_fd(NN_ARCH_GNN);
  embed_dim = 0;
}

static void test_network_fd_mlp(void **state) {
  (void)state;
  net_fd(NN_ARCH_MLP);
}

static void ppo_fd(nn_arch arch) {
  problem p;
  problem_init(&p, arch, 12);
  nn_zero_grad(p.m);
  nn_ppo_stats st;
  float loss = nn_ppo_forward(p.m, &p.acts, &p.in, &p.t, &p.pc, &st);
  // the stats add up to the loss and 3 of 4 ratios are outside the clip range
  assert_true(fabsf(loss - (st.policy_loss + p.pc.vf_coef * st.value_loss -
                            p.pc.ent_coef * st.entropy)) < 1e-5f);
  assert_true(st.clip_frac == 0.75f); // |exp(offset) - 1| > 0.2 for 3 of 4
  assert_true(st.entropy > 0.0f);
  nn_ppo_backward(p.m, &p.acts, &p.in, &p.t, &p.pc);
  check_all_params(arch == NN_ARCH_GNN ? "gnn ppo loss" : "mlp ppo loss", &p,
                   ppo_loss);
  problem_free(&p);
}

static void test_ppo_fd_gnn(void **state) {
  (void)state;
  ppo_fd(NN_ARCH_GNN);
}

static void test_ppo_fd_mlp(void **state) {
  (void)state;
  ppo_fd(NN_ARCH_MLP);
}

static double bc_loss(problem *p) {
  return nn_bc_forward(p->m, &p->acts, &p->in, &p->t, p->bc_kl);
}

// The behaviour-cloning loss: the mean cross-entropy of the batch's actions
// plus the squared error of their parameter means, and its gradient.
static void bc_fd(nn_arch arch) {
  problem p;
  problem_init(&p, arch, 14);
  nn_zero_grad(p.m);
  float loss = nn_bc_forward(p.m, &p.acts, &p.in, &p.t, 0.0f);
  int A1 = A + 1, P = p.m->P;
  double want = 0;
  for (int b = 0; b < B; b++) {
    int a = p.t.action[b];
    want -= p.acts.logp[b * A1 + a];
    for (int k = p.m->param_off[a]; k < p.m->param_off[a + 1]; k++)
      want += 0.5 * pow(p.acts.mu[b * P + k] - p.t.u[b * P + k], 2);
  }
  assert_true(fabs(loss - want / B) < 1e-5);
  assert_true(loss > 0);
  nn_bc_backward(p.m, &p.acts, &p.in, &p.t, 0.0f);
  check_all_params(arch == NN_ARCH_GNN ? "gnn bc loss" : "mlp bc loss", &p,
                   bc_loss);
  problem_free(&p);
}

// Cloning with an anchor: KL(anchor || pi) is added on the samples whose
// demonstrated action is the anchor's greedy choice, and only there. The
// anchor is another random network; samples 0 and 1 are given its greedy
// action, samples 2 and 3 another allowed one.
static void test_bc_anchor_fd(void **state) {
  (void)state;
  problem p, q; // q.m is the anchor
  problem_init(&p, NN_ARCH_GNN, 14);
  problem_init(&q, NN_ARCH_GNN, 21);
  int A1 = A + 1;
  assert_int_equal(nn_acts_ensure(&q.acts, q.m, B, p.gb.g.n_nodes), 0);
  nn_forward(q.m, &q.acts, &p.in);
  for (int b = 0; b < B; b++) {
    const float *la = q.acts.logp + b * A1;
    int best = -1, other = -1;
    for (int j = 0; j < A1; j++)
      if (p.mask[b * A1 + j] && (best < 0 || la[j] > la[best]))
        best = j;
    for (int j = 0; j < A1; j++)
      if (p.mask[b * A1 + j] && j != best)
        other = j;
    p.action[b] = b < 2 ? best : other;
  }
  p.t.anchor_logp = q.acts.logp;
  double plain = nn_bc_forward(p.m, &p.acts, &p.in, &p.t, 0.0f);
  p.bc_kl = 0.7f;
  nn_zero_grad(p.m);
  double loss = nn_bc_forward(p.m, &p.acts, &p.in, &p.t, p.bc_kl);
  double kl = 0;
  for (int b = 0; b < 2; b++)
    for (int j = 0; j < A1; j++)
      if (p.mask[b * A1 + j])
        kl += exp(q.acts.logp[b * A1 + j]) *
              (q.acts.logp[b * A1 + j] - p.acts.logp[b * A1 + j]);
  printf("bc anchor: plain %.5f, with the anchor %.5f, KL of samples 0-1 %.5f\n",
         plain, loss, kl);
  assert_true(kl > 1e-3);
  assert_true(fabs(loss - (plain + 0.7 * kl / B)) < 1e-5);
  nn_bc_backward(p.m, &p.acts, &p.in, &p.t, p.bc_kl);
  check_all_params("gnn bc anchor", &p, bc_loss);
  // the anchor itself: KL 0 wherever it chooses the demonstrated action
  nn_forward(p.m, &q.acts, &p.in);
  assert_true(fabs(nn_bc_forward(p.m, &p.acts, &p.in, &p.t, p.bc_kl) -
                   nn_bc_forward(p.m, &p.acts, &p.in, &p.t, 0.0f)) < 1e-6);
  problem_free(&p);
  problem_free(&q);
}

static void test_bc_fd_gnn(void **state) {
  (void)state;
  bc_fd(NN_ARCH_GNN);
}

static void test_bc_fd_mlp(void **state) {
  (void)state;
  bc_fd(NN_ARCH_MLP);
}

// ----------------------------------------------------------------------------
// batching and acting

static void test_batch_matches_single(void **state) {
  (void)state;
  problem p;
  problem_init(&p, NN_ARCH_GNN, 13);
  nn_forward(p.m, &p.acts, &p.in);
  nn_acts one = {0};
  for (int b = 0; b < B; b++) {
    // graph b alone, with node indices shifted back to start at 0
    int lo = p.gb.graph_ptr[b], hi = p.gb.graph_ptr[b + 1], n = hi - lo;
    int rp[16], cl[64], gp[2] = {0, n};
    int e0 = p.gb.row_ptr[lo];
    for (int i = 0; i <= n; i++)
      rp[i] = p.gb.row_ptr[lo + i] - e0;
    for (int e = 0; e < rp[n]; e++)
      cl[e] = p.gb.col[e0 + e] - lo;
    nn_batch in = {1, p.state + b * S,
                   (nn_graph){n, F, p.gb.x + lo * F, rp, cl}, gp,
                   p.mask + b * (A + 1)};
    assert_int_equal(nn_acts_ensure(&one, p.m, 1, n), 0);
    nn_forward(p.m, &one, &in);
    for (int j = 0; j <= A; j++) {
      float x = one.logp[j], y = p.acts.logp[b * (A + 1) + j];
      assert_true(x == y || fabsf(x - y) < 1e-5f);
    }
    assert_true(fabsf(one.value[0] - p.acts.value[b]) < 1e-5f);
    for (int k = 0; k < 3; k++)
      assert_true(fabsf(one.mu[k] - p.acts.mu[b * 3 + k]) < 1e-5f);
  }
  nn_acts_free(&one);
  problem_free(&p);
}

static void test_act(void **state) {
  (void)state;
  problem p;
  problem_init(&p, NN_ARCH_GNN, 14);
  nn_forward(p.m, &p.acts, &p.in);
  const float *l = p.acts.logp + 1 * (A + 1); // sample 1: action 1 masked
  float u[3] = {0};
  int g = nn_act(p.m, &p.acts, 1, NULL, u);
  for (int j = 0; j <= A; j++)
    if (p.mask[(A + 1) + j])
      assert_true(l[g] >= l[j]);
  // sampling: frequencies follow exp(logp), masked actions never appear
  nn_rng r;
  nn_rng_seed(&r, 5);
  int count[A + 1] = {0};
  const int n = 20000;
  for (int i = 0; i < n; i++) {
    int a = nn_act(p.m, &p.acts, 1, &r, u);
    assert_true(a >= 0 && a <= A);
    count[a]++;
  }
  assert_int_equal(count[1], 0);
  for (int j = 0; j <= A; j++)
    if (p.mask[(A + 1) + j]) {
      double f = (double)count[j] / n, want = exp(l[j]);
      printf("  action %d: sampled %.4f, probability %.4f\n", j, f, want);
      assert_true(fabs(f - want) < 0.015);
    }
  // greedy parameters are the means; sampled ones spread by exp(log_std)
  memset(u, 0, sizeof u);
  int a0 = nn_act(p.m, &p.acts, 3, NULL, u); // sample 3: everything allowed
  for (int k = p.m->param_off[a0]; k < p.m->param_off[a0 + 1]; k++)
    assert_true(u[k] == p.acts.mu[3 * 3 + k]);
  double s = 0, s2 = 0;
  int m0 = 0;
  for (int i = 0; i < n; i++) {
    if (nn_act(p.m, &p.acts, 0, &r, u) != 0)
      continue;
    double z = u[0] - p.acts.mu[0];
    s += z;
    s2 += z * z;
    m0++;
  }
  assert_true(m0 > 1000);
  double sd = sqrt(s2 / m0 - (s / m0) * (s / m0));
  printf("  param 0: sampled sd %.4f, exp(log_std) %.4f\n", sd,
         exp(p.m->params.log_std[0]));
  assert_true(fabs(sd - exp(p.m->params.log_std[0])) < 0.05 * exp(p.m->params.log_std[0]));
  // nothing allowed: -1
  memset(p.mask, 0, sizeof p.mask);
  nn_forward(p.m, &p.acts, &p.in);
  assert_int_equal(nn_act(p.m, &p.acts, 2, NULL, u), -1);
  problem_free(&p);
}

// ----------------------------------------------------------------------------
// optimizer

static void test_adam_quadratic(void **state) {
  (void)state;
  // f(x) = 0.5 sum a_i (x_i - c_i)^2, gradient a_i (x_i - c_i)
  enum { N = 8 };
  float x[N] = {0}, m[N] = {0}, v[N] = {0}, g[N], a[N], c[N];
  nn_rng r;
  nn_rng_seed(&r, 9);
  fill(&r, c, N, 3.0f);
  for (int i = 0; i < N; i++)
    a[i] = 0.1f + 10.0f * nn_rng_uniform(&r); // ill-conditioned on purpose
  double f0 = 0;
  for (int i = 0; i < N; i++)
    f0 += 0.5 * a[i] * c[i] * c[i];
  for (int t = 1; t <= 3000; t++) {
    float lr = 0.05f * (1.0f - (float)(t - 1) / 3000.0f); // linear decay
    for (int i = 0; i < N; i++)
      g[i] = a[i] * (x[i] - c[i]);
    adam_update(x, m, v, g, N, 1.0f, lr, 0.9f, 0.999f, 1e-8f, 0.0f, t);
  }
  double f = 0, maxerr = 0;
  for (int i = 0; i < N; i++) {
    f += 0.5 * a[i] * (x[i] - c[i]) * (x[i] - c[i]);
    maxerr = fmax(maxerr, fabs(x[i] - c[i]));
  }
  printf("  f: %.4g -> %.4g, max |x - c| = %.3g\n", f0, f, maxerr);
  assert_true(maxerr < 1e-3);
  assert_true(f < 1e-6 * f0);
}

static void test_clipping(void **state) {
  (void)state;
  problem p;
  problem_init(&p, NN_ARCH_MLP, 15);
  nn_zero_grad(p.m);
  for (size_t i = 0; i < p.m->n_params; i++)
    p.m->grads_memory[i] = (i % 2 ? 1.0f : -2.0f);
  double want = 0;
  for (size_t i = 0; i < p.m->n_params; i++)
    want += (i % 2 ? 1.0 : 4.0);
  want = sqrt(want);
  nn_adam_config ac = {.lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f,
                       .eps = 1e-8f, .max_grad_norm = 0.5f};
  float norm = nn_adam_step(p.m, &ac);
  assert_true(fabs(norm - want) < 1e-4 * want);
  // the first moment saw the clipped gradient: |m| = (1 - beta1) * 0.5
  float mnorm = grad_global_norm(p.m->m_memory, p.m->n_params);
  printf("  grad norm %.4f clipped to %.4f (m norm %.5f)\n", norm,
         ac.max_grad_norm, mnorm);
  assert_true(fabsf(mnorm - 0.1f * 0.5f) < 1e-5f);
  problem_free(&p);
}

// ----------------------------------------------------------------------------
// training: determinism and learning

// Trains for `steps` PPO updates on one fixed batch in which sample 0's
// action 2 has a positive advantage; returns the model.
static nn_model *train(uint64_t seed, int steps, float *p_before,
                       float *p_after) {
  nn_config cfg;
  nn_config_default(&cfg); // production widths: S=256, G=64, H=128
  cfg.node_dim = 16;
  cfg.n_actions = 10;
  for (int a = 0; a < 10; a++)
    cfg.param_count[a] = a % 3;
  nn_model *m = nn_model_create(&cfg, seed);
  assert_non_null(m);
  enum { TB = 8 };
  nn_rng r;
  nn_rng_seed(&r, seed ^ 0xabcdef);
  nn_graph_batch gb;
  make_graphs(&gb, &r, TB, 20, 60, 16);
  float *st = malloc(sizeof(float) * TB * 256);
  fill(&r, st, TB * 256, 1.0f);
  uint8_t mask[TB * 11];
  memset(mask, 1, sizeof mask);
  nn_batch in = {TB, st, gb.g, gb.graph_ptr, mask};
  nn_acts acts = {0};
  assert_int_equal(nn_acts_ensure(&acts, m, TB, gb.g.n_nodes), 0);
  int action[TB];
  float u[TB * 10] = {0}, logp_old[TB], adv[TB], ret[TB];
  nn_forward(m, &acts, &in);
  for (int b = 0; b < TB; b++) {
    action[b] = nn_act(m, &acts, b, &r, u + b * m->P);
    adv[b] = -0.1f;
    ret[b] = 1.0f;
  }
  action[0] = 2;
  adv[0] = 1.0f;
  hybrid_logprob_forward(logp_old, NULL, acts.logp, mask, acts.mu,
                         m->params.log_std, action, u, m->param_off, TB, 11,
                         m->P);
  *p_before = expf(acts.logp[2]);
  nn_ppo_batch t = {action, u, logp_old, adv, ret, NULL, NULL, NULL};
  nn_ppo_config pc = {.clip_eps = 0.2f, .vf_coef = 0.5f, .ent_coef = 0.01f};
  nn_adam_config ac = {.lr = 3e-4f, .beta1 = 0.9f, .beta2 = 0.999f,
                       .eps = 1e-8f, .max_grad_norm = 0.5f};
  for (int s = 0; s < steps; s++) {
    nn_zero_grad(m);
    nn_ppo_forward(m, &acts, &in, &t, &pc, NULL);
    nn_ppo_backward(m, &acts, &in, &t, &pc);
    nn_adam_step(m, &ac);
  }
  nn_forward(m, &acts, &in);
  *p_after = expf(acts.logp[2]);
  nn_acts_free(&acts);
  nn_graph_batch_free(&gb);
  free(st);
  return m;
}

static void test_same_seed_bit_identical(void **state) {
  (void)state;
  float b1, a1, b2, a2, b3, a3;
  nn_model *m1 = train(42, 20, &b1, &a1);
  nn_model *m2 = train(42, 20, &b2, &a2);
  nn_model *m3 = train(43, 20, &b3, &a3);
  assert_int_equal(m1->n_params, m2->n_params);
  assert_memory_equal(m1->params_memory, m2->params_memory,
                      sizeof(float) * m1->n_params);
  assert_memory_equal(m1->m_memory, m2->m_memory, sizeof(float) * m1->n_params);
  assert_memory_not_equal(m1->params_memory, m3->params_memory,
                          sizeof(float) * m1->n_params);
  // the positively rewarded action became more likely
  printf("  p(action 2 | sample 0): %.4f -> %.4f\n", b1, a1);
  assert_true(a1 > b1 * 1.05f);
  nn_model_destroy(m1);
  nn_model_destroy(m2);
  nn_model_destroy(m3);
}

static void test_config_validation(void **state) {
  (void)state;
  nn_config cfg;
  nn_config_default(&cfg);
  assert_int_equal(cfg.state_dim, 256);
  assert_int_equal(cfg.gnn_dim, 64);
  assert_null(nn_model_create(&cfg, 1)); // GNN without node features
  cfg.arch = NN_ARCH_MLP;
  nn_model *m = nn_model_create(&cfg, 1);
  assert_non_null(m);
  assert_null(nn_model_tensor(m, "sage1.w_self"));
  assert_null(nn_model_tensor(m, "mu.weight")); // no parameters at all
  const nn_tensor *t = nn_model_tensor(m, "fc1.weight");
  assert_non_null(t);
  assert_int_equal(t->shape[0], 128);
  assert_int_equal(t->shape[1], 256);
  nn_model_destroy(m);
  nn_arch a;
  assert_int_equal(nn_arch_parse("mlp", &a), 0);
  assert_int_equal(a, NN_ARCH_MLP);
  assert_int_equal(nn_arch_parse("transformer", &a), -1);
  cfg.n_actions = NN_MAX_ACTIONS + 1;
  assert_null(nn_model_create(&cfg, 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_network_fd_gnn),
      cmocka_unit_test(test_network_fd_embed),
      cmocka_unit_test(test_network_fd_mlp),
      cmocka_unit_test(test_ppo_fd_gnn),
      cmocka_unit_test(test_ppo_fd_mlp),
      cmocka_unit_test(test_bc_fd_gnn),
      cmocka_unit_test(test_bc_fd_mlp),
      cmocka_unit_test(test_bc_anchor_fd),
      cmocka_unit_test(test_batch_matches_single),
      cmocka_unit_test(test_act),
      cmocka_unit_test(test_adam_quadratic),
      cmocka_unit_test(test_clipping),
      cmocka_unit_test(test_same_seed_bit_identical),
      cmocka_unit_test(test_config_validation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
