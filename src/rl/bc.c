// Behaviour cloning from the baselines, before PPO: each training module's
// baseline pipeline (baseline.json's "pipeline", the family's hand-tuned
// one) becomes a demonstration, a sequence of catalog decisions ending in
// STOP; the module is replayed through them, recording what the policy would
// see at each step (state, graph, safety mask); bc_update then fits the
// policy to those choices. PPO starts from a policy that already does what
// the hand-written pipelines do, instead of from uniform noise.
#include "rl/bc.h"
#include "actions/linalg_ops.h"
#include "rl/demo.h"

#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// replaying demonstrations into samples

// True when decision d of a demonstration was made already by a repeat
// (repeat.c) of an earlier one: it addresses an op that is no longer the
// focus. Search winners list repeats as decisions of their own; the policy
// makes them with the decision they repeat.
static bool repeated(const mqss_module *m, const mqss_catalog *c,
                     const mqss_decision *d) {
  return d->op && d->op != decision_focus(m, c, d);
}

// Pushes the samples of one demonstration on *m (consumed: each decision is
// applied with its repeats, as in the environment). Returns the decisions
// replayed, or -1, with nothing pushed, when the policy could not follow it
// (a step masked by the safety layer or failing).
static int replay(const bc_inputs *in, mqss_module **m, const demo *dm,
                  rollout_buffer *rb) {
  const mqss_catalog *c = in->catalog;
  const nn_model *model = in->model;
  int S = model->cfg.state_dim, n_cat = mqss_catalog_size(c);
  int before = rb->n, hist[DEMO_MAX], k = 0;
  float state[MQSS_FEATURE_DIM], u[NN_MAX_ACTIONS * 4 + 64] = {0};
  uint8_t cat_mask[NN_MAX_ACTIONS + 1], mask[NN_MAX_ACTIONS + 1];
  bool ok = S == MQSS_FEATURE_DIM && model->P <= (int)(sizeof u / sizeof u[0]);
  for (int j = 0; ok && j <= dm->n; j++) {
    if (j < dm->n && dm->d[j].peel) { // a repeat of selection's fitting:
      ok = mqss_decision_apply(*m, c, &dm->d[j]) == MQSS_OK; // applied, but
      continue; // no step of the policy's (the mask refuses its action)
    }
    if (j < dm->n && repeated(*m, c, &dm->d[j]))
      continue;
    int target = j < dm->n ? dm->d[j].action : mqss_catalog_stop(c);
    mqss_graph *g = NULL;
    ok = mqss_features(*m, c, hist, k, in->max_steps, state) == MQSS_OK &&
         mqss_action_mask(*m, c, NULL, cat_mask) >= 0 && cat_mask[target] &&
         (model->cfg.arch != NN_ARCH_GNN || mqss_graph_build(*m, &g) == MQSS_OK);
    if (ok) {
      for (int i = 0; i < n_cat; i++)
        mask[episode_nn_action(c, i)] = cat_mask[i];
      int a = episode_nn_action(c, target);
      memset(u, 0, sizeof u);
      for (int s = model->param_off[a]; s < model->param_off[a + 1]; s++)
        u[s] = dm->d[j].u[s - model->param_off[a]];
      nn_graph view = {0};
      if (g)
        view = (nn_graph){g->n_nodes, g->dim, g->x, g->row_ptr, g->col};
      ok = rb_push(rb, state, &view, mask, a, u, 0, 0, 0, j == dm->n) == 0;
    }
    mqss_graph_destroy(g);
    if (ok && j < dm->n) {
      mqss_decision d = dm->d[j]; // the per-op rule, as the search applied it
      if (!d.op)
        d.op = decision_focus(*m, c, &d);
      ok = mqss_decision_apply(*m, c, &d) == MQSS_OK;
      uint64_t hash = ok ? module_fingerprint(*m) : 0;
      ok = ok && decision_apply_repeats(m, &hash, c, &d, false, NULL) >= 0;
      hist[k++] = target;
    }
  }
  if (!ok)
    rb_truncate(rb, before);
  return ok ? k : -1;
}

// Replays demonstration dm on module i into rb and counts it.
static mqss_status replay_module(mqss_session *s, const bc_inputs *in, int i,
                                 const demo *dm, rollout_buffer *rb,
                                 bc_counts *out) {
  mqss_module *m = NULL;
  if (mqss_module_parse_file(s, in->paths[i], &m) != MQSS_OK)
    return MQSS_ERR_PARSE; // the session names the file and the place
  // tagged as in the environment and selection, so the states match theirs
  linalg_tag_once(mlirModuleGetOperation(m->mod));
  int steps = replay(in, &m, dm, rb);
  if (steps >= 0) {
    out->modules++;
    out->steps += steps;
  } else {
    out->refused++;
  }
  mqss_module_destroy(m);
  return MQSS_OK;
}

mqss_status bc_collect(mqss_session *s, const bc_inputs *in,
                       rollout_buffer *rb, bc_counts *out) {
  memset(out, 0, sizeof *out);
  demo dm;
  for (int i = 0; i < in->n_modules; i++) {
    if (!in->pipelines[i])
      continue; // no baseline known for this module
    if (demo_of(in->catalog, in->pipelines[i], &dm) != 0) {
      out->unmatched++;
      continue;
    }
    mqss_status st = replay_module(s, in, i, &dm, rb, out);
    if (st != MQSS_OK)
      return st;
    if (rb->n + DEMO_MAX + 1 > rb->cap)
      break; // the buffer is full: enough demonstrations
  }
  out->samples = rb->n;
  return MQSS_OK;
}

mqss_status bc_collect_decisions(mqss_session *s, const bc_inputs *in,
                                 const mqss_decision *const *seqs,
                                 const int *lens, rollout_buffer *rb,
                                 bc_counts *out) {
  memset(out, 0, sizeof *out);
  demo dm;
  for (int i = 0; i < in->n_modules && rb->n + DEMO_MAX + 1 <= rb->cap; i++) {
    if (lens[i] < 0)
      continue;
    if (lens[i] > DEMO_MAX) {
      out->unmatched++;
      continue;
    }
    dm.n = lens[i];
    if (dm.n > 0)
      memcpy(dm.d, seqs[i], (size_t)dm.n * sizeof dm.d[0]);
    mqss_status st = replay_module(s, in, i, &dm, rb, out);
    if (st != MQSS_OK)
      return st;
  }
  out->samples = rb->n;
  return MQSS_OK;
}
