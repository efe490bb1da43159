// The thread variant of a sequence (the policy-guided search,
// search_policy.c): the sequence with each heavy linalg op of the module
// split onto threads first, one parallel-tile decision per op (data/
// catalog.yaml, docs/SCHEDULES.md "Threads"), whose forall the sequence's
// own steps then work inside. Heavy ops are the action's named kinds
// (convolutions, poolings, matmuls), not linalg.generic: elementwise and
// row-wise generics are bound by memory, and a split generic no longer
// fuses with its neighbours; nor ops of fewer than SPLIT_MIN_WORK loop
// iterations, which run in a few microseconds, about what handing a loop
// to the threads costs (2 us, bench/fork_cost.sh): split, the 32x48x16
// matmul of examples/matmul_tensor_f32.mlir (0.5 us) ran 6x slower.
// Each op is split into as many tiles as there
// are cores (2, 4 or 8), along its first parallel loop of extent 2 or more;
// OpenMP then runs one run of tiles per thread. Random sequences and the
// policy (trained before the action existed) seldom put a split in front
// of a vector schedule, which is where it pays: over the hold-out a split
// of every heavy op in front of the shipped policy's pipeline ran 1.26x
// faster on 33 modules (bench/forall_headroom.py).
#include "eval/search.h"
#include "actions/linalg_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SPLIT_MIN_WORK = 1 << 17 };

struct split {
  const search_ctx *c;
  const mqss_module *tagged; // a tagged copy of the module
  int action;       // parallel-tile
  mqss_decision *d; // out: one decision per op, up to cap
  int n, cap;
  float one[2], many[2]; // raw values of T0, T1 for 1 tile and for `tiles`
};

// The raw value in [-1, 1] at the middle of choice `value`'s bin, or NAN.
static float choice_u(const mqss_param *p, const char *value) {
  for (int v = 0; v < p->n_values; v++)
    if (!strcmp(p->values[v], value))
      return (float)(2.0 * (v + 0.5) / p->n_values - 1.0);
  return NAN;
}

static bool add_split(MlirOperation op, void *user) {
  struct split *s = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  int64_t ext[LINALG_MAX_RANK], id = linalg_op_tag(op);
  int rank = linalg_loop_extents(op, ext);
  if (!id || s->n >= s->cap ||
      (name.length == 14 && !memcmp(name.data, "linalg.generic", 14)))
    return true;
  double work = 1;
  for (int k = 0; k < rank; k++)
    work *= (double)ext[k];
  for (int k = 0; k < 2 && k < rank && work >= SPLIT_MIN_WORK; k++) {
    if (ext[k] < 2 || linalg_loop_is_reduction(op, k))
      continue;
    mqss_decision d = {.action = s->action, .op = id};
    for (int t = 0; t < 2; t++)
      d.u[t] = t == k ? s->many[t] : s->one[t];
    if (search_admits(s->c, s->tagged, &d))
      s->d[s->n++] = d;
    break;
  }
  return true;
}

mqss_status search_threads(search_ctx *c) {
  // The best so far; the trace stays put until search_try below.
  const mqss_search_eval *best = &c->out->trace[c->out->best_index];
  int n = best->n_decisions < search_cap(c) ? best->n_decisions : search_cap(c);
  struct split s = {c, NULL, mqss_catalog_find(c->catalog, "parallel-tile"),
                    NULL, 0, search_cap(c) - n, {0}, {0}};
  const mqss_action *a = mqss_catalog_action(c->catalog, s.action);
  if (!a || a->n_params < 2 || s.cap < 1 || !search_budget_left(c))
    return MQSS_OK;
  for (int i = 0; i < n; i++)
    if (best->decisions[i].action == s.action)
      return MQSS_OK; // threaded already: its ops may not be split again
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const char *tiles = cores > 4 ? "8" : cores > 2 ? "4" : "2";
  for (int t = 0; t < 2; t++) {
    s.one[t] = choice_u(&a->params[t], "1");
    s.many[t] = choice_u(&a->params[t], tiles);
    if (isnan(s.one[t]) || isnan(s.many[t]))
      return MQSS_OK;
  }
  // Decisions address ops by their tags, which the module gets as a
  // schedule first meets it (linalg_tag_once): the same on a copy.
  mqss_module *tagged = mqss_module_clone(c->module);
  s.d = calloc((size_t)search_cap(c), sizeof *s.d);
  if (!tagged || !s.d) {
    mqss_module_destroy(tagged);
    free(s.d);
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  }
  linalg_tag_once(mlirModuleGetOperation(tagged->mod));
  s.tagged = tagged;
  linalg_for_each(mlirModuleGetOperation(tagged->mod), a->ops, a->n_ops, 0,
                  add_split, &s);
  mqss_status st = MQSS_OK;
  if (s.n > 0) {
    if (n > 0)
      memcpy(s.d + s.n, best->decisions, (size_t)n * sizeof *s.d);
    bool measured;
    st = search_try(c, "threads", s.d, s.n + n, &measured);
  }
  mqss_module_destroy(tagged);
  free(s.d);
  return st;
}
