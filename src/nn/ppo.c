// Acting with the policy (greedy or sampled hybrid actions) and the PPO
// loss: clipped surrogate + value loss - entropy bonus, forward and
// backward through the whole network.
//
// Not here: rollouts, advantages (GAE) and minibatching, which belong to the
// trainer (src/rl); the network itself (model.c).
#include "nn/nn.h"

#include <math.h>
#include <string.h>

// ----------------------------------------------------------------------------
// acting

int nn_act(const nn_model *m, const nn_acts *a, int b, nn_rng *rng, float *u) {
  return nn_act_from(m, a->logp + (size_t)b * (m->cfg.n_actions + 1),
                     a->mu + (size_t)b * m->P, rng, u);
}

int nn_act_from(const nn_model *m, const float *l, const float *mu,
                nn_rng *rng, float *u) {
  int A1 = m->cfg.n_actions + 1;
  int choice = -1;
  if (!rng) {
    for (int j = 0; j < A1; j++)
      if (l[j] != -INFINITY && (choice < 0 || l[j] > l[choice]))
        choice = j;
  } else {
    float r = nn_rng_uniform(rng), cum = 0.0f;
    for (int j = 0; j < A1; j++) {
      if (l[j] == -INFINITY)
        continue;
      choice = j; // the last allowed action absorbs rounding
      cum += expf(l[j]);
      if (r < cum)
        break;
    }
  }
  if (choice < 0)
    return -1;
  for (int k = m->param_off[choice]; k < m->param_off[choice + 1]; k++) {
    u[k] = mu[k];
    if (rng)
      u[k] += expf(m->params.log_std[k]) * nn_rng_normal(rng);
  }
  return choice;
}

// ----------------------------------------------------------------------------
// the anchor term KL(anchor || pi) (see nn.h)

// KL(anchor || pi) of one discrete choice: sum_j pa_j (la_j - l_j) over the
// actions both allow (log-probabilities la, l of A1 actions).
static double discrete_kl(const float *la, const float *l, int A1) {
  double kl = 0.0;
  for (int j = 0; j < A1; j++)
    if (la[j] != -INFINITY && l[j] != -INFINITY)
      kl += expf(la[j]) * (la[j] - l[j]);
  return kl;
}

// Accumulates scale * dKL/dl_j = -scale * pa_j into dl (discrete_kl's terms).
static void discrete_kl_backward(float *dl, const float *la, const float *l,
                                 int A1, float scale) {
  for (int j = 0; j < A1; j++)
    if (la[j] != -INFINITY && l[j] != -INFINITY)
      dl[j] -= scale * expf(la[j]);
}

static double anchor_kl_forward(const nn_model *m, const nn_acts *a,
                                const nn_ppo_batch *t, int B) {
  int A1 = m->cfg.n_actions + 1, P = m->P;
  double kl = 0.0;
  for (int b = 0; b < B; b++) {
    kl += discrete_kl(t->anchor_logp + (size_t)b * A1, a->logp + (size_t)b * A1, A1);
    int act = t->action[b];
    for (int k = m->param_off[act]; k < m->param_off[act + 1]; k++) {
      float ls = m->params.log_std[k], lsa = t->anchor_log_std[k];
      float d = t->anchor_mu[(size_t)b * P + k] - a->mu[(size_t)b * P + k];
      kl += ls - lsa + (expf(2 * lsa) + d * d) / (2 * expf(2 * ls)) - 0.5f;
    }
  }
  return kl;
}

// Accumulates kl_coef * inv * dKL into dlogp (log-softmax outputs), dmu and
// the log-std gradients. In the forward pass this was
//   KL = sum_j pa_j (la_j - l_j) + sum_k [ls_k - lsa_k + (sa^2 + d^2) / (2 s^2) - 1/2]
// with d = mua - mu, so dKL/dl_j = -pa_j, dKL/dmu_k = -d / s^2 and
// dKL/dls_k = 1 - (sa^2 + d^2) / s^2.
static void anchor_kl_backward(nn_model *m, nn_acts *a, const nn_ppo_batch *t,
                               int B, float scale) {
  int A1 = m->cfg.n_actions + 1, P = m->P;
  for (int b = 0; b < B; b++) {
    discrete_kl_backward(a->dlogp + (size_t)b * A1, t->anchor_logp + (size_t)b * A1,
                         a->logp + (size_t)b * A1, A1, scale);
    int act = t->action[b];
    for (int k = m->param_off[act]; k < m->param_off[act + 1]; k++) {
      float s2 = expf(2 * m->params.log_std[k]), sa2 = expf(2 * t->anchor_log_std[k]);
      float d = t->anchor_mu[(size_t)b * P + k] - a->mu[(size_t)b * P + k];
      a->dmu[(size_t)b * P + k] += scale * -d / s2;
      m->grads.log_std[k] += scale * (1.0f - (sa2 + d * d) / s2);
    }
  }
}

// ----------------------------------------------------------------------------
// PPO loss

