// PPO learner (see ppo_update.h): rollout buffer, GAE and the update loop.
#include "rl/ppo_update.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// rollout buffer

int rb_init(rollout_buffer *rb, const nn_model *m, int cap) {
  *rb = (rollout_buffer){.S = m->cfg.state_dim, .A1 = m->cfg.n_actions + 1,
                         .P = m->P, .gnn = m->cfg.arch == NN_ARCH_GNN,
                         .cap = cap};
  size_t c = (size_t)cap;
  rb->state = malloc(c * (size_t)rb->S * sizeof(float));
  rb->mask = malloc(c * (size_t)rb->A1);
  rb->action = malloc(c * sizeof(int));
  rb->u = calloc(c * (size_t)(rb->P ? rb->P : 1), sizeof(float));
  rb->logp = malloc(c * sizeof(float));
  rb->value = malloc(c * sizeof(float));
  rb->reward = malloc(c * sizeof(float));
  rb->done = malloc(c);
  rb->adv = malloc(c * sizeof(float));
  rb->ret = malloc(c * sizeof(float));
  rb->graph = calloc(c, sizeof(nn_graph));
  if (!rb->state || !rb->mask || !rb->action || !rb->u || !rb->logp ||
      !rb->value || !rb->reward || !rb->done || !rb->adv || !rb->ret ||
      !rb->graph) {
    rb_free(rb);
    return -1;
  }
  return 0;
}

static void free_graph(nn_graph *g) {
  free((void *)g->x);
  free((void *)g->row_ptr);
  free((void *)g->col);
  *g = (nn_graph){0};
}

static int copy_graph(nn_graph *dst, const nn_graph *g) {
  size_t nx = (size_t)g->n_nodes * (size_t)g->node_dim;
  size_t nnz = (size_t)g->row_ptr[g->n_nodes];
  float *x = malloc((nx ? nx : 1) * sizeof(float));
  int *rp = malloc(((size_t)g->n_nodes + 1) * sizeof(int));
  int *col = malloc((nnz ? nnz : 1) * sizeof(int));
  if (!x || !rp || !col) {
    free(x);
    free(rp);
    free(col);
    return -1;
  }
  memcpy(x, g->x, nx * sizeof(float));
  memcpy(rp, g->row_ptr, ((size_t)g->n_nodes + 1) * sizeof(int));
  memcpy(col, g->col, nnz * sizeof(int));
  *dst = (nn_graph){g->n_nodes, g->node_dim, x, rp, col};
  return 0;
}

int rb_push(rollout_buffer *rb, const float *state, const nn_graph *g,
            const uint8_t *mask, int action, const float *u, float logp,
            float value, float reward, bool done) {
  if (rb->n >= rb->cap)
    return -1;
  size_t i = (size_t)rb->n;
  if (rb->gnn && copy_graph(&rb->graph[i], g) != 0)
    return -1;
  memcpy(rb->state + i * (size_t)rb->S, state, (size_t)rb->S * sizeof(float));
  memcpy(rb->mask + i * (size_t)rb->A1, mask, (size_t)rb->A1);
  if (rb->P)
    memcpy(rb->u + i * (size_t)rb->P, u, (size_t)rb->P * sizeof(float));
  rb->action[i] = action;
  rb->logp[i] = logp;
  rb->value[i] = value;
  rb->reward[i] = reward;
  rb->done[i] = done;
  rb->n++;
  return 0;
}

void rb_truncate(rollout_buffer *rb, int n) {
  for (int i = n; i < rb->n; i++)
    free_graph(&rb->graph[i]);
  if (n < rb->n)
    rb->n = n;
}

void rb_clear(rollout_buffer *rb) { rb_truncate(rb, 0); }

void rb_free(rollout_buffer *rb) {
  if (rb->graph)
    rb_clear(rb);
  free(rb->state);
  free(rb->mask);
  free(rb->action);
  free(rb->u);
  free(rb->logp);
  free(rb->value);
  free(rb->reward);
  free(rb->done);
  free(rb->adv);
  free(rb->ret);
  free(rb->graph);
  *rb = (rollout_buffer){0};
}

// ----------------------------------------------------------------------------
// advantages

