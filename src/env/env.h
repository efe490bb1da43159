// Internal state of the RL environment (env.c, reward.c, cost.c,
// rollout.c). Not API: the contract is the "Environment: episodes, reward"
// section of include/mqss/mqss.h.
#ifndef MQSS_ENV_ENV_H
#define MQSS_ENV_ENV_H

#include "internal.h"

// One cached baseline per module hash (reset with baseline == NULL).
typedef struct {
  uint64_t hash;
  mqss_env_baseline b;
  double cycles; // perf cycles of the baseline measurement, or -1
  mqss_measure_result spread; // its runs, median and MAD (runs 0: given)
} env_baseline_entry;

struct mqss_env {
  mqss_session *session;
  const mqss_catalog *catalog;
  mqss_env_options opts;
  char *cache_path;          // owned copy of opts.measure.cache_path
  char *entry;               // owned copy of opts.measure.entry
  int n_actions;
  // episode
  mqss_module *original;     // clone of the module given to reset
  mqss_module *current;      // the IR after the applied decisions
  uint64_t current_hash;     // module_fingerprint(current)
  mqss_env_baseline baseline;
  double base_cycles;        // -1 when unknown
  mqss_measure_result base_spread; // the baseline's runs/median/MAD (runs 0:
                                   // given, spread unknown)
  int has_baseline;
  int step;                  // decisions taken
  int done;
  int targeted;              // some applied decision named a function
  int *history;              // (max_steps) action of each decision
  strbuf pipeline;           // applied fragments, comma-separated, unanchored
  double apply_ms;           // sum of apply times of applied decisions
  double cost0, cost;        // static cost at reset, and now
  uint8_t *mask;             // (n_actions)
  uint8_t *noop;             // (n_actions) 1: applied since the IR last
                             // changed and changed nothing; masked out
  int n_allowed;
  mqss_graph *graph;
  // across episodes
  double ema;                // NaN = none yet
  env_baseline_entry *bases; // (n_bases)
  int n_bases, cap_bases;
  int perf_fd_ok;            // cycle counters work
  strbuf notice;
  int notice_pending;        // report notice in the next info
};

// Sets out->runtime_lo/hi (reward.c): the approximate 95% interval of
// out->runtime_ratio from the spreads of the baseline measurement `base` and
// of `r`; 0 when either has fewer than 3 runs.
void env_runtime_interval(const mqss_measure_result *base,
                          const mqss_measure_result *r,
                          mqss_env_reward_terms *out);
// EMA update: returns the smoothed value (x itself when alpha <= 0).
double env_ema_update(double *ema, double alpha, double x);
// Opens a disabled cycle counter that also counts children; -1 when
// unavailable, with the reason in `why`.
int perf_cycles_open(char *why, size_t len);
// Reads a counter opened by perf_cycles_open; -1 on error.
double perf_cycles_read(int fd);

#endif // MQSS_ENV_ENV_H
