// Unit tests of the PPO learner: GAE and each piece of the PPO loss on
// hand-computed cases, the epsilon-greedy behaviour log-probability, and a
// toy bandit with a continuous parameter where PPO must find the best action
// and parameter within a fixed number of updates; behaviour cloning with
// the anchor against a hand loop.
#include "rl/ppo_update.h" // before cmocka: it defines a fail() macro

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static void test_gae_hand_computed(void **state) {
  (void)state;
  // gamma 0.9, lambda 0.8:
  //   d2 = 2 - 0.3 = 1.7                          A2 = 1.7
  //   d1 = 0 + 0.9*0.3 - 0.4 = -0.13              A1 = -0.13 + 0.72*1.7 = 1.094
  //   d0 = 1 + 0.9*0.4 - 0.5 = 0.86               A0 = 0.86 + 0.72*1.094 = 1.64768
  // then a second one-step episode: d3 = 0.5 - 0.25 = 0.25 (no bootstrap).
  float r[] = {1, 0, 2, 0.5f}, v[] = {0.5f, 0.4f, 0.3f, 0.25f};
  uint8_t done[] = {0, 0, 1, 1};
  float adv[4], ret[4];
  gae(adv, ret, r, v, done, 4, 0.9f, 0.8f);
  const float want_adv[] = {1.64768f, 1.094f, 1.7f, 0.25f};
  for (int t = 0; t < 4; t++) {
    assert_float_equal(adv[t], want_adv[t], 1e-5);
    assert_float_equal(ret[t], want_adv[t] + v[t], 1e-5);
  }
}

