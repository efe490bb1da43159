// Greedy search: from the empty sequence, each step extends the current
// sequence by one decision. A step first screens every action the safety
// mask allows on the current IR, in catalog order, at its default
// parameters (u = 0: the middle of each range). Then, fastest screened
// action first, it refines each action that has parameters by one sweep of
// coordinate descent: every value of the first parameter (every candidate
// of a choice or divisor, u in {-1, 0, 1} for an int), keeping the fastest
// so far, then every value of the next one, and so on. A step thus costs
// about the sum of the parameters' candidate counts per action, not their
// product (a two-level tiling with seven parameters would need 3^7
// evaluations on a grid). Decisions the safety layer would refuse for their
// sizes, and pipeline texts already tried in the step, cost no evaluation.
// The next step starts from the step's fastest correct candidate, even when
// it is no faster than the current sequence (an enabling pass such as a
// conversion to affine loops pays off only with the tiling after it); it
// becomes the best when it beats the best so far by more than min_gain.
// A schedule decision addresses one op (the focus, focus.c), so a module
// with several contractions needs one per op: a step after a schedule
// decision first tries that decision again (same action and parameters) on
// the new focus op, and when it beats the sequence so far by min_gain it is
// the step, without screening (one evaluation per further op instead of a
// step's worth).
// The search ends when the budget or max_len is reached or a step has no
// correct candidate. Only the chosen decision is applied in process (to
// follow the mask): it has just run successfully in the sandbox. It does
// not measure anything itself (search.c does).
#include "eval/search.h"
#include "actions/linalg_ops.h"

#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// one step

// The step's state: pipeline texts tried, its fastest correct evaluation.
typedef struct {
  search_ctx *c;
  const mqss_module *cur; // the IR the step extends
  mqss_decision *seq;     // (len + 1) the current sequence and one slot
  int len;
  char **seen;            // (n_seen) texts tried this step
  int n_seen, cap_seen;
  int best_idx;           // -1 while none is correct
  mqss_decision best_d;
} step_state;

// Raw values u that reach every candidate of parameter p: the middle of
// each candidate's interval for a choice, divisor or bool (mqss_param_map),
// the ends and the middle for an int range. Returns their number (<= max).
static int param_grid(const mqss_param *p, float *u, int max) {
  int n = p->kind == MQSS_PARAM_CHOICE || p->kind == MQSS_PARAM_DIVISOR
              ? p->n_values
          : p->kind == MQSS_PARAM_BOOL ? 2
                                       : 3;
  n = n < max ? n : max;
  for (int i = 0; i < n; i++)
    u[i] = (float)(2.0 * (i + 0.5) / n - 1.0);
  return n;
}

// Measures decision d appended to the sequence, unless the safety layer
// would refuse it or the step has tried the same text. Sets *ms to its
// run time when it ran correctly, else leaves it alone.
static mqss_status try_decision(step_state *s, const mqss_decision *given,
                                double *ms) {
  search_ctx *c = s->c;
  mqss_session *ses = mqss_module_session(c->module);
  mqss_decision dd = *given;
  const mqss_decision *d = &dd;
  dd.op = decision_focus(s->cur, c->catalog, &dd); // the per-op rule
  if (!search_budget_left(c) || !decision_fits(s->cur, c->catalog, d, NULL, 0))
    return MQSS_OK;
  s->seq[s->len] = *d;
  char *text = search_join(c->catalog, s->seq, s->len + 1);
  if (!text)
    return fail(ses, MQSS_ERR_NOMEM,
                "search: cannot format a candidate pipeline");
  for (int i = 0; i < s->n_seen; i++)
    if (!strcmp(s->seen[i], text)) {
      free(text);
      return MQSS_OK;
    }
  if (s->n_seen == s->cap_seen) {
    int cap = s->cap_seen ? 2 * s->cap_seen : 32;
    char **grown = realloc(s->seen, (size_t)cap * sizeof *grown);
    if (!grown) {
      free(text);
      return fail(ses, MQSS_ERR_NOMEM, "search: out of memory");
    }
    s->seen = grown;
    s->cap_seen = cap;
  }
  s->seen[s->n_seen++] = text;
  int idx;
  mqss_status st = search_eval(c, text, s->seq, s->len + 1, &idx);
  if (st != MQSS_OK)
    return st;
  const mqss_search_eval *e = &c->out->trace[idx];
  if (e->status == MQSS_MEASURE_OK) {
    *ms = e->run_ms;
    if (s->best_idx < 0 || e->run_ms < c->out->trace[s->best_idx].run_ms) {
      s->best_idx = idx;
      s->best_d = *d;
    }
  }
  search_eval_done(c, idx);
  return MQSS_OK;
}

// One action's best decision of the step and its run time (0: none ran).
typedef struct {
  mqss_decision d;
  double ms;
} candidate;

// One sweep of coordinate descent over the parameters of cand's action,
// from cand->d; keeps the fastest decision in cand.
static mqss_status refine(step_state *s, candidate *cand) {
  const mqss_action *act = mqss_catalog_action(s->c->catalog, cand->d.action);
  mqss_status st = MQSS_OK;
  for (int p = 0; p < act->n_params && st == MQSS_OK; p++) {
    float u[64];
    int n = param_grid(&act->params[p], u, 64);
    mqss_decision base = cand->d;
    for (int v = 0; v < n && st == MQSS_OK; v++) {
      mqss_decision d = base;
      d.u[p] = u[v];
      double ms = 0;
      st = try_decision(s, &d, &ms);
      if (ms > 0 && (cand->ms <= 0 || ms < cand->ms)) {
        cand->d = d;
        cand->ms = ms;
      }
    }
  }
  return st;
}

