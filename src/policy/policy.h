// Internal declarations of the policy runtime (src/policy): the loaded
// policy, the per-call inference scratch, the selection object, the
// bad-sequence log and the random-policy writer used by tests and tools.
// Not API: the contract is the policy block of mqss.h.
//
// Action numbering. The network has A+1 logits: A = catalog actions without
// STOP, in catalog order, then STOP last (nn.h). The catalog may put STOP
// anywhere; cat_of[] and nn_of[] translate.
#ifndef MQSS_POLICY_INTERNAL_H
#define MQSS_POLICY_INTERNAL_H

#include "internal.h"
#include "nn/nn.h"

// ----------------------------------------------------------------------------
// the loaded policy (policy.c)

// Parameter slots a policy may have (the bound of one decision's buffers).
#define POLICY_MAX_SLOTS (NN_MAX_ACTIONS * 4 + 64)

struct mqss_policy {
  nn_model *nets[NN_MAX_MEMBERS]; // owned, never modified after load; an
  int n_nets;               // ensemble's members share nets[0]'s configuration
  nn_file_meta meta;
  mqss_catalog *catalog;    // owned
  char *path;               // owned
  int n_cat;                // catalog size, STOP included (== A + 1)
  int episode_steps;        // rl.max_steps it was trained with (16 unknown):
                            // normalises the history features, and the
                            // default number of select steps
  bool fit_sizes;           // trained with expit.adapt_sizes: the default of
                            // mqss_select_options.fit_sizes
  int cat_of[NN_MAX_ACTIONS + 1]; // (A+1) network index -> catalog index
  int nn_of[NN_MAX_ACTIONS + 1];  // (n_cat) catalog index -> network index
};

// ----------------------------------------------------------------------------
// one decision step (step.c)

// Per-call scratch: everything a forward pass writes. Zero-initialise.
// logp and mu are what the policy decides from: with one network its own,
// with an ensemble the normalised mean of the members' log-probabilities
// (the geometric mean of their distributions) and the mean of their
// parameter means.
typedef struct {
  nn_acts acts[NN_MAX_MEMBERS]; // (n_nets) each network's activations
  float logp[NN_MAX_ACTIONS + 1]; // (A+1) network order, -inf = masked
  float mu[POLICY_MAX_SLOTS];     // (P)
  float state[MQSS_FEATURE_DIM];     // (S)
  uint8_t cat_mask[NN_MAX_ACTIONS + 1]; // (n_cat) safety mask, catalog order
  uint8_t nn_mask[NN_MAX_ACTIONS + 1];  // (A+1) network order, STOP last
  mqss_graph *graph;                 // graph of the last forward, owned
  bool have_ir; // state, cat_mask, graph and acts[].pooled describe an IR
} policy_scratch;

// Computes state, graph and safety mask of `m` (history: catalog indices,
// normalised by the policy's episode length as in training),
// clears nn_mask entries whose catalog index has ban[i] set (ban may be
// NULL), and runs the network. With same_ir, `m` is the module of the last
// successful call on this scratch, unchanged since: its IR features, safety
// mask and graph embedding are reused and only the history, the bans and
// the MLP are recomputed (the same numbers, much faster). Returns MQSS_OK,
// or an error set on m's session.
mqss_status policy_forward(const mqss_policy *p, const mqss_module *m,
                           const int *history, int n_history,
                           const uint8_t *ban, bool same_ir,
                           policy_scratch *sc);
void policy_scratch_free(policy_scratch *sc);
// Fills sc->logp and sc->mu from the networks' activations sc->acts[] (all
// from forward passes on one input, masked by sc->nn_mask): one network's
// own, or for an ensemble the mean of the members' log-probabilities,
// normalised again over the allowed actions, and the mean of their means.
void policy_combine(const mqss_policy *p, policy_scratch *sc);

// ----------------------------------------------------------------------------
// selections (selection.c)

// The policy's odds at one step (mqss_selection_odds): p < 0 = no record.
typedef struct {
  float p;                            // the action taken
  int n_alt;
  int alt[MQSS_SELECTION_ALTS];       // the next most likely, catalog indices
  float alt_p[MQSS_SELECTION_ALTS];
} selection_odds;

struct mqss_selection {
  const mqss_catalog *catalog; // borrowed
  int n, cap;
  mqss_decision *d;       // (n) decisions, targets NULL
  selection_odds *odds;   // (n) the policy's odds at each; none for repeats
  selection_odds stop_odds; // the final STOP's, when stopped
  char **step;            // (n) anchored pipelines, owned
  char *pipeline;         // "builtin.module(...)", owned
  int stopped;
  double pass_ms;         // time select spent cloning and applying
  char *notes;            // what isolation avoided, owned; NULL = nothing
  int budget_hit;         // the time budget ended the selection
};

