// Training episodes in rollout workers, and their records (see episode.h).
// Record layouts (native endianness: trainer and workers are one build):
//   ACT:     i32 kind, action, n_nodes, nnz; f32 logp, value, u[P], state[S];
//            u8 mask[A+1] padded to 4 bytes; f32 x[n_nodes*F];
//            i32 row_ptr[n_nodes+1], col[nnz]
//   OUTCOME: i32 kind, done, step_status, measure_status, cached; f32 reward, ema
//   ERROR:   i32 kind; the message, NUL-terminated
#include "rl/episode.h"

#include "rl/ppo_update.h"

#include <math.h>
#include <signal.h>
#include <string.h>

// ----------------------------------------------------------------------------
// action order

int episode_nn_action(const mqss_catalog *catalog, int catalog_index) {
  int stop = mqss_catalog_stop(catalog), n = mqss_catalog_size(catalog);
  if (catalog_index == stop)
    return n - 1;
  return catalog_index < stop ? catalog_index : catalog_index - 1;
}

int episode_catalog_action(const mqss_catalog *catalog, int nn_index) {
  int stop = mqss_catalog_stop(catalog), n = mqss_catalog_size(catalog);
  if (nn_index == n - 1)
    return stop;
  return nn_index < stop ? nn_index : nn_index + 1;
}

// ----------------------------------------------------------------------------
// writing records (in the task child)

static void put_i32(strbuf *sb, int32_t v) { sb_append(sb, (const char *)&v, 4); }
static void put_f32(strbuf *sb, float v) { sb_append(sb, (const char *)&v, 4); }

static void emit_error(pool_emit_fn emit, void *emit_ctx, const char *msg) {
  strbuf sb = {0};
  put_i32(&sb, REC_ERROR);
  sb_append(&sb, msg, strlen(msg) + 1);
  emit(emit_ctx, sb.data, sb.len);
  sb_free(&sb);
}

static void emit_act(pool_emit_fn emit, void *emit_ctx, const nn_model *m,
                     int action, float logp, float value, const float *u,
                     const float *state, const uint8_t *mask,
                     const nn_graph *g) {
  int A1 = m->cfg.n_actions + 1, F = m->cfg.node_dim;
  int n = g ? g->n_nodes : 0, nnz = g ? g->row_ptr[n] : 0;
  strbuf sb = {0};
  put_i32(&sb, REC_ACT);
  put_i32(&sb, action);
  put_i32(&sb, n);
  put_i32(&sb, nnz);
  put_f32(&sb, logp);
  put_f32(&sb, value);
  sb_append(&sb, (const char *)u, (size_t)m->P * 4);
  sb_append(&sb, (const char *)state, (size_t)m->cfg.state_dim * 4);
  sb_append(&sb, (const char *)mask, (size_t)A1);
  sb_append(&sb, "\0\0\0", (size_t)((4 - A1 % 4) % 4));
  if (g) {
    sb_append(&sb, (const char *)g->x, (size_t)n * (size_t)F * 4);
    sb_append(&sb, (const char *)g->row_ptr, (size_t)(n + 1) * 4);
    sb_append(&sb, (const char *)g->col, (size_t)nnz * 4);
  } else {
    put_i32(&sb, 0); // row_ptr of the empty graph
  }
  emit(emit_ctx, sb.data, sb.len);
  sb_free(&sb);
}

static void emit_outcome(pool_emit_fn emit, void *emit_ctx, float reward,
                         int done, const mqss_env_info *info) {
  strbuf sb = {0};
  put_i32(&sb, REC_OUTCOME);
  put_i32(&sb, done);
  put_i32(&sb, (int32_t)info->status);
  put_i32(&sb, done ? (int32_t)info->measure.status : -1);
  put_i32(&sb, done ? info->measure.cached : 0);
  put_f32(&sb, reward);
  put_f32(&sb, done ? (float)info->reward_ema : NAN);
  emit(emit_ctx, sb.data, sb.len);
  sb_free(&sb);
}

// ----------------------------------------------------------------------------
// the episode

