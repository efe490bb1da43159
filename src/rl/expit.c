// Expert iteration (see expit.h). Each round R works in LOGDIR/round_R and
// leaves a file after each phase, written atomically, so that a run killed
// at any point resumes from the last finished one:
//   start.safetensors   the policy that guides the search
//   search_progress.tsv each searched module's outcome, appended as soon as
//                       it is known (expit_search.c): the search resumes
//                       with the modules not recorded yet
//   winners.tsv         per module: the best confirmed pipeline so far
//   cloned.tsv          per module: the demonstration cloning fitted (in
//                       winners.tsv's format; a later run's
//                       expit.winners_from, with expit.seed_margin 0, clones
//                       the same demonstrations without re-measuring them)
//   clone.bin           the weights after cloning (the KL anchor)
//   checkpoint.bin ...  PPO's own checkpoints and logs (train.c)
//   final.bin, row.csv  the weights after PPO and the round's figures
// LOGDIR/expit.csv is rebuilt from the row.csv files after every round.
#include "rl/expit.h"

#include "eval/search.h"
#include "rl/checkpoint.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const column_names[] = {
#define EXPIT_NAME(e, name) name,
    EXPIT_COLUMNS(EXPIT_NAME)
#undef EXPIT_NAME
};

static bool exists(const char *path) { return access(path, F_OK) == 0; }

// ----------------------------------------------------------------------------
// the phases

typedef struct {
  mqss_session *s;
  const train_options *o;
  const train_config *cfg;
  train_setup *setup;
  episode_ctx *ec;
  char dir[4096];      // this round's directory
  double row[EXPIT_NCOLS];
  nn_rng rng;
  const expit_hooks *hooks;
  int dropped;         // damaged search records dropped
  demo *seeds;         // (n_modules) family baselines; NULL = none
  int *recipes;        // (n_modules) their recipe actions, -1 = none
  bool bc_only;        // expit.bc_only is set: only bc_keep's rows learn
  bool bc_keep[NN_MAX_ACTIONS + 1]; // its actions (network order, STOP last)
} expit;

static void round_path(const expit *x, char *out, size_t n, const char *name) {
  snprintf(out, n, "%s/%s", x->dir, name);
}

static void measure_settings(const expit *x, mqss_measure_options *mo) {
  mqss_measure_options_init(mo);
  mo->warmup = x->cfg->warmup;
  mo->repeat = x->cfg->repeat;
  mo->timeout_ms = x->cfg->timeout_ms;
  mo->cache_path = train_setup_cache(x->setup);
  mo->code_size = 0;
}

// Two decisions do the same: the same action, scope, op and parameters.
static bool same_decision(const mqss_catalog *c, const mqss_decision *a,
                          const mqss_decision *b) {
  if (a->action != b->action || a->op != b->op ||
      !a->target != !b->target || (a->target && strcmp(a->target, b->target)))
    return false;
  const mqss_action *act = mqss_catalog_action(c, a->action);
  for (int k = 0; act && k < act->n_params; k++)
    if (mqss_param_map(&act->params[k], a->u[k]) !=
        mqss_param_map(&act->params[k], b->u[k]))
      return false;
  return true;
}

// dm with its leading copy of module i's seed replaced by the one recipe
// action that runs the same pipeline (a seed's pruned decisions change the
// IR as the whole recipe does), so that cloning learns to start from a
// recipe in one decision; dm unchanged when it does not start so.
static void fold_recipe(const expit *x, int i, demo *dm) {
  const demo *seed = x->seeds ? &x->seeds[i] : NULL;
  if (!x->recipes || x->recipes[i] < 0 || seed->n <= 0 || dm->n < seed->n)
    return;
  for (int k = 0; k < seed->n; k++)
    if (!same_decision(x->ec->catalog, &dm->d[k], &seed->d[k]))
      return;
  demo out = {.n = 1 + dm->n - seed->n};
  out.d[0] = (mqss_decision){.action = x->recipes[i]};
  memcpy(out.d + 1, dm->d + seed->n, (size_t)(out.n - 1) * sizeof *out.d);
  *dm = out;
}

