// Behaviour cloning from the baseline pipelines, the warm start of PPO
// (bc.c collects the demonstrations; ppo_update.c's bc_update fits them).
#ifndef MQSS_RL_BC_H
#define MQSS_RL_BC_H

#include "rl/episode.h"
#include "rl/ppo_update.h"

typedef struct {
  const mqss_catalog *catalog;
  const nn_model *model;
  int n_modules;
  char *const *paths;     // (n_modules)
  char *const *pipelines; // (n_modules) baseline pipeline, NULL = unknown
  int max_steps;          // episode length, for the context features
} bc_inputs;

typedef struct {
  int modules;   // demonstrations replayed
  int steps;     // their decisions, STOP excluded
  int samples;   // transitions pushed (steps + one STOP each)
  int unmatched; // baselines with a pass the catalog cannot express
  int refused;   // demonstrations the safety layer masked or that failed
} bc_counts;

// Replays every module's baseline into rb (until it is full). Errors only
// when a module cannot be read or parsed (the session says which).
mqss_status bc_collect(mqss_session *s, const bc_inputs *in,
                       rollout_buffer *rb, bc_counts *out);

// Replays explicit demonstrations into rb: module i's decisions seqs[i]
// (lens[i] of them, then STOP; lens[i] < 0 = no demonstration; the
// pipelines field of `in` is not read). Expert iteration clones its searched
// pipelines this way. Errors as bc_collect.
mqss_status bc_collect_decisions(mqss_session *s, const bc_inputs *in,
                                 const mqss_decision *const *seqs,
                                 const int *lens, rollout_buffer *rb,
                                 bc_counts *out);

#endif // MQSS_RL_BC_H
