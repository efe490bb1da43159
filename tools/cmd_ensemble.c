// `mqss ensemble OUT IN1 IN2 [IN3...]`: writes one policy file holding 2 to
// 8 networks (docs/POLICY_FORMAT.md, "Ensembles"); a policy loaded from it
// decides from the mean of its members' action log-probabilities
// (src/policy/step.c). The members must be f32 policies trained for the
// same feature layout, catalog, MLIR version, network shape and episode
// length. The file's metadata is the first member's, except train_config
// (which lists the members before the first one's own config),
// train_steps (their sum) and train_date (the latest). The file is read
// back before the command reports success.
#include "cli.h"
#include "nn/nn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The value of `key` ("rl.max_steps=") in a train_config, or -1.
static int config_int(const char *config, const char *key) {
  const char *p = strstr(config, key);
  return p ? atoi(p + strlen(key)) : -1;
}

// Why member b cannot join member a ("" when it can).
static const char *mismatch(const nn_file_meta *a, const nn_model *ma,
                            const nn_file_meta *b, const nn_model *mb) {
  const nn_config *x = &ma->cfg, *y = &mb->cfg;
  if (b->weight_dtype != NN_DTYPE_F32)
    return "it holds int8 weights (join the f32 originals, then quantize)";
  if (a->feature_hash != b->feature_hash)
    return "its feature layout differs";
  if (a->catalog_hash != b->catalog_hash)
    return "its catalog differs";
  if (strcmp(a->mlir_version, b->mlir_version) != 0)
    return "its MLIR version differs";
  if (x->arch != y->arch || x->hidden_dim != y->hidden_dim ||
      x->gnn_dim != y->gnn_dim || x->embed_dim != y->embed_dim ||
      x->embed_rows != y->embed_rows || ma->n_params != mb->n_params)
    return "its network has another shape";
  static const char *const keys[] = {"rl.max_steps=", "expit.adapt_sizes="};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    if (config_int(a->train_config, keys[k]) !=
        config_int(b->train_config, keys[k]))
      return "it was trained with another rl.max_steps or "
             "expit.adapt_sizes";
  return "";
}

// Appends text to buf (cap bytes, NUL-terminated, *pos used), cut at the end.
static void append(char *buf, size_t cap, size_t *pos, const char *text) {
  size_t n = strlen(text);
  if (n > cap - 1 - *pos)
    n = cap - 1 - *pos;
  memcpy(buf + *pos, text, n);
  *pos += n;
  buf[*pos] = '\0';
}

// The part of a train_config before its key=value list: "CONFIG (STEPS env
// steps, TIME s)", then its rl.seed.
static void summary(char *out, size_t n, const char *config) {
  const char *colon = strstr(config, ": ");
  int len = colon ? (int)(colon - config) : (int)strlen(config);
  if (len > 256)
    len = 256;
  snprintf(out, n, "%.*s rl.seed=%d", len, config,
           config_int(config, "rl.seed="));
}

int cmd_ensemble(int argc, char **argv) {
  const char *out = NULL, *in[NN_MAX_MEMBERS];
  int k = 0;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1])
      return cli_error("ensemble: unknown option '%s'; see 'mqss ensemble "
                       "--help'", argv[i]);
    if (!out)
      out = argv[i];
    else if (k == NN_MAX_MEMBERS)
      return cli_error("ensemble: at most %d members", NN_MAX_MEMBERS);
    else
      in[k++] = argv[i];
  }
  if (!out || k < 2)
    return cli_error("ensemble: needs OUT.safetensors and 2 to %d member "
                     "policies; see 'mqss ensemble --help'", NN_MAX_MEMBERS);
  char err[1024];
  nn_model *m[NN_MAX_MEMBERS] = {0}, *back[NN_MAX_MEMBERS] = {0};
  nn_file_meta meta[NN_MAX_MEMBERS], joined;
  int rc = 0, n_back = 0;
  for (int j = 0; j < k && rc == 0; j++) {
    // format only: loading the ensemble for selection checks the hashes
    if (nn_policy_read(in[j], NULL, &m[j], &meta[j], err, sizeof err) != NN_OK)
      rc = cli_error("ensemble: %s", err);
    const char *why = rc ? "" : mismatch(&meta[0], m[0], &meta[j], m[j]);
    if (*why)
      rc = cli_error("ensemble: '%s' cannot join '%s': %s", in[j], in[0], why);
  }
  if (rc)
    goto done;
  joined = meta[0];
  char *cfg = joined.train_config;
  size_t cap = sizeof joined.train_config, pos = 0;
  char one[320];
  snprintf(one, sizeof one, "ensemble of %d:", k);
  append(cfg, cap, &pos, one);
  joined.train_steps = 0;
  for (int j = 0; j < k; j++) {
    summary(one, sizeof one, meta[j].train_config);
    append(cfg, cap, &pos, " ");
    append(cfg, cap, &pos, one);
    append(cfg, cap, &pos, j + 1 < k ? ";" : "");
    joined.train_steps += meta[j].train_steps;
    if (strcmp(meta[j].train_date, joined.train_date) > 0)
      memcpy(joined.train_date, meta[j].train_date, sizeof joined.train_date);
  }
  // the first member's own config last: its keys stay findable
  append(cfg, cap, &pos, "; member 1: ");
  append(cfg, cap, &pos, meta[0].train_config);
  if (config_int(joined.train_config, "rl.max_steps=") !=
      config_int(meta[0].train_config, "rl.max_steps=")) {
    rc = cli_error("ensemble: the members' configs are too long to record "
                   "with the first one's rl.max_steps; shorten their paths");
    goto done;
  }
  if (nn_policy_write_members(out, (const nn_model *const *)m, k, &joined,
                              err, sizeof err) != NN_OK ||
      nn_policy_read_members(out, NULL, back, NN_MAX_MEMBERS, &n_back, NULL,
                             err, sizeof err) != NN_OK) {
    rc = cli_error("ensemble: %s", err);
    goto done;
  }
  for (int j = 0; j < k; j++)
    if (n_back != k || memcmp(back[j]->params_memory, m[j]->params_memory,
                              sizeof(float) * m[j]->n_params) != 0) {
      rc = cli_error("ensemble: '%s' reads back differently; the disk or "
                     "the writer is faulty", out);
      goto done;
    }
  printf("wrote '%s': an ensemble of %d networks (%zu parameters each)\n", out,
         k, m[0]->n_params);
done:
  for (int j = 0; j < NN_MAX_MEMBERS; j++) {
    nn_model_destroy(m[j]);
    nn_model_destroy(back[j]);
  }
  return rc;
}
