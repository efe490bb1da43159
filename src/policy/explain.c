// mqss_policy_explain: which state features push the policy towards one
// action on a module, by gradient x input of that action's log-probability
// (an ensemble's combined one) with respect to the state vector. The gradient is backpropagated here
// through the heads and the MLP trunk into caller-local buffers, without
// touching the model's gradient buffers, so a const policy stays shareable.
// Parameters sit at their means, where the Gaussian term's gradient is 0,
// so the discrete log-probability carries the whole gradient. The state is
// the one selection's first decision sees (the module tagged: select.c).
#include "actions/linalg_ops.h"
#include "policy/policy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Resolves `action` (a name, "stop", or a decimal index) to a catalog index,
// or -1.
static int find_action(const mqss_catalog *c, const char *action) {
  int i = mqss_catalog_find(c, action);
  if (i >= 0)
    return i;
  if (!strcmp(action, "stop") || !strcmp(action, "STOP"))
    return mqss_catalog_stop(c);
  char *end;
  errno = 0;
  long v = strtol(action, &end, 10);
  if (*action && !*end && !errno && v >= 0 && v < mqss_catalog_size(c))
    return (int)v;
  return -1;
}

// Adds to dstate (S) the gradient with respect to the state of
// sum_j g[j] * logp[j] of one network (its activations of one forward pass,
// g (A1) over its log-probabilities).
// scratch holds (A1 + 4H + S_IN + max(A1*H, H*H, H*S_IN)) floats.
static void state_gradient(const nn_model *m, const nn_acts *acts,
                           const uint8_t *mask, const float *g, float *dstate,
                           float *scratch) {
  const nn_config *c = &m->cfg;
  const nn_params *p = &m->params;
  int H = c->hidden_dim, A1 = c->n_actions + 1, S = c->state_dim;
  int S_IN = c->arch == NN_ARCH_GNN ? S + c->gnn_dim : S;
  float *dlogp = scratch;                // (A1)
  float *dlogits = dlogp + A1;           // (A1)
  float *da2 = dlogits + A1;             // (H)
  float *dpre2 = da2 + H;                // (H)
  float *da1 = dpre2 + H;                // (H)
  float *dpre1 = da1 + H;                // (H)
  float *dz0 = dpre1 + H;                // (S_IN)
  float *dw = dz0 + S_IN;                // weight gradients, discarded
  size_t zero = (size_t)2 * A1 + 4 * H + S_IN;
  memset(scratch, 0, sizeof(float) * zero);
  memcpy(dlogp, g, sizeof(float) * A1);
  // logp = masked_log_softmax(logits): dlogits = dlogp - p * sum(dlogp)
  masked_log_softmax_backward(dlogits, dlogp, acts->logp, mask, 1, A1);
  // logits = a2 @ pi_w^T + pi_b
  linear_backward(da2, dw, NULL, dlogits, acts->a2, p->pi_w, 1, H, A1);
  // a2 = tanh(pre2), pre2 = a1 @ fc2_w^T + b
  tanh_backward(dpre2, da2, acts->a2, H);
  linear_backward(da1, dw, NULL, dpre2, acts->a1, p->fc2_w, 1, H, H);
  // a1 = tanh(pre1), pre1 = z0 @ fc1_w^T + b, z0 = [state | pooled]
  tanh_backward(dpre1, da1, acts->a1, H);
  linear_backward(dz0, dw, NULL, dpre1, acts->z0, p->fc1_w, 1, S_IN, H);
  for (int i = 0; i < S; i++)
    dstate[i] += dz0[i];
}

// dstate (S) = d logp[a] / d state of the policy's decision distribution
// (step.c): with K networks logp = mean_k l_k - logsumexp(mean_k l_k), so
// d logp[a] / d l_k[j] = (delta_aj - P_j) / K, P = exp(logp); with one it is
// the network's own gradient.
static void policy_gradient(const mqss_policy *p, const policy_scratch *sc,
                            int a, float *dstate, float *scratch) {
  const nn_model *m0 = p->nets[0];
  int A1 = m0->cfg.n_actions + 1, K = p->n_nets;
  float g[NN_MAX_ACTIONS + 1];
  for (int j = 0; j < A1; j++)
    g[j] = sc->nn_mask[j]
               ? ((j == a ? 1.0f : 0.0f) - expf(sc->logp[j])) / (float)K
               : 0.0f;
  memset(dstate, 0, sizeof(float) * m0->cfg.state_dim);
  for (int k = 0; k < K; k++)
    state_gradient(p->nets[k], &sc->acts[k], sc->nn_mask, g, dstate,
                   scratch);
}

static int by_weight(const void *x, const void *y) {
  const mqss_feature_contribution *a = x, *b = y;
  float fa = fabsf(a->weight), fb = fabsf(b->weight);
  if (fa != fb)
    return fa < fb ? 1 : -1;
  return a->index - b->index;
}

