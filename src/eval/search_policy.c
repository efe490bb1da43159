// Policy-guided search (MQSS_SEARCH_POLICY): the search of expert iteration
// and of any-time selection. Candidates come in this order, each measured
// once like every search candidate (cache, sandbox, output check):
//   1. the prior sequence (an earlier winner), so a search never loses it,
//      then the thread variants of the best so far, the prior or the
//      reference (search_threads.c: its heavy ops split onto threads first);
//   2. the policy's own proposals: its greedy choice (sizes fitted as the
//      policy was trained), the same with its sizes fitted (fit_sizes: a
//      tiling the policy chose with sizes that do not divide its op's loops
//      is kept with the nearest sizes that do),
//      then selections sampled, sizes fitted, with seeds seed+2, seed+3,
//      ..., until `proposals` distinct pipelines (or four times as many
//      draws) have been measured;
//   3. with `explore`, the budget left goes in thirds to greedy steps that
//      extend the best sequence so far, to mutations of the best so far
//      (one step's parameter redrawn or the step dropped, search_mutate.c)
//      and to random sequences; a part that ends early leaves its share to
//      the next.
// The best is the fastest correct candidate that beats the reference by
// min_gain (greedy steps: that beats the best so far by min_gain); search.c
// then confirms it by re-measurement. It does not measure anything itself.
#include "eval/search.h"

#include <stdlib.h>
#include <string.h>

// The policy's proposals (step 2).
static mqss_status proposals(search_ctx *c) {
  const mqss_search_options *o = c->opts;
  mqss_select_options so;
  mqss_select_options_init(&so);
  so.max_steps = o->max_len; // steps, each with its repeats
  so.isolate = 1; // a crashing pass ends only the child
  so.timeout_ms = o->measure.timeout_ms;
  int done = 0;
  for (int k = 0; k < 4 * o->proposals && done < o->proposals &&
                  search_budget_left(c); k++) {
    so.sample = k > 1;
    so.fit_sizes = k > 0;
    so.seed = o->seed + (uint64_t)k;
    mqss_selection *sel = NULL;
    mqss_status st = mqss_policy_select(o->policy, c->module, &so, &sel);
    if (st == MQSS_ERR_CRASHED)
      continue; // every retry crashed: no proposal from this draw
    if (st != MQSS_OK)
      return st;
    int n = mqss_selection_count(sel);
    if (n > search_cap(c))
      n = search_cap(c);
    mqss_decision *d = calloc((size_t)(n > 0 ? n : 1), sizeof *d);
    if (!d) {
      mqss_selection_destroy(sel);
      return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                  "search: out of memory");
    }
    for (int i = 0; i < n; i++)
      d[i] = *mqss_selection_decision(sel, i);
    bool measured;
    st = search_try(c, "proposal", d, n, &measured);
    free(d);
    mqss_selection_destroy(sel);
    if (st != MQSS_OK)
      return st;
    done += measured;
  }
  return MQSS_OK;
}

mqss_status search_policy(search_ctx *c) {
  const mqss_search_options *o = c->opts;
  bool measured;
  mqss_status st = MQSS_OK;
  if (o->n_prior > 0 && search_budget_left(c))
    st = search_try(c, "prior", o->prior,
                      o->n_prior < search_cap(c) ? o->n_prior : search_cap(c),
                      &measured);
  if (st == MQSS_OK)
    st = search_threads(c); // of the best so far: the prior or the reference
  if (st == MQSS_OK)
    st = proposals(c);
  if (st != MQSS_OK || !o->explore || !search_budget_left(c))
    return st;
  // Greedy steps from the best so far (copied: the trace may move).
  const mqss_search_eval *best = &c->out->trace[c->out->best_index];
  int n = best->n_decisions;
  mqss_decision *start = calloc((size_t)(n > 0 ? n : 1), sizeof *start);
  if (!start)
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  if (n > 0)
    memcpy(start, best->decisions, (size_t)n * sizeof *start);
  int left = o->budget - c->out->n_trace;
  st = search_greedy_from(c, start, n, c->out->n_trace + (left + 2) / 3);
  free(start);
  if (st == MQSS_OK) {
    left = o->budget - c->out->n_trace;
    st = search_mutate_until(c, o->seed, c->out->n_trace + (left + 1) / 2);
  }
  if (st == MQSS_OK)
    st = search_random_until(c, o->seed, 0, true);
  return st;
}