// Appends a decision (with no odds); recomputes the pipeline text. Returns
// MQSS_OK or NOMEM.
mqss_status selection_push(mqss_selection *s, const mqss_decision *d);
mqss_selection *selection_new(const mqss_catalog *c);

// ----------------------------------------------------------------------------
// bad sequences (badlog.c): JSONL lines {"module": HEX, "seq": [P1, P2..]}
// of anchored step pipelines that produced a wrong output or a crash.

// Appends one record to dir/bad_sequences.jsonl (creating dir). Returns 0 or -1.
int badlog_append(const char *dir, uint64_t module_hash,
                  const mqss_selection *sel, const char *why);
// Loaded records for one module.
typedef struct {
  int n;
  int *len;        // (n) steps of each sequence
  char ***seq;     // (n)(len[i]) step pipelines, owned
} badlog;
// Reads the records of `module_hash` from dir (missing file: none). 0 or -1.
int badlog_load(const char *dir, uint64_t module_hash, badlog *out);
// True when prefix (n steps) + `next` equals a recorded sequence.
// Adds a sequence of n step pipelines (copied) to b. Returns 0 or -1.
int badlog_add(badlog *b, char *const *steps, int n);
bool badlog_completes(const badlog *b, char *const *prefix, int n,
                      const char *next);
void badlog_free(badlog *b);

// ----------------------------------------------------------------------------
// the decision loop (select.c) and its isolated twin (isolate.c)

// One selection in this process, avoiding `bad` (not NULL). With trace_fd
// >= 0 (in a sandbox child) every candidate decision is written there before
// its passes run ('T'), again when they returned ('A'), and once more when
// it is kept ('K'), as select_trace records.
typedef struct {
  int tag; // 'T', 'A' or 'K'
  mqss_decision d;
} select_trace;
// `deadline` is a now_ms() time after which no step starts (< 0: none).
mqss_status select_run(const mqss_policy *p, const mqss_module *module,
                       const mqss_select_options *opts, const badlog *bad,
                       double deadline, int trace_fd, mqss_selection **out);
// The same in forked children, retrying around crashing steps; adds those
// to `bad`.
mqss_status select_isolated(const mqss_policy *p, const mqss_module *module,
                            const mqss_select_options *opts, badlog *bad,
                            double deadline, mqss_selection **out);

// ----------------------------------------------------------------------------
// paired confirmations (select_budget.c)

// Measures pipeline a against b in o->confirm_pairs interleaved pairs,
// outputs checked; *verdict: mqss_ratio_verdict() of a over b (+1: a
// confirmed faster; 0 also when a side did not measure OK).
mqss_status budget_versus(mqss_module *m, const mqss_budget_options *o,
                          const char *a, const char *b,
                          mqss_measure_vs_result *vs, int *verdict);

// ----------------------------------------------------------------------------
// older policies (migrate.c)

// Logit bias of actions a migrated policy did not have (zero weights): low
// enough that greedy selection keeps the parent's choices.
#define POLICY_NEW_ACTION_LOGIT (-10.0f)

// The hashes of the feature layouts older than this build's (at most cap),
// for nn_load_check.old_feature_hashes. Returns the count.
int policy_old_layout_hashes(uint64_t *out, int cap);
// The network configuration of this build for catalog c: state and node
// sizes, op-kind embedding (gnn), one head per action in network order.
// arch NULL / hidden <= 0 keep the defaults (gnn, 128).
mqss_status policy_net_config(mqss_session *s, const mqss_catalog *c,
                              const char *arch, int hidden, nn_config *cfg);
// Replaces *model, read from `path` with feature-layout hash feature_hash,
// by its migration onto cfg (nn_model_migrate; new weights from seed).
mqss_status policy_migrate(mqss_session *s, const char *path,
                           uint64_t feature_hash, const nn_config *cfg,
                           uint64_t seed, nn_model **model);
// Reads the parent policy of --init-from: any known feature layout, a
// catalog that c extends (or c's own), this MLIR version. Fills meta, with
// its parent_* fields describing the file (its FNV-1a hash, layout version
// and hashes, action count). The model is not migrated yet.
mqss_status policy_read_parent(mqss_session *s, const char *path,
                               const mqss_catalog *c, nn_model **model,
                               nn_file_meta *meta);

#endif // MQSS_POLICY_INTERNAL_H
