// Greedy search: from the empty sequence, each step tries every action the
// safety mask allows on the current IR appended to the current sequence
// (parametric actions at every combination of u in {-1, 0, 1} per
// parameter, duplicates of the same pipeline text skipped), in catalog
// order. The next step starts from the step's fastest correct candidate,
// even when it is no faster than the current sequence (an enabling pass such
// as a conversion to affine loops pays off only with the tiling after it);
// it becomes the best when it beats the best so far by more than min_gain.
// The search ends when the budget or max_len is reached or a step has no
// correct candidate. Only the chosen decision is applied in process (to
// follow the mask): it has just run successfully in the sandbox. It does not measure anything
// itself (search.c does).
#include "eval/search.h"

#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// one step

enum { GRID = 3 }; // u in {-1, 0, 1}
static const float grid_u[GRID] = {-1.0f, 0.0f, 1.0f};

// True when `text` is already in seen[0..n).
static bool seen_before(char *const *seen, int n, const char *text) {
  for (int i = 0; i < n; i++)
    if (!strcmp(seen[i], text))
      return true;
  return false;
}

// Tries every allowed extension of seq[0..len). Stores the index of the
// step's fastest correct evaluation in *best_idx (-1 if none) and its
// decision in *best_d.
static mqss_status step(search_ctx *c, const mqss_module *cur,
                        mqss_decision *seq, int len, int *best_idx,
                        mqss_decision *best_d) {
  const mqss_catalog *cat = c->catalog;
  int n_actions = mqss_catalog_size(cat);
  uint8_t *mask = malloc((size_t)n_actions); // (n_actions)
  char **seen = NULL;                         // (n_seen) texts tried this step
  int n_seen = 0, cap_seen = 0;
  mqss_status st = MQSS_OK;
  *best_idx = -1;
  if (!mask)
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  mqss_action_mask(cur, cat, NULL, mask);
  for (int a = 0; a < n_actions && st == MQSS_OK; a++) {
    const mqss_action *act = mqss_catalog_action(cat, a);
    if (!mask[a] || act->is_stop)
      continue;
    int combos = 1;
    for (int p = 0; p < act->n_params; p++)
      combos *= GRID;
    for (int k = 0; k < combos && st == MQSS_OK; k++) {
      if (!search_budget_left(c))
        goto done;
      mqss_decision d = {.action = a};
      for (int p = 0, r = k; p < act->n_params; p++, r /= GRID)
        d.u[p] = grid_u[r % GRID];
      seq[len] = d;
      char *text = search_join(cat, seq, len + 1);
      if (!text) {
        st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                  "search: cannot format a candidate pipeline");
        break;
      }
      if (seen_before(seen, n_seen, text)) {
        free(text);
        continue;
      }
      if (n_seen == cap_seen) {
        cap_seen = cap_seen ? 2 * cap_seen : 32;
        char **grown = realloc(seen, (size_t)cap_seen * sizeof *grown);
        if (!grown) {
          free(text);
          st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                    "search: out of memory");
          break;
        }
        seen = grown;
      }
      seen[n_seen++] = text;
      int idx;
      if ((st = search_eval(c, text, seq, len + 1, &idx)) != MQSS_OK)
        break;
      const mqss_search_eval *e = &c->out->trace[idx];
      if (e->status == MQSS_MEASURE_OK &&
          (*best_idx < 0 || e->run_ms < c->out->trace[*best_idx].run_ms)) {
        *best_idx = idx;
        *best_d = d;
      }
      search_eval_done(c, idx);
    }
  }
done:
  for (int i = 0; i < n_seen; i++)
    free(seen[i]);
  free(seen);
  free(mask);
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
  if (n > max_len)
    n = max_len;
  for (int i = 0; i < n; i++) { // the start has been measured: it applies
    seq[i] = start[i];
    if (mqss_decision_apply(cur, c->catalog, &seq[i]) != MQSS_OK)
      goto done;
  }
  for (int len = n; len < max_len && search_budget_left(c); len++) {
    int best_idx;
    mqss_decision best_d;
    if ((st = step(c, cur, seq, len, &best_idx, &best_d)) != MQSS_OK)
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
