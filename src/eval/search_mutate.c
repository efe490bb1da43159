// Local search around the best sequence (the policy-guided search's
// mutations, search_policy.c): each candidate is the best sequence so far
// with one change, drawn uniformly among its steps (a decision and its
// repeats, search_steps): a step with parameters gets one of them redrawn,
// uniform in [-1, 1], on the decision and every repeat of it alike; a step
// without parameters, or one in MUTATE_DROP of the draws, is dropped whole.
// A recipe (the prior, or the policy's choice) is then tried with other
// tile, unroll and vector sizes, and without each of its steps, which random
// sequences and greedy extensions rarely reach. A size that no longer
// divides its loop fails to measure and is never the best. Measures through
// search.c like every candidate; an already-measured pipeline is skipped.
#include "eval/search.h"

#include <stdlib.h>
#include <string.h>

#define MUTATE_DROP 0.25

int search_mutate(const mqss_catalog *catalog, const mqss_decision *best,
                  int n, search_rng *rng, mqss_decision *out) {
  int steps = search_steps(best, n);
  if (steps == 0)
    return -1;
  int pick = search_rng_below(rng, steps), b = 0; // b: step pick's first
  for (int s = 0; s < pick; s++)
    for (b++; b < n && search_is_repeat(best, b); b++)
      ;
  int e = b + 1; // one past its last repeat
  while (e < n && search_is_repeat(best, e))
    e++;
  const mqss_action *a = mqss_catalog_action(catalog, best[b].action);
  bool drop = !a || a->n_params == 0 || search_rng_uniform(rng) < MUTATE_DROP;
  if (drop) {
    memcpy(out, best, (size_t)b * sizeof *out);
    memcpy(out + b, best + e, (size_t)(n - e) * sizeof *out);
    return n - (e - b);
  }
  int p = search_rng_below(rng, a->n_params);
  float u = search_rng_param(rng);
  memcpy(out, best, (size_t)n * sizeof *out);
  for (int k = b; k < e; k++)
    out[k].u[p] = u;
  return n;
}

mqss_status search_mutate_until(search_ctx *c, uint64_t seed, int stop_at) {
  search_rng rng = {.s = seed};
  int cap = search_cap(c);
  mqss_decision *best = calloc((size_t)cap, sizeof *best);
  mqss_decision *d = calloc((size_t)cap, sizeof *d);
  mqss_status st = MQSS_OK;
  if (!best || !d)
    st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
              "search: out of memory");
  int saved = c->stop_at;
  c->stop_at = stop_at;
  for (int misses = 0; st == MQSS_OK && misses < SEARCH_MISSES &&
                       search_budget_left(c);) {
    const mqss_search_eval *b = &c->out->trace[c->out->best_index];
    int n = b->n_decisions < cap ? b->n_decisions : cap;
    if (n == 0)
      break; // the best is the empty pipeline: nothing to change
    memcpy(best, b->decisions, (size_t)n * sizeof *best);
    int m = search_mutate(c->catalog, best, n, &rng, d);
    bool measured;
    st = search_try(c, "mutation", d, m, &measured);
    misses = measured ? 0 : misses + 1;
  }
  c->stop_at = saved;
  free(best);
  free(d);
  return st;
}
