// Training configuration: the keys of train_config.yaml, their defaults and
// ranges, and the loader. Internal to the library; `mqss train` uses it.
#ifndef MQSS_RL_CONFIG_H
#define MQSS_RL_CONFIG_H

#include "internal.h"

typedef struct {
  // rl
  char algorithm[16];     // only "ppo"
  int num_workers;        // rollout worker processes
  int rollout_steps;      // environment steps collected per iteration
  int batch_size;         // samples per PPO update (<= rollout_steps)
  int minibatch;          // samples per gradient step
  int epochs;             // passes over each batch
  float lr;               // Adam learning rate
  float clip;             // PPO ratio clip epsilon
  float gamma;            // discount
  float lambda;           // GAE lambda
  float value_coef;       // value-loss weight
  float entropy_start;    // entropy bonus at iteration 0, linearly ...
  float entropy_end;      // ... down to this at the last iteration
  float epsilon_greedy;   // probability of a uniformly random valid action
  float max_grad_norm;    // global-norm gradient clip
  int max_steps;          // actions per episode before the forced STOP
  int iterations;         // PPO iterations
  int checkpoint_every;   // iterations between checkpoints
  int early_stop_steps;   // window (env steps) of the early-stopping test
  float early_stop_var;   // stop when the return variance stays under this
  int seed;
  int pin_workers;        // pin worker i to core i % ncores
  int bc_epochs;          // behaviour-cloning passes over the baselines
                          // before PPO (0 = none)
  float bc_lr;            // its Adam learning rate (0 = rl.lr)
  float bc_log_std;       // log-std of every parameter after cloning, so
                          // that PPO explores near the clone (0 = leave)
  // env
  char baseline_json[512];
  char manifest[512];     // training modules (one path a line)
  char target_device[16]; // only "host"
  float w_success, w_compile, w_runtime, w_size; // reward weights
  float reward_ema;       // 0 = off, else EMA alpha (0.95 in DESIGN.md)
  int warmup, repeat;     // untimed and timed runs of each final measurement
  int timeout_ms;         // wall-clock limit of a measurement and of an episode
  char cache[512];        // measurement cache ("" = LOGDIR/cache.sqlite)
  // policy
  char arch[16];          // "gnn" (GraphSAGE x2 + MLP) or "mlp" (flat state)
  int hidden;             // width of every hidden layer
  // expit (expert iteration, src/rl/expit.c)
  int expit_rounds;       // rounds of search, cloning, PPO (0 = plain PPO)
  int expit_budget;       // evaluations of each module's guided search
  int expit_proposals;    // distinct policy proposals in that budget
  int expit_bc_epochs;    // cloning epochs on the searched pipelines
  int expit_ppo_iterations; // PPO iterations per round
  float expit_kl;         // weight of KL(clone || pi) during PPO
  int expit_confirm_pairs; // A/B pairs confirming a winner / hold-out figure
  char expit_holdout[512]; // hold-out manifest ("" = no hold-out figure)
  char expit_seed_baselines[512]; // baselines.yaml whose family pipelines
                          // seed each module's search and cloning ("" none)
  char init_from[512];    // start from this (older) policy ("" = random)
  int expit_modules_per_round; // modules each round searches (0 = all)
  int expit_holdout_every; // the hold-out figure every k rounds (and the last)
  char expit_winners_from[512]; // winners.tsv the first round starts from
                                // ("" = none)
  float expit_seed_margin; // clone a module's seed, not its winner, unless the
                           // winner is confirmed faster than it by this
                           // relative margin (0 = off)
  char expit_families[256]; // the families whose modules the rounds search,
                            // space-separated ("" = all)
  float expit_bc_anchor;  // weight of KL(round's start policy || pi) while
                          // cloning, where the demonstration takes the start
                          // policy's greedy action (0 = off)
  int expit_adapt_sizes;  // 1: a seed's schedule decision whose sizes do not
                          // fit its module gets the nearest that do, rather
                          // than the module being refused (0 = off)
  float expit_compile_limit; // with expit_seed_margin: a winner that compiles
                             // longer than its seed by more than this
                             // relative margin is not confirmed (0 = off)
  char expit_bc_only[256]; // actions, space-separated, whose output rows
                           // alone learn while cloning ("" = all weights)
} train_config;

// Fills `c` with the defaults (those of data/train_config.yaml).
void train_config_defaults(train_config *c);

// Wall-clock limit of one rollout task: two measurement timeouts per step,
// computed in 64 bits and capped at INT_MAX (timeout_ms may reach 86.4e6
// and max_steps 256, whose product overflows int).
int train_task_timeout_ms(const train_config *c);

// Writes every key as "key=value" separated by spaces into buf (n bytes,
// truncated to fit): the configuration recorded in a policy's metadata.
void train_config_format(const train_config *c, char *buf, size_t n);

// Loads `path` over the defaults. Unknown keys, wrong types and values out of
// range fail with MQSS_ERR_INVALID_ARG and a message naming file:line:col and
// the key, and saying what is allowed.
mqss_status train_config_load(mqss_session *s, const char *path,
                              train_config *c);

#endif // MQSS_RL_CONFIG_H
