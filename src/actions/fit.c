// Fitting a schedule decision's sizes to its module. A policy (or a recipe
// written for other shapes) may give a tiling decision divisor sizes that
// do not divide the loops of the op it addresses; applying it would be
// refused (decision_fits). decision_fit_sizes moves such sizes to the
// nearest combination that fits, so that the decision carries out the
// transformation that was chosen rather than being dropped. Selection with
// fit_sizes (and so the policy-guided search's proposals) fits a chosen
// decision before applying it; seed pruning fits recipe decisions with
// expit.adapt_sizes. The training environment does not: there such a
// decision fails, as in selection without fit_sizes.
#include "internal.h"

#include <stdlib.h>

// Most size combinations decision_fit_sizes tries.
enum { FIT_MAX_COMBINATIONS = 1 << 16 };

float param_grid_middle(const mqss_param *p, float u) {
  int64_t v = mqss_param_map(p, u);
  int lo = -1, hi = -1;
  for (int k = 0; k < PARAM_GRID; k++)
    if (mqss_param_map(p, -1.0f + 2.0f * (float)k / (PARAM_GRID - 1)) == v) {
      lo = lo < 0 ? k : lo;
      hi = k;
    }
  return lo < 0 ? u : -1.0f + 2.0f * (float)((lo + hi) / 2) / (PARAM_GRID - 1);
}

float param_u_for(const mqss_param *p, int64_t v) {
  float lo = -1.0f, hi = 1.0f;
  for (int i = 0; i < 40; i++) {
    float mid = (lo + hi) / 2;
    if (mqss_param_map(p, mid) >= v)
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

bool decision_fit_sizes(const mqss_module *m, const mqss_catalog *c,
                        mqss_decision *d) {
  const mqss_action *a = mqss_catalog_action(c, d->action);
  if (!a || !a->n_steps)
    return false;
  int k_of[MQSS_MAX_PARAMS], want[MQSS_MAX_PARAMS], n = 0;
  long total = 1;
  for (int k = 0; k < a->n_params; k++) {
    const mqss_param *p = &a->params[k];
    if (p->kind != MQSS_PARAM_DIVISOR || p->n_values < 1)
      continue;
    k_of[n] = k;
    want[n++] = (int)mqss_param_map(p, d->u[k]);
    total *= p->n_values;
    if (total > FIT_MAX_COMBINATIONS)
      return false;
  }
  mqss_decision best = *d;
  int best_dist = -1;
  for (long code = 0; code < total && n; code++) {
    mqss_decision t = *d;
    int dist = 0;
    long rest = code;
    for (int j = 0; j < n; j++) {
      const mqss_param *p = &a->params[k_of[j]];
      int v = (int)(rest % p->n_values);
      rest /= p->n_values;
      dist += abs(v - want[j]);
      t.u[k_of[j]] = param_grid_middle(p, param_u_for(p, v));
    }
    if (dist > 0 && (best_dist < 0 || dist < best_dist) &&
        decision_fits(m, c, &t, NULL, 0)) {
      best = t;
      best_dist = dist;
    }
  }
  if (best_dist < 0)
    return false;
  *d = best;
  return true;
}
