// What a training run is made of, before any rollout: the modules of the
// manifest, their baselines from baseline.json, the action catalog, the
// environment and the network's shape (random, or migrated from the policy
// of policy.init_from). The trainer and every rollout worker build the same
// setup (see train.h).
#include "policy/policy.h"
#include "rl/train.h"
#include "util/manifest.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct train_setup {
  mqss_catalog *catalog;
  mqss_env *env;
  nn_model *model;
  int n_modules;
  char **paths;                  // (n_modules) owned
  mqss_env_baseline *bases;      // (n_modules)
  const mqss_env_baseline **base_ptrs; // (n_modules) NULL where unknown
  char **pipelines;              // (n_modules) baseline pipeline, NULL = unknown
  char cache[4096];
  episode_ctx episodes;
  nn_file_meta parent;           // lineage (parent_* fields) with init_from
};

// ----------------------------------------------------------------------------
// the manifest: one module a line, tab-separated, file name first

mqss_status train_manifest_read(mqss_session *s, const char *path,
                                char ***paths, int *n_paths) {
  manifest_list m;
  mqss_status st = manifest_read(s, path, &m);
  char **p = st == MQSS_OK ? calloc((size_t)m.n, sizeof *p) : NULL;
  if (st == MQSS_OK && !p)
    st = fail(s, MQSS_ERR_NOMEM, "out of memory");
  for (int i = 0; st == MQSS_OK && i < m.n; i++) {
    p[i] = m.v[i].path; // taken over
    m.v[i].path = NULL;
  }
  if (st == MQSS_OK) {
    *paths = p;
    *n_paths = m.n;
  }
  manifest_free(&m);
  return st;
}

// ----------------------------------------------------------------------------
// baseline.json: {"file.mlir": {"comp_time", "run_time", "size", "status"}}

static mqss_status read_baselines(mqss_session *s, const char *path,
                                  train_setup *t) {
  t->bases = calloc((size_t)t->n_modules, sizeof *t->bases);
  t->base_ptrs = calloc((size_t)t->n_modules, sizeof *t->base_ptrs);
  t->pipelines = calloc((size_t)t->n_modules, sizeof *t->pipelines);
  if (!t->bases || !t->base_ptrs || !t->pipelines)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  if (!path[0])
    return MQSS_OK; // no file: the env measures the plain finisher itself
  strbuf text = {0};
  if (!sb_read_file(&text, path)) {
    int err = errno;
    sb_free(&text);
    return fail(s, MQSS_ERR_IO,
                "cannot open baselines '%s': %s; create it with 'mqss baseline' "
                "or set env.baseline_json to \"\"", path, strerror(err));
  }
  cJSON *root = cJSON_Parse(text.data);
  sb_free(&text);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return fail(s, MQSS_ERR_PARSE, "'%s' is not a JSON object of per-module baselines", path);
  }
  for (int i = 0; i < t->n_modules; i++) {
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", t->paths[i]);
    cJSON *e = cJSON_GetObjectItemCaseSensitive(root, basename(copy));
    cJSON *ct = cJSON_GetObjectItem(e, "comp_time"), *rt = cJSON_GetObjectItem(e, "run_time");
    cJSON *sz = cJSON_GetObjectItem(e, "size"), *stt = cJSON_GetObjectItem(e, "status");
    if (!cJSON_IsNumber(ct) || !cJSON_IsNumber(rt) || ct->valuedouble <= 0 ||
        rt->valuedouble <= 0 || (cJSON_IsString(stt) && strcmp(stt->valuestring, "ok")))
      continue; // unknown or failed: the env measures this module itself
    t->bases[i] = (mqss_env_baseline){ct->valuedouble, rt->valuedouble,
                                      cJSON_IsNumber(sz) ? (int64_t)sz->valuedouble : 0};
    t->base_ptrs[i] = &t->bases[i];
    cJSON *pl = cJSON_GetObjectItem(e, "pipeline");
    if (cJSON_IsString(pl) && !(t->pipelines[i] = strdup(pl->valuestring)))
      break; // out of memory: fewer demonstrations
  }
  cJSON_Delete(root);
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// create / destroy

