// Expert iteration (search-distilled policy improvement, then PPO): the
// `expit.*` keys of the training config turn `mqss train` into rounds of
//   1. a policy-guided search (MQSS_SEARCH_POLICY) on every training module,
//      or on a rotating subset (expit.modules_per_round), whose confirmed
//      winners (the best so far per module) are kept (expit_search.c);
//   2. behaviour cloning of the policy on those pipelines (bc.c);
//   3. PPO (train.c) with a KL anchor to that clone;
// with a row per round in LOGDIR/expit.csv and a directory per round.
#ifndef MQSS_RL_EXPIT_H
#define MQSS_RL_EXPIT_H

#include "rl/expit_search.h"
#include "rl/expit_seed.h"
#include "rl/train.h"

// X-macro: the columns of expit.csv, in order.
#define EXPIT_COLUMNS(X)                                                       \
  X(E_ROUND, "round")                                                          \
  X(E_ENV_STEPS, "env_steps")                                                  \
  X(E_SEARCH_GAIN, "search_gain")                                              \
  X(E_WINNERS, "winners")                                                      \
  X(E_SEARCHED, "modules_searched")                                            \
  X(E_EVALS, "search_evaluations")                                             \
  X(E_CLONE_FIRST, "clone_loss_first")                                         \
  X(E_CLONE_LAST, "clone_loss")                                                \
  X(E_PPO_RETURN, "ppo_return")                                                \
  X(E_HOLDOUT, "holdout_speedup")                                              \
  X(E_HOLDOUT_FAILED, "holdout_failed")                                        \
  X(E_ELAPSED, "elapsed_s")                                                    \
  X(E_SELECTED, "modules_selected")                                            \
  X(E_CLONE_RECIPES, "clone_recipe_demos")                                     \
  X(E_SEEDS_KEPT, "clone_seeds_kept")

typedef enum {
#define EXPIT_ENUM(e, name) e,
  EXPIT_COLUMNS(EXPIT_ENUM)
#undef EXPIT_ENUM
  EXPIT_NCOLS
} expit_column;

typedef struct {
  int rounds;            // completed, in total
  int resumed_at;        // the round this invocation started in
  long long env_steps;
  char policy_path[4096]; // LOGDIR/policy.safetensors once every round is
                          // done, else the last round's policy
  int records_dropped;   // damaged search records dropped (searched again)
} expit_result;

// Called as the run goes (each may be NULL).
typedef struct {
  void (*on_round)(void *ctx, const double *row);   // each round's row
  void (*on_searched)(void *ctx, const expit_searched *e); // each module searched
  void (*on_seeds)(void *ctx, const expit_seed_counts *c); // seeds made
  void *ctx;
} expit_hooks;

// Runs the rounds not completed yet in o->log_dir (with o->resume, a run cut
// short continues from its last finished phase: search, cloning or a PPO
// checkpoint), and a search phase cut short searches only the modules
// whose outcome it has not recorded. hooks may be NULL.
mqss_status expit_run(mqss_session *s, train_setup *setup,
                      const train_options *o, const expit_hooks *hooks,
                      expit_result *out);

#endif // MQSS_RL_EXPIT_H
