// Search baselines, shared part: options and results, the evaluation
// recorder (one evaluation = one mqss_measure call, cache hits included),
// the seeded RNG, the final A/B confirmation with mqss_measure_vs, and the
// mqss_search() entry point. It does not choose candidates: random and
// greedy search live in search_random.c and search_greedy.c. Candidates'
// pipelines come from decisions_join (join.c). See docs/SEARCH.md.
#include "eval/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// ----------------------------------------------------------------------------
// names, options, results

const char *mqss_search_method_name(mqss_search_method m) {
  switch (m) {
  case MQSS_SEARCH_RANDOM:
    return "random";
  case MQSS_SEARCH_GREEDY:
    return "greedy";
  case MQSS_SEARCH_POLICY:
    return "policy";
  }
  return "unknown";
}

void mqss_search_options_init(mqss_search_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->method = MQSS_SEARCH_RANDOM;
  o->budget = 50;
  o->seed = 1;
  o->max_len = 16;
  o->min_gain = 0.02;
  o->confirm_pairs = 20;
  o->confirm_top = 3;
  o->proposals = 8;
  o->explore = 1;
  mqss_measure_options_init(&o->measure);
}

void mqss_search_result_free(mqss_search_result *r) {
  if (!r)
    return;
  for (int i = 0; i < r->n_trace; i++) {
    free(r->trace[i].pipeline);
    free(r->trace[i].decisions);
  }
  free(r->trace);
  free(r->best_pipeline);
  free(r->winner_pipeline);
  memset(r, 0, sizeof *r);
}

// ----------------------------------------------------------------------------
// RNG (splitmix64)

