// Random-policy rollouts over the environment, each episode in a forked
// child of the rollout worker pool (src/rl/pool.h): a pass that crashes or
// hangs ends only its episode, which is reported as such. This is the engine
// of `mqss rollout`; it is not the PPO trainer (which brings its own policy
// but can run episodes the same way).
#include "env/env.h"
#include "nn/nn.h"
#include "rl/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mqss_rollout_options_init(mqss_rollout_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->episodes = 1;
  o->seed = 1;
  o->workers = 1;
  o->timeout_ms = 300000;
}

typedef struct {
  mqss_env *env;
  const mqss_module *module;
  mqss_env_baseline baseline;
  uint64_t seed;
  mqss_rollout_fn fn;
  void *user;
} rollout_ctx;

// ----------------------------------------------------------------------------
// the episode, in the task's child

// Uniform over the allowed actions of `mask` (n entries, `allowed` ones).
static int pick(nn_rng *rng, const uint8_t *mask, int n, int allowed) {
  int k = (int)(nn_rng_uniform(rng) * (float)allowed);
  if (k >= allowed)
    k = allowed - 1;
  for (int i = 0; i < n; i++)
    if (mask[i] && k-- == 0)
      return i;
  return -1;
}

static void episode_task(void *user, const void *params, size_t plen,
                         const void *task, size_t tlen, pool_emit_fn emit,
                         void *emit_ctx) {
  (void)params;
  (void)plen;
  rollout_ctx *c = user;
  int episode = 0;
  memcpy(&episode, task, tlen < sizeof episode ? tlen : sizeof episode);
  nn_rng rng;
  nn_rng_seed(&rng, c->seed * 0x9E3779B97F4A7C15ull + (uint64_t)episode);
  mqss_env_obs obs;
  mqss_rollout_record *rec = calloc(1, sizeof *rec);
  if (!rec)
    _exit(3);
  rec->episode = episode;
  mqss_status st = mqss_env_reset(c->env, c->module, &c->baseline, &obs);
  int n = mqss_catalog_size(c->env->catalog), done = 0;
  while (st == MQSS_OK && !done) {
    mqss_decision d = {0};
    d.action = pick(&rng, obs.mask, n, obs.n_allowed);
    for (int i = 0; i < MQSS_MAX_PARAMS; i++) // all drawn: same stream always
      d.u[i] = 2.0f * nn_rng_uniform(&rng) - 1.0f;
    memcpy(rec->u, d.u, sizeof d.u);
    st = mqss_env_step(c->env, &d, &obs, &rec->reward, &done, &rec->info);
    if (st == MQSS_OK)
      emit(emit_ctx, rec, sizeof *rec);
  }
  if (st != MQSS_OK) { // the harness failed: say why, end as "failed"
    memset(&rec->info, 0, sizeof rec->info);
    snprintf(rec->info.reason, sizeof rec->info.reason, "%s",
             mqss_errmsg(c->env->session));
    rec->end = 1;
    rec->task_status = TASK_FAILED;
    emit(emit_ctx, rec, sizeof *rec);
    _exit(3);
  }
  free(rec);
}

// ----------------------------------------------------------------------------
// the trainer side

static void on_record(void *ctx, int index, const void *data, size_t len) {
  rollout_ctx *c = ctx;
  mqss_rollout_record rec;
  if (len != sizeof rec)
    return;
  memcpy(&rec, data, sizeof rec);
  rec.episode = index;
  if (rec.end) // the error report of a failed episode: kept for its reason
    rec.end = 0, rec.task_status = TASK_FAILED, rec.info.status = -1;
  c->fn(c->user, &rec);
}

static void on_done(void *ctx, int index, task_status status, int sig) {
  rollout_ctx *c = ctx;
  mqss_rollout_record rec;
  memset(&rec, 0, sizeof rec);
  rec.episode = index;
  rec.end = 1;
  rec.task_status = (int)status;
  rec.signal = sig;
  c->fn(c->user, &rec);
}

mqss_status mqss_env_rollout(mqss_env *env, const mqss_module *module,
                             const mqss_rollout_options *opts,
                             mqss_rollout_fn fn, void *user) {
  if (!env || !module || !opts || !fn || opts->episodes < 0 ||
      opts->workers < 1)
    return env ? fail(env->session, MQSS_ERR_INVALID_ARG,
                      "rollout: bad argument (episodes >= 0, workers >= 1)")
               : MQSS_ERR_INVALID_ARG;
  // The baseline once, here, so that every episode child inherits it.
  mqss_status st = mqss_env_reset(env, module, NULL, NULL);
  if (st != MQSS_OK)
    return st;
  rollout_ctx c = {env, module, env->baseline, opts->seed, fn, user};
  pool_options po = {opts->workers, 0, opts->timeout_ms, CHILD_DEFAULT_MEM_MB};
  worker_pool *pool = NULL;
  if ((st = pool_create(env->session, &po, episode_task, &c, &pool)))
    return st;
  int n = opts->episodes;
  int *ids = calloc((size_t)n + 1, sizeof *ids);
  const void **tasks = calloc((size_t)n + 1, sizeof *tasks);
  size_t *lens = calloc((size_t)n + 1, sizeof *lens);
  if (!ids || !tasks || !lens)
    st = fail(env->session, MQSS_ERR_NOMEM, "out of memory");
  for (int i = 0; st == MQSS_OK && i < n; i++) {
    ids[i] = i;
    tasks[i] = &ids[i];
    lens[i] = sizeof ids[i];
  }
  if (st == MQSS_OK)
    st = pool_run(pool, n, tasks, lens, on_record, on_done, &c);
  pool_destroy(pool);
  free(ids);
  free(tasks);
  free(lens);
  return st;
}