// Each PPO loss piece on a hand-computed case. With every weight zero the
// policy is uniform over the 4 allowed actions (log p = -ln 4) and V = 0.
//   sample 0: r = exp(0.1) = 1.105171, A = +1: min(rA, clip(r)A) = 1.105171
//   sample 1: r = exp(-0.5) = 0.606531, A = -2: min(-1.213061, 0.8 * -2) = -1.6
//   policy = mean(-1.105171, +1.6) = 0.247415
//   value = mean(0.5 * 0.5^2, 0.5 * 1^2) = 0.3125, entropy = ln 4 = 1.386294
//   clip fraction = 1/2 (|r - 1| > 0.2 for sample 1 only)
//   approx KL = mean((r - 1) - ln r) = mean(0.005171, 0.106531) = 0.055851
//   total = 0.247415 + 0.5 * 0.3125 - 0.01 * 1.386294 = 0.389802
static void test_ppo_loss_pieces(void **state) {
  (void)state;
  nn_config cfg;
  nn_config_default(&cfg);
  cfg.arch = NN_ARCH_MLP;
  cfg.state_dim = 3;
  cfg.hidden_dim = 4;
  cfg.n_actions = 3;
  nn_model *m = nn_model_create(&cfg, 1);
  memset(m->params_memory, 0, m->n_params * sizeof(float));
  float st[6] = {1, 2, 3, -1, 0, 1};
  uint8_t mask[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  int action[2] = {0, 2};
  float u[2] = {0, 0}, logp_old[2] = {-logf(4) - 0.1f, -logf(4) + 0.5f};
  float adv[2] = {1, -2}, ret[2] = {0.5f, -1};
  nn_batch in = {.B = 2, .state = st, .mask = mask};
  nn_ppo_batch t = {action, u, logp_old, adv, ret, NULL, NULL, NULL};
  nn_ppo_config pc = {.clip_eps = 0.2f, .vf_coef = 0.5f, .ent_coef = 0.01f};
  nn_acts acts = {0};
  assert_int_equal(nn_acts_ensure(&acts, m, 2, 0), 0);
  nn_ppo_stats s;
  float loss = nn_ppo_forward(m, &acts, &in, &t, &pc, &s);
  assert_float_equal(s.policy_loss, 0.247415, 1e-5);
  assert_float_equal(s.value_loss, 0.3125, 1e-6);
  assert_float_equal(s.entropy, 1.386294, 1e-5);
  assert_float_equal(s.clip_frac, 0.5, 0);
  assert_float_equal(s.approx_kl, 0.055851, 1e-5);
  assert_float_equal(loss, 0.389802, 1e-5);
  nn_acts_free(&acts);
  nn_model_destroy(m);
}

// ----------------------------------------------------------------------------
// a bandit: 3 actions + STOP; action 1 has one parameter.
//   reward(0) = 0.3, reward(1, u) = 1 - (u - 0.5)^2, reward(2) = 0, STOP = 0
// The best choice is action 1 with u = 0.5 (reward 1).

enum { S = 8, NA = 3, BATCH = 64 };

static nn_model *bandit_model(uint64_t seed) {
  nn_config cfg;
  nn_config_default(&cfg);
  cfg.arch = NN_ARCH_MLP;
  cfg.state_dim = S;
  cfg.hidden_dim = 16;
  cfg.n_actions = NA;
  cfg.param_count[1] = 1;
  return nn_model_create(&cfg, seed);
}

static float bandit_reward(int action, const float *u, int slot) {
  if (action == 0)
    return 0.3f;
  if (action == 1)
    return 1.0f - (u[slot] - 0.5f) * (u[slot] - 0.5f);
  return 0.0f;
}

static void test_epsilon_logp(void **state) {
  (void)state;
  nn_model *m = bandit_model(1);
  float st[S] = {1, 0, 1, 0, 1, 0, 1, 0};
  uint8_t mask[NA + 1] = {1, 1, 0, 1}; // action 2 blocked: 3 allowed
  nn_acts acts = {0};
  assert_int_equal(nn_acts_ensure(&acts, m, 1, 0), 0);
  nn_batch in = {.B = 1, .state = st, .mask = mask};
  nn_forward(m, &acts, &in);
  nn_rng rng;
  nn_rng_seed(&rng, 7);
  for (int trial = 0; trial < 50; trial++) {
    float u[1] = {0}, logp, value;
    int a = ppo_act(m, &acts, mask, 0, &rng, 0.25f, u, &logp, &value);
    assert_true(a >= 0 && a <= NA && a != 2);
    // Expected: log(0.25/3 + 0.75 p(a)) + Gaussian part (action 1 only).
    double p = exp(acts.logp[a]);
    double want = log(0.25 / 3 + 0.75 * p);
    if (a == 1) {
      double sd = exp(m->params.log_std[0]);
      double z = (u[0] - acts.mu[0]) / sd;
      want += -0.5 * z * z - log(sd) - 0.5 * log(2 * M_PI);
    }
    assert_float_equal(logp, want, 1e-5);
    assert_float_equal(value, acts.value[0], 0);
  }
  nn_acts_free(&acts);
  nn_model_destroy(m);
}

static void test_bandit_learns(void **state) {
  (void)state;
  nn_model *m = bandit_model(3);
  rollout_buffer rb;
  assert_int_equal(rb_init(&rb, m, BATCH), 0);
  float st[S] = {1, 0, 1, 0, 1, 0, 1, 0};
  uint8_t mask[NA + 1] = {1, 1, 1, 1};
  nn_acts acts = {0};
  assert_int_equal(nn_acts_ensure(&acts, m, 1, 0), 0);
  nn_batch in = {.B = 1, .state = st, .mask = mask};
  nn_rng rng;
  nn_rng_seed(&rng, 11);
  ppo_update_config c = {
      .ppo = {.clip_eps = 0.2f, .vf_coef = 0.5f, .ent_coef = 0.0f},
      .adam = {.lr = 0.01f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
               .max_grad_norm = 0.5f},
      .epochs = 4, .minibatch = 16, .gamma = 0.99f, .lambda = 0.95f};
  nn_forward(m, &acts, &in);
  float p1_before = expf(acts.logp[1]);
  enum { K = 40 }; // updates allowed to get there
  for (int it = 0; it < K; it++) {
    nn_forward(m, &acts, &in);
    rb_clear(&rb);
    for (int e = 0; e < BATCH; e++) {
      float u[1] = {0}, logp, value;
      int a = ppo_act(m, &acts, mask, 0, &rng, 0.1f, u, &logp, &value);
      rb_push(&rb, st, NULL, mask, a, u, logp, value, bandit_reward(a, u, 0), true);
    }
    nn_ppo_stats stats;
    assert_int_equal(ppo_update(m, &rb, &c, &rng, &stats), 0);
    assert_true(isfinite(stats.loss));
  }
  nn_forward(m, &acts, &in);
  float u[1] = {0}, logp, value;
  int greedy = ppo_act(m, &acts, mask, 0, NULL, 0, u, &logp, &value);
  printf("bandit: p(best) %.3f -> %.3f, greedy action %d, u %.3f, value %.3f\n",
         p1_before, expf(acts.logp[1]), greedy, u[0], value);
  assert_int_equal(greedy, 1);
  assert_true(expf(acts.logp[1]) > 0.9f);
  assert_float_equal(u[0], 0.5f, 0.15f);
  assert_float_equal(value, 1.0f, 0.2f); // the value head learned the payoff
  rb_free(&rb);
  nn_acts_free(&acts);
  nn_model_destroy(m);
}

// ----------------------------------------------------------------------------
// the anchor term KL(anchor || pi) of expert iteration

// The loss with only the anchor term on (no advantage, value or entropy).
static float anchor_loss(nn_model *m, nn_acts *acts, const nn_model *anchor,
                         nn_acts *aacts, const nn_batch *in, nn_ppo_batch *t,
                         const nn_ppo_config *pc, nn_ppo_stats *s) {
  nn_forward(anchor, aacts, in);
  t->anchor_logp = aacts->logp;
  t->anchor_mu = aacts->mu;
  t->anchor_log_std = anchor->params.log_std;
  return nn_ppo_forward(m, acts, in, t, pc, s);
}

static void test_anchor_kl(void **state) {
  (void)state;
  float st[2 * S] = {1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0.5f, 0, -1, 0, 2, 0};
  uint8_t mask[2 * (NA + 1)] = {1, 1, 1, 1, 1, 1, 0, 1};
  int action[2] = {1, 0};
  float u[2] = {0.3f, 0}, logp_old[2] = {0, 0}, adv[2] = {0, 0}, ret[2] = {0, 0};
  nn_batch in = {.B = 2, .state = st, .mask = mask};
  nn_ppo_batch t = {action, u, logp_old, adv, ret, NULL, NULL, NULL};
  nn_ppo_config pc = {.clip_eps = 0.2f, .kl_coef = 1.0f};
  nn_model *m = bandit_model(1), *same = bandit_model(1), *other = bandit_model(2);
  other->params.log_std[0] = m->params.log_std[0] - 0.3f;
  nn_acts acts = {0}, aacts = {0};
  assert_int_equal(nn_acts_ensure(&acts, m, 2, 0), 0);
  assert_int_equal(nn_acts_ensure(&aacts, m, 2, 0), 0);
  nn_ppo_stats s;
  anchor_loss(m, &acts, same, &aacts, &in, &t, &pc, &s);
  printf("anchor KL: identical %.3g\n", s.anchor_kl);
  assert_float_equal(s.anchor_kl, 0.0, 1e-7);
  float loss = anchor_loss(m, &acts, other, &aacts, &in, &t, &pc, &s);
  printf("anchor KL: another policy %.4f\n", s.anchor_kl);
  assert_true(s.anchor_kl > 1e-3);
  assert_float_equal(loss, s.anchor_kl, 1e-6); // nothing else is on
  // the gradient against central finite differences, every parameter
  nn_zero_grad(m);
  anchor_loss(m, &acts, other, &aacts, &in, &t, &pc, &s);
  nn_ppo_backward(m, &acts, &in, &t, &pc);
  const float eps = 1e-3f;
  double maxdiff = 0;
  for (size_t i = 0; i < m->n_params; i++) {
    float keep = m->params_memory[i];
    m->params_memory[i] = keep + eps;
    float lp = anchor_loss(m, &acts, other, &aacts, &in, &t, &pc, &s);
    m->params_memory[i] = keep - eps;
    float lm = anchor_loss(m, &acts, other, &aacts, &in, &t, &pc, &s);
    m->params_memory[i] = keep;
    double fd = (lp - lm) / (2.0 * eps), an = m->grads_memory[i];
    double diff = fabs(fd - an) / fmax(1e-2, fabs(fd) + fabs(an));
    if (diff > maxdiff)
      maxdiff = diff;
    if (diff > 2e-2)
      fail_msg("d anchor KL / d param %zu: analytic %.6g vs finite difference %.6g",
               i, an, fd);
  }
  printf("anchor KL gradient: maxdiff %.3g over %zu parameters\n", maxdiff, m->n_params);
  nn_acts_free(&acts);
  nn_acts_free(&aacts);
  nn_model_destroy(m);
  nn_model_destroy(same);
  nn_model_destroy(other);
}

// bc_update with the cloning anchor computes the anchor's log-probabilities
// once, for all samples in batches of the minibatch size (the last one
// short). The update must be the one that forwarding the anchor on each
// shuffled minibatch gives: the hand loop below, with the same shuffles
// (bc_update's Fisher-Yates on the same rng) and Adam steps.
static void test_bc_update_anchor(void **state) {
  (void)state;
  enum { N = 37, MB = 8, EPOCHS = 2, A1 = NA + 1 };
  nn_model *m = bandit_model(1), *ref = bandit_model(1), *anchor = bandit_model(2);
  rollout_buffer rb;
  assert_int_equal(rb_init(&rb, m, N), 0);
  uint8_t mask[A1] = {1, 1, 1, 1};
  for (int i = 0; i < N; i++) {
    float st[S], u[1] = {0.1f * (float)(i % 5) - 0.2f};
    for (int k = 0; k < S; k++)
      st[k] = sinf(0.7f * (float)i + (float)k);
    assert_int_equal(rb_push(&rb, st, NULL, mask, i % A1, u, 0, 0, 0, true), 0);
  }
  nn_adam_config adam = {.lr = 0.01f, .beta1 = 0.9f, .beta2 = 0.999f,
                         .eps = 1e-8f, .max_grad_norm = 0.5f};
  nn_rng r1, r2;
  nn_rng_seed(&r1, 5);
  nn_rng_seed(&r2, 5);
  float first, last;
  assert_int_equal(bc_update(m, &rb, EPOCHS, MB, &adam, anchor, 1.0f, NULL, &r1,
                             &first, &last), 0);
  assert_true(isfinite(first) && isfinite(last));
  int order[N];
  for (int i = 0; i < N; i++)
    order[i] = i;
  float bs[MB * S], bu[MB * 1], blogp[MB] = {0}, zero[MB] = {0};
  uint8_t bm[MB * A1];
  int ba[MB];
  nn_acts acts = {0}, aacts = {0};
  assert_int_equal(nn_acts_ensure(&acts, ref, MB, 0), 0);
  assert_int_equal(nn_acts_ensure(&aacts, anchor, MB, 0), 0);
  for (int e = 0; e < EPOCHS; e++) {
    for (int i = N - 1; i > 0; i--) {
      int j = (int)(nn_rng_u64(&r2) % (uint64_t)(i + 1));
      int tmp = order[i];
      order[i] = order[j];
      order[j] = tmp;
    }
    for (int start = 0; start + MB <= N; start += MB) {
      for (int k = 0; k < MB; k++) {
        int i = order[start + k];
        memcpy(bs + k * S, rb.state + (size_t)i * S, S * sizeof(float));
        memcpy(bm + k * A1, rb.mask + (size_t)i * A1, A1);
        bu[k] = rb.u[(size_t)i * rb.P];
        ba[k] = rb.action[i];
      }
      nn_batch in = {.B = MB, .state = bs, .mask = bm};
      nn_ppo_batch t = {ba, bu, blogp, zero, zero, NULL, NULL, NULL};
      nn_forward(anchor, &aacts, &in);
      t.anchor_logp = aacts.logp;
      nn_zero_grad(ref);
      nn_bc_forward(ref, &acts, &in, &t, 1.0f);
      nn_bc_backward(ref, &acts, &in, &t, 1.0f);
      nn_adam_step(ref, &adam);
    }
  }
  double maxdiff = 0;
  for (size_t i = 0; i < m->n_params; i++)
    maxdiff = fmax(maxdiff, fabs(m->params_memory[i] - ref->params_memory[i]));
  printf("bc_update with the anchor vs per-minibatch forwarding: max |diff| %.3g\n",
         maxdiff);
  assert_true(maxdiff < 1e-5);
  // and the anchor moved the clone: without it the parameters differ
  nn_model *plain = bandit_model(1);
  nn_rng_seed(&r1, 5);
  assert_int_equal(bc_update(plain, &rb, EPOCHS, MB, &adam, NULL, 0.0f, NULL, &r1,
                             &first, &last), 0);
  double moved = 0;
  for (size_t i = 0; i < m->n_params; i++)
    moved = fmax(moved, fabs(m->params_memory[i] - plain->params_memory[i]));
  assert_true(moved > 1e-4);
  nn_acts_free(&acts);
  nn_acts_free(&aacts);
  rb_free(&rb);
  nn_model_destroy(m);
  nn_model_destroy(ref);
  nn_model_destroy(anchor);
  nn_model_destroy(plain);
}

// bc_update with keep (expit.bc_only): only the kept action's output rows
// move, its logit row and bias and its parameter slot; every other weight,
// the trunk included, ends bit for bit where it started, and the kept rows
// fit the demonstrations (the kept action's probability rises where the
// samples take it).
static void test_bc_update_keep(void **state) {
  (void)state;
  enum { N = 40, MB = 8, EPOCHS = 5, A1 = NA + 1, KEPT = 1 };
  nn_model *m = bandit_model(3), *start = bandit_model(3);
  rollout_buffer rb;
  assert_int_equal(rb_init(&rb, m, N), 0);
  uint8_t mask[A1] = {1, 1, 1, 1};
  for (int i = 0; i < N; i++) {
    float st[S], u[1] = {0.3f};
    for (int k = 0; k < S; k++)
      st[k] = cosf(0.3f * (float)i + (float)k);
    assert_int_equal(rb_push(&rb, st, NULL, mask, i % 2 ? KEPT : 0, u, 0, 0, 0,
                             true), 0);
  }
  nn_adam_config adam = {.lr = 0.01f, .beta1 = 0.9f, .beta2 = 0.999f,
                         .eps = 1e-8f, .max_grad_norm = 0.5f};
  bool keep[A1] = {false};
  keep[KEPT] = true;
  nn_rng rng;
  nn_rng_seed(&rng, 9);
  float first, last;
  assert_int_equal(bc_update(m, &rb, EPOCHS, MB, &adam, NULL, 0.0f, keep, &rng,
                             &first, &last), 0);
  int H = m->cfg.hidden_dim, slot = m->param_off[KEPT];
  const float *p0 = start->params_memory, *p1 = m->params_memory;
  size_t moved = 0, other = 0;
  for (size_t i = 0; i < m->n_params; i++) {
    const float *at = p1 + i;
    bool row = (at >= m->params.pi_w + KEPT * H && at < m->params.pi_w + (KEPT + 1) * H) ||
               at == m->params.pi_b + KEPT ||
               (at >= m->params.mu_w + slot * H && at < m->params.mu_w + (slot + 1) * H) ||
               at == m->params.mu_b + slot || at == m->params.log_std + slot;
    if (row)
      moved += p0[i] != p1[i];
    else
      other += p0[i] != p1[i];
  }
  printf("bc_update with keep: %zu weights of the kept rows moved, %zu others\n",
         moved, other);
  assert_int_equal(other, 0);
  assert_true(moved >= (size_t)H);
  // the kept action's log-probability on a sample that takes it went up
  nn_acts a0 = {0}, a1 = {0};
  assert_int_equal(nn_acts_ensure(&a0, start, 1, 0), 0);
  assert_int_equal(nn_acts_ensure(&a1, m, 1, 0), 0);
  nn_batch in = {.B = 1, .state = rb.state + S, .mask = mask};
  nn_forward(start, &a0, &in);
  nn_forward(m, &a1, &in);
  assert_true(a1.logp[KEPT] > a0.logp[KEPT] + 0.05f);
  nn_acts_free(&a0);
  nn_acts_free(&a1);
  rb_free(&rb);
  nn_model_destroy(m);
  nn_model_destroy(start);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gae_hand_computed),
      cmocka_unit_test(test_ppo_loss_pieces),
      cmocka_unit_test(test_epsilon_logp),
      cmocka_unit_test(test_bandit_learns),
      cmocka_unit_test(test_anchor_kl),
      cmocka_unit_test(test_bc_update_anchor),
      cmocka_unit_test(test_bc_update_keep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
