// Loader of train_config.yaml. The accepted keys are one table (name, type,
// field, range); the loader walks the YAML mapping tree and looks each key up
// in it, so adding a setting is one table line plus one struct field. It does
// not interpret the values: the trainer does.
#include "rl/config.h"

#include "util/yaml_file.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// the key table

typedef enum { K_INT, K_FLOAT, K_STRING } key_type;

static const struct key {
  const char *name; // "section.key"
  key_type type;
  size_t offset;    // of the field in train_config
  size_t size;      // of a string field
  double min, max;  // numeric range; for strings, unused
  const char *allowed; // strings: space-separated allowed values, or NULL
  const char *help;
} keys[] = {
#define F(field) offsetof(train_config, field), sizeof(((train_config *)0)->field)
    {"rl.algorithm", K_STRING, F(algorithm), 0, 0, "ppo", "training algorithm"},
    {"rl.num_workers", K_INT, F(num_workers), 1, 256, NULL, "rollout workers"},
    {"rl.rollout_steps", K_INT, F(rollout_steps), 1, 1 << 24, NULL, "steps per iteration"},
    {"rl.batch_size", K_INT, F(batch_size), 1, 1 << 24, NULL, "samples per update"},
    {"rl.minibatch", K_INT, F(minibatch), 1, 1 << 20, NULL, "samples per gradient step"},
    {"rl.epochs", K_INT, F(epochs), 1, 1000, NULL, "passes over each batch"},
    {"rl.lr", K_FLOAT, F(lr), 1e-8, 1, NULL, "Adam learning rate"},
    {"rl.clip", K_FLOAT, F(clip), 0.001, 1, NULL, "PPO clip epsilon"},
    {"rl.gamma", K_FLOAT, F(gamma), 0, 1, NULL, "discount"},
    {"rl.lambda", K_FLOAT, F(lambda), 0, 1, NULL, "GAE lambda"},
    {"rl.value_coef", K_FLOAT, F(value_coef), 0, 100, NULL, "value-loss weight"},
    {"rl.entropy_start", K_FLOAT, F(entropy_start), 0, 10, NULL, "entropy bonus, first iteration"},
    {"rl.entropy_end", K_FLOAT, F(entropy_end), 0, 10, NULL, "entropy bonus, last iteration"},
    {"rl.epsilon_greedy", K_FLOAT, F(epsilon_greedy), 0, 1, NULL, "random-action probability"},
    {"rl.max_grad_norm", K_FLOAT, F(max_grad_norm), 0, 1e6, NULL, "gradient clip (0 = off)"},
    {"rl.max_steps", K_INT, F(max_steps), 1, 256, NULL, "actions per episode"},
    {"rl.iterations", K_INT, F(iterations), 0, 1 << 24, NULL, "PPO iterations (0: behaviour cloning only)"},
    {"rl.checkpoint_every", K_INT, F(checkpoint_every), 1, 1 << 24, NULL, "iterations between checkpoints"},
    {"rl.early_stop_steps", K_INT, F(early_stop_steps), 0, 1 << 30, NULL, "early-stop window (0 = off)"},
    {"rl.early_stop_variance", K_FLOAT, F(early_stop_var), 0, 1e9, NULL, "early-stop return variance"},
    {"rl.seed", K_INT, F(seed), 0, 2147483647, NULL, "RNG seed"},
    {"rl.pin_workers", K_INT, F(pin_workers), 0, 1, NULL, "pin workers to cores (0/1)"},
    {"rl.bc_epochs", K_INT, F(bc_epochs), 0, 100000, NULL, "behaviour-cloning epochs before PPO"},
    {"rl.bc_lr", K_FLOAT, F(bc_lr), 0, 1, NULL, "behaviour-cloning learning rate (0 = rl.lr)"},
    {"rl.bc_log_std", K_FLOAT, F(bc_log_std), -10, 0, NULL, "parameter log-std after cloning (0 = leave)"},
    {"env.baseline_json", K_STRING, F(baseline_json), 0, 0, NULL, "per-module baselines"},
    {"env.manifest", K_STRING, F(manifest), 0, 0, NULL, "training modules, one a line"},
    {"env.target_device", K_STRING, F(target_device), 0, 0, "host", "where code runs"},
    {"env.reward.success", K_FLOAT, F(w_success), -100, 100, NULL, "success weight"},
    {"env.reward.compile_time", K_FLOAT, F(w_compile), -100, 100, NULL, "compile-time weight"},
    {"env.reward.runtime", K_FLOAT, F(w_runtime), -100, 100, NULL, "runtime weight"},
    {"env.reward.code_size", K_FLOAT, F(w_size), -100, 100, NULL, "code-size weight"},
    {"env.reward.ema", K_FLOAT, F(reward_ema), 0, 0.9999, NULL, "reward EMA alpha (0 = off)"},
    {"env.measure.warmup", K_INT, F(warmup), 0, 1000, NULL, "untimed runs per measurement"},
    {"env.measure.repeat", K_INT, F(repeat), 1, 1000, NULL, "timed runs per measurement"},
    {"env.measure.timeout_ms", K_INT, F(timeout_ms), 100, 86400000, NULL, "measurement time limit"},
    {"env.measure.cache", K_STRING, F(cache), 0, 0, NULL, "measurement cache file"},
    {"policy.arch", K_STRING, F(arch), 0, 0, "gnn mlp", "network architecture"},
    {"policy.hidden", K_INT, F(hidden), 4, 4096, NULL, "hidden width"},
    {"expit.rounds", K_INT, F(expit_rounds), 0, 10000, NULL, "expert-iteration rounds (0 = plain PPO)"},
    {"expit.search_budget", K_INT, F(expit_budget), 0, 100000, NULL,
     "evaluations per module and round (0 = no search: clone the winners carried over)"},
    {"expit.proposals", K_INT, F(expit_proposals), 0, 10000, NULL, "policy proposals in that budget"},
    {"expit.bc_epochs", K_INT, F(expit_bc_epochs), 0, 100000, NULL, "cloning epochs per round"},
    {"expit.ppo_iterations", K_INT, F(expit_ppo_iterations), 0, 1 << 20, NULL, "PPO iterations per round"},
    {"expit.kl_coef", K_FLOAT, F(expit_kl), 0, 1000, NULL, "KL(clone || policy) weight during PPO"},
    {"expit.confirm_pairs", K_INT, F(expit_confirm_pairs), 1, 1000, NULL, "A/B pairs of each confirmation"},
    {"expit.holdout", K_STRING, F(expit_holdout), 0, 0, NULL, "hold-out manifest (\"\" = none)"},
    {"expit.seed_baselines", K_STRING, F(expit_seed_baselines), 0, 0, NULL,
     "family baselines that seed search and cloning (\"\" = none)"},
    {"expit.modules_per_round", K_INT, F(expit_modules_per_round), 0, 1 << 24, NULL,
     "training modules each round searches, a rotating subset (0 = all)"},
    {"expit.winners_from", K_STRING, F(expit_winners_from), 0, 0, NULL,
     "winners.tsv of an earlier run on the same manifest that the first round starts from (\"\" = none)"},
    {"expit.holdout_every", K_INT, F(expit_holdout_every), 1, 10000, NULL,
     "hold-out figure every k rounds (and in the last round)"},
    {"expit.seed_margin", K_FLOAT, F(expit_seed_margin), 0, 10, NULL,
     "clone the seed unless the winner is confirmed faster than it by this margin (0 = off)"},
    {"expit.families", K_STRING, F(expit_families), 0, 0, NULL,
     "families (the manifest's second column) whose modules the rounds search, space-separated (\"\" = all)"},
    {"expit.bc_anchor", K_FLOAT, F(expit_bc_anchor), 0, 100, NULL,
     "weight of KL(the round's start policy || pi) in cloning, on the states where the demonstration takes its greedy action (0 = off)"},
    {"expit.compile_limit", K_FLOAT, F(expit_compile_limit), 0, 10, NULL,
     "with expit.seed_margin: a winner whose compile time exceeds its seed's (no passes' without one) by more than this relative margin is cloned as the seed, and the search does not pick a candidate over it (0 = off)"},
    {"expit.adapt_sizes", K_INT, F(expit_adapt_sizes), 0, 1, NULL,
     "1: a seed's schedule decision whose sizes do not divide its module's loops gets the nearest sizes that do, instead of the module being refused"},
    {"expit.bc_only", K_STRING, F(expit_bc_only), 0, 0, NULL,
     "catalog actions, space-separated, whose output rows alone learn while cloning; the rest of the network stays as it starts (\"\" = all weights learn)"},
    {"policy.init_from", K_STRING, F(init_from), 0, 0, NULL,
     "start from this policy, migrated (--init-from)"},
#undef F
};

