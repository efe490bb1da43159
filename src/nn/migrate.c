// Migration of a trained network onto a configuration that extends its own:
// a longer state vector, more node columns, an op-kind embedding in place
// of the numeric kind column, more actions. Every old weight is copied to
// where its input or output now lives; whatever is new is wired so that it
// contributes nothing (zero weights) or is never preferred (a low logit),
// so the migrated network decides as the old one did until it is trained.
// It knows nothing about feature names or catalogs (src/policy/migrate.c).
#include "nn/nn.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Writes the reason into err; returns false.
static bool refuse(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool refuse(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return false;
}

// dst (rows, dcols) = 0, then dst[r, map(c)] = src[r, c] for c < scols.
// map is col_map(c): the new column of old column c, or -1 to drop it.
typedef int (*col_map_fn)(int c, const void *ctx);

static void copy_cols(float *dst, int dcols, const float *src, int scols,
                      int rows, col_map_fn map, const void *ctx) {
  memset(dst, 0, sizeof(float) * (size_t)rows * dcols);
  for (int c = 0; c < scols; c++) {
    int to = map(c, ctx);
    if (to < 0 || to >= dcols)
      continue;
    for (int r = 0; r < rows; r++)
      dst[(size_t)r * dcols + to] = src[(size_t)r * scols + c];
  }
}

typedef struct {
  const nn_config *o, *n;
} cfg_pair;

// fc1's input: [state (S) | pooled (G)].
static int trunk_col(int c, const void *ctx) {
  const cfg_pair *p = ctx;
  return c < p->o->state_dim ? c : c - p->o->state_dim + p->n->state_dim;
}

// sage1's input: [x[1..F) | embed (E)] with an embedding, else x (F).
static int node_col(int c, const void *ctx) {
  const cfg_pair *p = ctx;
  int of = p->o->node_dim, nf = p->n->node_dim;
  if (p->o->embed_dim > 0) // old embedding columns move right
    return c < of - 1 ? c : c - (of - 1) + (nf - 1);
  if (p->n->embed_dim > 0) // the numeric kind column becomes embed dim 0
    return c == 0 ? nf - 1 : c - 1;
  return c;
}

// True when n extends old's configuration; else false with err set.
static bool check(const nn_model *old, const nn_config *n,
                       const nn_migration *mig, char *err, size_t errlen) {
  const nn_config *o = &old->cfg;
  if (o->arch != n->arch || o->hidden_dim != n->hidden_dim ||
      (o->arch == NN_ARCH_GNN && o->gnn_dim != n->gnn_dim))
    return refuse(err, errlen, "architecture %s H=%d G=%d differs from the "
                  "new %s H=%d G=%d; set policy.arch and policy.hidden to "
                  "the parent's", nn_arch_name(o->arch), o->hidden_dim,
                  o->gnn_dim, nn_arch_name(n->arch), n->hidden_dim,
                  n->gnn_dim);
  if (n->state_dim < o->state_dim || n->node_dim < o->node_dim ||
      n->n_actions < o->n_actions)
    return refuse(err, errlen, "the new network (S=%d F=%d A=%d) does not "
                  "extend the old one (S=%d F=%d A=%d)", n->state_dim,
                  n->node_dim, n->n_actions, o->state_dim, o->node_dim,
                  o->n_actions);
  if (o->embed_dim > 0 &&
      (n->embed_dim != o->embed_dim || n->embed_rows < o->embed_rows))
    return refuse(err, errlen, "op-kind embedding %dx%d cannot become %dx%d",
                  o->embed_rows, o->embed_dim, n->embed_rows, n->embed_dim);
  if (o->arch == NN_ARCH_GNN && o->embed_dim == 0 && n->embed_dim > 0 &&
      mig->kind_scale <= 0)
    return refuse(err, errlen, "the old node column 0 has no known scale; "
                  "cannot fold it into the embedding");
  for (int a = 0; a < o->n_actions; a++)
    if (n->param_count[a] != o->param_count[a])
      return refuse(err, errlen, "action %d has %d parameters in the old "
                    "network but %d in the new one", a, o->param_count[a],
                    n->param_count[a]);
  return true;
}

nn_model *nn_model_migrate(const nn_model *old, const nn_config *cfg,
                           const nn_migration *mig, uint64_t seed, char *err,
                           size_t errlen) {
  if (!check(old, cfg, mig, err, errlen))
    return NULL;
  nn_model *m = nn_model_create(cfg, seed);
  if (!m) {
    refuse(err, errlen, "cannot create the new network (invalid "
           "configuration or out of memory)");
    return NULL;
  }
  const nn_config *o = &old->cfg, *n = &m->cfg;
  const nn_params *op = &old->params;
  nn_params *np = &m->params;
  cfg_pair pair = {o, n};
  int H = n->hidden_dim, G = n->gnn_dim;
  if (n->arch == NN_ARCH_GNN) {
    int oin = nn_config_node_in(o), nin = nn_config_node_in(n);
    copy_cols(np->sage1_ws, nin, op->sage1_ws, oin, G, node_col, &pair);
    copy_cols(np->sage1_wn, nin, op->sage1_wn, oin, G, node_col, &pair);
    memcpy(np->sage1_b, op->sage1_b, sizeof(float) * G);
    memcpy(np->sage2_ws, op->sage2_ws, sizeof(float) * G * G);
    memcpy(np->sage2_wn, op->sage2_wn, sizeof(float) * G * G);
    memcpy(np->sage2_b, op->sage2_b, sizeof(float) * G);
    int R = n->embed_rows, E = n->embed_dim;
    if (o->embed_dim > 0) { // same width: old rows, the last one last
      for (int r = 0; r < o->embed_rows - 1; r++)
        memcpy(np->embed + (size_t)r * E, op->embed + (size_t)r * E,
               sizeof(float) * E);
      memcpy(np->embed + (size_t)(R - 1) * E,
             op->embed + (size_t)(o->embed_rows - 1) * E, sizeof(float) * E);
    } else if (E > 0) { // dimension 0 reproduces the old numeric column
      for (int r = 0; r < R - 1; r++)
        np->embed[(size_t)r * E] = (float)r / (float)mig->kind_scale;
      np->embed[(size_t)(R - 1) * E] = -1.0f; // blocks were -1
    }
  }
  int osin = o->state_dim + (o->arch == NN_ARCH_GNN ? o->gnn_dim : 0);
  int nsin = n->state_dim + (n->arch == NN_ARCH_GNN ? n->gnn_dim : 0);
  copy_cols(np->fc1_w, nsin, op->fc1_w, osin, H, trunk_col, &pair);
  for (int c = 0; mig->state_scale && c < o->state_dim; c++)
    for (int r = 0; r < H; r++)
      np->fc1_w[(size_t)r * nsin + c] *= mig->state_scale[c];
  memcpy(np->fc1_b, op->fc1_b, sizeof(float) * H);
  memcpy(np->fc2_w, op->fc2_w, sizeof(float) * H * H);
  memcpy(np->fc2_b, op->fc2_b, sizeof(float) * H);
  memcpy(np->v_w, op->v_w, sizeof(float) * H);
  memcpy(np->v_b, op->v_b, sizeof(float));
  // logits: old action rows in place, old STOP (row A_old) to row A_new
  int oa = o->n_actions, na = n->n_actions;
  memset(np->pi_w, 0, sizeof(float) * (size_t)(na + 1) * H);
  for (int a = 0; a <= na; a++)
    np->pi_b[a] = mig->low_logit;
  for (int a = 0; a <= oa; a++) {
    int to = a == oa ? na : a;
    memcpy(np->pi_w + (size_t)to * H, op->pi_w + (size_t)a * H,
           sizeof(float) * H);
    np->pi_b[to] = op->pi_b[a];
  }
  // parameter slots: the old actions' slots are the first P_old
  int P = old->P;
  memset(np->mu_w, 0, sizeof(float) * (size_t)m->P * H);
  memset(np->mu_b, 0, sizeof(float) * m->P);
  if (P > 0) {
    memcpy(np->mu_w, op->mu_w, sizeof(float) * (size_t)P * H);
    memcpy(np->mu_b, op->mu_b, sizeof(float) * P);
    memcpy(np->log_std, op->log_std, sizeof(float) * P);
  }
  return m;
}
