// The PPO training loop (see train.h): each iteration sends the weights to
// the workers, collects at least rl.rollout_steps transitions in waves of
// episodes, runs the PPO update, logs, and checkpoints. Episodes that crash
// still contribute the transitions they streamed, the last one penalised.
#include "rl/train.h"

#include "rl/checkpoint.h"
#include "rl/ppo_update.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// ----------------------------------------------------------------------------
// collecting a wave of episodes

typedef struct {
  strbuf recs;        // records, each as u64 length + bytes padded to 8
  task_status status;
  int finished;
} task_trace;

static void on_record(void *ctx, int index, const void *rec, size_t len) {
  task_trace *t = (task_trace *)ctx + index;
  uint64_t n = len;
  sb_append(&t->recs, (const char *)&n, sizeof n);
  sb_append(&t->recs, rec, len);
  sb_append(&t->recs, "\0\0\0\0\0\0\0", (8 - len % 8) % 8);
}

static void on_done(void *ctx, int index, task_status status, int sig) {
  (void)sig;
  task_trace *t = (task_trace *)ctx + index;
  t->status = status;
  t->finished = 1;
}

// What a wave's episodes amounted to.
typedef struct {
  int episodes, succeeded, measured, cached, errors, crashed;
  double return_sum;
  char first_error[512];
} wave_stats;

// Turns one episode's records into transitions in rb. An episode that ended
// early (crash, timeout) has its last transition marked done and penalised.
static void absorb(const nn_model *m, rollout_buffer *rb, const task_trace *t,
                   float penalty, ckpt_state *st, wave_stats *ws) {
  const char *p = t->recs.data, *end = p + t->recs.len;
  episode_record act = {0}, r;
  bool pending = false, ended = false;
  int first = rb->n;
  double ret = 0;
  while (p && p + 8 <= end) {
    uint64_t len;
    memcpy(&len, p, 8);
    const char *rec = p + 8;
    p = rec + len + (8 - len % 8) % 8;
    if (p > end || !episode_decode(m, rec, len, &r))
      break;
    if (r.kind == REC_ERROR) {
      if (!ws->errors++)
        snprintf(ws->first_error, sizeof ws->first_error, "%s", r.message);
    } else if (r.kind == REC_ACT) {
      act = r;
      pending = true;
    } else if (r.kind == REC_OUTCOME && pending) {
      pending = false;
      if (rb_push(rb, act.state, &act.graph, act.mask, act.action, act.u,
                  act.logp, act.value, r.reward, r.done) == 0)
        ret += r.reward;
      if (r.done) {
        ended = true;
        ws->measured++;
        ws->succeeded += r.measure_status == MQSS_MEASURE_OK;
        ws->cached += r.cached;
        if (isfinite(r.ema))
          st->reward_ema = r.ema;
      }
    }
  }
  if (!ended && pending &&
      rb_push(rb, act.state, &act.graph, act.mask, act.action, act.u,
              act.logp, act.value, penalty, true) == 0) {
    ret += penalty; // the decision that was running when the episode died
  } else if (!ended && rb->n > first) {
    rb->done[rb->n - 1] = 1;
    rb->reward[rb->n - 1] += penalty;
    ret += penalty;
  }
  if (rb->n == first)
    return; // nothing happened (an error before the first decision)
  ws->episodes++;
  ws->crashed += !ended;
  ws->return_sum += ret;
  // Early-stopping window: the most recent episodes, oldest first.
  if (st->n_window == CKPT_MAX_WINDOW) {
    memmove(st->window, st->window + 1, (CKPT_MAX_WINDOW - 1) * sizeof(float));
    memmove(st->window_len, st->window_len + 1,
            (CKPT_MAX_WINDOW - 1) * sizeof(int32_t));
    st->n_window--;
  }
  st->window[st->n_window] = (float)ret;
  st->window_len[st->n_window++] = rb->n - first;
}

// Variance of the returns of the latest episodes covering `steps` steps;
// NAN when the window holds fewer steps than that.
static double window_variance(const ckpt_state *st, int steps) {
  int covered = 0, k = st->n_window;
  while (k > 0 && covered < steps)
    covered += st->window_len[--k];
  if (covered < steps || k == st->n_window)
    return NAN;
  double mean = 0, var = 0;
  int n = st->n_window - k;
  for (int i = k; i < st->n_window; i++)
    mean += st->window[i];
  mean /= n;
  for (int i = k; i < st->n_window; i++)
    var += (st->window[i] - mean) * (st->window[i] - mean);
  return var / n;
}