uint64_t search_rng_u64(search_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double search_rng_uniform(search_rng *r) {
  return (double)(search_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

float search_rng_param(search_rng *r) {
  return (float)(2.0 * search_rng_uniform(r) - 1.0);
}

int search_rng_below(search_rng *r, int n) {
  int k = (int)(search_rng_uniform(r) * n);
  return k >= n ? n - 1 : k;
}

// ----------------------------------------------------------------------------
// evaluations

bool search_budget_left(const search_ctx *c) {
  return c->out->n_trace < c->opts->budget &&
         (c->stop_at <= 0 || c->out->n_trace < c->stop_at);
}

int64_t search_focus(const search_ctx *c, const mqss_module *m,
                     const mqss_decision *d) {
  return c->opts->kind_wide ? 0 : decision_focus(m, c->catalog, d);
}

bool search_admits(const search_ctx *c, const mqss_module *m,
                   const mqss_decision *d) {
  const mqss_action *a = mqss_catalog_action(c->catalog, d->action);
  if (!a || a->is_stop)
    return a != NULL;
  if (!decision_fits(m, c->catalog, d, NULL, 0))
    return false;
  if (!a->refuse_if && !a->refuse_unless_divides)
    return true;
  char *text = mqss_decision_pipeline(c->catalog, d);
  char why[256];
  bool ok = text && !decision_refused(m, a, d, text, why, sizeof why);
  free(text);
  return ok;
}

int search_cap(const search_ctx *c) {
  return c->opts->max_len * (1 + DECISION_MAX_REPEATS);
}

bool search_is_repeat(const mqss_decision *d, int i) {
  return i > 0 && d[i].op && d[i - 1].op && d[i].action == d[i - 1].action &&
         !memcmp(d[i].u, d[i - 1].u, sizeof d[i].u);
}

int search_steps(const mqss_decision *d, int n) {
  int steps = 0;
  for (int i = 0; i < n; i++)
    steps += !search_is_repeat(d, i);
  return steps;
}

bool search_better(const search_ctx *c, double cand, double best) {
  return cand > 0 && cand < best * (1.0 - c->opts->min_gain);
}

mqss_status search_try(search_ctx *c, const char *source,
                       const mqss_decision *d, int n, bool *measured) {
  *measured = false;
  char *text = decisions_join(c->catalog, d, n);
  if (!text)
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: cannot format a candidate pipeline");
  mqss_status st = MQSS_OK;
  if (search_find(c, text) < 0) {
    int idx;
    st = search_eval(c, source, text, d, n, &idx);
    if (st == MQSS_OK) {
      search_offer_best(c, idx);
      search_eval_done(c, idx);
      *measured = true;
    }
  }
  free(text);
  return st;
}

int search_find(const search_ctx *c, const char *pipeline) {
  for (int i = 0; i < c->out->n_trace; i++)
    if (!strcmp(c->out->trace[i].pipeline, pipeline))
      return i;
  return -1;
}

bool search_eligible(const mqss_search_eval *e) {
  return e->status == MQSS_MEASURE_OK && !e->slow_compile;
}

void search_offer_best(search_ctx *c, int index) {
  const mqss_search_eval *e = &c->out->trace[index];
  if (search_eligible(e) &&
      search_better(c, e->run_ms, c->out->reference_run_ms) &&
      (c->out->best_index == 0 || e->run_ms < c->out->best_run_ms))
    search_set_best(c, index);
}

mqss_status search_eval(search_ctx *c, const char *source, const char *pipeline,
                        const mqss_decision *d, int n_decisions, int *index) {
  mqss_search_result *out = c->out;
  if (out->n_trace == c->cap_trace) {
    int cap = c->cap_trace ? 2 * c->cap_trace : 64;
    mqss_search_eval *t = realloc(out->trace, (size_t)cap * sizeof *t);
    if (!t)
      return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                  "search: out of memory");
    out->trace = t;
    c->cap_trace = cap;
  }
  mqss_search_eval *e = &out->trace[out->n_trace];
  memset(e, 0, sizeof *e);
  if (!(e->pipeline = strdup(pipeline ? pipeline : "")) ||
      (n_decisions > 0 &&
       !(e->decisions = malloc((size_t)n_decisions * sizeof *d)))) {
    free(e->pipeline);
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  }
  if (n_decisions > 0)
    memcpy(e->decisions, d, (size_t)n_decisions * sizeof *d);
  e->index = out->n_trace++;
  e->source = source;
  e->n_decisions = n_decisions;
  mqss_measure_options mo = c->opts->measure;
  mo.pipeline = e->pipeline;
  mqss_measure_result r;
  mqss_status st = mqss_measure(c->module, &mo, &r);
  if (st != MQSS_OK) {
    out->n_trace--;
    free(e->pipeline);
    free(e->decisions);
    return st;
  }
  snprintf(c->last_message, sizeof c->last_message, "%s", r.message);
  e->status = r.status;
  e->cached = r.cached;
  e->compile_ms = r.compile_ms;
  e->run_ms = r.status == MQSS_MEASURE_OK ? r.run_ms_median : 0;
  e->elapsed_ms = now_ms() - c->t0_ms;
  e->best_index = out->best_index;
  e->best_run_ms = out->best_run_ms;
  // Evaluation 0 sets the limit; the reference itself is never over it.
  double limit = c->opts->max_compile * out->trace[0].compile_ms;
  e->slow_compile = e->index > 0 && r.status == MQSS_MEASURE_OK &&
                    c->opts->max_compile > 0 && r.compile_ms > limit;
  out->slow_compiles += e->slow_compile;
  out->evaluations = out->n_trace;
  out->cache_hits += r.cached != 0;
  if (r.status != MQSS_MEASURE_OK) {
    out->failures++;
    if ((int)r.status >= 0 && (int)r.status < MQSS_SEARCH_STATUS_SLOTS)
      out->failures_by_status[r.status]++;
  }
  *index = e->index;
  return MQSS_OK;
}

void search_set_best(search_ctx *c, int index) {
  const mqss_search_eval *e = &c->out->trace[index];
  if (!search_eligible(e)) // defensive: failures are never best
    return;
  c->out->best_index = index;
  c->out->best_run_ms = e->run_ms;
}

void search_eval_done(search_ctx *c, int index) {
  mqss_search_eval *e = &c->out->trace[index];
  e->best_index = c->out->best_index;
  e->best_run_ms = c->out->best_run_ms;
  if (c->opts->progress)
    c->opts->progress(e, c->opts->progress_user);
}

// ----------------------------------------------------------------------------
// entry point

static mqss_status check_options(mqss_session *s, const mqss_search_options *o) {
  if (o->method != MQSS_SEARCH_RANDOM && o->method != MQSS_SEARCH_GREEDY &&
      o->method != MQSS_SEARCH_POLICY)
    return fail(s, MQSS_ERR_INVALID_ARG, "search: unknown method %d",
                (int)o->method);
  if (o->method == MQSS_SEARCH_POLICY && !o->policy)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "search: the policy method needs a policy (options.policy)");
  if (o->proposals < 0 || o->n_prior < 0 || (o->n_prior > 0 && !o->prior))
    return fail(s, MQSS_ERR_INVALID_ARG,
                "search: proposals and n_prior must be >= 0, and prior set "
                "when n_prior is");
  if (o->budget < 1)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "search: budget must be at least 1 (got %d)", o->budget);
  if (o->max_len < 1)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "search: max_len must be at least 1 (got %d)", o->max_len);
  if (!(o->max_compile >= 0))
    return fail(s, MQSS_ERR_INVALID_ARG,
                "search: max_compile must be >= 0 (got %g)", o->max_compile);
  if (!(o->min_gain >= 0 && o->min_gain < 1))
    return fail(s, MQSS_ERR_INVALID_ARG,
                "search: min_gain must be in [0, 1) (got %g)", o->min_gain);
  if (o->confirm_pairs < 0)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "search: confirm_pairs must be >= 0 (got %d)", o->confirm_pairs);
  if (o->confirm_top < 0 || o->confirm_top > MQSS_SEARCH_CONFIRM_MAX)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "search: confirm_top must be in 0..%d (got %d)",
                MQSS_SEARCH_CONFIRM_MAX, o->confirm_top);
  return MQSS_OK;
}

