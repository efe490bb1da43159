// Training metrics: the fixed list of per-iteration figures, and their logs
// (metrics.jsonl and metrics.csv in the run's log directory). Plots are drawn
// from the CSV by the CLI; this file only writes the logs.
#ifndef MQSS_RL_METRICS_H
#define MQSS_RL_METRICS_H

#include "internal.h"

// X-macro: (enum name, logged name). The order is the CSV column order.
#define METRIC_TABLE(X)                                                        \
  X(M_ITERATION, "iteration")                                                  \
  X(M_ENV_STEPS, "env_steps")                                                  \
  X(M_RETURN, "reward/episodic_return")                                        \
  X(M_RETURN_VAR, "reward/return_variance")                                    \
  X(M_ENTROPY, "policy/entropy")                                               \
  X(M_SUCCESS, "env/compilation_success_rate")                                 \
  X(M_CRASHED, "env/episode_crash_rate")                                       \
  X(M_LOSS_POLICY, "loss/policy")                                              \
  X(M_LOSS_VALUE, "loss/value")                                                \
  X(M_LOSS_ENTROPY, "loss/entropy")                                            \
  X(M_LOSS_TOTAL, "loss/total")                                                \
  X(M_APPROX_KL, "policy/approx_kl")                                           \
  X(M_CLIP_FRAC, "policy/clip_fraction")                                       \
  X(M_STEPS_PER_S, "perf/steps_per_s")                                         \
  X(M_EPISODES_PER_S, "perf/episodes_per_s")                                   \
  X(M_CACHE_HIT, "perf/cache_hit_rate")                                        \
  X(M_ELAPSED, "time/elapsed_s")                                               \
  X(M_ANCHOR_KL, "policy/anchor_kl")

typedef enum {
#define METRIC_ENUM(e, name) e,
  METRIC_TABLE(METRIC_ENUM)
#undef METRIC_ENUM
  METRIC_COUNT
} metric_id;

// Logged name of metric `m` ("policy/entropy"). Static storage.
const char *metric_name(metric_id m);

typedef struct metrics_log metrics_log;

// Opens (creating `dir` if needed) DIR/metrics.jsonl and DIR/metrics.csv.
// keep_upto < 0 starts fresh logs; otherwise the existing logs keep only rows
// whose iteration <= keep_upto (the rows a resumed run would write again are
// dropped) and new rows are appended.
mqss_status metrics_open(mqss_session *s, const char *dir, int keep_upto,
                         metrics_log **out);

// Appends one row to both logs and flushes them.
mqss_status metrics_write(metrics_log *log, const double v[METRIC_COUNT]);

// Closes the logs. NULL is harmless.
void metrics_close(metrics_log *log);

#endif // MQSS_RL_METRICS_H