// ----------------------------------------------------------------------------
// helpers

// FNV-1a of the settings that shape the run (not its length or workers).
// The last fields, expit.winners_from, expit.seed_margin, expit.families,
// expit.bc_anchor, expit.adapt_sizes, expit.compile_limit and expit.bc_only,
// are folded in only when set, so that runs checkpointed before they existed
// still resume.
_Static_assert(offsetof(train_config, expit_seed_margin) >=
                       offsetof(train_config, expit_winners_from) +
                           sizeof ((train_config *)0)->expit_winners_from &&
                   offsetof(train_config, expit_families) ==
                       offsetof(train_config, expit_seed_margin) + sizeof(float) &&
                   offsetof(train_config, expit_bc_anchor) ==
                       offsetof(train_config, expit_families) +
                           sizeof ((train_config *)0)->expit_families &&
                   offsetof(train_config, expit_adapt_sizes) ==
                       offsetof(train_config, expit_bc_anchor) + sizeof(float) &&
                   offsetof(train_config, expit_compile_limit) ==
                       offsetof(train_config, expit_adapt_sizes) + sizeof(int) &&
                   offsetof(train_config, expit_bc_only) ==
                       offsetof(train_config, expit_compile_limit) + sizeof(float) &&
                   offsetof(train_config, expit_bc_only) +
                           sizeof ((train_config *)0)->expit_bc_only + sizeof(float) >
                       sizeof(train_config),
               "expit_winners_from, expit_seed_margin, expit_families, "
               "expit_bc_anchor, expit_adapt_sizes, expit_compile_limit, "
               "expit_bc_only end train_config");
static uint64_t config_hash(const train_config *cfg) {
  train_config c = *cfg;
  c.iterations = c.checkpoint_every = c.num_workers = c.pin_workers = 0;
  c.expit_rounds = 0; // more rounds continue a run
  c.expit_holdout_every = 0; // when the hold-out figure is taken: reporting only
  uint64_t h = fnv1a64(FNV1A64_INIT, &c, offsetof(train_config, expit_winners_from));
  if (c.expit_winners_from[0])
    h = fnv1a64(h, c.expit_winners_from, strlen(c.expit_winners_from));
  if (c.expit_seed_margin != 0)
    h = fnv1a64(h, &c.expit_seed_margin, sizeof c.expit_seed_margin);
  if (c.expit_families[0])
    h = fnv1a64(h, c.expit_families, strlen(c.expit_families));
  if (c.expit_bc_anchor != 0)
    h = fnv1a64(h, &c.expit_bc_anchor, sizeof c.expit_bc_anchor);
  if (c.expit_adapt_sizes != 0)
    h = fnv1a64(h, &c.expit_adapt_sizes, sizeof c.expit_adapt_sizes);
  if (c.expit_compile_limit != 0)
    h = fnv1a64(h, &c.expit_compile_limit, sizeof c.expit_compile_limit);
  if (c.expit_bc_only[0])
    h = fnv1a64(h, c.expit_bc_only, strlen(c.expit_bc_only));
  return h;
}

