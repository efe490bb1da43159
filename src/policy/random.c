// Untrained policies: a network with random weights (fixed seed) and correct
// metadata for this build and a given catalog. For tests, benchmarks and
// `mqss select --init-random-policy` only; it chooses arbitrarily. It does
// not train anything.
#include "policy/policy.h"

#include <stdio.h>
#include <string.h>

mqss_status mqss_policy_write_random(mqss_session *s,
                                     const mqss_catalog *c, const char *arch,
                                     uint64_t seed, const char *path) {
  nn_config cfg;
  nn_config_default(&cfg);
  if (arch && nn_arch_parse(arch, &cfg.arch) != 0)
    return fail(s, MQSS_ERR_INVALID_ARG, "unknown architecture '%s'; use "
                "gnn or mlp", arch);
  cfg.state_dim = MQSS_FEATURE_DIM;
  cfg.node_dim = MQSS_GRAPH_FEATURE_DIM;
  if (cfg.arch == NN_ARCH_GNN) {
    cfg.embed_dim = OP_EMBED_DIM;
    cfg.embed_rows = mqss_op_kind_count() + 1;
  }
  int n = mqss_catalog_size(c), stop = mqss_catalog_stop(c);
  if (stop < 0 || n - 1 > NN_MAX_ACTIONS)
    return fail(s, MQSS_ERR_INVALID_ARG, "catalog needs a STOP action and at "
                "most %d others", NN_MAX_ACTIONS);
  cfg.n_actions = n - 1;
  for (int i = 0, j = 0; i < n; i++)
    if (i != stop)
      cfg.param_count[j++] = mqss_catalog_action(c, i)->n_params;
  nn_model *m = nn_model_create(&cfg, seed);
  if (!m)
    return fail(s, MQSS_ERR_NOMEM, "cannot create the network");
  nn_file_meta meta;
  memset(&meta, 0, sizeof meta);
  snprintf(meta.mlir_version, sizeof meta.mlir_version, "%s",
           mqss_mlir_version());
  meta.feature_hash = mqss_feature_layout_hash();
  meta.catalog_hash = mqss_catalog_hash(c);
  snprintf(meta.train_config, sizeof meta.train_config,
           "untrained: random init, seed %llu", (unsigned long long)seed);
  snprintf(meta.train_commit, sizeof meta.train_commit, "none");
  snprintf(meta.train_date, sizeof meta.train_date, "1970-01-01");
  meta.train_steps = 0;
  char err[1024];
  nn_status st = nn_policy_write(path, m, &meta, err, sizeof err);
  nn_model_destroy(m);
  if (st != NN_OK)
    return fail(s, st == NN_ERR_IO ? MQSS_ERR_IO : MQSS_ERR_INTERNAL, "%s",
                err);
  return MQSS_OK;
}