void episode_run(void *user, const void *params, size_t plen, const void *task,
                 size_t tlen, pool_emit_fn emit, void *emit_ctx) {
  const episode_ctx *c = user;
  nn_model *m = c->model; // this is a forked child: its copy is ours
  episode_task t;
  if (plen != m->n_params * sizeof(float) || tlen != sizeof t) {
    emit_error(emit, emit_ctx, "episode: parameters or task of the wrong size");
    return;
  }
  memcpy(&t, task, sizeof t);
  memcpy(m->params_memory, params, plen);
  if (t.module < 0 || t.module >= c->n_modules) {
    emit_error(emit, emit_ctx, "episode: module index out of range");
    return;
  }
  mqss_module *mod = NULL;
  mqss_env_obs obs;
  mqss_env_set_ema(c->env, t.ema);
  if (mqss_module_parse_file(c->session, c->module_paths[t.module], &mod) != MQSS_OK ||
      mqss_env_reset(c->env, mod, c->baselines[t.module], &obs) != MQSS_OK) {
    emit_error(emit, emit_ctx, mqss_errmsg(c->session));
    mqss_module_destroy(mod);
    return;
  }
  mqss_module_destroy(mod); // the env works on its own clone

  int A1 = m->cfg.n_actions + 1, n_cat = mqss_catalog_size(c->catalog);
  uint8_t mask[A1];
  float u[m->P > 0 ? m->P : 1];
  nn_acts acts = {0};
  nn_rng rng;
  nn_rng_seed(&rng, t.seed);
  bool gnn = m->cfg.arch == NN_ARCH_GNN;
  for (int step = 0;; step++) {
    for (int j = 0; j < n_cat; j++)
      mask[episode_nn_action(c->catalog, j)] = obs.mask[j];
    nn_graph g = {0};
    int graph_ptr[2] = {0, 0};
    if (gnn && obs.graph) {
      g = (nn_graph){obs.graph->n_nodes, obs.graph->dim, obs.graph->x,
                     obs.graph->row_ptr, obs.graph->col};
      graph_ptr[1] = g.n_nodes;
    }
    nn_batch in = {.B = 1, .state = obs.state, .graph = g,
                   .graph_ptr = graph_ptr, .mask = mask};
    if (nn_acts_ensure(&acts, m, 1, g.n_nodes) != 0) {
      emit_error(emit, emit_ctx, "episode: out of memory");
      break;
    }
    nn_forward(m, &acts, &in);
    float logp, value;
    memset(u, 0, sizeof u);
    int a = ppo_act(m, &acts, mask, 0, &rng, t.epsilon, u, &logp, &value);
    emit_act(emit, emit_ctx, m, a, logp, value, u, obs.state, mask,
             gnn ? &g : NULL);
    if (c->crash_every > 0 && step == 1 &&
        t.episode % c->crash_every == c->crash_every - 1)
      raise(SIGSEGV); // the fault-injection hook: as if a pass crashed

    mqss_decision d = {.action = episode_catalog_action(c->catalog, a)};
    for (int k = m->param_off[a]; k < m->param_off[a + 1]; k++)
      d.u[k - m->param_off[a]] = fminf(1.0f, fmaxf(-1.0f, u[k]));
    float reward = 0;
    int done = 0;
    mqss_env_info info;
    if (mqss_env_step(c->env, &d, &obs, &reward, &done, &info) != MQSS_OK) {
      emit_error(emit, emit_ctx, mqss_errmsg(c->session));
      break;
    }
    emit_outcome(emit, emit_ctx, reward, done, &info);
    if (done)
      break;
  }
  nn_acts_free(&acts);
}

// ----------------------------------------------------------------------------
// reading records (in the trainer)

typedef struct {
  const char *p, *end;
} reader;

static const void *take(reader *r, size_t n) {
  if ((size_t)(r->end - r->p) < n)
    return NULL;
  const void *at = r->p;
  r->p += n;
  return at;
}

static bool get_i32(reader *r, int *v) {
  const void *p = take(r, 4);
  if (p)
    memcpy(v, p, 4);
  return p != NULL;
}

static bool get_f32(reader *r, float *v) {
  const void *p = take(r, 4);
  if (p)
    memcpy(v, p, 4);
  return p != NULL;
}

bool episode_decode(const nn_model *m, const void *rec, size_t len,
                    episode_record *out) {
  reader r = {rec, (const char *)rec + len};
  memset(out, 0, sizeof *out);
  if (!get_i32(&r, &out->kind))
    return false;
  int A1 = m->cfg.n_actions + 1, F = m->cfg.node_dim;
  if (out->kind == REC_ERROR) {
    out->message = r.p;
    return len > 4 && ((const char *)rec)[len - 1] == '\0';
  }
  if (out->kind == REC_OUTCOME)
    return get_i32(&r, &out->done) && get_i32(&r, &out->step_status) &&
           get_i32(&r, &out->measure_status) && get_i32(&r, &out->cached) &&
           get_f32(&r, &out->reward) && get_f32(&r, &out->ema) && r.p == r.end;
  if (out->kind != REC_ACT)
    return false;
  int n, nnz;
  if (!get_i32(&r, &out->action) || !get_i32(&r, &n) || !get_i32(&r, &nnz) ||
      !get_f32(&r, &out->logp) || !get_f32(&r, &out->value) || n < 0 ||
      nnz < 0 || out->action < 0 || out->action >= A1)
    return false;
  // Records are built by this program, so alignment of the 4-byte fields
  // holds: every field before them is a multiple of 4 bytes long.
  out->u = take(&r, (size_t)m->P * 4);
  out->state = take(&r, (size_t)m->cfg.state_dim * 4);
  out->mask = take(&r, (size_t)A1);
  take(&r, (size_t)((4 - A1 % 4) % 4));
  const float *x = take(&r, (size_t)n * (size_t)F * 4);
  const int *row_ptr = take(&r, (size_t)(n + 1) * 4);
  const int *col = take(&r, (size_t)nnz * 4);
  if (!out->u || !out->state || !out->mask || !x || !row_ptr || !col ||
      r.p != r.end)
    return false;
  out->graph = (nn_graph){n, F, x, row_ptr, col};
  return true;
}
