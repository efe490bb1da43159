// The PPO learner: a rollout buffer of transitions, generalised advantage
// estimation, and the update (epochs x shuffled minibatches of the clipped
// PPO loss, Adam). It knows nothing of MLIR or processes: the trainer fills
// the buffer from its workers and calls ppo_update.
#ifndef MQSS_RL_PPO_UPDATE_H
#define MQSS_RL_PPO_UPDATE_H

#include "nn/nn.h"

typedef struct {
  int S, A1, P;       // state size, actions incl. STOP, parameter slots
  bool gnn;           // samples carry a graph
  int n, cap;         // transitions held / allocated
  float *state;       // (cap, S)
  uint8_t *mask;      // (cap, A1)
  int *action;        // (cap) A1-1 = STOP
  float *u;           // (cap, P) sampled parameters (chosen action's slots)
  float *logp;        // (cap) log-prob under the behaviour policy
  float *value;       // (cap) value estimate when acting
  float *reward;      // (cap)
  uint8_t *done;      // (cap) 1 on the last step of an episode
  float *adv;         // (cap) filled by rb_compute_advantages
  float *ret;         // (cap) value targets
  nn_graph *graph;    // (cap) owned copies (gnn only)
} rollout_buffer;

// Sizes the buffer for model m; returns 0 or -1 when out of memory.
int rb_init(rollout_buffer *rb, const nn_model *m, int cap);
// Appends one transition (steps of an episode must be pushed in order, the
// last with done = 1). g is ignored for MLP models. Returns 0 or -1 when the
// buffer is full or out of memory.
int rb_push(rollout_buffer *rb, const float *state, const nn_graph *g,
            const uint8_t *mask, int action, const float *u, float logp,
            float value, float reward, bool done);
// Drops the transitions from index n on.
void rb_truncate(rollout_buffer *rb, int n);
void rb_clear(rollout_buffer *rb);
void rb_free(rollout_buffer *rb);

// GAE over T steps, episodes delimited by done:
//   delta_t = r_t + gamma * V_{t+1} * (1 - done_t) - V_t
//   A_t     = delta_t + gamma * lambda * (1 - done_t) * A_{t+1}
//   R_t     = A_t + V_t
// adv and ret are (T). The step after the last is treated as terminal.
void gae(float *adv, float *ret, const float *reward, const float *value,
         const uint8_t *done, int T, float gamma, float lambda);

// Picks the action for sample b of the last forward pass `a` of m: sampled
// from the policy when rng is set (greedy otherwise), and with probability
// `epsilon` replaced by a uniformly random allowed action (its parameters are
// still drawn from the policy's Gaussian). Writes the parameters into u (P),
// the behaviour log-probability of the whole choice into *logp (so epsilon is
// accounted for), the value estimate into *value, and returns the action (A =
// STOP), or -1 when the mask allows nothing.
int ppo_act(const nn_model *m, const nn_acts *a, const uint8_t *mask, int b,
            nn_rng *rng, float epsilon, float *u, float *logp, float *value);

typedef struct {
  nn_ppo_config ppo;
  nn_adam_config adam;
  int epochs;     // passes over the buffer
  int batch;      // samples each epoch uses, drawn afresh (<= 0: all)
  int minibatch;  // samples per gradient step
  float gamma, lambda;
  const nn_model *anchor; // with ppo.kl_coef > 0: the policy KL(anchor || pi)
                          // keeps pi near (same shape as m); NULL = none
} ppo_update_config;

// Computes advantages (normalised to mean 0, std 1) and returns, then runs
// the update on m. `stats` receives the means over all minibatches. Returns
// 0, or -1 when out of memory.
int ppo_update(nn_model *m, rollout_buffer *rb, const ppo_update_config *c,
               nn_rng *rng, nn_ppo_stats *stats);

// Behaviour cloning on the buffer's (state, action, parameters) samples:
// `epochs` passes of shuffled minibatches of mb_size minimising nn_bc_forward's loss
// with Adam; with an anchor (same shape as m) and kl_coef > 0, its KL term
// to the anchor. With keep (A+1 flags, NULL = all), only the output rows of
// the flagged actions learn (nn_grad_keep_actions). *first and *last get
// the mean loss of the first and the last epoch. Returns 0, or -1 when out
// of memory.
int bc_update(nn_model *m, const rollout_buffer *rb, int epochs, int mb_size,
              const nn_adam_config *adam, const nn_model *anchor,
              float kl_coef, const bool *keep, nn_rng *rng, float *first,
              float *last);

#endif // MQSS_RL_PPO_UPDATE_H
