// Policies trained on an older feature layout or a shorter catalog: the
// loader migrates an older layout on load, and `mqss train --init-from`
// starts a new run from an older policy with the current layout and the
// whole catalog. Both go through policy_migrate, which knows the layout
// versions (src/features/layout.c) and the catalog's action order; the
// weight surgery itself is nn_model_migrate (src/nn/migrate.c). It loads
// no files besides the parent policy of --init-from.
#include "features/layout.h"
#include "policy/policy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int policy_old_layout_hashes(uint64_t *out, int cap) {
  const feature_layout *v;
  int n = feature_layouts(&v), k = 0;
  for (int i = 0; i < n - 1 && k < cap; i++)
    out[k++] = v[i].hash;
  return k;
}

mqss_status policy_net_config(mqss_session *s, const mqss_catalog *c,
                              const char *arch, int hidden, nn_config *cfg) {
  nn_config_default(cfg);
  if (arch && nn_arch_parse(arch, &cfg->arch) != 0)
    return fail(s, MQSS_ERR_INVALID_ARG, "unknown architecture '%s'; use "
                "gnn or mlp", arch);
  if (hidden > 0)
    cfg->hidden_dim = hidden;
  cfg->state_dim = MQSS_FEATURE_DIM;
  cfg->node_dim = MQSS_GRAPH_FEATURE_DIM;
  if (cfg->arch == NN_ARCH_GNN) {
    cfg->embed_dim = OP_EMBED_DIM;
    cfg->embed_rows = mqss_op_kind_count() + 1;
  }
  int n = mqss_catalog_size(c), stop = mqss_catalog_stop(c);
  if (stop < 0 || n - 1 > NN_MAX_ACTIONS)
    return fail(s, MQSS_ERR_INVALID_ARG, "the catalog needs a STOP action "
                "and at most %d others", NN_MAX_ACTIONS);
  cfg->n_actions = n - 1;
  for (int i = 0, j = 0; i < n; i++)
    if (i != stop)
      cfg->param_count[j++] = mqss_catalog_action(c, i)->n_params;
  return MQSS_OK;
}

mqss_status policy_migrate(mqss_session *s, const char *path,
                           uint64_t feature_hash, const nn_config *cfg,
                           uint64_t seed, nn_model **model) {
  const feature_layout *from = feature_layout_of_hash(feature_hash);
  if (!from)
    return fail(s, MQSS_ERR_POLICY, "policy '%s': unknown feature layout "
                "%016llx; retrain the policy", path,
                (unsigned long long)feature_hash);
  const nn_config *o = &(*model)->cfg;
  // ctx.last.k is (id + 1) / catalog size: with more actions the same id
  // reads smaller, so its weights grow by the same factor.
  float scale[MQSS_FEATURE_DIM];
  for (int i = 0; i < MQSS_FEATURE_DIM; i++)
    scale[i] = i >= F_LAST && i <= F_LAST_LAST
                   ? (float)(cfg->n_actions + 1) / (float)(o->n_actions + 1)
                   : 1.0f;
  nn_migration mig = {.kind_scale = from->kind_scale,
                      .low_logit = POLICY_NEW_ACTION_LOGIT,
                      .state_scale = scale};
  if (o->state_dim != from->state_dim || o->state_dim > MQSS_FEATURE_DIM ||
      (o->arch == NN_ARCH_GNN && o->node_dim != from->node_dim))
    return fail(s, MQSS_ERR_POLICY, "policy '%s': state/node dimensions "
                "%d/%d do not match its feature layout v%d (%d/%d); the file "
                "is inconsistent", path, o->state_dim, o->node_dim,
                from->version, from->state_dim, from->node_dim);
  char err[512];
  nn_model *m = nn_model_migrate(*model, cfg, &mig, seed, err, sizeof err);
  if (!m)
    return fail(s, MQSS_ERR_POLICY, "policy '%s': cannot migrate it from "
                "feature layout v%d: %s", path, from->version, err);
  nn_model_destroy(*model);
  *model = m;
  return MQSS_OK;
}

mqss_status policy_read_parent(mqss_session *s, const char *path,
                               const mqss_catalog *c, nn_model **model,
                               nn_file_meta *meta) {
  *model = NULL;
  strbuf buf = {0};
  if (!sb_read_file(&buf, path)) {
    int e = errno;
    sb_free(&buf);
    return fail(s, MQSS_ERR_IO, "cannot open policy '%s': %s", path,
                strerror(e));
  }
  uint64_t old[8];
  nn_load_check check = {
      .feature_hash = mqss_feature_layout_hash(),
      .catalog_hash = mqss_catalog_hash(c),
      .prefix_hashes = catalog_prefix_hashes(c),
      .n_prefix_hashes = mqss_catalog_size(c) + 1,
      .mlir_version = mqss_mlir_version(),
      .old_feature_hashes = old,
      .n_old_feature_hashes = policy_old_layout_hashes(old, 8),
  };
  char err[1024];
  nn_status ns = nn_policy_parse((const uint8_t *)buf.data, buf.len, path,
                                 &check, model, meta, err, sizeof err);
  uint64_t file_hash = nn_fnv1a64((const uint8_t *)buf.data, buf.len);
  sb_free(&buf);
  if (ns != NN_OK)
    return fail(s, ns == NN_ERR_NOMEM ? MQSS_ERR_NOMEM : MQSS_ERR_POLICY,
                "%s", err);
  const feature_layout *from = feature_layout_of_hash(meta->feature_hash);
  // what the child records about its parent
  meta->parent_hash = file_hash;
  meta->parent_feature_hash = meta->feature_hash;
  meta->parent_catalog_hash = meta->catalog_hash;
  meta->parent_feature_version = from ? from->version : 0;
  meta->parent_actions = (*model)->cfg.n_actions;
  return MQSS_OK;
}
