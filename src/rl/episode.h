// One training episode, run inside a rollout worker's task child: parse the
// module, reset the environment, and act with the policy until the episode
// ends, streaming a record before each decision (what the agent saw and
// chose) and after it (what it earned). Because the "act" record goes out
// before the pass runs, a pass that crashes the child still leaves the
// trainer the transition that caused it, which it then penalises.
// Also decodes those records on the trainer side.
#ifndef MQSS_RL_EPISODE_H
#define MQSS_RL_EPISODE_H

#include "nn/nn.h"
#include "rl/pool.h"

// Read-only context every worker holds: built before the pool forks (local
// workers) or identically on every MPI rank.
typedef struct {
  mqss_session *session;
  const mqss_catalog *catalog;
  mqss_env *env;              // used only inside task children
  nn_model *model;            // the network's shape; weights come per task
  int n_modules;
  char *const *module_paths;  // (n_modules)
  const mqss_env_baseline *const *baselines; // (n_modules) NULL = measure it
  int crash_every;            // test hook: episode e with e % k == k-1 dies
                              // after its first decision (0 = off)
} episode_ctx;

// What one task asks for.
typedef struct {
  int32_t module;   // index into module_paths
  int32_t episode;  // global episode number
  uint64_t seed;    // sampling seed of this episode
  float epsilon;    // epsilon-greedy exploration
  float ema;        // reward EMA state (NaN: none yet)
} episode_task;

// The pool task function: `user` is an episode_ctx, `params` the model's
// flat parameters, `task` an episode_task.
void episode_run(void *user, const void *params, size_t plen, const void *task,
                 size_t tlen, pool_emit_fn emit, void *emit_ctx);

// Maps between catalog indices and the network's action order (catalog
// actions without STOP, then STOP last).
int episode_nn_action(const mqss_catalog *catalog, int catalog_index);
int episode_catalog_action(const mqss_catalog *catalog, int nn_index);

// ----------------------------------------------------------------------------
// records, as the trainer decodes them

enum { REC_ACT = 1, REC_OUTCOME = 2, REC_ERROR = 3 };

typedef struct {
  int kind;
  // REC_ACT: pointers into the record (valid while it is)
  int action;           // network action index
  float logp, value;
  const float *u;       // (P)
  const float *state;   // (S)
  const uint8_t *mask;  // (A+1)
  nn_graph graph;       // empty for MLP models
  // REC_OUTCOME
  float reward;
  int done;
  int step_status;      // mqss_step_status
  int measure_status;   // mqss_measure_status of the final measurement
  int cached;           // the final measurement came from the cache
  float ema;            // reward EMA after the episode
  // REC_ERROR
  const char *message;  // NUL-terminated
} episode_record;

// Decodes one record made by episode_run for model m; false if malformed.
bool episode_decode(const nn_model *m, const void *rec, size_t len,
                    episode_record *out);

#endif // MQSS_RL_EPISODE_H
