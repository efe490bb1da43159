// Expert iteration (search-distilled policy improvement, then PPO): the
// `expit.*` keys of the training config turn `mqss train` into rounds of
//   1. a policy-guided search (MQSS_SEARCH_POLICY) on every training module,
//      whose confirmed winners (the best so far per module) are kept;
//   2. behaviour cloning of the policy on those pipelines (bc.c);
//   3. PPO (train.c) with a KL anchor to that clone;
// with a row per round in LOGDIR/expit.csv and a directory per round.
#ifndef MQSS_RL_EXPIT_H
#define MQSS_RL_EXPIT_H

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
  X(E_ELAPSED, "elapsed_s")

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
  char policy_path[4096]; // the last round's policy
} expit_result;

// Runs the rounds not completed yet in o->log_dir (with o->resume, a run cut
// short continues from its last finished phase: search, cloning or a PPO
// checkpoint). on_round (may be NULL) gets each round's row.
mqss_status expit_run(mqss_session *s, train_setup *setup,
                      const train_options *o,
                      void (*on_round)(void *ctx, const double *row),
                      void *ctx, expit_result *out);

#endif // MQSS_RL_EXPIT_H
