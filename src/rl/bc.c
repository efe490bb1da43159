// Behaviour cloning from the baselines, before PPO: each training module's
// baseline pipeline (baseline.json's "pipeline", the family's hand-tuned
// one) becomes a demonstration, a sequence of catalog decisions ending in
// STOP; the module is replayed through them, recording what the policy would
// see at each step (state, graph, safety mask); bc_update then fits the
// policy to those choices. PPO starts from a policy that already does what
// the hand-written pipelines do, instead of from uniform noise.
#include "rl/bc.h"
#include "actions/linalg_ops.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_DEMO = 64, GRID = 401 }; // demo decisions; parameter values tried

// ----------------------------------------------------------------------------
// pipeline text -> decisions

// Splits `text` at the commas outside () and {}; calls back each piece.
static int split_top(const char *text, size_t len,
                     int (*piece)(void *ctx, const char *p, size_t n),
                     void *ctx) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    char ch = i < len ? text[i] : ',';
    depth += (ch == '(' || ch == '{') - (ch == ')' || ch == '}');
    if (ch == ',' && depth == 0) {
      if (i > start && piece(ctx, text + start, i - start) != 0)
        return -1;
      start = i + 1;
    }
  }
  return 0;
}

typedef struct {
  const mqss_catalog *c;
  mqss_decision d[MAX_DEMO];
  int n;
  const char *anchor; // of the pieces being split
} demo;

static bool has_wrapper(const char *p, size_t n, const char *w) {
  size_t k = strlen(w);
  return n > k && !strncmp(p, w, k) && p[n - 1] == ')';
}

// The decision whose anchored pipeline text is `want`: the action, and for a
// one-parameter action the middle of the grid values that print the same.
static bool match(const mqss_catalog *c, const char *want, mqss_decision *out) {
  for (int a = 0; a < mqss_catalog_size(c); a++) {
    const mqss_action *act = mqss_catalog_action(c, a);
    if (act->is_stop || act->n_params > 1)
      continue;
    int lo = -1, hi = -1, n = act->n_params ? GRID : 1;
    for (int k = 0; k < n; k++) {
      mqss_decision d = {.action = a};
      d.u[0] = act->n_params ? -1.0f + 2.0f * (float)k / (GRID - 1) : 0.0f;
      char *text = mqss_decision_pipeline(c, &d);
      bool same = text && !strcmp(text, want);
      free(text);
      if (same) {
        lo = lo < 0 ? k : lo;
        hi = k;
      }
    }
    if (lo >= 0) {
      *out = (mqss_decision){.action = a};
      out->u[0] = act->n_params ? -1.0f + 2.0f * (float)((lo + hi) / 2) / (GRID - 1)
                                : 0.0f;
      return true;
    }
  }
  return false;
}

static int add_step(void *ctx, const char *p, size_t n) {
  demo *dm = ctx;
  if (dm->n == MAX_DEMO)
    return -1;
  strbuf want = {0};
  sb_printf(&want, "%s(%.*s)", dm->anchor, (int)n, p);
  bool ok = want.data && match(dm->c, want.data, &dm->d[dm->n]);
  sb_free(&want);
  if (!ok)
    return -1;
  dm->n++;
  return 0;
}

static int add_piece(void *ctx, const char *p, size_t n) {
  demo *dm = ctx;
  const char *fn = "func.func(";
  if (has_wrapper(p, n, fn)) {
    dm->anchor = "func.func";
    return split_top(p + strlen(fn), n - strlen(fn) - 1, add_step, dm);
  }
  dm->anchor = "builtin.module";
  return add_step(dm, p, n);
}

// Decisions reproducing `pipeline`, or -1 when a pass has no catalog action
// (or a parameter the grid cannot hit).
static int demo_of(const mqss_catalog *c, const char *pipeline, demo *dm) {
  memset(dm, 0, sizeof *dm);
  dm->c = c;
  const char *wrap = "builtin.module(";
  size_t n = strlen(pipeline);
  if (has_wrapper(pipeline, n, wrap))
    return split_top(pipeline + strlen(wrap), n - strlen(wrap) - 1, add_piece,
                     dm);
  return split_top(pipeline, n, add_piece, dm);
}

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
  int before = rb->n, hist[MAX_DEMO], k = 0;
  float state[MQSS_FEATURE_DIM], u[NN_MAX_ACTIONS * 4 + 64] = {0};
  uint8_t cat_mask[NN_MAX_ACTIONS + 1], mask[NN_MAX_ACTIONS + 1];
  bool ok = S == MQSS_FEATURE_DIM && model->P <= (int)(sizeof u / sizeof u[0]);
  for (int j = 0; ok && j <= dm->n; j++) {
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
      ok = ok && decision_apply_repeats(m, &hash, c, &d, NULL) >= 0;
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
    if (rb->n + MAX_DEMO + 1 > rb->cap)
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
  for (int i = 0; i < in->n_modules && rb->n + MAX_DEMO + 1 <= rb->cap; i++) {
    if (lens[i] < 0)
      continue;
    if (lens[i] > MAX_DEMO) {
      out->unmatched++;
      continue;
    }
    memset(&dm, 0, sizeof dm);
    dm.c = in->catalog;
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