// Whether module i's demonstration *dm (its pruned winner) is confirmed
// faster than its seed by expit.seed_margin: A = *dm, B = the seed,
// expit.confirm_pairs interleaved pairs, the whole interval of time(seed) /
// time(winner) above 1 + margin, and with expit.compile_limit L its compile
// time at most 1 + L times the seed's (expit_confirms). A winner that
// fails to measure is not; one whose seed alone fails is. Sets *beats; an
// error only when the module does not parse or the harness fails.
static mqss_status beats_seed(expit *x, int i, const demo *dm, bool *beats) {
  const demo *seed = &x->seeds[i];
  char *a = decisions_join(x->ec->catalog, dm->d, dm->n);
  char *b = decisions_join(x->ec->catalog, seed->d, seed->n);
  mqss_module *m = NULL;
  mqss_status st =
      a && b ? mqss_module_parse_file(x->s, x->ec->module_paths[i], &m)
             : fail(x->s, MQSS_ERR_INVALID_ARG, "%s: cannot write the pipeline "
                    "of its winner or seed: %s", x->ec->module_paths[i],
                    mqss_errmsg(x->s));
  mqss_measure_vs_result vs;
  if (st == MQSS_OK) {
    mqss_measure_options mo;
    measure_settings(x, &mo);
    mo.pipeline = a;
    mo.repeat = x->cfg->expit_confirm_pairs;
    st = mqss_measure_vs(m, &mo, b, &vs);
  }
  if (st == MQSS_OK)
    *beats = expit_confirms(&vs, x->cfg->expit_seed_margin,
                            x->cfg->expit_compile_limit);
  mqss_module_destroy(m);
  free(a);
  free(b);
  return st;
}

// A copy of m's weights (an anchor), NULL when out of memory.
static nn_model *model_copy(const nn_model *m) {
  nn_model *c = nn_model_create(&m->cfg, 0);
  if (c)
    memcpy(c->params_memory, m->params_memory, m->n_params * sizeof(float));
  return c;
}

// Whether two demonstrations are the same decisions.
static bool same_demo(const mqss_catalog *c, const demo *a, const demo *b) {
  if (a->n != b->n)
    return false;
  for (int k = 0; k < a->n; k++)
    if (!same_decision(c, &a->d[k], &b->d[k]))
      return false;
  return true;
}

// 2. Cloning on the winners, each without the decisions that leave its
// module unchanged where they stand (the search keeps them, at no cost
// there; a clone asked to take a step that changes nothing sees the same
// IR again and learns to repeat itself); a module without a winner (not
// searched yet) on its seed, the family baseline, when there is one (STOP
// when that baseline is no passes). A leading seed is cloned as its recipe
// action (fold_recipe). With expit.seed_margin, a seeded module's winner
// (STOP included) that is not confirmed faster than its seed by the margin
// is cloned as the seed (as STOP where the seed is STOP), so that a
// family's demonstrations agree on its recipe wherever the search did not
// clearly beat it. Only the modules the rounds may search are
// measured so (expit.families): another family's winners, carried from an
// earlier run that confirmed them, stand as they are, so that re-measuring
// borderline winners does not change their labels from run to run. With
// expit.bc_anchor, the clone is also held to the round's start policy where
// a demonstration takes its greedy action (nn_bc_forward), so that
// unchanged labels keep their old distribution. With expit.bc_only, only
// the named actions' output rows learn (nn_grad_keep_actions): a policy
// extended to a new action keeps its choices among the old ones.