float nn_ppo_forward(const nn_model *m, nn_acts *a, const nn_batch *in,
                     const nn_ppo_batch *t, const nn_ppo_config *c,
                     nn_ppo_stats *stats) {
  int B = in->B, A1 = m->cfg.n_actions + 1, P = m->P;
  nn_forward(m, a, in);
  hybrid_logprob_forward(a->ppo_logp, a->ppo_ent, a->logp, in->mask, a->mu,
                         m->params.log_std, t->action, t->u, m->param_off, B,
                         A1, P);
  double pol = 0.0, val = 0.0, ent = 0.0, kl = 0.0, clipped = 0.0;
  for (int b = 0; b < B; b++) {
    float logr = a->ppo_logp[b] - t->logp_old[b];
    float r = expf(logr);
    a->ppo_ratio[b] = r;
    float rc = fminf(fmaxf(r, 1.0f - c->clip_eps), 1.0f + c->clip_eps);
    pol += -fminf(r * t->adv[b], rc * t->adv[b]);
    float dv = a->value[b] - t->ret[b];
    val += 0.5f * dv * dv;
    ent += a->ppo_ent[b];
    kl += (r - 1.0f) - logr; // the k3 estimator of KL(old || new)
    clipped += fabsf(r - 1.0f) > c->clip_eps;
  }
  float inv = B > 0 ? 1.0f / (float)B : 0.0f;
  double akl = c->kl_coef > 0 && t->anchor_logp ? anchor_kl_forward(m, a, t, B) * inv : 0.0;
  float loss = (float)(pol * inv + c->vf_coef * val * inv - c->ent_coef * ent * inv +
                       c->kl_coef * akl);
  if (stats) {
    stats->anchor_kl = (float)akl;
    stats->loss = loss;
    stats->policy_loss = (float)(pol * inv);
    stats->value_loss = (float)(val * inv);
    stats->entropy = (float)(ent * inv);
    stats->approx_kl = (float)(kl * inv);
    stats->clip_frac = (float)(clipped * inv);
  }
  return loss;
}

void nn_ppo_backward(nn_model *m, nn_acts *a, const nn_batch *in,
                     const nn_ppo_batch *t, const nn_ppo_config *c) {
  int B = in->B;
  float inv = B > 0 ? 1.0f / (float)B : 0.0f;
  nn_acts_zero_head_grads(a, m);
  for (int b = 0; b < B; b++) {
    // surrogate -min(r A, clip(r) A): the unclipped term is active when it
    // is the smaller one, and then d/dlogp (-r A) = -r A; else 0
    float r = a->ppo_ratio[b], adv = t->adv[b];
    float rc = fminf(fmaxf(r, 1.0f - c->clip_eps), 1.0f + c->clip_eps);
    a->ppo_dlogp[b] = (r * adv <= rc * adv) ? -r * adv * inv : 0.0f;
    a->ppo_dent[b] = -c->ent_coef * inv;
    a->dvalue[b] = c->vf_coef * (a->value[b] - t->ret[b]) * inv;
  }
  hybrid_logprob_backward(a->dlogp, a->dmu, m->grads.log_std, a->ppo_dlogp,
                          a->ppo_dent, a->logp, in->mask, a->mu,
                          m->params.log_std, t->action, t->u, m->param_off,
                          in->B, m->cfg.n_actions + 1, m->P);
  if (c->kl_coef > 0 && t->anchor_logp)
    anchor_kl_backward(m, a, t, B, c->kl_coef * inv);
  nn_backward(m, a, in);
}

// ----------------------------------------------------------------------------
// behaviour cloning

// Whether the anchor's greedy choice (its most likely allowed action, la of
// A1 log-probabilities) is `act`.
static bool anchor_chooses(const float *la, int A1, int act) {
  for (int j = 0; j < A1; j++)
    if (la[j] != -INFINITY && la[j] > la[act])
      return false;
  return la[act] != -INFINITY;
}

float nn_bc_forward(const nn_model *m, nn_acts *a, const nn_batch *in,
                    const nn_ppo_batch *t, float kl_coef) {
  int B = in->B, A1 = m->cfg.n_actions + 1, P = m->P;
  nn_forward(m, a, in);
  double loss = 0.0;
  for (int b = 0; b < B; b++) {
    int act = t->action[b];
    const float *l = a->logp + (size_t)b * A1;
    loss -= l[act];
    for (int s = m->param_off[act]; s < m->param_off[act + 1]; s++) {
      float d = a->mu[(size_t)b * P + s] - t->u[(size_t)b * P + s];
      loss += 0.5 * d * d;
    }
    const float *la = t->anchor_logp ? t->anchor_logp + (size_t)b * A1 : NULL;
    if (kl_coef > 0 && la && anchor_chooses(la, A1, act))
      loss += kl_coef * discrete_kl(la, l, A1);
  }
  return B > 0 ? (float)(loss / B) : 0.0f;
}

void nn_bc_backward(nn_model *m, nn_acts *a, const nn_batch *in,
                    const nn_ppo_batch *t, float kl_coef) {
  int B = in->B, A1 = m->cfg.n_actions + 1, P = m->P;
  float inv = B > 0 ? 1.0f / (float)B : 0.0f;
  nn_acts_zero_head_grads(a, m);
  for (int b = 0; b < B; b++) {
    int act = t->action[b];
    float *dl = a->dlogp + (size_t)b * A1;
    dl[act] = -inv;
    for (int s = m->param_off[act]; s < m->param_off[act + 1]; s++)
      a->dmu[(size_t)b * P + s] =
          (a->mu[(size_t)b * P + s] - t->u[(size_t)b * P + s]) * inv;
    const float *la = t->anchor_logp ? t->anchor_logp + (size_t)b * A1 : NULL;
    if (kl_coef > 0 && la && anchor_chooses(la, A1, act))
      discrete_kl_backward(dl, la, a->logp + (size_t)b * A1, A1, kl_coef * inv);
  }
  nn_backward(m, a, in);
}
