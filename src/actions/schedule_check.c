// Preconditions of schedule actions on the live IR, beyond the stage rules
// every action has: the targeted ops must have static loops, each size
// parameter must divide its loop's extent (a partial tile stays dynamic and
// is not vectorised: tile 32 on 112 ran at 0.19x), and an op a schedule
// vectorises must stay within SCHEDULE_MAX_VECTOR_ELEMS. The mask asks
// whether some choice of sizes works for every op in scope; applying a
// decision asks whether its sizes do for every op it targets. It builds no scripts (schedule.c).
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const mqss_action *a;
  const mqss_decision *d; // NULL: any choice of sizes
  int flags;              // schedule_action_flags(a)
  int matched, fitting;
  char why[256];          // why the last op that did not fit does not
} checker;

static int64_t value_of(const mqss_param *p, int v) {
  return strtoll(p->values[v], NULL, 10);
}

// The tile size of loop d for a decision, or the smallest candidate that
// divides the extent when choosing (-1 when none does; the first candidate
// when a partial tile is allowed).
static int64_t pick(const checker *c, const mqss_param *p, int k, int64_t ext,
                    bool partial) {
  if (c->d)
    return value_of(p, (int)mqss_param_map(p, c->d->u[k]));
  for (int v = 0; v < p->n_values; v++)
    if (ext % value_of(p, v) == 0)
      return value_of(p, v);
  return partial && p->n_values ? value_of(p, 0) : -1;
}

static bool fits(checker *c, MlirOperation op) {
  int64_t ext[LINALG_MAX_RANK], tile[LINALG_MAX_RANK];
  int rank = linalg_loop_extents(op, ext);
  char name[128], kind[96];
  MlirStringRef opname = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(kind, sizeof kind, "%.*s", (int)opname.length, opname.data);
  long long id = (long long)linalg_op_tag(op);
  if (id)
    snprintf(name, sizeof name, "%.*s (mqss.id %lld)", (int)opname.length,
             opname.data, id);
  else
    snprintf(name, sizeof name, "%s", kind);
  if (rank < 0) {
    snprintf(c->why, sizeof c->why, "%s: loop extents unknown", name);
    return false;
  }
  for (int d = 0; d < rank; d++) {
    if (ext[d] < 1) {
      snprintf(c->why, sizeof c->why, "%s: loop %d is dynamic", name, d);
      return false;
    }
    bool unit = (c->flags & STEP_UNIT_TILES) &&
                d < schedule_tiled_rank(c->a, kind);
    tile[d] = unit ? 1 : ext[d];
  }
  if (!schedule_xform_fits(c->a, c->d, c->flags, op, rank, name, c->why,
                           sizeof c->why))
    return false;
  for (int k = 0; k < c->a->n_params; k++) {
    const mqss_param *p = &c->a->params[k];
    if (p->kind != MQSS_PARAM_DIVISOR)
      continue;
    int d = p->dim < 0 ? rank + p->dim : p->dim;
    if (d < 0 || d >= rank) {
      snprintf(c->why, sizeof c->why, "%s has %d loops; parameter $%s "
               "sizes loop %d", name, rank, p->name, p->dim);
      return false;
    }
    bool partial = (c->flags & STEP_PARTIAL) && d < rank - 1;
    int64_t t = pick(c, p, k, ext[d], partial);
    if (t < 1) {
      snprintf(c->why, sizeof c->why, "%s: no candidate of $%s divides loop "
               "%d of extent %lld", name, p->name, d, (long long)ext[d]);
      return false;
    }
    if (ext[d] % t && !partial) {
      snprintf(c->why, sizeof c->why, "%s: $%s=%lld does not divide loop %d "
               "of extent %lld", name, p->name, (long long)t, d,
               (long long)ext[d]);
      return false;
    }
    tile[d] = t;
  }
  if (c->flags & STEP_VECTORIZES) {
    int64_t elems = 1;
    for (int d = 0; d < rank; d++)
      elems *= tile[d];
    if (elems > SCHEDULE_MAX_VECTOR_ELEMS) {
      snprintf(c->why, sizeof c->why, "%s: vectorising %lld elements "
               "exceeds the bound of %d", name, (long long)elems,
               SCHEDULE_MAX_VECTOR_ELEMS);
      return false;
    }
  }
  return true;
}

static bool visit(MlirOperation op, void *user) {
  checker *c = user;
  c->matched++;
  // A decision transforms every op it targets: all must fit.
  if (!fits(c, op))
    return false;
  c->fitting++;
  return true;
}

bool schedule_applies(MlirOperation scope, const mqss_action *a,
                      const mqss_decision *d, char *why, size_t why_len) {
  checker c = {.a = a, .d = d, .flags = schedule_action_flags(a)};
  if (!a->n_ops)
    return true;
  linalg_for_each(scope, a->ops, a->n_ops, d ? d->op : 0, visit, &c);
  if (c.matched && c.fitting == c.matched)
    return true;
  if (why && why_len) {
    if (!c.matched && d && d->op)
      snprintf(why, why_len, "blocked: no %s op tagged mqss.id = %lld",
               a->ops[0], (long long)d->op);
    else if (!c.matched)
      snprintf(why, why_len, "blocked: needs one of the ops it schedules "
               "(%s...); none in scope", a->ops[0]);
    else
      snprintf(why, why_len, "blocked: %s", c.why);
  }
  return false;
}
