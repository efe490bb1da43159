// Random search: each candidate is a sequence of up to max_len steps,
// each drawn uniformly among the actions the safety mask allows on the IR
// the sequence has produced so far (STOP included, except as the first
// decision: the empty sequence is evaluation 0), parameters uniform in
// [-1, 1] (a schedule's sizes then moved to the nearest that fit, as
// selection does; a draw the checks of applying it turn down is drawn
// again). In half of the sequences (a coin drawn first), a schedule
// decision that addressed one op is repeated (same action and parameters)
// on each new focus op it fits, so that a recipe drawn for one contraction
// reaches the others too (the repeats belong to the decision's step); in
// the other half every decision is drawn. To
// make the mask follow the IR, the decisions are applied one by
// one to a clone of the module (tagged, each schedule decision addressing
// the focus op as the policy's would: focus.c). That happens in a child
// (util/proc.c), because passes can crash: the child streams each decision
// (and the RNG state after drawing it) before applying it, so a crash, a
// hang or running out of memory (the child has the measurement's limits)
// simply ends the sequence at the decision that caused it (the
// measurement then records the failure). A decision that fails to apply
// (a pass reports an error, or leaves invalid IR) is known to fail: it is
// dropped, and the sequence ends before it. The candidate's joined pipeline
// is measured on the original module. The same child expands greedy's
// schedule candidates into their repeats (search_expand). It does not
// measure anything itself (search.c does).
#include "eval/search.h"

#include "actions/linalg_ops.h"
#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// child: sample and apply

// One record from the child. kind: DECISION = drawn, about to be applied;
// STOP = STOP drawn, or max_len steps taken (no decision); FAILED = the
// last decision failed to apply; FULL = no room for another decision.
enum { REC_DECISION, REC_STOP, REC_FAILED, REC_FULL };
typedef struct {
  int32_t kind;
  int32_t action;
  float u[MQSS_MAX_PARAMS];
  uint64_t rng; // RNG state after this record's draws
  int64_t op;   // the op the decision addresses (focus.c), 0: all
} sample_rec;

static void put(int fd, const sample_rec *r) {
  if (!proc_write(fd, r, sizeof *r))
    _exit(3);
}

typedef struct {
  const search_ctx *c;
  const mqss_module *from;     // the IR the sequence extends (tagged)
  const mqss_decision *first;  // search_expand: the decision to repeat
  int steps;                   // most steps (decisions drawn, repeats aside)
  int max;                     // most decisions
  search_rng rng;
} sample_args;

// Draws a decision uniformly among the actions the mask allows (not STOP
// as the first), parameters uniform in [-1, 1]. False when none is allowed.
static bool draw(const search_ctx *c, const mqss_module *cur,
                 const uint8_t *mask, int *allowed, int step, search_rng *rng,
                 mqss_decision *d) {
  const mqss_catalog *cat = c->catalog;
  int n = 0;
  for (int i = 0; i < mqss_catalog_size(cat); i++)
    if (mask[i] && !(step == 0 && mqss_catalog_action(cat, i)->is_stop))
      allowed[n++] = i;
  if (n == 0)
    return false;
  *d = (mqss_decision){.action = allowed[search_rng_below(rng, n)]};
  const mqss_action *act = mqss_catalog_action(cat, d->action);
  for (int p = 0; p < act->n_params; p++)
    d->u[p] = search_rng_param(rng);
  d->op = search_focus(c, cur, d); // the per-op rule
  return true;
}

// Whether the drawn decision d may extend cur (search_admits), its sizes
// first moved to the nearest that fit, as selection does (decision_fit_sizes).
// A draw turned down is masked for the step and drawn again, as selection
// does; kept, it would fail to apply and end the sequence there.
static bool admitted(const search_ctx *c, const mqss_module *cur,
                     mqss_decision *d) {
  if (!decision_fits(cur, c->catalog, d, NULL, 0))
    decision_fit_sizes(cur, c->catalog, d);
  return search_admits(c, cur, d);
}

