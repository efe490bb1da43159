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
  int A1 = m->cfg.n_actions + 1;
  const float *l = a->logp + (size_t)b * A1;
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
  const float *mu = a->mu + (size_t)b * m->P;
  for (int k = m->param_off[choice]; k < m->param_off[choice + 1]; k++) {
    u[k] = mu[k];
    if (rng)
      u[k] += expf(m->params.log_std[k]) * nn_rng_normal(rng);
  }
  return choice;
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
  float loss = (float)(pol * inv + c->vf_coef * val * inv - c->ent_coef * ent * inv);
  if (stats) {
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
  nn_backward(m, a, in);
}

// ----------------------------------------------------------------------------
// behaviour cloning

float nn_bc_forward(const nn_model *m, nn_acts *a, const nn_batch *in,
                    const nn_ppo_batch *t) {
  int B = in->B, A1 = m->cfg.n_actions + 1, P = m->P;
  nn_forward(m, a, in);
  double loss = 0.0;
  for (int b = 0; b < B; b++) {
    int act = t->action[b];
    loss -= a->logp[(size_t)b * A1 + act];
    for (int s = m->param_off[act]; s < m->param_off[act + 1]; s++) {
      float d = a->mu[(size_t)b * P + s] - t->u[(size_t)b * P + s];
      loss += 0.5 * d * d;
    }
  }
  return B > 0 ? (float)(loss / B) : 0.0f;
}

void nn_bc_backward(nn_model *m, nn_acts *a, const nn_batch *in,
                    const nn_ppo_batch *t) {
  int B = in->B, A1 = m->cfg.n_actions + 1, P = m->P;
  float inv = B > 0 ? 1.0f / (float)B : 0.0f;
  nn_acts_zero_head_grads(a, m);
  for (int b = 0; b < B; b++) {
    int act = t->action[b];
    a->dlogp[(size_t)b * A1 + act] = -inv;
    for (int s = m->param_off[act]; s < m->param_off[act + 1]; s++)
      a->dmu[(size_t)b * P + s] =
          (a->mu[(size_t)b * P + s] - t->u[(size_t)b * P + s]) * inv;
  }
  nn_backward(m, a, in);
}