// The confirmation's candidates: up to `max` distinct eligible evaluations
// (search_eligible) that beat the reference by min_gain in the search,
// fastest first. Returns how many were stored in idx.
static int confirm_candidates(const search_ctx *c, int max, int *idx) {
  const mqss_search_result *out = c->out;
  int n = 0;
  while (n < max) {
    int pick = -1;
    for (int i = 1; i < out->n_trace; i++) {
      const mqss_search_eval *e = &out->trace[i];
      if (!search_eligible(e) ||
          !search_better(c, e->run_ms, out->reference_run_ms) ||
          (pick >= 0 && e->run_ms >= out->trace[pick].run_ms))
        continue;
      bool taken = false; // the same pipeline drawn twice is one candidate
      for (int k = 0; k < n && !taken; k++)
        taken = !strcmp(out->trace[idx[k]].pipeline, e->pipeline);
      if (!taken)
        pick = i;
    }
    if (pick < 0)
      break;
    idx[n++] = pick;
  }
  return n;
}

// The winner among the confirmed candidates cf[0..n): the fastest (largest
// speedup), or of those level with it (intervals overlapping its interval)
// the one whose search measurement compiled fastest. Speed decides where
// the pairs tell the candidates apart; compile time where they do not (two
// tile sizes within noise of each other, say), not the noise. -1: none.
static int pick_winner(const search_ctx *c, const mqss_search_confirmation *cf,
                       int n) {
  int fast = -1;
  for (int k = 0; k < n; k++)
    if (cf[k].verdict > 0 && (fast < 0 || cf[k].speedup > cf[fast].speedup))
      fast = k;
  int pick = fast;
  for (int k = 0; fast >= 0 && k < n; k++)
    if (cf[k].verdict > 0 && cf[k].hi >= cf[fast].lo &&
        cf[k].lo <= cf[fast].hi &&
        c->out->trace[cf[k].index].compile_ms <
            c->out->trace[cf[pick].index].compile_ms)
      pick = k;
  return pick;
}

