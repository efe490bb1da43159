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
// sizes, and pipeline texts already tried in the step, cost no evaluation;
// a text measured earlier in the search (by another part of the policy-
// guided search) is taken with its measurement, without a new evaluation.
// The next step starts from the step's fastest correct candidate, even when
// it is no faster than the current sequence (an enabling pass such as a
// conversion to affine loops pays off only with the tiling after it); it
// becomes the best when it beats the best so far by more than min_gain.
// A schedule decision addresses one op (the focus, focus.c), so a module
// with several contractions needs one per op: a schedule candidate is the
// decision followed by its repeats (same action and parameters) on each
// next focus op it fits (search_expand), measured as one evaluation and
// taken as a whole; the ops it does not fit are left to later steps.
// The search ends when the budget or max_len steps (a candidate's repeats
// are part of its step) are reached or a step has no correct candidate.
// Only the chosen decisions are applied in process (to follow the mask):
// they have just run successfully in the sandbox. It does not measure
// anything itself (search.c does).
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
  mqss_decision *seq;     // (search_cap) the current sequence, then room
  int len;                // for a candidate's decisions
  char **seen;            // (n_seen) texts tried this step
  int n_seen, cap_seen;
  int best_idx;           // -1 while none is correct
  mqss_decision *best;    // (search_cap) its decisions after seq[0..len)
  int best_n;
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
  dd.op = search_focus(c, s->cur, &dd); // the per-op rule
  if (!search_budget_left(c) || s->len == search_cap(c) ||
      !search_admits(c, s->cur, d))
    return MQSS_OK;
  s->seq[s->len] = *d;
  // Tried this step? The repeats follow from the decision, so its own text
  // tells, before a child expands it.
  char *text = decisions_join(c->catalog, s->seq, s->len + 1);
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
  int n = 1, idx;
  mqss_status st = MQSS_OK;
  if (dd.op) { // a schedule decision on one op, and its repeats
    st = search_expand(c, s->cur, d, search_cap(c) - s->len, s->seq + s->len,
                       &n);
    if (st == MQSS_OK && n > 1 &&
        !(text = decisions_join(c->catalog, s->seq, s->len + n)))
      st = fail(ses, MQSS_ERR_NOMEM,
                "search: cannot format a candidate pipeline");
  }
  // A pipeline measured earlier in the search (a policy's proposal, say)
  // is taken as it was measured, without an evaluation.
  bool fresh = st == MQSS_OK && (idx = search_find(c, text)) < 0;
  if (fresh)
    st = search_eval(c, "greedy", text, s->seq, s->len + n, &idx);
  if (n > 1)
    free(text);
  if (st != MQSS_OK)
    return st;
  const mqss_search_eval *e = &c->out->trace[idx];
  if (search_eligible(e)) {
    *ms = e->run_ms;
    if (s->best_idx < 0 || e->run_ms < c->out->trace[s->best_idx].run_ms) {
      s->best_idx = idx;
      memcpy(s->best, s->seq + s->len, (size_t)n * sizeof *s->best);
      s->best_n = n;
    }
  }
  if (fresh)
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

// Screens and refines every allowed extension of seq[0..len). Stores the
// index of the step's fastest correct evaluation in *best_idx (-1 if none)
// and its decisions in best[0..*best_n).
static mqss_status step(search_ctx *c, const mqss_module *cur,
                        mqss_decision *seq, int len, int *best_idx,
                        mqss_decision *best, int *best_n) {
  const mqss_catalog *cat = c->catalog;
  int n_actions = mqss_catalog_size(cat), n_cand = 0;
  uint8_t *mask = malloc((size_t)n_actions);                 // (n_actions)
  candidate *cand = calloc((size_t)n_actions, sizeof *cand); // (n_cand)
  step_state s = {.c = c, .cur = cur, .seq = seq, .len = len, .best_idx = -1,
                  .best = best};
  mqss_status st = MQSS_OK;
  if (!mask || !cand) {
    st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
              "search: out of memory");
    goto done;
  }
  mqss_action_mask(cur, cat, NULL, mask);
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
  *best_n = s.best_n;
  return st;
}

// ----------------------------------------------------------------------------
// the search

mqss_status search_greedy_from(search_ctx *c, const mqss_decision *start,
                               int n, int stop_at) {
  int cap = search_cap(c);
  mqss_decision *seq = calloc((size_t)cap, sizeof *seq);  // (cap)
  mqss_decision *best = calloc((size_t)cap, sizeof *best); // (cap)
  mqss_module *cur = mqss_module_clone(c->module);
  mqss_status st = MQSS_OK;
  int saved = c->stop_at;
  c->stop_at = stop_at;
  if (!seq || !best || !cur) {
    st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
              "search: out of memory");
    goto done;
  }
  // numbered as the measurement numbers the module (mqss_module_run_pipeline)
  linalg_tag_once(mlirModuleGetOperation(cur->mod));
  if (n > cap)
    n = cap;
  for (int i = 0; i < n; i++) { // the start has been measured: it applies
    seq[i] = start[i];
    if (mqss_decision_apply(cur, c->catalog, &seq[i]) != MQSS_OK)
      goto done;
  }
  for (int len = n, steps = search_steps(start, n);
       steps < c->opts->max_len && search_budget_left(c); steps++) {
    int best_idx, best_n;
    if ((st = step(c, cur, seq, len, &best_idx, best, &best_n)) != MQSS_OK)
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
    int applied = 0;
    while (applied < best_n &&
           mqss_decision_apply(cur, c->catalog, &best[applied]) == MQSS_OK)
      seq[len++] = best[applied++];
    if (applied < best_n)
      break; // cannot follow the IR further; the best stands
  }
done:
  c->stop_at = saved;
  mqss_module_destroy(cur);
  free(best);
  free(seq);
  return st;
}

mqss_status search_greedy(search_ctx *c) {
  return search_greedy_from(c, NULL, 0, 0);
}
