// Any-time selection (mqss_policy_select_budget, `mqss select --budget N`):
// the policy's own choice plus N candidates (its thread variant, then
// sampled proposals) are measured by the policy-guided search
// (src/eval/search_policy.c), outputs checked, and a
// proposal replaces the own choice only when re-measurement confirms that it
// is faster, and its compile time is within max_compile times the module's
// without passes (the search's limit; the own choice is exempt). A proposal
// or an own choice whose output check failed is never returned, nor an own
// choice that re-measurement confirms slower than the reference when nothing
// beat the reference. Budget 0 is plain mqss_policy_select(). It does not
// choose candidates itself.
#include "policy/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mqss_budget_options_init(mqss_budget_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->min_gain = 0.02;
  o->confirm_pairs = 20;
  o->max_compile = 4;
  mqss_measure_options_init(&o->measure);
  o->measure.warmup = 1;
  o->measure.repeat = 5;
}

mqss_status budget_versus(mqss_module *m, const mqss_budget_options *o,
                          const char *a, const char *b,
                          mqss_measure_vs_result *vs, int *verdict) {
  mqss_measure_options mo = o->measure;
  mo.pipeline = a;
  mo.repeat = o->confirm_pairs;
  mo.check_reference = 1;
  mqss_status st = mqss_measure_vs(m, &mo, b, vs);
  *verdict = st == MQSS_OK && vs->a.status == MQSS_MEASURE_OK &&
                     vs->b.status == MQSS_MEASURE_OK
                 ? mqss_ratio_verdict(vs->ratio_lo, vs->ratio_hi, o->min_gain)
                 : 0;
  return st;
}

// Confirms `winner` against the own choice `own` (both measured OK): keeps it
// when its speedup interval clears 1 + min_gain.
static mqss_status versus_own(mqss_module *m, const mqss_budget_options *o,
                              const char *winner, const char *own,
                              mqss_budget_report *r, bool *keep) {
  mqss_measure_vs_result vs;
  int verdict;
  mqss_status st = budget_versus(m, o, winner, own, &vs, &verdict);
  if (st != MQSS_OK)
    return st;
  *keep = verdict > 0;
  if (*keep) {
    r->speedup = vs.ratio_hl;
    r->lo = vs.ratio_lo;
    r->hi = vs.ratio_hi;
  }
  snprintf(r->reason, sizeof r->reason,
           "a proposal was confirmed over the reference; over the policy's "
           "choice it measured %.3fx [%.3f, %.3f]: %s", vs.ratio_hl,
           vs.ratio_lo, vs.ratio_hi, *keep ? "kept" : "not confirmed, the "
           "policy's choice stays");
  return MQSS_OK;
}

// Chooses among the search's results (see the file comment).
static mqss_status decide(const mqss_policy *p, mqss_module *m,
                          const mqss_budget_options *o,
                          const mqss_search_result *sr, const char *own,
                          bool own_ok, mqss_selection **chosen,
                          mqss_budget_report *r) {
  const mqss_catalog *cat = mqss_policy_catalog(p);
  const char *win = sr->winner_pipeline ? sr->winner_pipeline : "";
  bool keep = false;
  if (win[0] && strcmp(win, own)) {
    if (own_ok && own[0]) {
      mqss_status st = versus_own(m, o, win, own, r, &keep);
      if (st != MQSS_OK)
        return st;
    } else {
      keep = true;
      r->speedup = sr->confirmed_speedup;
      r->lo = sr->confirmed_lo;
      r->hi = sr->confirmed_hi;
      snprintf(r->reason, sizeof r->reason,
               "%s; a proposal measured %.3fx [%.3f, %.3f] over the reference",
               own_ok ? "the policy chose no passes"
                      : "the policy's choice failed its output check",
               r->speedup, r->lo, r->hi);
    }
  } else if (!win[0] && own_ok && own[0]) {
    // Nothing was confirmed faster than the reference, the own choice
    // included: it stays unless it is confirmed slower than no passes.
    mqss_measure_vs_result vs;
    int verdict;
    mqss_status st = budget_versus(m, o, own, "", &vs, &verdict);
    if (st != MQSS_OK)
      return st;
    snprintf(r->reason, sizeof r->reason,
             "no proposal was confirmed faster than the reference; the "
             "policy's choice measured %.3fx [%.3f, %.3f] over it: %s",
             vs.ratio_hl, vs.ratio_lo, vs.ratio_hi,
             verdict < 0 ? "slower, no passes" : "it stays");
    if (verdict < 0) {
      mqss_selection_destroy(*chosen);
      *chosen = NULL;
      r->kept = 3;
      return mqss_selection_create(cat, NULL, 0, chosen);
    }
  } else {
    snprintf(r->reason, sizeof r->reason, "%s",
             win[0] ? "the policy's own choice is the confirmed best"
                    : "no proposal was confirmed faster than the reference");
  }
  if (keep) {
    const mqss_search_eval *e = &sr->trace[sr->winner_index];
    mqss_selection *sel = NULL;
    mqss_status st = mqss_selection_create(cat, e->decisions, e->n_decisions, &sel);
    if (st != MQSS_OK)
      return st;
    mqss_selection_destroy(*chosen);
    *chosen = sel;
    r->kept = 1;
    return MQSS_OK;
  }
  r->speedup = r->lo = r->hi = 1.0;
  if (own_ok)
    return MQSS_OK; // *chosen stays the own choice
  mqss_selection_destroy(*chosen);
  *chosen = NULL;
  r->kept = 2;
  size_t len = strlen(r->reason);
  snprintf(r->reason + len, sizeof r->reason - len,
           "; the policy's choice failed its output check: no passes");
  return mqss_selection_create(cat, NULL, 0, chosen);
}