// Re-measures the fastest candidates against the empty pipeline with
// interleaved pairs and names the winner (pick_winner) among those whose
// interval clears 1 + min_gain.
static mqss_status confirm(search_ctx *c) {
  mqss_search_result *out = c->out;
  int idx[MQSS_SEARCH_CONFIRM_MAX];
  int top = c->opts->confirm_top;
  int n = confirm_candidates(c, top > 0 ? top : 1, idx);
  if (n == 0) {
    out->confirmed_speedup = 1.0; // nothing beat the reference
    return MQSS_OK;
  }
  if (top == 0 || c->opts->confirm_pairs == 0)
    return MQSS_OK; // skipped
  double t0 = now_ms();
  mqss_measure_options mo = c->opts->measure;
  mo.repeat = c->opts->confirm_pairs;
  int any_ok = 0;
  mqss_measure_vs_result vs[MQSS_SEARCH_CONFIRM_MAX];
  for (int k = 0; k < n; k++) {
    mo.pipeline = out->trace[idx[k]].pipeline;
    mqss_status st = mqss_measure_vs(c->module, &mo, "", &vs[k]);
    if (st != MQSS_OK)
      return st;
    out->confirmed = 1;
    mqss_search_confirmation *cf = &out->confirmations[out->n_confirmations++];
    cf->index = idx[k];
    cf->status = vs[k].a.status != MQSS_MEASURE_OK ? vs[k].a.status
                                                   : vs[k].b.status;
    if (cf->status != MQSS_MEASURE_OK)
      continue;
    any_ok = 1;
    // ratio = time(B = reference) / time(A = candidate): its speedup.
    cf->speedup = vs[k].ratio_hl;
    cf->lo = vs[k].ratio_lo;
    cf->hi = vs[k].ratio_hi;
    cf->conf = vs[k].ratio_conf;
    cf->verdict = mqss_ratio_verdict(cf->lo, cf->hi, c->opts->min_gain);
  }
  int winner = pick_winner(c, out->confirmations, out->n_confirmations);
  // the winner's numbers; with none, the fastest candidate's (why not)
  out->confirm = vs[winner >= 0 ? winner : 0];
  out->confirm_ms = now_ms() - t0;
  out->confirmed_lo = out->confirm.ratio_lo;
  out->confirmed_hi = out->confirm.ratio_hi;
  if (winner >= 0) {
    const mqss_search_confirmation *w = &out->confirmations[winner];
    out->confirmed_speedup = w->speedup;
    out->winner_index = w->index;
    free(out->winner_pipeline);
    if (!(out->winner_pipeline = strdup(out->trace[w->index].pipeline)))
      return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                  "search: out of memory");
  } else {
    out->confirmed_speedup = any_ok ? 1.0 : 0.0; // no confirmed speedup
  }
  return MQSS_OK;
}

mqss_status mqss_search(mqss_module *module, const mqss_catalog *catalog,
                        const mqss_search_options *opts,
                        mqss_search_result *out) {
  if (!out)
    return MQSS_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  if (!module || !catalog || !opts)
    return module ? fail(mqss_module_session(module), MQSS_ERR_INVALID_ARG,
                         "search: NULL catalog or options")
                  : MQSS_ERR_INVALID_ARG;
  mqss_session *s = mqss_module_session(module);
  mqss_status st = check_options(s, opts);
  if (st != MQSS_OK)
    return st;
  search_ctx c = {.module = module, .catalog = catalog, .opts = opts,
                  .out = out, .t0_ms = now_ms()};
  out->method = opts->method;
  int idx;
  if ((st = search_eval(&c, "reference", "", NULL, 0, &idx)) != MQSS_OK)
    goto done;
  const mqss_search_eval *ref = &out->trace[0];
  if (ref->status != MQSS_MEASURE_OK) {
    search_eval_done(&c, idx);
    st = fail(s, MQSS_ERR_INVALID_ARG,
              "search: the module does not measure ok without a pipeline "
              "(%s); fix the module or the measurement settings first",
              c.last_message[0] ? c.last_message
                                : mqss_measure_status_name(ref->status));
    goto done;
  }
  out->reference_run_ms = ref->run_ms;
  search_set_best(&c, 0);
  search_eval_done(&c, 0);
  st = opts->method == MQSS_SEARCH_RANDOM   ? search_random(&c)
       : opts->method == MQSS_SEARCH_GREEDY ? search_greedy(&c)
                                            : search_policy(&c);
  if (st != MQSS_OK)
    goto done;
  out->search_ms = now_ms() - c.t0_ms;
  out->speedup = out->reference_run_ms / out->best_run_ms;
  if (!(out->best_pipeline = strdup(out->trace[out->best_index].pipeline)) ||
      !(out->winner_pipeline = strdup(""))) {
    st = fail(s, MQSS_ERR_NOMEM, "search: out of memory");
    goto done;
  }
  st = confirm(&c);
done:
  if (!out->search_ms)
    out->search_ms = now_ms() - c.t0_ms;
  out->wall_ms = now_ms() - c.t0_ms;
  return st;
}