void gae(float *adv, float *ret, const float *reward, const float *value,
         const uint8_t *done, int T, float gamma, float lambda) {
  float next_adv = 0.0f, next_value = 0.0f;
  for (int t = T - 1; t >= 0; t--) {
    float live = (done[t] || t == T - 1) ? 0.0f : 1.0f;
    float delta = reward[t] + gamma * next_value * live - value[t];
    adv[t] = delta + gamma * lambda * live * next_adv;
    ret[t] = adv[t] + value[t];
    next_adv = adv[t];
    next_value = value[t];
  }
}

static void normalise(float *x, int n) {
  double mean = 0.0, var = 0.0;
  for (int i = 0; i < n; i++)
    mean += x[i];
  mean /= n > 0 ? n : 1;
  for (int i = 0; i < n; i++)
    var += (x[i] - mean) * (x[i] - mean);
  float inv = 1.0f / (float)(sqrt(var / (n > 0 ? n : 1)) + 1e-8);
  for (int i = 0; i < n; i++)
    x[i] = (float)(x[i] - mean) * inv;
}

// ----------------------------------------------------------------------------
// acting

int ppo_act(const nn_model *m, const nn_acts *a, const uint8_t *mask, int b,
            nn_rng *rng, float epsilon, float *u, float *logp, float *value) {
  int A1 = m->cfg.n_actions + 1;
  const uint8_t *row = mask + (size_t)b * A1;
  int allowed = 0;
  for (int j = 0; j < A1; j++)
    allowed += row[j] != 0;
  if (allowed == 0)
    return -1;
  int action = nn_act(m, a, b, rng, u);
  if (rng && epsilon > 0 && nn_rng_uniform(rng) < epsilon) {
    int k = (int)(nn_rng_u64(rng) % (uint64_t)allowed);
    for (action = 0; !row[action] || k-- > 0; action++)
      ;
    const float *mu = a->mu + (size_t)b * m->P;
    for (int s = m->param_off[action]; s < m->param_off[action + 1]; s++)
      u[s] = mu[s] + expf(m->params.log_std[s]) * nn_rng_normal(rng);
  }
  // log pi(a, u) = log pi(a) + log N(u); the behaviour policy mixed in
  // epsilon/allowed for the discrete part.
  const float *logp_disc = a->logp + (size_t)b * A1;
  float full;
  hybrid_logprob_forward(&full, NULL, logp_disc, row, a->mu + (size_t)b * m->P,
                         m->params.log_std, &action, u, m->param_off, 1, A1,
                         m->P);
  float disc = logp_disc[action];
  float mixed = logf((rng ? epsilon : 0.0f) / (float)allowed +
                     (1.0f - (rng ? epsilon : 0.0f)) * expf(disc));
  *logp = full - disc + mixed;
  *value = a->value[b];
  return action;
}

// ----------------------------------------------------------------------------
// the update

// Contiguous copies of the samples of one minibatch.
typedef struct {
  float *state, *u, *logp, *adv, *ret;
  uint8_t *mask;
  int *action;
  nn_graph *graphs;
  nn_graph_batch gb;
} minibatch;

// Gathers the samples idx[0..B) of rb into mb, as the batch `in` and the
// targets `t`, and sizes acts for them. Returns 0, or -1 when out of memory.
static int gather(minibatch *mb, const rollout_buffer *rb, const int *idx,
                  int B, const nn_model *m, nn_acts *acts, nn_batch *in,
                  nn_ppo_batch *t) {
  for (int k = 0; k < B; k++) {
    size_t i = (size_t)idx[k];
    memcpy(mb->state + (size_t)k * rb->S, rb->state + i * rb->S, (size_t)rb->S * sizeof(float));
    memcpy(mb->mask + (size_t)k * rb->A1, rb->mask + i * rb->A1, (size_t)rb->A1);
    if (rb->P)
      memcpy(mb->u + (size_t)k * rb->P, rb->u + i * rb->P, (size_t)rb->P * sizeof(float));
    mb->action[k] = rb->action[i];
    mb->logp[k] = rb->logp[i];
    mb->adv[k] = rb->adv[i];
    mb->ret[k] = rb->ret[i];
    if (rb->gnn)
      mb->graphs[k] = rb->graph[i];
  }
  *in = (nn_batch){.B = B, .state = mb->state, .mask = mb->mask};
  if (rb->gnn) {
    nn_graph_batch_free(&mb->gb);
    if (nn_graph_batch_build(&mb->gb, mb->graphs, B) != 0)
      return -1;
    in->graph = mb->gb.g;
    in->graph_ptr = mb->gb.graph_ptr;
  }
  *t = (nn_ppo_batch){mb->action, mb->u, mb->logp, mb->adv, mb->ret, NULL, NULL, NULL};
  return nn_acts_ensure(acts, m, B, rb->gnn ? in->graph.n_nodes : 0);
}