// The network: random from the seed, or the policy of policy.init_from
// migrated onto this build's feature layout and the whole catalog (its
// actions keep their weights, new ones start with low logits).
static mqss_status make_model(mqss_session *s, const train_config *c,
                              train_setup *t) {
  nn_config nc;
  mqss_status st = policy_net_config(s, t->catalog, c->arch, c->hidden, &nc);
  if (st != MQSS_OK)
    return st;
  if (c->init_from[0]) {
    st = policy_read_parent(s, c->init_from, t->catalog, &t->model, &t->parent);
    if (st == MQSS_OK)
      st = policy_migrate(s, c->init_from, t->parent.feature_hash, &nc,
                          (uint64_t)c->seed, &t->model);
    return st;
  }
  if (!(t->model = nn_model_create(&nc, (uint64_t)c->seed)))
    return fail(s, MQSS_ERR_INVALID_ARG,
                "cannot create the network (catalog of %d actions)", nc.n_actions);
  return MQSS_OK;
}

mqss_status train_setup_create(mqss_session *s, const train_options *o,
                               train_setup **out) {
  const train_config *c = o->cfg;
  *out = NULL;
  train_setup *t = calloc(1, sizeof *t);
  if (!t)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  if (c->cache[0])
    snprintf(t->cache, sizeof t->cache, "%s", c->cache);
  else
    snprintf(t->cache, sizeof t->cache, "%s/cache.sqlite", o->log_dir);
  if (!c->manifest[0]) {
    train_setup_destroy(t);
    return fail(s, MQSS_ERR_INVALID_ARG, "env.manifest is not set; point it "
                "at train.tsv from 'mqss corpus gen'");
  }
  mqss_status st = train_manifest_read(s, c->manifest, &t->paths, &t->n_modules);
  if (st == MQSS_OK)
    st = read_baselines(s, c->baseline_json, t);
  if (st == MQSS_OK)
    st = mqss_catalog_load(s, NULL, &t->catalog);
  if (st == MQSS_OK && mqss_catalog_stop(t->catalog) < 0)
    st = fail(s, MQSS_ERR_INVALID_ARG, "the action catalog has no STOP action");
  if (st == MQSS_OK)
    st = make_model(s, c, t);
  if (st == MQSS_OK) {
    mqss_env_options eo;
    mqss_env_options_init(&eo);
    eo.max_steps = c->max_steps;
    eo.weights[MQSS_REWARD_SUCCESS] = c->w_success;
    eo.weights[MQSS_REWARD_COMPILE] = c->w_compile;
    eo.weights[MQSS_REWARD_RUNTIME] = c->w_runtime;
    eo.weights[MQSS_REWARD_SIZE] = c->w_size;
    eo.ema_alpha = c->reward_ema;
    eo.graph = strcmp(c->arch, "gnn") == 0;
    eo.measure.warmup = c->warmup;
    eo.measure.repeat = c->repeat;
    eo.measure.timeout_ms = c->timeout_ms;
    eo.measure.cache_path = t->cache;
    st = mqss_env_create(s, t->catalog, &eo, &t->env);
  }
  if (st != MQSS_OK) {
    train_setup_destroy(t);
    return st;
  }
  t->episodes = (episode_ctx){s, t->catalog, t->env, t->model, t->n_modules,
                              t->paths, t->base_ptrs, o->crash_every};
  *out = t;
  return MQSS_OK;
}

void train_setup_destroy(train_setup *t) {
  if (!t)
    return;
  mqss_env_destroy(t->env);
  mqss_catalog_destroy(t->catalog);
  nn_model_destroy(t->model);
  for (int i = 0; i < t->n_modules; i++) {
    free(t->paths[i]);
    if (t->pipelines)
      free(t->pipelines[i]);
  }
  free(t->paths);
  free(t->pipelines);
  free(t->bases);
  free(t->base_ptrs);
  free(t);
}

episode_ctx *train_setup_episodes(train_setup *t) { return &t->episodes; }

char *const *train_setup_pipelines(const train_setup *t) { return t->pipelines; }

const char *train_setup_cache(const train_setup *t) { return t->cache; }
const nn_file_meta *train_setup_parent(const train_setup *t) {
  return &t->parent;
}
