// The thread variants of a sequence (the policy-guided search,
// search_policy.c): the sequence with the module's heavy linalg ops split
// onto threads first, by one kind-wide parallel-tile-named decision (data/
// catalog.yaml, docs/SCHEDULES.md "Threads"), whose foralls the sequence's
// own steps then work inside. Heavy ops are the action's named kinds
// (convolutions, poolings, matmuls), not linalg.generic: elementwise and
// row-wise generics are bound by memory, and a split generic no longer
// fuses with its neighbours. A module whose heaviest such op has fewer than
// SPLIT_MIN_WORK loop iterations gets no variant: such an op runs in a few
// microseconds, about what handing a loop to the threads costs (2 us,
// bench/fork_cost.sh); split, the 32x48x16 matmul of examples/
// matmul_tensor_f32.mlir (0.5 us) ran 6x slower. The variants, as the
// family baselines add threads (docs/CORPUS.md, "Threads"): every op split
// into as many tiles as there are cores (2, 4 or 8) along its first loop,
// then along its second, each admitted by the mask like any decision. One
// decision, so a cloned policy learns a threaded recipe as the recipe and
// one step. Then the loop variant: the sequence followed by omp-parallel,
// when the mask allows that on the IR the sequence leaves (parallel loops
// on memrefs, the affine families': poly_blas3's baseline ends so), which
// neither the split nor a policy cloned before the thread actions reaches.
#include "eval/search.h"
#include "actions/linalg_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SPLIT_MIN_WORK = 1 << 17 };

// The raw value in [-1, 1] at the middle of choice `value`'s bin, or NAN.
static float choice_u(const mqss_param *p, const char *value) {
  for (int v = 0; v < p->n_values; v++)
    if (!strcmp(p->values[v], value))
      return (float)(2.0 * (v + 0.5) / p->n_values - 1.0);
  return NAN;
}

static bool heavy_enough(MlirOperation op, void *user) {
  int64_t ext[LINALG_MAX_RANK];
  int rank = linalg_loop_extents(op, ext);
  double work = 1;
  for (int k = 0; k < rank; k++)
    work *= (double)ext[k];
  *(bool *)user |= work >= SPLIT_MIN_WORK;
  return true;
}

// The best so far with one kind-wide split in front (buf[1..n] holds it).
static mqss_status split_variants(search_ctx *c, mqss_decision *buf, int n) {
  int action = mqss_catalog_find(c->catalog, "parallel-tile-named");
  const mqss_action *a = mqss_catalog_action(c->catalog, action);
  if (!a || a->n_params != 2 || n + 1 > search_cap(c) ||
      !search_budget_left(c))
    return MQSS_OK;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const char *tiles = cores > 4 ? "8" : cores > 2 ? "4" : "2";
  mqss_decision split[2] = {{.action = action}, {.action = action}};
  for (int k = 0; k < 2; k++)
    for (int t = 0; t < 2; t++) {
      split[k].u[t] = choice_u(&a->params[t], t == k ? tiles : "1");
      if (isnan(split[k].u[t]))
        return MQSS_OK;
    }
  for (int i = 1; i <= n; i++)
    if (buf[i].action == action)
      return MQSS_OK; // threaded already: its ops may not be split again
  // Decisions address ops by their tags, which the module gets as a
  // schedule first meets it (linalg_tag_once): the same on a copy.
  mqss_module *tagged = mqss_module_clone(c->module);
  if (!tagged)
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  linalg_tag_once(mlirModuleGetOperation(tagged->mod));
  bool heavy = false;
  linalg_for_each(mlirModuleGetOperation(tagged->mod), a->ops, a->n_ops, 0,
                  heavy_enough, &heavy);
  mqss_status st = MQSS_OK;
  bool measured;
  for (int k = 0; heavy && st == MQSS_OK && k < 2 && search_budget_left(c);
       k++) {
    buf[0] = split[k];
    if (search_admits(c, tagged, &split[k])) // as the mask would
      st = search_try(c, "threads", buf, n + 1, &measured);
  }
  mqss_module_destroy(tagged);
  return st;
}

// The best so far (best[0..n), room for one more) followed by omp-parallel,
// when the IR it leaves admits that.
static mqss_status loop_variant(search_ctx *c, mqss_decision *best, int n) {
  int action = mqss_catalog_find(c->catalog, "omp-parallel");
  if (action < 0 || n + 1 > search_cap(c) || !search_budget_left(c))
    return MQSS_OK;
  for (int i = 0; i < n; i++)
    if (best[i].action == action)
      return MQSS_OK;
  mqss_module *cur = mqss_module_clone(c->module);
  if (!cur)
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  linalg_tag_once(mlirModuleGetOperation(cur->mod));
  int applied = 0; // the sequence was measured, so it applies
  while (applied < n &&
         mqss_decision_apply(cur, c->catalog, &best[applied]) == MQSS_OK)
    applied++;
  mqss_status st = MQSS_OK;
  bool measured;
  if (applied == n &&
      mqss_action_check(cur, c->catalog, action, NULL, NULL, 0) == 1) {
    best[n] = (mqss_decision){.action = action};
    st = search_try(c, "threads", best, n + 1, &measured);
  }
  mqss_module_destroy(cur);
  return st;
}

mqss_status search_threads(search_ctx *c) {
  // The best so far, copied: the trace moves as evaluations are added.
  const mqss_search_eval *best = &c->out->trace[c->out->best_index];
  int n = best->n_decisions;
  mqss_decision *buf = calloc((size_t)n + 2, sizeof *buf); // split + best + 1
  if (!buf)
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  if (n > 0) // the reference has no decisions (NULL)
    memcpy(buf + 1, best->decisions, (size_t)n * sizeof *buf);
  mqss_status st = split_variants(c, buf, n);
  if (st == MQSS_OK)
    st = loop_variant(c, buf + 1, n);
  free(buf);
  return st;
}