static void sample_child(void *arg, int fd) {
  const sample_args *a = arg;
  const search_ctx *c = a->c;
  search_rng rng = a->rng;
  // The measurement's limits, so that a pass that runs away with memory or
  // time ends the sequence, as a crash does; and no standard error: the
  // passes' diagnostics go to the session, and LLVM's fatal messages ("out
  // of memory") would only land on the user's terminal.
  child_limits_apply(&(child_limits){c->opts->measure.timeout_ms,
                                     c->opts->measure.mem_limit_mb, -1});
  int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, 2);
    close(null_fd);
  }
  const mqss_catalog *cat = c->catalog;
  int n_actions = mqss_catalog_size(cat);
  uint8_t *mask = malloc((size_t)n_actions);   // (n_actions)
  int *allowed = malloc((size_t)n_actions * sizeof *allowed);
  mqss_module *cur = mqss_module_clone(a->from);
  if (!mask || !allowed || !cur)
    _exit(2);
  // numbered as the measurement numbers the module (mqss_module_run_pipeline)
  linalg_tag_once(mlirModuleGetOperation(cur->mod));
  bool repeats = a->first || search_rng_uniform(&rng) < 0.5;
  mqss_decision prev = {0}, d; // the last decision applied, the next one
  for (int step = 0, drawn = 0;; step++) {
    sample_rec r = {0};
    if (step == a->max) {
      r.kind = REC_FULL;
      r.rng = rng.s;
      put(fd, &r);
      break;
    }
    mqss_action_mask(cur, cat, NULL, mask);
    bool have = step == 0 && a->first;
    if (have)
      d = *a->first;
    else if (!(have = repeats && decision_repeat(cur, cat, &prev, &d)) &&
             !a->first && drawn < a->steps) {
      while ((have = draw(c, cur, mask, allowed, step, &rng, &d)) &&
             !admitted(c, cur, &d))
        mask[d.action] = 0;
      drawn++;
    }
    if (!have) { // expanded, all steps taken, or only STOP allowed at first
      r.kind = REC_STOP;
      r.rng = rng.s;
      put(fd, &r);
      break;
    }
    bool stop = mqss_catalog_action(cat, d.action)->is_stop;
    r.action = d.action;
    memcpy(r.u, d.u, sizeof r.u);
    r.op = d.op;
    r.rng = rng.s;
    r.kind = stop ? REC_STOP : REC_DECISION;
    put(fd, &r);
    if (stop)
      break;
    if (mqss_decision_apply(cur, cat, &d) != MQSS_OK) {
      sample_rec f = {.kind = REC_FAILED, .rng = rng.s};
      put(fd, &f);
      break;
    }
    prev = d;
  }
}

// ----------------------------------------------------------------------------
// parent: collect one sequence

typedef struct {
  int max;
  search_rng *rng;
  mqss_decision *d;
  int *n;
} collect;

// Takes the whole records the child sent so far.
static size_t take_records(void *ctx, const char *data, size_t len) {
  collect *k = ctx;
  size_t used = 0;
  for (; len - used >= sizeof(sample_rec); used += sizeof(sample_rec)) {
    sample_rec r;
    memcpy(&r, data + used, sizeof r);
    k->rng->s = r.rng;
    if (r.kind == REC_FAILED && *k->n > 0)
      (*k->n)--; // the last decision failed to apply
    if (r.kind == REC_DECISION && *k->n < k->max) {
      k->d[*k->n] = (mqss_decision){.action = r.action, .op = r.op};
      memcpy(k->d[*k->n].u, r.u, sizeof r.u);
      (*k->n)++;
    }
  }
  return used;
}

// Runs the child on `args` and collects its decisions into d (args->max
// entries) and *n; advances *rng.
static mqss_status sample(search_ctx *c, sample_args *args, search_rng *rng,
                          mqss_decision *d, int *n) {
  *n = 0;
  proc child;
  args->rng = *rng;
  if (!proc_spawn(&child, false, sample_child, args))
    return fail(mqss_module_session(c->module), MQSS_ERR_INTERNAL,
                "search: cannot start the sampling child (pipe or fork "
                "failed): %s", strerror(errno));
  // A pass that loops: the child is killed and the sequence ends there.
  collect k = {args->max, rng, d, n};
  strbuf buf = {0};
  proc_read(&child, c->opts->measure.timeout_ms, &buf, take_records, &k);
  sb_free(&buf);
  proc_wait(&child);
  return MQSS_OK;
}

mqss_status search_expand(search_ctx *c, const mqss_module *cur,
                          const mqss_decision *first, int max,
                          mqss_decision *out, int *n) {
  search_rng unused = {0};
  sample_args args = {.c = c, .from = cur, .first = first, .steps = 1,
                      .max = max};
  mqss_status st = sample(c, &args, &unused, out, n);
  if (st == MQSS_OK && *n == 0) { // it failed to apply, or the child died
                                  // before sending it: greedy measures it
    out[0] = *first;
    *n = 1;
  }
  return st;
}

// ----------------------------------------------------------------------------
// the search

mqss_status search_random_until(search_ctx *c, uint64_t seed, int stop_at,
                                bool fresh) {
  search_rng rng = {.s = seed};
  int cap = search_cap(c);
  mqss_decision *d = calloc((size_t)cap, sizeof *d);
  if (!d)
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  mqss_status st = MQSS_OK;
  int saved = c->stop_at;
  c->stop_at = stop_at;
  for (int misses = 0; misses < SEARCH_MISSES && search_budget_left(c);) {
    int n = 0, idx;
    sample_args args = {.c = c, .from = c->module,
                        .steps = c->opts->max_len, .max = cap};
    if ((st = sample(c, &args, &rng, d, &n)) != MQSS_OK)
      break;
    char *text = decisions_join(c->catalog, d, n);
    if (!text) {
      st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: cannot format a candidate pipeline");
      break;
    }
    if (fresh && search_find(c, text) >= 0) {
      free(text);
      misses++;
      continue;
    }
    misses = 0;
    st = search_eval(c, "random", text, d, n, &idx);
    free(text);
    if (st != MQSS_OK)
      break;
    // The best is the fastest correct candidate, once one beats the
    // reference by more than min_gain.
    search_offer_best(c, idx);
    search_eval_done(c, idx);
  }
  c->stop_at = saved;
  free(d);
  return st;
}

mqss_status search_random(search_ctx *c) {
  return search_random_until(c, c->opts->seed, 0, false);
}
