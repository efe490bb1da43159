// Loading a policy: reads the safetensors file (src/nn), checks it against
// this build (feature layout, catalog, MLIR version), migrates an older
// feature layout (migrate.c), and binds it to a catalog, or to the prefix of
// a catalog that extends the policy's. Also the default policy path and warm-up. It does not select
// anything (select.c) or check compiled code (guard.c).
#include "policy/policy.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// ----------------------------------------------------------------------------
// options and paths

void mqss_policy_options_init(mqss_policy_options *o) {
  memset(o, 0, sizeof *o);
}

// This file is <root>/src/policy/policy.c; the policy is
// <root>/models/default.safetensors. Computed once: threads may ask at the
// same time.
static char default_path[4096];

static void init_default_path(void) {
  source_tree_path(default_path, sizeof default_path, __FILE__,
                   "src/policy/policy.c", "models/default.safetensors");
}

const char *mqss_policy_default_path(void) {
  const char *env = getenv("MQSS_POLICY");
  if (env && *env)
    return env;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_default_path);
  return default_path;
}

// ----------------------------------------------------------------------------
// load

// Checks that the network's action heads fit the catalog and fills the index
// maps. Returns MQSS_OK or an MQSS_ERR_POLICY failure.
static mqss_status bind_catalog(mqss_session *s, mqss_policy *p) {
  const nn_config *cfg = &p->nets[0]->cfg;
  p->n_cat = mqss_catalog_size(p->catalog);
  int stop = mqss_catalog_stop(p->catalog);
  if (stop < 0)
    return fail(s, MQSS_ERR_POLICY, "policy '%s': the catalog has no STOP "
                "action; add one to the catalog", p->path);
  if (p->nets[0]->P > POLICY_MAX_SLOTS)
    return fail(s, MQSS_ERR_POLICY, "policy '%s' has %d parameter slots, "
                "more than the %d this build handles", p->path,
                p->nets[0]->P, POLICY_MAX_SLOTS);
  if (cfg->n_actions != p->n_cat - 1 || p->n_cat > NN_MAX_ACTIONS + 1)
    return fail(s, MQSS_ERR_POLICY, "policy '%s' has %d actions but the "
                "catalog has %d (STOP excluded); use the catalog it was "
                "trained with", p->path, cfg->n_actions, p->n_cat - 1);
  if (cfg->state_dim != MQSS_FEATURE_DIM ||
      (cfg->arch == NN_ARCH_GNN && cfg->node_dim != MQSS_GRAPH_FEATURE_DIM))
    return fail(s, MQSS_ERR_POLICY, "policy '%s': state/node dimensions "
                "%d/%d differ from this build's %d/%d; retrain the policy",
                p->path, cfg->state_dim, cfg->node_dim, MQSS_FEATURE_DIM,
                MQSS_GRAPH_FEATURE_DIM);
  int a = 0;
  for (int i = 0; i < p->n_cat; i++) {
    int j = i == stop ? cfg->n_actions : a++;
    p->cat_of[j] = i;
    p->nn_of[i] = j;
    const mqss_action *act = mqss_catalog_action(p->catalog, i);
    if (i != stop && cfg->param_count[j] != act->n_params)
      return fail(s, MQSS_ERR_POLICY, "policy '%s': action '%s' has %d "
                  "parameters in the policy but %d in the catalog; use the "
                  "catalog it was trained with", p->path, act->name,
                  cfg->param_count[j], act->n_params);
  }
  return MQSS_OK;
}

