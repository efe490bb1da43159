// The PPO trainer: rollouts on a worker pool, updates, logs, checkpoints,
// early stopping and the exported policy. `mqss train` is a thin CLI over
// it. The trainer is the only writer of checkpoints and logs.
#ifndef MQSS_RL_TRAIN_H
#define MQSS_RL_TRAIN_H

#include "rl/bc.h"
#include "rl/config.h"
#include "rl/episode.h"
#include "rl/metrics.h"

typedef struct {
  const train_config *cfg;
  const char *config_path;   // recorded in the policy's metadata
  const char *log_dir;       // logs, checkpoint.bin, policy.safetensors
  int resume;                // continue from LOG_DIR/checkpoint.bin
  int stop_after;            // run at most this many iterations now (0 = all)
  const char *commit;        // source commit of this run, for the metadata
  int crash_every;           // fault injection: see episode_ctx (0 = off)
  // Called after every iteration (may be NULL); metrics has METRIC_COUNT.
  void (*on_iteration)(void *ctx, int iteration, const double *metrics);
  void *ctx;
  const pool_backend *remote; // NULL: local forked workers
  const nn_model *anchor;    // PPO's KL anchor (expert iteration), or NULL
  float kl_coef;             // its weight (0 = none)
} train_options;

typedef struct {
  int iterations;            // completed, in total (a resumed run included)
  long long env_steps;
  int early_stopped;         // the return variance fell under the threshold
  char policy_path[4096];    // the exported policy
  double elapsed_s;
  bc_counts bc;              // behaviour cloning (zero when off or resumed)
  float bc_loss_first, bc_loss_last; // its mean loss, first and last epoch
  char resume_note[2048];    // "" or why a resume fell back to checkpoint.bin.prev
} train_result;

// Everything rollout workers share (built identically on every MPI rank).
typedef struct train_setup train_setup;

// Reads the manifest, the baselines, the catalog; creates the environment
// and the network. Errors name the file and what to do.
mqss_status train_setup_create(mqss_session *s, const train_options *o,
                               train_setup **out);
void train_setup_destroy(train_setup *t);
// The episode context workers run tasks with.
episode_ctx *train_setup_episodes(train_setup *t);
// Each module's baseline pipeline from baseline.json (NULL = unknown).
char *const *train_setup_pipelines(const train_setup *t);
// The setup's catalog and measurement cache path.
const char *train_setup_cache(const train_setup *t);

// The modules of a manifest (util/manifest.h), resolved against its
// directory: *paths gets *n malloc'ed paths. Errors name the manifest's
// line of a module that cannot be read.
mqss_status train_manifest_read(mqss_session *s, const char *path,
                                char ***paths, int *n);

// Writes m with this run's metadata (config, commit, steps, date) to `path`.
// `parent` (or NULL) is the lineage to record (train_setup_parent()).
mqss_status train_export(mqss_session *s, const train_options *o,
                         const nn_model *m, const mqss_catalog *cat,
                         const nn_file_meta *parent, long long iterations,
                         long long env_steps, double elapsed_s,
                         const char *path);
// The lineage of a run started with policy.init_from: the parent_* fields
// to record in the exported policy (all zero without a parent).
const nn_file_meta *train_setup_parent(const train_setup *t);

// Trains; fills `out` (may be NULL).
mqss_status train_run(mqss_session *s, train_setup *t, const train_options *o,
                      train_result *out);

#endif // MQSS_RL_TRAIN_H