mqss_status train_export(mqss_session *s, const train_options *o,
                         const nn_model *m, const mqss_catalog *cat,
                         const nn_file_meta *parent, long long iterations,
                         long long env_steps, double elapsed_s,
                         const char *path) {
  nn_file_meta meta = {.feature_hash = mqss_feature_layout_hash(),
                       .catalog_hash = mqss_catalog_hash(cat),
                       .train_steps = iterations};
  if (parent) {
    meta.parent_hash = parent->parent_hash;
    meta.parent_feature_hash = parent->parent_feature_hash;
    meta.parent_catalog_hash = parent->parent_catalog_hash;
    meta.parent_feature_version = parent->parent_feature_version;
    meta.parent_actions = parent->parent_actions;
  }
  snprintf(meta.mlir_version, sizeof meta.mlir_version, "%s", mqss_mlir_version());
  char keys[3800];
  train_config_format(o->cfg, keys, sizeof keys);
  snprintf(meta.train_config, sizeof meta.train_config,
           "%s (%lld env steps, %.0f s): %s",
           o->config_path ? o->config_path : "defaults", env_steps, elapsed_s,
           keys);
  snprintf(meta.train_commit, sizeof meta.train_commit, "%s",
           o->commit ? o->commit : "unknown");
  time_t now = time(NULL);
  strftime(meta.train_date, sizeof meta.train_date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  char err[512];
  if (nn_policy_write(path, m, &meta, err, sizeof err) != NN_OK)
    return fail(s, MQSS_ERR_IO, "%s", err);
  return MQSS_OK;
}

static mqss_status export_policy(mqss_session *s, const train_options *o,
                                 const nn_model *m, const mqss_catalog *cat,
                                 const nn_file_meta *parent,
                                 const ckpt_state *st, char *path, size_t len) {
  snprintf(path, len, "%s/policy.safetensors", o->log_dir);
  return train_export(s, o, m, cat, parent, st->iteration,
                      (long long)st->env_steps, st->elapsed_s, path);
}

// ----------------------------------------------------------------------------
// the loop

typedef struct {
  mqss_session *s;
  const train_options *o;
  const train_config *cfg;
  train_setup *setup;
  nn_model *m;
  worker_pool *pool;
  int workers;
  rollout_buffer rb;
  ckpt_state st;
  nn_rng rng;
  float penalty;
} trainer;

// Runs waves of episodes until the buffer holds rollout_steps transitions.
static mqss_status collect(trainer *tr, float epsilon, wave_stats *ws) {
  const train_config *cfg = tr->cfg;
  episode_ctx *ec = train_setup_episodes(tr->setup);
  double avg_len = cfg->max_steps / 2.0;
  while (tr->rb.n < cfg->rollout_steps) {
    // One big wave rather than a trickle of small ones: a wave ends with
    // workers idle while the last episodes finish, so aim 25% past what is
    // missing, in whole rounds of the workers, within the buffer.
    int remaining = cfg->rollout_steps - tr->rb.n;
    int E = (int)ceil(1.25 * remaining / (avg_len > 1 ? avg_len : 1));
    E = (E + tr->workers - 1) / tr->workers * tr->workers;
    if (E > (tr->rb.cap - tr->rb.n) / cfg->max_steps)
      E = (tr->rb.cap - tr->rb.n) / cfg->max_steps;
    episode_task *tasks = calloc((size_t)E, sizeof *tasks);
    const void **ptrs = calloc((size_t)E, sizeof *ptrs);
    size_t *lens = calloc((size_t)E, sizeof *lens);
    task_trace *traces = calloc((size_t)E, sizeof *traces);
    if (!tasks || !ptrs || !lens || !traces) {
      free(tasks), free(ptrs), free(lens), free(traces);
      return fail(tr->s, MQSS_ERR_NOMEM, "out of memory");
    }
    for (int e = 0; e < E; e++) {
      tasks[e] = (episode_task){
          .module = (int32_t)(nn_rng_u64(&tr->rng) % (uint64_t)ec->n_modules),
          .episode = (int32_t)tr->st.episodes++,
          .seed = nn_rng_u64(&tr->rng),
          .epsilon = epsilon,
          .ema = isfinite(tr->st.reward_ema) ? (float)tr->st.reward_ema : NAN};
      ptrs[e] = &tasks[e];
      lens[e] = sizeof tasks[e];
    }
    int before = tr->rb.n, eps_before = ws->episodes;
    mqss_status st = pool_run(tr->pool, E, ptrs, lens, on_record, on_done, traces);
    for (int e = 0; st == MQSS_OK && e < E; e++)
      absorb(tr->m, &tr->rb, &traces[e], tr->penalty, &tr->st, ws);
    for (int e = 0; e < E; e++)
      sb_free(&traces[e].recs);
    free(tasks), free(ptrs), free(lens), free(traces);
    if (st != MQSS_OK)
      return st;
    if (tr->rb.n == before)
      return fail(tr->s, MQSS_ERR_INTERNAL,
                  "no episode of a wave of %d produced a transition%s%s", E,
                  ws->errors ? "; first error: " : "", ws->first_error);
    if (ws->episodes > eps_before)
      avg_len = (double)(tr->rb.n - before) / (ws->episodes - eps_before);
  }
  return MQSS_OK;
}

// Behaviour cloning before the first PPO iteration (rl.bc_epochs).
static mqss_status clone_baselines(trainer *tr, train_result *r) {
  const train_config *cfg = tr->cfg;
  episode_ctx *ec = train_setup_episodes(tr->setup);
  bc_inputs in = {ec->catalog, tr->m, ec->n_modules, ec->module_paths,
                  train_setup_pipelines(tr->setup), cfg->max_steps};
  rollout_buffer rb;
  if (rb_init(&rb, tr->m, ec->n_modules * (cfg->max_steps + 1) + 64) != 0)
    return fail(tr->s, MQSS_ERR_NOMEM, "out of memory");
  mqss_status st = bc_collect(tr->s, &in, &rb, &r->bc);
  nn_adam_config adam = {.lr = cfg->bc_lr > 0 ? cfg->bc_lr : cfg->lr,
                         .beta1 = 0.9f, .beta2 = 0.999f,
                         .eps = 1e-8f, .max_grad_norm = cfg->max_grad_norm};
  if (st == MQSS_OK && r->bc.samples == 0)
    st = fail(tr->s, MQSS_ERR_INVALID_ARG, "rl.bc_epochs is set but no "
              "baseline could be replayed (%d unmatched, %d refused); check "
              "env.baseline_json", r->bc.unmatched, r->bc.refused);
  if (st == MQSS_OK &&
      bc_update(tr->m, &rb, cfg->bc_epochs, cfg->minibatch, &adam, NULL, 0.0f,
                NULL, &tr->rng, &r->bc_loss_first, &r->bc_loss_last) != 0)
    st = fail(tr->s, MQSS_ERR_NOMEM, "out of memory in behaviour cloning");
  rb_free(&rb);
  for (int k = 0; st == MQSS_OK && cfg->bc_log_std < 0 && k < tr->m->P; k++)
    tr->m->params.log_std[k] = cfg->bc_log_std;
  return st;
}

static mqss_status iterate(trainer *tr, int it, double *metrics, bool *stop) {
  const train_config *cfg = tr->cfg;
  double t0 = now_ms() / 1e3;
  mqss_status st = pool_set_params(tr->pool, tr->m->params_memory,
                                   tr->m->n_params * sizeof(float));
  if (st != MQSS_OK)
    return st;
  rb_clear(&tr->rb);
  wave_stats ws = {0};
  if ((st = collect(tr, cfg->epsilon_greedy, &ws)) != MQSS_OK)
    return st;
  double t_roll = now_ms() / 1e3 - t0;

  float frac = cfg->iterations > 1 ? (float)it / (float)(cfg->iterations - 1) : 1.0f;
  ppo_update_config uc = {
      .ppo = {.clip_eps = cfg->clip, .vf_coef = cfg->value_coef,
              .ent_coef = cfg->entropy_start + frac * (cfg->entropy_end - cfg->entropy_start)},
      .adam = {.lr = cfg->lr, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
               .max_grad_norm = cfg->max_grad_norm},
      .epochs = cfg->epochs, .batch = cfg->batch_size, .minibatch = cfg->minibatch,
      .gamma = cfg->gamma, .lambda = cfg->lambda, .anchor = tr->o->anchor};
  uc.ppo.kl_coef = tr->o->anchor ? tr->o->kl_coef : 0.0f;
  nn_ppo_stats ps;
  if (ppo_update(tr->m, &tr->rb, &uc, &tr->rng, &ps) != 0)
    return fail(tr->s, MQSS_ERR_NOMEM, "out of memory in the PPO update");

  tr->st.iteration = it + 1;
  tr->st.env_steps += tr->rb.n;
  tr->st.elapsed_s += now_ms() / 1e3 - t0;
  double var = cfg->early_stop_steps > 0
                   ? window_variance(&tr->st, cfg->early_stop_steps) : NAN;
  *stop = isfinite(var) && var < cfg->early_stop_var;
  for (int k = 0; k < METRIC_COUNT; k++)
    metrics[k] = NAN;
  metrics[M_ITERATION] = it;
  metrics[M_ENV_STEPS] = (double)tr->st.env_steps;
  metrics[M_RETURN] = ws.episodes ? ws.return_sum / ws.episodes : NAN;
  metrics[M_RETURN_VAR] = var;
  metrics[M_ENTROPY] = ps.entropy;
  metrics[M_SUCCESS] = ws.measured ? (double)ws.succeeded / ws.measured : NAN;
  metrics[M_CRASHED] = ws.episodes ? (double)ws.crashed / ws.episodes : NAN;
  metrics[M_LOSS_POLICY] = ps.policy_loss;
  metrics[M_LOSS_VALUE] = ps.value_loss;
  metrics[M_LOSS_ENTROPY] = -uc.ppo.ent_coef * ps.entropy;
  metrics[M_LOSS_TOTAL] = ps.loss;
  metrics[M_APPROX_KL] = ps.approx_kl;
  metrics[M_CLIP_FRAC] = ps.clip_frac;
  metrics[M_STEPS_PER_S] = tr->rb.n / (t_roll > 0 ? t_roll : 1e-9);
  metrics[M_EPISODES_PER_S] = ws.episodes / (t_roll > 0 ? t_roll : 1e-9);
  metrics[M_CACHE_HIT] = ws.measured ? (double)ws.cached / ws.measured : NAN;
  metrics[M_ELAPSED] = tr->st.elapsed_s;
  metrics[M_ANCHOR_KL] = tr->o->anchor ? ps.anchor_kl : NAN; // expert iteration
  return MQSS_OK;
}

mqss_status train_run(mqss_session *s, train_setup *setup,
                      const train_options *o, train_result *out) {
  const train_config *cfg = o->cfg;
  episode_ctx *ec = train_setup_episodes(setup);
  trainer tr = {.s = s, .o = o, .cfg = cfg, .setup = setup, .m = ec->model};
  mqss_env_options eo;
  mqss_env_options_init(&eo);
  tr.penalty = (float)(eo.success_fail * cfg->w_success);
  tr.st.config_hash = config_hash(cfg);
  tr.st.reward_ema = NAN;
  nn_rng_seed(&tr.rng, (uint64_t)cfg->seed * 0x9e3779b97f4a7c15ULL + 1);
  char ckpt[4096];
  snprintf(ckpt, sizeof ckpt, "%s/checkpoint.bin", o->log_dir);
  mqss_status st = MQSS_OK;
  train_result r = {0};
  if (o->resume) {
    if ((st = ckpt_resume(s, ckpt, tr.m, &tr.st, r.resume_note,
                          sizeof r.resume_note)) != MQSS_OK)
      return st;
    tr.rng.s = tr.st.rng;
  }
  metrics_log *log = NULL;
  if ((st = metrics_open(s, o->log_dir, o->resume ? (int)tr.st.iteration - 1 : -1,
                         &log)) != MQSS_OK)
    return st;
  if (o->remote) {
    st = pool_create_with_backend(s, &(pool_options){0}, o->remote, &tr.pool);
    tr.workers = o->remote->n;
  } else {
    pool_options po = {cfg->num_workers, cfg->pin_workers, train_task_timeout_ms(cfg),
                       CHILD_DEFAULT_MEM_MB};
    st = pool_create(s, &po, episode_run, ec, &tr.pool);
    tr.workers = cfg->num_workers;
  }
  if (st == MQSS_OK &&
      rb_init(&tr.rb, tr.m, 2 * cfg->rollout_steps + tr.workers * cfg->max_steps) != 0)
    st = fail(s, MQSS_ERR_NOMEM, "out of memory");
  if (st == MQSS_OK && !o->resume && cfg->bc_epochs > 0)
    st = clone_baselines(&tr, &r);
  bool stop = false;
  int last = cfg->iterations;
  if (o->stop_after > 0 && tr.st.iteration + o->stop_after < last)
    last = (int)tr.st.iteration + o->stop_after;
  for (int it = (int)tr.st.iteration; st == MQSS_OK && it < last && !stop; it++) {
    double metrics[METRIC_COUNT];
    if ((st = iterate(&tr, it, metrics, &stop)) != MQSS_OK)
      break;
    tr.st.rng = tr.rng.s;
    if ((st = metrics_write(log, metrics)) != MQSS_OK)
      break;
    if ((it + 1) % cfg->checkpoint_every == 0 || it + 1 == last || stop)
      if ((st = ckpt_save(s, ckpt, tr.m, &tr.st)) != MQSS_OK)
        break;
    if (o->on_iteration)
      o->on_iteration(o->ctx, it, metrics);
  }
  pool_destroy(tr.pool);
  rb_free(&tr.rb);
  metrics_close(log);
  if (st != MQSS_OK)
    return st;
  r.iterations = (int)tr.st.iteration;
  r.env_steps = tr.st.env_steps;
  r.early_stopped = stop;
  r.elapsed_s = tr.st.elapsed_s;
  st = export_policy(s, o, tr.m, ec->catalog, train_setup_parent(setup),
                     &tr.st, r.policy_path, sizeof r.policy_path);
  if (out)
    *out = r;
  return st;
}