// Sets x->bc_keep to the actions that expit.bc_only names; false when it
// names an action the catalog lacks.
static bool bc_only_flags(expit *x) {
  const mqss_catalog *c = x->ec->catalog;
  bool *keep = x->bc_keep;
  x->bc_only = x->cfg->expit_bc_only[0] != 0;
  memset(keep, 0, sizeof x->bc_keep);
  for (const char *p = x->cfg->expit_bc_only; *(p += strspn(p, " "));
       p += strcspn(p, " ")) {
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(p, " "), p);
    int i = mqss_catalog_find(c, name);
    if (i < 0) {
      fail(x->s, MQSS_ERR_INVALID_ARG, "expit.bc_only names '%s', which the "
           "catalog does not have; name actions of `mqss catalog`", name);
      return false;
    }
    keep[episode_nn_action(c, i)] = true;
  }
  return true;
}

// Writes the demonstrations clone_winners fits to ROUND/cloned.tsv: each
// module's decisions as cloned, with its winner's confirmed speedup where
// the winner is cloned and 1 where its seed stands in (not measured here).
static mqss_status save_cloned(expit *x, const demo *cloned,
                               const double *speedup) {
  int n = x->ec->n_modules;
  expit_winner *out = calloc((size_t)n, sizeof *out);
  if (!out)
    return fail(x->s, MQSS_ERR_NOMEM, "out of memory");
  mqss_status st = MQSS_OK;
  for (int i = 0; st == MQSS_OK && i < n; i++) {
    out[i].n = cloned[i].n;
    if (cloned[i].n < 0)
      continue;
    out[i].speedup = speedup[i];
    memcpy(out[i].d, cloned[i].d, (size_t)cloned[i].n * sizeof *out[i].d);
    char *text = decisions_join(x->ec->catalog, cloned[i].d, cloned[i].n);
    if (!text || strlen(text) >= sizeof out[i].pipeline)
      st = fail(x->s, MQSS_ERR_NOMEM, "%s: cannot write the pipeline of its "
                "demonstration", x->ec->module_paths[i]);
    else
      snprintf(out[i].pipeline, sizeof out[i].pipeline, "%s", text);
    free(text);
  }
  char path[4200];
  round_path(x, path, sizeof path, "cloned.tsv");
  if (st == MQSS_OK)
    st = expit_winners_save(x->s, path, out, n);
  free(out);
  return st;
}