enum { NKEYS = sizeof keys / sizeof keys[0] };

int train_task_timeout_ms(const train_config *c) {
  int64_t ms = 2 * (int64_t)c->timeout_ms * c->max_steps;
  return ms > INT_MAX ? INT_MAX : (int)ms;
}

void train_config_defaults(train_config *c) {
  *c = (train_config){
      .algorithm = "ppo", .num_workers = 2, .rollout_steps = 256,
      .batch_size = 256, .minibatch = 64, .epochs = 4, .lr = 3e-4f,
      .clip = 0.2f, .gamma = 0.99f, .lambda = 0.95f, .value_coef = 0.5f,
      .entropy_start = 0.05f, .entropy_end = 0.01f, .epsilon_greedy = 0.1f,
      .max_grad_norm = 0.5f, .max_steps = 16, .iterations = 100,
      .checkpoint_every = 5, .early_stop_steps = 5000, .early_stop_var = 1e-3f,
      .seed = 0, .pin_workers = 0, .baseline_json = "baseline.json",
      .manifest = "", .target_device = "host", .w_success = 0.3f,
      .w_compile = 0.2f, .w_runtime = 0.4f, .w_size = 0.1f, .reward_ema = 0,
      .warmup = 1, .repeat = 5, .timeout_ms = 20000, .cache = "",
      .arch = "gnn", .hidden = 128, .expit_rounds = 0, .expit_budget = 24,
      .expit_proposals = 8, .expit_bc_epochs = 50, .expit_ppo_iterations = 5,
      .expit_kl = 0.1f, .expit_confirm_pairs = 10, .expit_holdout = "",
      .expit_modules_per_round = 0, .expit_holdout_every = 1};
}