mqss_status mqss_policy_load(mqss_session *s, const char *path,
                             const mqss_policy_options *opts,
                             mqss_policy **out) {
  if (!s || !out)
    return s ? fail(s, MQSS_ERR_INVALID_ARG, "policy load: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  *out = NULL;
  mqss_policy_options defaults;
  if (!opts) {
    mqss_policy_options_init(&defaults);
    opts = &defaults;
  }
  bool is_default = !path;
  if (!path)
    path = mqss_policy_default_path();
  diag_reset(s, path);
  struct stat st;
  if (stat(path, &st) != 0) {
    if (is_default)
      return fail(s, MQSS_ERR_IO, "no policy at '%s': no default policy is "
                  "shipped yet; pass --policy FILE (or set MQSS_POLICY)",
                  path);
    return fail(s, MQSS_ERR_IO, "cannot open policy '%s': %s", path,
                strerror(errno));
  }
  mqss_policy *p = calloc(1, sizeof *p);
  if (!p || !(p->path = strdup(path))) {
    free(p);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  mqss_status rc = mqss_catalog_load(s, opts->catalog_path, &p->catalog);
  if (rc != MQSS_OK) {
    mqss_policy_destroy(p);
    return rc;
  }
  uint64_t old[8];
  nn_load_check check = {
      .old_feature_hashes = old,
      .n_old_feature_hashes = policy_old_layout_hashes(old, 8),
      .feature_hash = mqss_feature_layout_hash(),
      .catalog_hash = mqss_catalog_hash(p->catalog),
      .prefix_hashes = catalog_prefix_hashes(p->catalog),
      .n_prefix_hashes = mqss_catalog_size(p->catalog) + 1,
      .mlir_version = mqss_mlir_version(),
      .allow_version_mismatch = opts->allow_version_mismatch != 0,
  };
  char err[1024];
  nn_status ns = nn_policy_read_members(path, &check, p->nets, NN_MAX_MEMBERS,
                                        &p->n_nets, &p->meta, err, sizeof err);
  if (ns != NN_OK) {
    mqss_policy_destroy(p);
    mqss_status code = ns == NN_ERR_NOMEM ? MQSS_ERR_NOMEM
                       : ns == NN_ERR_IO  ? MQSS_ERR_IO
                                          : MQSS_ERR_POLICY;
    return fail(s, code, "%s", err);
  }
  // A catalog that appends actions to the policy's: the policy sees (and
  // can choose) only the actions it was trained with.
  catalog_truncate(p->catalog,
                   catalog_prefix_with_hash(p->catalog, p->meta.catalog_hash));
  // An older feature layout: migrated onto this build's (same decisions;
  // docs/POLICY_FORMAT.md, "Migration"), its actions unchanged.
  if (p->meta.feature_hash != mqss_feature_layout_hash()) {
    nn_config cfg;
    const nn_config *o = &p->nets[0]->cfg;
    rc = policy_net_config(s, p->catalog, nn_arch_name(o->arch),
                           o->hidden_dim, &cfg);
    cfg.gnn_dim = o->gnn_dim;
    cfg.init_log_std = o->init_log_std;
    for (int j = 0; j < p->n_nets && rc == MQSS_OK; j++)
      rc = policy_migrate(s, p->path, p->meta.feature_hash, &cfg, 1,
                          &p->nets[j]);
    if (rc != MQSS_OK) {
      mqss_policy_destroy(p);
      return rc;
    }
  }
  rc = bind_catalog(s, p);
  if (rc != MQSS_OK) {
    mqss_policy_destroy(p);
    return rc;
  }
  // the trainer records every config key in train_config ("rl.max_steps=8")
  const char *ms = strstr(p->meta.train_config, "rl.max_steps=");
  p->episode_steps = ms ? atoi(ms + strlen("rl.max_steps=")) : 0;
  if (p->episode_steps < 1 || p->episode_steps > 256)
    p->episode_steps = 16;
  const char *fit = strstr(p->meta.train_config, "expit.adapt_sizes=");
  p->fit_sizes = fit && atoi(fit + strlen("expit.adapt_sizes=")) == 1;
  *out = p;
  return MQSS_OK;
}

void mqss_policy_destroy(mqss_policy *p) {
  if (!p)
    return;
  for (int j = 0; j < p->n_nets; j++)
    nn_model_destroy(p->nets[j]);
  mqss_catalog_destroy(p->catalog);
  free(p->path);
  free(p);
}

const char *mqss_policy_mlir_version(const mqss_policy *p) {
  return p ? p->meta.mlir_version : "";
}

const mqss_catalog *mqss_policy_catalog(const mqss_policy *p) {
  return p ? p->catalog : NULL;
}

// ----------------------------------------------------------------------------
// warm-up

static const char *WARMUP_IR =
    "func.func @warmup(%a: memref<4xf32>) {\n"
    "  affine.for %i = 0 to 4 {\n"
    "    %v = affine.load %a[%i] : memref<4xf32>\n"
    "    %w = arith.addf %v, %v : f32\n"
    "    affine.store %w, %a[%i] : memref<4xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

mqss_status mqss_policy_warmup(const mqss_policy *p, mqss_session *s) {
  if (!p || !s)
    return s ? fail(s, MQSS_ERR_INVALID_ARG, "warmup: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  mqss_module *m = NULL;
  mqss_status rc = mqss_module_parse_string(s, WARMUP_IR, strlen(WARMUP_IR),
                                            "<warmup>", &m);
  if (rc != MQSS_OK)
    return rc;
  mqss_select_options o;
  mqss_select_options_init(&o);
  o.max_steps = 1;
  mqss_selection *sel = NULL;
  rc = mqss_policy_select(p, m, &o, &sel);
  mqss_selection_destroy(sel);
  mqss_module_destroy(m);
  return rc;
}