_Static_assert(EXPIT_MAX_DECISIONS <= DEMO_MAX, "a winner fits a demo");
static mqss_status clone_winners(expit *x, const expit_winner *w) {
  const train_config *cfg = x->cfg;
  int n = x->ec->n_modules;
  const mqss_decision **seqs = calloc((size_t)n, sizeof *seqs);
  int *lens = calloc((size_t)n, sizeof *lens);
  demo *cloned = calloc((size_t)n, sizeof *cloned);
  double *speedup = calloc((size_t)n, sizeof *speedup); // for cloned.tsv
  bool *pooled = calloc((size_t)n, sizeof *pooled);     // confirmed here
  int recipe_demos = 0; // demonstrations that start with a recipe action
  int seeds_kept = 0;   // winners cloned as their seed (expit.seed_margin)
  rollout_buffer rb = {0};
  mqss_status st = MQSS_OK;
  int cap = n * (EXPIT_MAX_DECISIONS + 1) + 64; // every winner, then STOP
  if (!seqs || !lens || !cloned || !speedup || !pooled ||
      rb_init(&rb, x->ec->model, cap) != 0)
    st = fail(x->s, MQSS_ERR_NOMEM, "out of memory");
  if (st == MQSS_OK && cfg->expit_seed_margin > 0)
    st = expit_search_pool(x->s, cfg, n, pooled);
  for (int i = 0; st == MQSS_OK && i < n; i++) {
    bool seed = w[i].n < 0 && x->seeds && x->seeds[i].n >= 0;
    speedup[i] = seed ? 1.0 : w[i].speedup;
    if (seed) {
      cloned[i] = x->seeds[i];
    } else if (w[i].n > 0) {
      cloned[i].n = w[i].n;
      memcpy(cloned[i].d, w[i].d, (size_t)w[i].n * sizeof *w[i].d);
      // a winner that no longer applies here is cloned as it was recorded
      demo pruned = cloned[i];
      if (demo_prune(x->s, x->ec->catalog, x->ec->module_paths[i],
                     &pruned, NULL) == MQSS_OK)
        cloned[i] = pruned;
    } else {
      cloned[i].n = w[i].n; // STOP (0), or nothing known (-1)
    }
    bool beats = true;
    if (st == MQSS_OK && !seed && cloned[i].n >= 0 && pooled[i] &&
        cfg->expit_seed_margin > 0 && x->seeds && x->seeds[i].n >= 0 &&
        !same_demo(x->ec->catalog, &cloned[i], &x->seeds[i]) &&
        (st = beats_seed(x, i, &cloned[i], &beats)) == MQSS_OK && !beats) {
      cloned[i] = x->seeds[i];
      speedup[i] = 1.0;
      seeds_kept++;
    }
    fold_recipe(x, i, &cloned[i]);
    seqs[i] = cloned[i].d;
    lens[i] = cloned[i].n;
    recipe_demos += lens[i] > 0 && catalog_is_recipe(x->ec->catalog,
                                                     seqs[i][0].action);
  }
  x->row[E_CLONE_RECIPES] = recipe_demos;
  x->row[E_SEEDS_KEPT] = seeds_kept;
  if (st == MQSS_OK)
    st = save_cloned(x, cloned, speedup);
  bc_inputs in = {x->ec->catalog, x->ec->model, n, x->ec->module_paths, NULL,
                  cfg->max_steps};
  bc_counts counts;
  if (st == MQSS_OK)
    st = bc_collect_decisions(x->s, &in, seqs, lens, &rb, &counts);
  nn_adam_config adam = {.lr = cfg->bc_lr > 0 ? cfg->bc_lr : cfg->lr,
                         .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f,
                         .max_grad_norm = cfg->max_grad_norm};
  float first = NAN, last = NAN;
  nn_model *anchor = NULL; // the round's start policy (expit.bc_anchor)
  if (st == MQSS_OK && cfg->expit_bc_anchor > 0 &&
      (anchor = model_copy(x->ec->model)) == NULL)
    st = fail(x->s, MQSS_ERR_NOMEM, "out of memory");
  if (st == MQSS_OK &&
      bc_update(x->ec->model, &rb, cfg->expit_bc_epochs, cfg->minibatch, &adam,
                anchor, cfg->expit_bc_anchor, x->bc_only ? x->bc_keep : NULL,
                &x->rng, &first, &last) != 0)
    st = fail(x->s, MQSS_ERR_NOMEM, "out of memory in behaviour cloning");
  nn_model_destroy(anchor);
  x->row[E_CLONE_FIRST] = first;
  x->row[E_CLONE_LAST] = last;
  rb_free(&rb);
  free(seqs);
  free(lens);
  free(cloned);
  free(speedup);
  free(pooled);
  return st;
}

