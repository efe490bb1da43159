// One forward pass of a loaded policy on the current IR: state vector (with
// the decision history), IR graph, safety mask, then the network. Shared by
// selection, warm-up and explanation. It does not choose or apply actions.
// Everything it writes lives in the caller's policy_scratch, so a const
// policy serves many threads at once. An ensemble runs each member and
// decides from their combined distribution.
#include "policy/policy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool all_finite(const float *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i]))
      return false;
  return true;
}

void policy_scratch_free(policy_scratch *sc) {
  for (int j = 0; j < NN_MAX_MEMBERS; j++)
    nn_acts_free(&sc->acts[j]);
  mqss_graph_destroy(sc->graph);
  memset(sc, 0, sizeof *sc);
}

void policy_combine(const mqss_policy *p, policy_scratch *sc) {
  int A1 = p->nets[0]->cfg.n_actions + 1, P = p->nets[0]->P, K = p->n_nets;
  if (K == 1) {
    memcpy(sc->logp, sc->acts[0].logp, sizeof(float) * (size_t)A1);
    memcpy(sc->mu, sc->acts[0].mu, sizeof(float) * (size_t)P);
    return;
  }
  double top = -INFINITY;
  for (int j = 0; j < A1; j++) {
    double sum = 0;
    for (int k = 0; k < K; k++)
      sum += sc->acts[k].logp[j];
    sc->logp[j] = sc->acts[0].logp[j] == -INFINITY ? -INFINITY
                                                   : (float)(sum / K);
    if (sc->logp[j] > top)
      top = sc->logp[j];
  }
  double z = 0;
  for (int j = 0; j < A1; j++)
    if (sc->logp[j] != -INFINITY)
      z += exp(sc->logp[j] - top);
  float lse = (float)(top + log(z));
  for (int j = 0; j < A1; j++)
    if (sc->logp[j] != -INFINITY)
      sc->logp[j] -= lse;
  for (int i = 0; i < P; i++) {
    double sum = 0;
    for (int k = 0; k < K; k++)
      sum += sc->acts[k].mu[i];
    sc->mu[i] = (float)(sum / K);
  }
}

mqss_status policy_forward(const mqss_policy *p, const mqss_module *m,
                           const int *history, int n_history,
                           const uint8_t *ban, bool same_ir,
                           policy_scratch *sc) {
  int max_steps = p->episode_steps;
  mqss_session *s = mqss_module_session(m);
  const nn_model *model0 = p->nets[0];
  bool gnn = model0->cfg.arch == NN_ARCH_GNN;
  same_ir = same_ir && sc->have_ir && (!gnn || sc->graph);
  if (same_ir) {
    features_write_history(p->catalog, history, n_history, max_steps,
                           sc->state);
  } else {
    sc->have_ir = false;
    mqss_status rc = mqss_features(m, p->catalog, history, n_history,
                                   max_steps, sc->state);
    if (rc != MQSS_OK)
      return rc;
    if (mqss_action_mask(m, p->catalog, NULL, sc->cat_mask) < 0)
      return fail(s, MQSS_ERR_INTERNAL, "policy: safety mask failed");
    if (gnn) {
      mqss_graph_destroy(sc->graph);
      sc->graph = NULL;
      rc = mqss_graph_build(m, &sc->graph);
      if (rc != MQSS_OK)
        return rc;
    }
  }
  for (int i = 0; i < p->n_cat; i++)
    sc->nn_mask[p->nn_of[i]] = sc->cat_mask[i] && !(ban && ban[i]);
  nn_batch in = {.B = 1, .state = sc->state, .mask = sc->nn_mask};
  int N = gnn ? sc->graph->n_nodes : 0;
  int graph_ptr[2] = {0, N};
  if (gnn) {
    in.graph = (nn_graph){.n_nodes = N,
                          .node_dim = sc->graph->dim,
                          .x = sc->graph->x,
                          .row_ptr = sc->graph->row_ptr,
                          .col = sc->graph->col};
    in.graph_ptr = graph_ptr;
  }
  for (int k = 0; k < p->n_nets; k++) {
    const nn_model *model = p->nets[k];
    nn_acts *acts = &sc->acts[k];
    if (!same_ir && nn_acts_ensure(acts, model, 1, N > 0 ? N : 1) != 0)
      return fail(s, MQSS_ERR_NOMEM, "out of memory");
    if (same_ir)
      nn_forward_trunk(model, acts, &in);
    else
      nn_forward(model, acts, &in);
    // Huge (finite) weights overflow to inf and then NaN: a choice made
    // from those would be arbitrary, so refuse it.
    if (!all_finite(acts->logits, model->cfg.n_actions + 1) ||
        !all_finite(acts->mu, model->P) || !all_finite(acts->value, 1)) {
      sc->have_ir = false;
      return fail(s, MQSS_ERR_POLICY, "policy: the network%s computes "
                  "non-finite values (NaN or infinity) on '%s'; its weights "
                  "are corrupt or too large: retrain it or use another "
                  "policy file", p->n_nets > 1 ? " of one member" : "",
                  m->name);
    }
  }
  sc->have_ir = true;
  policy_combine(p, sc);
  return MQSS_OK;
}
