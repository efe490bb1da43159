// Internal declarations shared by the search baselines (src/eval/search*.c):
// the search context, the evaluation recorder and the seeded RNG. Not API:
// the contract is the "Search baselines" block of mqss.h. The methods
// themselves live in search_random.c and search_greedy.c; search.c holds
// everything they share.
#ifndef MQSS_EVAL_SEARCH_H
#define MQSS_EVAL_SEARCH_H

#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

// ----------------------------------------------------------------------------
// seeded RNG (splitmix64): the only source of randomness of a search

typedef struct {
  uint64_t s;
} search_rng;

uint64_t search_rng_u64(search_rng *r);
// Uniform on [0, 1).
double search_rng_uniform(search_rng *r);
// A raw action parameter, uniform in [-1, 1).
float search_rng_param(search_rng *r);
// Uniform integer in [0, n), n >= 1.
int search_rng_below(search_rng *r, int n);

// ----------------------------------------------------------------------------
// context and evaluations

typedef struct {
  mqss_module *module;           // the original, never modified
  const mqss_catalog *catalog;
  const mqss_search_options *opts;
  mqss_search_result *out;
  int cap_trace;
  double t0_ms;                  // monotonic clock at the start
  char last_message[1024];       // message of the last measurement
  int stop_at;                   // > 0: also stop once the trace is this long
} search_ctx;

// True while another evaluation fits in the budget.
bool search_budget_left(const search_ctx *c);

// Measures `pipeline` ("" = empty) on the original module as the next
// evaluation and appends it to the trace (status, cached, failure counts),
// with a copy of its decisions d[0..n_decisions) and what proposed it
// (`source`, static storage: mqss_search_eval.source). Stores its index in
// *index. Returns MQSS_OK, or the harness error of mqss_measure (session
// message set) or MQSS_ERR_NOMEM.
mqss_status search_eval(search_ctx *c, const char *source, const char *pipeline,
                        const mqss_decision *d, int n_decisions, int *index);

// The index of the evaluation of `pipeline`, or -1 when it was not
// evaluated yet.
int search_find(const search_ctx *c, const char *pipeline);

// Draws in a row of already-measured pipelines after which the parts of the
// policy-guided search that skip them (mutation, random) stop: the space
// around the best, or the whole space of short sequences, is used up.
enum { SEARCH_MISSES = 64 };
// Measures decisions d[0..n) (search_eval, proposed by `source`) unless
// their pipeline was measured already, and offers the result as the best.
// *measured tells whether it was measured.
mqss_status search_try(search_ctx *c, const char *source,
                       const mqss_decision *d, int n, bool *measured);

// Makes evaluation `index` (which must be OK) the best.
void search_set_best(search_ctx *c, int index);

// Stamps the current best into evaluation `index` and calls the progress
// callback. Call once per evaluation, after deciding about the best.
void search_eval_done(search_ctx *c, int index);

// The op a schedule decision d addresses on m: the focus op (the per-op
// rule, focus.c), or 0 (every op of its kinds) with opts->kind_wide.
int64_t search_focus(const search_ctx *c, const mqss_module *m,
                     const mqss_decision *d);

// Whether decision d (its op set) may extend m as applying it would allow:
// its sizes fit the ops it targets (decision_fits) and the catalog does not
// refuse its parameters there (decision_refused). A decision it turns down
// fails to apply, or runs unchecked and crashes or miscompiles when its
// pipeline is measured.
bool search_admits(const search_ctx *c, const mqss_module *m,
                   const mqss_decision *d);

// The most decisions a candidate holds: max_len steps, each a decision and
// at most DECISION_MAX_REPEATS repeats of it (repeat.c).
int search_cap(const search_ctx *c);
// The steps among decisions d[0..n): those that do not repeat the one
// before (the same action and parameters, both addressing one op).
int search_steps(const mqss_decision *d, int n);
// True when d[i] repeats d[i - 1]: the same action and parameters, both
// addressing one op (so it belongs to d[i - 1]'s step).
bool search_is_repeat(const mqss_decision *d, int i);

// True when run time `cand` beats `best` by more than min_gain.
bool search_better(const search_ctx *c, double cand, double best);


// The methods. Each runs evaluations 1.. until done or out of budget;
// evaluation 0 (the empty pipeline) has been run and is the best.
mqss_status search_random(search_ctx *c);
mqss_status search_greedy(search_ctx *c);
mqss_status search_policy(search_ctx *c);

// Building blocks of the policy-guided search. search_random_until runs
// random sequences while the trace is shorter than `stop_at` (and the budget
// lasts), drawing from `seed`; with `fresh`, a sequence whose pipeline was
// measured already is skipped without an evaluation, and SEARCH_MISSES such
// draws in a row end it. search_greedy_from runs greedy steps from the
// sequence start[0..n) while the trace is shorter than `stop_at`.
mqss_status search_random_until(search_ctx *c, uint64_t seed, int stop_at,
                                bool fresh);
mqss_status search_greedy_from(search_ctx *c, const mqss_decision *start,
                               int n, int stop_at);
// The thread variants of the best sequence so far (search_threads.c): the
// same sequence after one kind-wide parallel-tile-named decision that
// splits every heavy named op into as many tiles as there are cores, along
// its first loop and then along its second, when the module has such an op;
// then the sequence followed by omp-parallel, when the mask allows that on
// the IR it leaves. Measured as source "threads" while the budget lasts.
mqss_status search_threads(search_ctx *c);
// Mutations of the best sequence (search_mutate.c). search_mutate writes to
// out a copy of best[0..n) with one step, drawn uniformly, changed: one
// parameter redrawn uniform in [-1, 1] on the step's decision and all its
// repeats, or the step dropped (always for a step without parameters);
// returns the copy's length, -1 when best has no step. search_mutate_until
// measures mutations of the current best while the trace is shorter than
// `stop_at` (and the budget lasts), drawing from `seed`; it stops early when
// the best is the empty pipeline or SEARCH_MISSES draws in a row were measured already.
int search_mutate(const mqss_catalog *catalog, const mqss_decision *best,
                  int n, search_rng *rng, mqss_decision *out);
mqss_status search_mutate_until(search_ctx *c, uint64_t seed, int stop_at);

// Greedy's schedule candidates (search_random.c, in the same child as the
// random sequences): `first`, a decision that fits `cur`, followed by its
// repeats, while they fit, on each next focus op, applied to a clone of cur
// in a child. Writes at most `max` (>= 1) decisions to out and their
// number to *n; a crash or hang ends them where it happened. It is one
// step (search_steps).
mqss_status search_expand(search_ctx *c, const mqss_module *cur,
                          const mqss_decision *first, int max,
                          mqss_decision *out, int *n);

// True when evaluation e may be the best: measured OK and within the
// compile-time limit (mqss_search_options.max_compile).
bool search_eligible(const mqss_search_eval *e);

// Offers evaluation `index` as the best: it becomes the best when it is
// eligible (search_eligible), beats the reference by min_gain and is the
// fastest so far.
void search_offer_best(search_ctx *c, int index);

#endif // MQSS_EVAL_SEARCH_H