mqss_status mqss_policy_select_budget(const mqss_policy *p, mqss_module *m,
                                      const mqss_select_options *sel_opts,
                                      const mqss_budget_options *o,
                                      mqss_selection **out,
                                      mqss_budget_report *report) {
  mqss_budget_report scratch;
  mqss_budget_report *r = report ? report : &scratch;
  memset(r, 0, sizeof *r);
  r->speedup = r->lo = r->hi = 1.0;
  if (!out || !m)
    return MQSS_ERR_INVALID_ARG;
  *out = NULL;
  mqss_session *s = mqss_module_session(m);
  if (!p)
    return fail(s, MQSS_ERR_INVALID_ARG, "select: NULL policy");
  if (o && (o->budget < 0 || o->confirm_pairs < 1 || !(o->max_compile >= 0)))
    return fail(s, MQSS_ERR_INVALID_ARG, "select: budget must be >= 0, "
                "confirm_pairs >= 1 and max_compile >= 0 (got %d, %d and %g)",
                o->budget, o->confirm_pairs, o->max_compile);
  mqss_selection *own = NULL;
  mqss_status st = mqss_policy_select(p, m, sel_opts, &own);
  if (st != MQSS_OK || !o || o->budget == 0) {
    *out = own;
    r->policy_ok = st == MQSS_OK;
    return st;
  }
  mqss_select_options so;
  if (sel_opts)
    so = *sel_opts;
  else
    mqss_select_options_init(&so);
  int n = mqss_selection_count(own);
  mqss_decision *prior = calloc((size_t)(n > 0 ? n : 1), sizeof *prior);
  if (!prior) {
    mqss_selection_destroy(own);
    return fail(s, MQSS_ERR_NOMEM, "select: out of memory");
  }
  for (int i = 0; i < n; i++)
    prior[i] = *mqss_selection_decision(own, i);
  mqss_search_options so2;
  mqss_search_options_init(&so2);
  so2.method = MQSS_SEARCH_POLICY;
  so2.policy = p;
  so2.prior = prior;
  so2.n_prior = n;
  so2.proposals = o->budget;
  so2.explore = 0;
  so2.budget = 2 + o->budget; // the reference, the own choice, the others
  so2.seed = so.seed;
  so2.max_len = n > so.max_steps ? n : (so.max_steps > 0 ? so.max_steps : 16);
  so2.min_gain = o->min_gain;
  so2.confirm_pairs = o->confirm_pairs;
  so2.max_compile = o->max_compile;
  so2.measure = o->measure;
  so2.measure.check_reference = 1;
  mqss_search_result sr;
  st = mqss_search(m, mqss_policy_catalog(p), &so2, &sr);
  if (st == MQSS_OK) {
    r->measured = sr.evaluations;
    r->failed = sr.failures;
    // The own choice (evaluation 1) is exempt from the limit: not counted.
    r->slow = sr.slow_compiles - (n > 0 && sr.n_trace > 1 &&
                                  sr.trace[1].slow_compile);
    // The own choice is evaluation 1, or the reference itself when empty.
    const char *own_text = n > 0 && sr.n_trace > 1 ? sr.trace[1].pipeline : "";
    r->policy_ok = n == 0 || (sr.n_trace > 1 &&
                              sr.trace[1].status == MQSS_MEASURE_OK);
    st = decide(p, m, o, &sr, own_text, r->policy_ok, &own, r);
    size_t len = strlen(r->reason);
    if (st == MQSS_OK && r->slow > 0)
      snprintf(r->reason + len, sizeof r->reason - len, "; %d proposal(s) "
               "compiled over %gx the module's time without passes and were "
               "not considered", r->slow, o->max_compile);
  }
  else if (st == MQSS_ERR_INVALID_ARG) {
    // The module does not measure without passes: nothing can be checked.
    snprintf(r->reason, sizeof r->reason, "nothing measured, the policy's "
             "choice stands: %.900s", mqss_errmsg(s));
    r->policy_ok = 0;
    st = MQSS_OK;
  }
  mqss_search_result_free(&sr);
  free(prior);
  if (st != MQSS_OK) {
    mqss_selection_destroy(own);
    return st;
  }
  *out = own;
  return MQSS_OK;
}