// What both explanations start from: `action`'s index in p's catalog in
// *ci, and in *module the module selection's first decision sees (itself
// when tagged already, else a tagged copy, also in *tagged for the caller to
// destroy; NULL otherwise). Errors go to the module's session.
static mqss_status explain_start(const mqss_policy *p, const char *action,
                                 const mqss_module **module, int *ci,
                                 mqss_module **tagged) {
  mqss_session *s = mqss_module_session(*module);
  *tagged = NULL;
  if ((*ci = find_action(p->catalog, action)) < 0)
    return fail(s, MQSS_ERR_INVALID_ARG, "no action '%s' in the "
                "policy's catalog (the %d actions it was trained with; a "
                "catalog may append more, which this policy cannot choose); "
                "run 'mqss catalog' for the names", action,
                mqss_catalog_size(p->catalog));
  if (!linalg_needs_tags(mlirModuleGetOperation((*module)->mod)))
    return MQSS_OK;
  if (!(*tagged = mqss_module_clone(*module)))
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  linalg_tag_once(mlirModuleGetOperation((*tagged)->mod));
  *module = *tagged;
  return MQSS_OK;
}

mqss_status mqss_policy_explain_op(const mqss_policy *p,
                                   const mqss_module *module,
                                   const char *action, int64_t *op,
                                   char *kind, size_t kind_len) {
  if (!module)
    return MQSS_ERR_INVALID_ARG;
  mqss_session *s = mqss_module_session(module);
  if (!p || !action || !op || !kind || !kind_len)
    return fail(s, MQSS_ERR_INVALID_ARG, "bad argument");
  *op = 0;
  kind[0] = '\0';
  int ci;
  mqss_module *tagged;
  mqss_status st = explain_start(p, action, &module, &ci, &tagged);
  if (st != MQSS_OK)
    return st;
  MlirOperation scope = mlirModuleGetOperation(module->mod);
  linalg_focus f, hit;
  linalg_focus_find(scope, &f);
  *op = focus_target(scope, mqss_catalog_action(p->catalog, ci), NULL, &f,
                     &hit);
  if (*op)
    snprintf(kind, kind_len, "%s", hit.kind);
  mqss_module_destroy(tagged);
  return MQSS_OK;
}

mqss_status mqss_policy_explain(const mqss_policy *p, const mqss_module *module,
                                const char *action, int top_k,
                                mqss_feature_contribution *out, int *n_out,
                                float *prob) {
  if (!module)
    return MQSS_ERR_INVALID_ARG;
  mqss_session *s = mqss_module_session(module);
  if (!p || !action || !n_out || top_k < 0 || (top_k > 0 && !out))
    return fail(s, MQSS_ERR_INVALID_ARG, "bad argument");
  *n_out = 0;
  int ci;
  mqss_module *tagged;
  mqss_status rc = explain_start(p, action, &module, &ci, &tagged);
  if (rc != MQSS_OK)
    return rc;
  policy_scratch sc = {0};
  rc = policy_forward(p, module, NULL, 0, NULL, false, &sc);
  if (rc != MQSS_OK) {
    policy_scratch_free(&sc);
    mqss_module_destroy(tagged);
    return rc;
  }
  const nn_model *m = p->nets[0];
  int a = p->nn_of[ci];
  if (!sc.nn_mask[a]) {
    char why[512]; // a needs list of nine op names runs past 256
    mqss_action_check(module, p->catalog, ci, NULL, why, sizeof why);
    policy_scratch_free(&sc);
    mqss_module_destroy(tagged);
    return fail(s, MQSS_ERR_INVALID_ARG, "action '%s' is masked on "
                "this module (%s), so its probability is 0",
                mqss_catalog_action(p->catalog, ci)->name, why);
  }
  int H = m->cfg.hidden_dim, A1 = m->cfg.n_actions + 1, S = MQSS_FEATURE_DIM;
  int S_IN = m->cfg.arch == NN_ARCH_GNN ? S + m->cfg.gnn_dim : S;
  size_t big = (size_t)A1 * H;
  if ((size_t)H * S_IN > big)
    big = (size_t)H * S_IN;
  float *scratch = malloc(sizeof(float) * (2 * A1 + 4 * H + S_IN + big));
  float dstate[MQSS_FEATURE_DIM];
  mqss_feature_contribution all[MQSS_FEATURE_DIM];
  if (!scratch) {
    policy_scratch_free(&sc);
    mqss_module_destroy(tagged);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  policy_gradient(p, &sc, a, dstate, scratch);
  for (int i = 0; i < S; i++)
    all[i] = (mqss_feature_contribution){i, mqss_feature_name(i), sc.state[i],
                                         sc.state[i] * dstate[i]};
  qsort(all, S, sizeof all[0], by_weight);
  int n = top_k < S ? top_k : S;
  memcpy(out, all, sizeof all[0] * n);
  *n_out = n;
  if (prob)
    *prob = expf(sc.logp[a]);
  free(scratch);
  policy_scratch_free(&sc);
  mqss_module_destroy(tagged);
  return MQSS_OK;
}