static bool mb_alloc(minibatch *mb, const rollout_buffer *rb, int M) {
  size_t Mz = (size_t)M;
  *mb = (minibatch){
      .state = malloc(Mz * (size_t)rb->S * sizeof(float)),
      .u = calloc(Mz * (size_t)(rb->P ? rb->P : 1), sizeof(float)),
      .logp = malloc(Mz * sizeof(float)), .adv = malloc(Mz * sizeof(float)),
      .ret = malloc(Mz * sizeof(float)), .mask = malloc(Mz * (size_t)rb->A1),
      .action = malloc(Mz * sizeof(int)), .graphs = calloc(Mz, sizeof(nn_graph))};
  return mb->state && mb->u && mb->logp && mb->adv && mb->ret && mb->mask &&
         mb->action && mb->graphs;
}

static void mb_free(minibatch *mb) {
  nn_graph_batch_free(&mb->gb);
  free(mb->state);
  free(mb->u);
  free(mb->logp);
  free(mb->adv);
  free(mb->ret);
  free(mb->mask);
  free(mb->action);
  free(mb->graphs);
}

static void shuffle(int *order, int n, nn_rng *rng) {
  for (int i = n - 1; i > 0; i--) { // Fisher-Yates with the explicit rng
    int j = (int)(nn_rng_u64(rng) % (uint64_t)(i + 1));
    int tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
}

int ppo_update(nn_model *m, rollout_buffer *rb, const ppo_update_config *c,
               nn_rng *rng, nn_ppo_stats *stats) {
  int n = rb->n;
  int used = c->batch > 0 && c->batch < n ? c->batch : n;
  int M = c->minibatch < used ? c->minibatch : used;
  *stats = (nn_ppo_stats){0};
  if (n <= 0)
    return 0;
  gae(rb->adv, rb->ret, rb->reward, rb->value, rb->done, n, c->gamma, c->lambda);
  normalise(rb->adv, n);

  minibatch mb;
  bool ok = mb_alloc(&mb, rb, M);
  int *order = malloc((size_t)n * sizeof(int));
  nn_acts acts = {0}, anchor_acts = {0};
  bool anchored = c->anchor && c->ppo.kl_coef > 0;
  int rc = -1, steps = 0;
  if (!ok || !order)
    goto out;
  for (int i = 0; i < n; i++)
    order[i] = i;
  for (int epoch = 0; epoch < c->epochs; epoch++) {
    shuffle(order, n, rng);
    for (int start = 0; start + M <= used; start += M) {
      nn_batch in;
      nn_ppo_batch t;
      if (gather(&mb, rb, order + start, M, m, &acts, &in, &t) != 0)
        goto out;
      if (anchored) {
        if (nn_acts_ensure(&anchor_acts, c->anchor, M,
                           rb->gnn ? in.graph.n_nodes : 0) != 0)
          goto out;
        nn_forward(c->anchor, &anchor_acts, &in);
        t.anchor_logp = anchor_acts.logp;
        t.anchor_mu = anchor_acts.mu;
        t.anchor_log_std = c->anchor->params.log_std;
      }
      nn_ppo_stats s;
      nn_zero_grad(m);
      nn_ppo_forward(m, &acts, &in, &t, &c->ppo, &s);
      nn_ppo_backward(m, &acts, &in, &t, &c->ppo);
      nn_adam_step(m, &c->adam);
      stats->loss += s.loss;
      stats->policy_loss += s.policy_loss;
      stats->value_loss += s.value_loss;
      stats->entropy += s.entropy;
      stats->approx_kl += s.approx_kl;
      stats->clip_frac += s.clip_frac;
      stats->anchor_kl += s.anchor_kl;
      steps++;
    }
  }
  if (steps) {
    float inv = 1.0f / (float)steps;
    stats->loss *= inv;
    stats->policy_loss *= inv;
    stats->value_loss *= inv;
    stats->entropy *= inv;
    stats->approx_kl *= inv;
    stats->clip_frac *= inv;
    stats->anchor_kl *= inv;
  }
  rc = 0;
out:
  mb_free(&mb);
  nn_acts_free(&acts);
  nn_acts_free(&anchor_acts);
  free(order);
  return rc;
}

// The anchor's log-probabilities (n, A1) of every sample of rb, in rb's
// order, forwarded in batches of M (order must be 0..n-1). The anchor does
// not change while cloning, so bc_update computes them once. Returns 0, or
// -1 when out of memory.
static int anchor_logp_all(minibatch *mb, const rollout_buffer *rb, int M,
                           const int *order, const nn_model *anchor,
                           float *out) {
  nn_acts acts = {0};
  int rc = 0;
  for (int start = 0; start < rb->n && rc == 0; start += M) {
    int B = rb->n - start < M ? rb->n - start : M;
    nn_batch in;
    nn_ppo_batch t;
    if ((rc = gather(mb, rb, order + start, B, anchor, &acts, &in, &t)) == 0) {
      nn_forward(anchor, &acts, &in);
      memcpy(out + (size_t)start * rb->A1, acts.logp,
             (size_t)B * rb->A1 * sizeof(float));
    }
  }
  nn_acts_free(&acts);
  return rc;
}

int bc_update(nn_model *m, const rollout_buffer *rb, int epochs, int mb_size,
              const nn_adam_config *adam, const nn_model *anchor,
              float kl_coef, const bool *keep, nn_rng *rng, float *first,
              float *last) {
  int n = rb->n;
  int M = mb_size < n ? mb_size : n;
  *first = *last = NAN;
  if (n <= 0)
    return 0;
  minibatch mb;
  bool ok = mb_alloc(&mb, rb, M);
  int *order = malloc((size_t)n * sizeof(int));
  nn_acts acts = {0};
  float kl = anchor ? kl_coef : 0.0f;
  float *anchor_all = NULL, *anchor_mb = NULL; // (n, A1), (M, A1)
  int rc = -1;
  if (!ok || !order)
    goto out;
  for (int i = 0; i < n; i++)
    order[i] = i;
  if (kl > 0 &&
      (!(anchor_all = malloc((size_t)n * rb->A1 * sizeof(float))) ||
       !(anchor_mb = malloc((size_t)M * rb->A1 * sizeof(float))) ||
       anchor_logp_all(&mb, rb, M, order, anchor, anchor_all) != 0))
    goto out;
  for (int epoch = 0; epoch < epochs; epoch++) {
    shuffle(order, n, rng);
    double sum = 0;
    int steps = 0;
    for (int start = 0; start + M <= n; start += M) {
      nn_batch in;
      nn_ppo_batch t;
      if (gather(&mb, rb, order + start, M, m, &acts, &in, &t) != 0)
        goto out;
      if (kl > 0) {
        for (int k = 0; k < M; k++)
          memcpy(anchor_mb + (size_t)k * rb->A1,
                 anchor_all + (size_t)order[start + k] * rb->A1,
                 (size_t)rb->A1 * sizeof(float));
        t.anchor_logp = anchor_mb;
      }
      nn_zero_grad(m);
      sum += nn_bc_forward(m, &acts, &in, &t, kl);
      nn_bc_backward(m, &acts, &in, &t, kl);
      if (keep)
        nn_grad_keep_actions(m, keep);
      nn_adam_step(m, adam);
      steps++;
    }
    *last = steps ? (float)(sum / steps) : NAN;
    if (epoch == 0)
      *first = *last;
  }
  rc = 0;
out:
  mb_free(&mb);
  nn_acts_free(&acts);
  free(anchor_all);
  free(anchor_mb);
  free(order);
  return rc;
}