// ----------------------------------------------------------------------------
// values

static const struct key *find_key(const char *name) {
  for (int i = 0; i < NKEYS; i++)
    if (!strcmp(keys[i].name, name))
      return &keys[i];
  return NULL;
}

static bool word_in(const char *word, const char *list) {
  size_t n = strlen(word);
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, " ");
    if (len == n && !strncmp(p, word, n))
      return true;
    p += len + (p[len] == ' ');
  }
  return false;
}

// Stores `text` into the field of `k`; returns NULL or a static reason.
static const char *set_value(train_config *c, const struct key *k,
                             const char *text) {
  char *field = (char *)c + k->offset;
  if (k->type == K_STRING) {
    if (k->allowed && !word_in(text, k->allowed))
      return "is not one of the allowed values";
    if (strlen(text) >= k->size)
      return "is too long";
    strcpy(field, text);
    return NULL;
  }
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end || errno || !isfinite(v))
    return "is not a number";
  if (k->type == K_INT && v != floor(v))
    return "is not an integer";
  if (v < k->min || v > k->max)
    return "is out of range";
  if (k->type == K_INT)
    *(int *)field = (int)v;
  else
    *(float *)field = (float)v;
  return NULL;
}

static mqss_status key_error(mqss_session *s, const char *path,
                             yaml_node_t *node, const char *name,
                             const struct key *k, const char *why) {
  strbuf hint = {0};
  if (!k) {
    sb_printf(&hint, "known keys:");
    for (int i = 0; i < NKEYS; i++)
      sb_printf(&hint, " %s", keys[i].name);
  } else if (k->allowed) {
    sb_printf(&hint, "allowed: %s", k->allowed);
  } else if (k->type != K_STRING) {
    sb_printf(&hint, "%s: a%s in [%g, %g]", k->help,
              k->type == K_INT ? "n integer" : " number", k->min, k->max);
  } else {
    sb_printf(&hint, "%s", k->help);
  }
  mqss_status st = fail(s, MQSS_ERR_INVALID_ARG, "%s:%zu:%zu: key '%s' %s (%s)",
                        path, node->start_mark.line + 1,
                        node->start_mark.column + 1, name, why,
                        hint.data ? hint.data : "");
  sb_free(&hint);
  return st;
}