// Screened candidates, fastest first; those that never ran last.
static int by_time(const void *a, const void *b) {
  double x = ((const candidate *)a)->ms, y = ((const candidate *)b)->ms;
  if ((x > 0) != (y > 0))
    return x > 0 ? -1 : 1;
  return x < y ? -1 : x > y;
}

// The previous step's schedule decision on the new focus op, if it has one
// the action targets and the mask allows the action. Stores its run time in
// *ms when it ran correctly.
static mqss_status try_repeat(step_state *s, const uint8_t *mask,
                              const mqss_decision *prev, double *ms) {
  if (!prev || !prev->op || !mask[prev->action])
    return MQSS_OK;
  mqss_decision r = *prev;
  if (!decision_focus(s->cur, s->c->catalog, &r))
    return MQSS_OK;
  return try_decision(s, &r, ms);
}

// Screens and refines every allowed extension of seq[0..len), after trying
// the repeat of prev (the decision seq[len - 1], or NULL), which ends the
// step when it beats cur_ms (the run time of seq[0..len), 0 if unknown).
// Stores the index of the step's fastest correct evaluation in *best_idx
// (-1 if none) and its decision in *best_d.
static mqss_status step(search_ctx *c, const mqss_module *cur,
                        mqss_decision *seq, int len, const mqss_decision *prev,
                        double cur_ms, int *best_idx, mqss_decision *best_d) {
  const mqss_catalog *cat = c->catalog;
  int n_actions = mqss_catalog_size(cat), n_cand = 0;
  uint8_t *mask = malloc((size_t)n_actions);                 // (n_actions)
  candidate *cand = calloc((size_t)n_actions, sizeof *cand); // (n_cand)
  step_state s = {.c = c, .cur = cur, .seq = seq, .len = len, .best_idx = -1};
  mqss_status st = MQSS_OK;
  if (!mask || !cand) {
    st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
              "search: out of memory");
    goto done;
  }
  mqss_action_mask(cur, cat, NULL, mask);
  double repeat_ms = 0;
  st = try_repeat(&s, mask, prev, &repeat_ms);
  if (st != MQSS_OK || search_better(c, repeat_ms, cur_ms))
    goto done;
  for (int a = 0; a < n_actions && st == MQSS_OK; a++) {
    if (!mask[a] || mqss_catalog_action(cat, a)->is_stop)
      continue;
    candidate *k = &cand[n_cand++];
    k->d = (mqss_decision){.action = a};
    st = try_decision(&s, &k->d, &k->ms);
  }
  qsort(cand, (size_t)n_cand, sizeof *cand, by_time);
  for (int i = 0; i < n_cand && st == MQSS_OK; i++)
    if (mqss_catalog_action(cat, cand[i].d.action)->n_params)
      st = refine(&s, &cand[i]);
done:
  for (int i = 0; i < s.n_seen; i++)
    free(s.seen[i]);
  free(s.seen);
  free(cand);
  free(mask);
  *best_idx = s.best_idx;
  if (s.best_idx >= 0)
    *best_d = s.best_d;
  return st;
}

// ----------------------------------------------------------------------------
// the search

mqss_status search_greedy_from(search_ctx *c, const mqss_decision *start,
                               int n, int stop_at) {
  int max_len = c->opts->max_len;
  mqss_decision *seq = calloc((size_t)max_len, sizeof *seq); // (max_len)
  mqss_module *cur = mqss_module_clone(c->module);
  mqss_status st = MQSS_OK;
  int saved = c->stop_at;
  c->stop_at = stop_at;
  if (!seq || !cur) {
    st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
              "search: out of memory");
    goto done;
  }
  // numbered as the measurement numbers the module (mqss_module_run_pipeline)
  linalg_tag_once(mlirModuleGetOperation(cur->mod));
  if (n > max_len)
    n = max_len;
  for (int i = 0; i < n; i++) { // the start has been measured: it applies
    seq[i] = start[i];
    if (mqss_decision_apply(cur, c->catalog, &seq[i]) != MQSS_OK)
      goto done;
  }
  double cur_ms = 0; // run time of seq[0..len), once a step measured it
  for (int len = n; len < max_len && search_budget_left(c); len++) {
    int best_idx;
    mqss_decision best_d;
    st = step(c, cur, seq, len, len ? &seq[len - 1] : NULL, cur_ms, &best_idx,
              &best_d);
    if (st != MQSS_OK)
      break;
    if (best_idx < 0)
      break; // no correct candidate to extend
    if (search_better(c, c->out->trace[best_idx].run_ms, c->out->best_run_ms)) {
      search_set_best(c, best_idx);
      // The step's last evaluation is where the new best becomes known.
      mqss_search_eval *last = &c->out->trace[c->out->n_trace - 1];
      last->best_index = c->out->best_index;
      last->best_run_ms = c->out->best_run_ms;
    }
    seq[len] = best_d;
    cur_ms = c->out->trace[best_idx].run_ms;
    if (mqss_decision_apply(cur, c->catalog, &best_d) != MQSS_OK)
      break; // cannot follow the IR further; the best stands
  }
done:
  c->stop_at = saved;
  mqss_module_destroy(cur);
  free(seq);
  return st;
}

mqss_status search_greedy(search_ctx *c) {
  return search_greedy_from(c, NULL, 0, 0);
}