// Hold-out speedup of `policy_path`: geomean over the hold-out modules of
// the paired speedup of its (isolated, greedy) selection over the reference.
static mqss_status holdout(expit *x, char *const *paths, int n,
                           const char *policy_path) {
  x->row[E_HOLDOUT] = NAN;
  x->row[E_HOLDOUT_FAILED] = 0;
  if (n == 0)
    return MQSS_OK;
  mqss_policy *p = NULL;
  mqss_status st = mqss_policy_load(x->s, policy_path, NULL, &p);
  double log_sum = 0;
  int ok = 0, failed = 0;
  for (int i = 0; st == MQSS_OK && i < n; i++) {
    mqss_module *m = NULL;
    mqss_selection *sel = NULL;
    mqss_select_options so;
    mqss_select_options_init(&so);
    so.isolate = 1;
    so.max_steps = x->cfg->max_steps;
    if ((st = mqss_module_parse_file(x->s, paths[i], &m)) != MQSS_OK)
      break;
    if (mqss_policy_select(p, m, &so, &sel) == MQSS_OK) {
      mqss_measure_options mo;
      measure_settings(x, &mo);
      mo.pipeline = mqss_selection_pipeline(sel);
      mo.repeat = x->cfg->expit_confirm_pairs;
      mqss_measure_vs_result vs;
      st = mqss_measure_vs(m, &mo, "", &vs);
      if (st == MQSS_OK && vs.a.status == MQSS_MEASURE_OK &&
          vs.b.status == MQSS_MEASURE_OK && vs.ratio_hl > 0) {
        log_sum += log(vs.ratio_hl);
        ok++;
      } else if (st == MQSS_OK && vs.b.status == MQSS_MEASURE_OK) {
        failed++; // the policy's pipeline failed where the reference did not
      }
    } else {
      failed++;
    }
    mqss_selection_destroy(sel);
    mqss_module_destroy(m);
  }
  mqss_policy_destroy(p);
  x->row[E_HOLDOUT] = ok ? exp(log_sum / ok) : NAN;
  x->row[E_HOLDOUT_FAILED] = failed;
  return st;
}

// An error naming `path` when a winner of w (n modules) has an action this
// catalog does not (winners of a run on a larger catalog).
static mqss_status check_actions(const expit *x, const char *path,
                                 const expit_winner *w, int n) {
  int size = mqss_catalog_size(x->ec->catalog);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < w[i].n; k++)
      if (w[i].d[k].action >= size)
        return fail(x->s, MQSS_ERR_INVALID_ARG, "%s: the winner of module %d "
                    "(%s) has action %d, outside this catalog of %d actions; "
                    "train with the catalog it was found with (MQSS_CATALOG), "
                    "or remove its line", path, i, x->ec->module_paths[i],
                    w[i].d[k].action, size);
  return MQSS_OK;
}

// Field `col` of a row.csv line (NAN when the line is shorter).
static double row_field(const char *row, int col) {
  for (int c = 0; c < col && row; c++)
    if ((row = strchr(row, ',')) != NULL)
      row++;
  return row ? strtod(row, NULL) : NAN;
}

// Rebuilds LOGDIR/expit.csv from the finished rounds' row.csv files and
// sets *elapsed_s (if non-NULL) to the sum of their times.
static mqss_status write_csv(expit *x, int rounds, double *elapsed_s) {
  double total = 0;
  strbuf sb = {0};
  for (int c = 0; c < EXPIT_NCOLS; c++)
    sb_printf(&sb, "%s%s", c ? "," : "", column_names[c]);
  sb_printf(&sb, "\n");
  for (int r = 0; r < rounds; r++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/round_%d/row.csv", x->o->log_dir, r);
    strbuf row = {0};
    if (sb_read_file(&row, path)) {
      sb_printf(&sb, "%s", row.data);
      double t = row_field(row.data, E_ELAPSED);
      total += isfinite(t) ? t : 0;
    }
    sb_free(&row);
  }
  if (elapsed_s)
    *elapsed_s = total;
  char path[4200];
  snprintf(path, sizeof path, "%s/expit.csv", x->o->log_dir);
  mqss_status st = expit_write_atomic(x->s, path, sb.data);
  sb_free(&sb);
  return st;
}

// PPO iterations of round r: its metrics.csv's last iteration + 1 (0 when
// it logged none).
static long long round_iterations(const expit *x, int r) {
  char path[4200];
  snprintf(path, sizeof path, "%s/round_%d/metrics.csv", x->o->log_dir, r);
  strbuf sb = {0};
  long long n = 0;
  if (sb_read_file(&sb, path) && sb.len > 0) {
    size_t end = sb.len;
    while (end > 0 && sb.data[end - 1] == '\n')
      end--;
    sb.data[end] = '\0';
    const char *last = strrchr(sb.data, '\n');
    double it = last ? row_field(last + 1, 0) : NAN;
    n = isfinite(it) ? (long long)it + 1 : 0;
  }
  sb_free(&sb);
  return n;
}