void train_config_format(const train_config *c, char *buf, size_t n) {
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; i < NKEYS && at < n; i++) {
    const char *field = (const char *)c + keys[i].offset;
    int w;
    if (keys[i].type == K_STRING)
      w = snprintf(buf + at, n - at, "%s%s=%s", i ? " " : "", keys[i].name, field);
    else if (keys[i].type == K_INT)
      w = snprintf(buf + at, n - at, "%s%s=%d", i ? " " : "", keys[i].name,
                   *(const int *)field);
    else
      w = snprintf(buf + at, n - at, "%s%s=%g", i ? " " : "", keys[i].name,
                   (double)*(const float *)field);
    at += w > 0 ? (size_t)w : 0;
  }
}

// ----------------------------------------------------------------------------
// the tree walk

static mqss_status walk(mqss_session *s, const char *path, yaml_document_t *doc,
                        yaml_node_t *map, const char *prefix, train_config *c) {
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *kn = yaml_document_get_node(doc, p->key);
    yaml_node_t *vn = yaml_document_get_node(doc, p->value);
    if (kn->type != YAML_SCALAR_NODE)
      return key_error(s, path, kn, prefix, NULL, "has a non-scalar key");
    char name[256];
    snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "",
             (const char *)kn->data.scalar.value);
    if (vn->type == YAML_MAPPING_NODE) {
      mqss_status st = walk(s, path, doc, vn, name, c);
      if (st != MQSS_OK)
        return st;
      continue;
    }
    const struct key *k = find_key(name);
    if (!k)
      return key_error(s, path, kn, name, NULL, "is unknown");
    if (vn->type != YAML_SCALAR_NODE)
      return key_error(s, path, vn, name, k, "needs a single value");
    const char *why = set_value(c, k, (const char *)vn->data.scalar.value);
    if (why)
      return key_error(s, path, vn, name, k, why);
  }
  return MQSS_OK;
}

static mqss_status check_consistency(mqss_session *s, const char *path,
                                     const train_config *c) {
  if (c->batch_size > c->rollout_steps)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "%s: rl.batch_size (%d) exceeds rl.rollout_steps (%d); lower it",
                path, c->batch_size, c->rollout_steps);
  if (c->minibatch > c->batch_size)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "%s: rl.minibatch (%d) exceeds rl.batch_size (%d); lower it",
                path, c->minibatch, c->batch_size);
  return MQSS_OK;
}

mqss_status train_config_load(mqss_session *s, const char *path,
                              train_config *c) {
  diag_reset(s, path);
  yaml_document_t doc;
  mqss_status st = yaml_load_file(s, path, "", NULL, &doc);
  if (st == MQSS_OK) {
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root && root->type != YAML_MAPPING_NODE)
      st = fail(s, MQSS_ERR_INVALID_ARG,
                "%s:%zu:%zu: the top level must be a mapping of sections (rl, env, policy)",
                path, root->start_mark.line + 1, root->start_mark.column + 1);
    else if (root)
      st = walk(s, path, &doc, root, "", c);
    if (st == MQSS_OK)
      st = check_consistency(s, path, c);
    yaml_document_delete(&doc);
  }
  return st;
}