// Writes the model's weights to `path` with the run so far in the metadata:
// its environment steps, the PPO iterations and time of the `rounds`
// finished rounds (from their row.csv; a round resumed after a kill counts
// from the resume), plus the time since `since_ms` of the round in progress
// (0: none).
static mqss_status export_weights(expit *x, int rounds, long long env_steps,
                                  double since_ms, const char *path) {
  double elapsed = 0;
  mqss_status st = write_csv(x, rounds, &elapsed);
  if (since_ms > 0)
    elapsed += (now_ms() - since_ms) / 1e3;
  long long iterations = 0;
  for (int r = 0; r < rounds; r++)
    iterations += round_iterations(x, r);
  if (st == MQSS_OK)
    st = train_export(x->s, x->o, x->ec->model, x->ec->catalog,
                      train_setup_parent(x->setup), iterations, env_steps,
                      elapsed, path);
  return st;
}

// The run's result, LOGDIR/policy.safetensors: the last round's weights
// (after its PPO) with the whole run in the metadata.
static mqss_status export_result(expit *x, int rounds, long long env_steps,
                                 char *out, size_t n) {
  snprintf(out, n, "%.4000s/policy.safetensors", x->o->log_dir);
  return export_weights(x, rounds, env_steps, 0, out);
}

// ----------------------------------------------------------------------------
// a round

typedef struct {
  double last_return;
  long long env_steps;
} ppo_seen;

static void on_ppo_iteration(void *ctx, int it, const double *m) {
  (void)it;
  ppo_seen *p = ctx;
  p->last_return = m[M_RETURN];
  p->env_steps = (long long)m[M_ENV_STEPS];
}

static mqss_status run_round(expit *x, int r, expit_winner *w,
                             char *const *hold, int n_hold,
                             long long *env_steps) {
  const train_config *cfg = x->cfg;
  nn_model *m = x->ec->model;
  char path[4200];
  mqss_status st = MQSS_OK;
  ckpt_state cs = {.rng = 1, .reward_ema = NAN};
  double t0 = now_ms();
  for (int c = 0; c < EXPIT_NCOLS; c++)
    x->row[c] = NAN;
  x->row[E_ROUND] = r;
  // 1. search: the modules search_progress.tsv does not record yet (all of
  // them recorded after a kill later in the round: nothing is searched)
  char start[4200];
  round_path(x, start, sizeof start, "start.safetensors");
  mqss_policy *pol = NULL;
  st = export_weights(x, r, *env_steps, t0, start);
  if (st == MQSS_OK)
    st = mqss_policy_load(x->s, start, NULL, &pol);
  mqss_measure_options mo;
  measure_settings(x, &mo);
  expit_search_in in = {x->s, cfg, x->ec, &mo, x->dir, r, pol, x->seeds,
                        x->hooks->on_searched, x->hooks->ctx};
  expit_search_figures f;
  if (st == MQSS_OK)
    st = expit_search_round(&in, w, &f);
  mqss_policy_destroy(pol);
  if (st == MQSS_OK) {
    x->row[E_SEARCH_GAIN] = f.gain;
    x->row[E_WINNERS] = f.winners;
    x->row[E_SEARCHED] = f.searched;
    x->row[E_EVALS] = f.evaluations;
    x->row[E_SELECTED] = f.selected;
    x->dropped += f.dropped;
    round_path(x, path, sizeof path, "winners.tsv");
    st = expit_winners_save(x->s, path, w, x->ec->n_modules);
  }
  // 2. cloning (skipped when clone.bin is on disk)
  round_path(x, path, sizeof path, "clone.bin");
  if (st == MQSS_OK && exists(path)) {
    st = ckpt_load(x->s, path, m, &cs);
  } else if (st == MQSS_OK) {
    st = clone_winners(x, w);
    if (st == MQSS_OK)
      st = ckpt_save(x->s, path, m, &cs);
    char clone[4200];
    round_path(x, clone, sizeof clone, "clone.safetensors");
    if (st == MQSS_OK)
      st = export_weights(x, r, *env_steps, t0, clone);
  }
  if (st != MQSS_OK)
    return st;
  // 3. PPO anchored to the clone, in this round's directory
  nn_model *anchor = model_copy(m);
  if (!anchor)
    return fail(x->s, MQSS_ERR_NOMEM, "out of memory");
  train_config pc = *cfg;
  pc.iterations = cfg->expit_ppo_iterations;
  pc.bc_epochs = 0;
  ppo_seen seen = {NAN, 0};
  train_options po = *x->o;
  po.cfg = &pc;
  po.log_dir = x->dir;
  char prev[4300];
  round_path(x, path, sizeof path, "checkpoint.bin");
  snprintf(prev, sizeof prev, "%s.prev", path);
  po.resume = exists(path) || exists(prev);
  po.stop_after = 0;
  po.on_iteration = on_ppo_iteration;
  po.ctx = &seen;
  po.anchor = anchor;
  po.kl_coef = cfg->expit_kl;
  train_result tr;
  st = train_run(x->s, x->setup, &po, &tr);
  nn_model_destroy(anchor);
  if (st != MQSS_OK)
    return st;
  *env_steps += tr.env_steps;
  x->row[E_PPO_RETURN] = seen.last_return;
  x->row[E_ENV_STEPS] = (double)*env_steps;
  // the hold-out figure every expit.holdout_every rounds and in the last
  if (((r + 1) % cfg->expit_holdout_every == 0 || r + 1 == cfg->expit_rounds) &&
      (st = holdout(x, hold, n_hold, tr.policy_path)) != MQSS_OK)
    return st;
  // 4. the round's weights and figures
  round_path(x, path, sizeof path, "final.bin");
  cs.env_steps = *env_steps;
  if ((st = ckpt_save(x->s, path, m, &cs)) != MQSS_OK)
    return st;
  x->row[E_ELAPSED] = (now_ms() - t0) / 1e3;
  strbuf row = {0};
  for (int c = 0; c < EXPIT_NCOLS; c++)
    sb_printf(&row, "%s%.6g", c ? "," : "", x->row[c]);
  sb_printf(&row, "\n");
  round_path(x, path, sizeof path, "row.csv");
  st = expit_write_atomic(x->s, path, row.data);
  sb_free(&row);
  return st;
}

// ----------------------------------------------------------------------------
// the rounds

mqss_status expit_run(mqss_session *s, train_setup *setup,
                      const train_options *o, const expit_hooks *hooks,
                      expit_result *out) {
  const train_config *cfg = o->cfg;
  expit_hooks none = {0};
  expit x = {.s = s, .o = o, .cfg = cfg, .setup = setup,
             .ec = train_setup_episodes(setup), .hooks = hooks ? hooks : &none};
  expit_result r = {0};
  mqss_status st = MQSS_OK;
  if (!bc_only_flags(&x)) // named before any time is spent
    return MQSS_ERR_INVALID_ARG;
  if (mkdir(o->log_dir, 0777) != 0 && errno != EEXIST)
    return fail(s, MQSS_ERR_IO, "cannot create '%s': %s", o->log_dir,
                strerror(errno));
  int n = x.ec->n_modules, n_hold = 0;
  char **hold = NULL;
  expit_winner *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
  if (!w)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++)
    w[i] = (expit_winner){.n = -1};
  if (cfg->expit_holdout[0])
    st = train_manifest_read(s, cfg->expit_holdout, &hold, &n_hold);
  // Finished rounds: resume after the last one, from its weights and winners.
  int start = 0;
  char path[4300];
  ckpt_state cs = {.rng = 1, .reward_ema = NAN};
  while (o->resume && st == MQSS_OK && start < cfg->expit_rounds) {
    snprintf(path, sizeof path, "%s/round_%d/row.csv", o->log_dir, start);
    if (!exists(path))
      break;
    start++;
  }
  if (st == MQSS_OK && start > 0) {
    snprintf(path, sizeof path, "%s/round_%d/final.bin", o->log_dir, start - 1);
    st = ckpt_load(s, path, x.ec->model, &cs);
    snprintf(path, sizeof path, "%s/round_%d/winners.tsv", o->log_dir, start - 1);
    if (st == MQSS_OK)
      st = expit_winners_load(s, path, w, n);
    if (st == MQSS_OK)
      st = check_actions(&x, path, w, n);
    r.env_steps = cs.env_steps;
  }
  // A fresh first round may start from an earlier run's winners.
  if (st == MQSS_OK && start == 0 && cfg->expit_winners_from[0]) {
    st = expit_winners_load(s, cfg->expit_winners_from, w, n);
    if (st == MQSS_OK)
      st = check_actions(&x, cfg->expit_winners_from, w, n);
  }
  r.resumed_at = start;
  if (st == MQSS_OK && start < cfg->expit_rounds && cfg->expit_seed_baselines[0]) {
    expit_seed_counts sc;
    st = expit_seeds(s, cfg, x.ec, &x.seeds, &x.recipes, &sc);
    if (st == MQSS_OK && x.hooks->on_seeds)
      x.hooks->on_seeds(x.hooks->ctx, &sc);
  }
  for (int round = start; st == MQSS_OK && round < cfg->expit_rounds; round++) {
    snprintf(x.dir, sizeof x.dir, "%s/round_%d", o->log_dir, round);
    if (mkdir(x.dir, 0777) != 0 && errno != EEXIST) {
      st = fail(s, MQSS_ERR_IO, "cannot create '%s': %s", x.dir, strerror(errno));
      break;
    }
    if (!o->resume) {
      // a fresh run must not pick up files of an earlier one
      const char *stale[] = {"search_progress.tsv", "winners.tsv", "clone.bin",
                             "checkpoint.bin", "checkpoint.bin.prev",
                             "row.csv"};
      for (size_t k = 0; k < sizeof stale / sizeof *stale; k++) {
        snprintf(path, sizeof path, "%s/%s", x.dir, stale[k]);
        remove(path);
      }
    }
    // each round's own stream: a resumed round clones as a straight one
    nn_rng_seed(&x.rng, (uint64_t)cfg->seed * 0x9e3779b97f4a7c15ULL + 7 + (uint64_t)round);
    if ((st = run_round(&x, round, w, hold, n_hold, &r.env_steps)) != MQSS_OK)
      break;
    r.rounds = round + 1;
    if ((st = write_csv(&x, round + 1, NULL)) != MQSS_OK)
      break;
    if (x.hooks->on_round)
      x.hooks->on_round(x.hooks->ctx, x.row);
    snprintf(r.policy_path, sizeof r.policy_path, "%.4000s/policy.safetensors",
             x.dir);
  }
  if (st == MQSS_OK && start == cfg->expit_rounds)
    r.rounds = start; // nothing left to run: the result is exported again
  if (st == MQSS_OK && r.rounds == cfg->expit_rounds && r.rounds > 0)
    st = export_result(&x, r.rounds, r.env_steps, r.policy_path,
                       sizeof r.policy_path);
  for (int i = 0; i < n_hold; i++)
    free(hold[i]);
  free(hold);
  free(w);
  free(x.seeds);
  free(x.recipes);
  r.records_dropped = x.dropped;
  if (out)
    *out = r;
  return st;
}
