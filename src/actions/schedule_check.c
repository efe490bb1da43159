// Preconditions of schedule actions on the live IR, beyond the stage rules
// every action has: the targeted ops must have static loops, each size
// parameter must divide its loop's extent (a partial tile stays dynamic and
// is not vectorised: tile 32 on 112 ran at 0.19x), a size of an inner
// tiling level must divide the outer level's tile, and an op a schedule
// vectorises must stay within SCHEDULE_MAX_VECTOR_ELEMS (and, when tiled to
// registers, its accumulators within SCHEDULE_MAX_ACC_ELEMS); an op a
// schedule decomposes to its 1-D form must be tiled to 1 on its output and
// window height. A peeled decision (schedule_peels) may leave partial
// tiles: its schedule peels them off. The mask asks whether some choice of
// sizes works for every op in scope; applying a decision asks whether its
// sizes do for every op it targets. It builds no scripts (schedule.c).
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <mlir-c/BuiltinAttributes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const mqss_action *a;
  const mqss_decision *d; // NULL: any choice of sizes
  int flags;              // schedule_action_flags(a)
  bool peel;              // schedule_peels(a, d)
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

bool schedule_peels(const mqss_action *a, const mqss_decision *d) {
  enum {
    PLAIN = STEP_TARGETS | STEP_TILES | STEP_UNIT_TILES | STEP_VECTORIZES
  };
  if (!d || !d->peel || !d->op || (schedule_action_flags(a) & ~PLAIN))
    return false;
  int levels = 0;
  for (int i = 0; i < a->n_steps; i++)
    levels += (schedule_step_flags(a->steps[i]) & STEP_TILES) != 0;
  return levels == 1;
}

// Sizes the loops of one tiling level: `parent` holds the extents the
// level tiles (the loops' extents, or the previous level's tiles) and
// becomes the level's tiles. Loops no parameter of the level names keep
// their extent, or get 1 when they are among the first `unit` loops (a
// unit-tiling step). Under a padding step (STEP_PARTIAL) the sizes of the
// parallel loops before the last need not divide; under a peeled decision
// (schedule_peels) no size need divide, but none may exceed its loop.
static bool size_level(checker *c, const char *name, int level, int unit,
                       int rank, int64_t *parent) {
  int64_t cur[LINALG_MAX_RANK];
  for (int d = 0; d < rank; d++)
    cur[d] = d < unit ? 1 : parent[d];
  for (int k = 0; k < c->a->n_params; k++) {
    const mqss_param *p = &c->a->params[k];
    if (p->kind != MQSS_PARAM_DIVISOR || p->level != level)
      continue;
    int d = p->dim < 0 ? rank + p->dim : p->dim;
    if (d < 0 || d >= rank) {
      snprintf(c->why, sizeof c->why, "%s has %d loops; parameter $%s "
               "sizes loop %d", name, rank, p->name, p->dim);
      return false;
    }
    const char *of = level ? "outer tile" : "extent";
    bool partial = ((c->flags & STEP_PARTIAL) && d < rank - 1) || c->peel;
    int64_t t = pick(c, p, k, parent[d], partial);
    if (c->peel && t > parent[d]) {
      snprintf(c->why, sizeof c->why, "%s: $%s=%lld exceeds loop %d of "
               "extent %lld (a peeled tile must fit)", name, p->name,
               (long long)t, d, (long long)parent[d]);
      return false;
    }
    if (t < 1) {
      snprintf(c->why, sizeof c->why, "%s: no candidate of $%s divides loop "
               "%d of %s %lld", name, p->name, d, of, (long long)parent[d]);
      return false;
    }
    if (parent[d] % t && !partial) {
      snprintf(c->why, sizeof c->why, "%s: $%s=%lld does not divide loop %d "
               "of %s %lld", name, p->name, (long long)t, d, of,
               (long long)parent[d]);
      return false;
    }
    cur[d] = t;
  }
  memcpy(parent, cur, (size_t)rank * sizeof *cur);
  return true;
}

// Product of tile[from..to).
static int64_t volume(const int64_t *tile, int from, int to) {
  int64_t n = 1;
  for (int d = from; d < to; d++)
    n *= tile[d];
  return n;
}

// True when attribute `name` of op is absent or all ones (strides,
// dilations).
static bool all_ones(MlirOperation op, const char *name) {
  MlirAttribute a =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(name));
  if (mlirAttributeIsNull(a))
    return true;
  if (!mlirAttributeIsADenseIntElements(a))
    return false;
  for (intptr_t i = 0; i < mlirElementsAttrGetNumElements(a); i++)
    if (mlirDenseElementsAttrGetInt64Value(a, i) != 1)
      return false;
  return true;
}

// The loops left after the fold of unit dimensions (fold-unit-dims): the
// kind's unit loops must have extent 1 (a 1x1 filter, batch 1), every other
// loop more than 1 (the fold would drop it too, and the tiling steps would
// size the wrong loops), strides and dilations 1 (a plain matmul). Compacts
// ext to the folded loops and updates *rank and *red.
static bool fold_unit_loops(checker *c, MlirOperation op, const char *name,
                            const char *kind, int64_t *ext, int *rank,
                            int *red) {
  unsigned unit = linalg_kind_unit_loops(kind);
  if (!all_ones(op, "strides") || !all_ones(op, "dilations")) {
    snprintf(c->why, sizeof c->why, "%s: strides and dilations must be 1 to "
             "fold it into a matmul", name);
    return false;
  }
  int n = 0, dropped_red = 0;
  for (int d = 0; d < *rank; d++) {
    bool must = unit >> d & 1;
    if (must != (ext[d] == 1)) {
      snprintf(c->why, sizeof c->why, must ? "%s: loop %d has extent %lld; "
               "folding needs 1 (a 1x1 filter, batch 1)" : "%s: loop %d has "
               "extent %lld; folding would drop it", name, d,
               (long long)ext[d]);
      return false;
    }
    if (!must)
      ext[n++] = ext[d];
    else if (d >= *rank - *red)
      dropped_red++;
  }
  *rank = n;
  *red -= dropped_red;
  return true;
}

static bool fits(checker *c, MlirOperation op) {
  int64_t tile[LINALG_MAX_RANK];
  int rank = linalg_loop_extents(op, tile);
  char name[128], kind[96];
  MlirStringRef opname = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(kind, sizeof kind, "%.*s", (int)opname.length, opname.data);
  long long id = (long long)linalg_op_tag(op);
  if (id)
    snprintf(name, sizeof name, "%s (mqss.id %lld)", kind, id);
  else
    snprintf(name, sizeof name, "%s", kind);
  if (rank < 0) {
    snprintf(c->why, sizeof c->why, "%s: loop extents unknown", name);
    return false;
  }
  for (int d = 0; d < rank; d++) {
    if (tile[d] < 1) {
      snprintf(c->why, sizeof c->why, "%s: loop %d is dynamic", name, d);
      return false;
    }
  }
  if (!schedule_xform_fits(c->a, c->d, c->flags, op, rank, name, c->why,
                           sizeof c->why))
    return false;
  int red = linalg_kind_reductions(kind);
  if ((c->flags & STEP_FOLDS) && !fold_unit_loops(c, op, name, kind, tile,
                                                  &rank, &red))
    return false;
  // One level per tiling step, outermost first; without one, the sizes
  // (if any) bound the vectorised op directly.
  int levels = 0;
  for (int i = 0; i < c->a->n_steps; i++) {
    int f = schedule_step_flags(c->a->steps[i]);
    if (!(f & STEP_TILES))
      continue;
    int unit = f & STEP_UNIT_TILES ? schedule_tiled_rank(c->a, kind) : 0;
    if (!size_level(c, name, levels++, unit, rank, tile))
      return false;
  }
  if (!levels && !size_level(c, name, 0, 0, rank, tile))
    return false;
  unsigned height = linalg_kind_height_loops(kind);
  if ((c->flags & STEP_DECOMPOSES) && !height) {
    snprintf(c->why, sizeof c->why, "%s has no 1-D form to decompose to",
             name);
    return false;
  }
  for (int d = 0; (c->flags & STEP_DECOMPOSES) && d < rank; d++) {
    if ((height >> d & 1) && tile[d] != 1) {
      snprintf(c->why, sizeof c->why, "%s: loop %d is tiled to %lld; the "
               "decomposition to a 1-D op needs tile 1 on the height loops",
               name, d, (long long)tile[d]);
      return false;
    }
  }
  if (!(c->flags & STEP_VECTORIZES))
    return true;
  if (linalg_scalar_output(op)) {
    snprintf(c->why, sizeof c->why, "%s: an output is indexed by constants "
             "only; MLIR 19 vectorises it into an invalid "
             "vector.transfer_write", name);
    return false;
  }
  int64_t elems = volume(tile, 0, rank);
  if (elems > SCHEDULE_MAX_VECTOR_ELEMS) {
    snprintf(c->why, sizeof c->why, "%s: vectorising %lld elements exceeds "
             "the bound of %d", name, (long long)elems,
             SCHEDULE_MAX_VECTOR_ELEMS);
    return false;
  }
  if ((c->flags & STEP_UNIT_TILES) && red >= 0) {
    int64_t acc = volume(tile, 0, rank - red);
    if (acc > SCHEDULE_MAX_ACC_ELEMS) {
      snprintf(c->why, sizeof c->why, "%s: a register tile of %lld "
               "accumulators exceeds the bound of %d (16 ymm registers)",
               name, (long long)acc, SCHEDULE_MAX_ACC_ELEMS);
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

bool schedule_fits_op(MlirOperation op, const mqss_action *a,
                      const mqss_decision *d) {
  checker c = {.a = a, .d = d, .flags = schedule_action_flags(a),
               .peel = schedule_peels(a, d)};
  return linalg_op_is_kind(op, a->ops, a->n_ops) && fits(&c, op);
}

bool schedule_applies(MlirOperation scope, const mqss_action *a,
                      const mqss_decision *d, int64_t id, char *why,
                      size_t why_len) {
  checker c = {.a = a, .d = d, .flags = schedule_action_flags(a),
               .peel = schedule_peels(a, d)};
  if (!a->n_ops)
    return true;
  linalg_for_each(scope, a->ops, a->n_ops, id, visit, &c);
  if (c.matched && c.fitting == c.matched)
    return true;
  if (why && why_len) {
    if (!c.matched && id)
      snprintf(why, why_len, "blocked: no %s op tagged mqss.id = %lld",
               a->ops[0], (long long)id);
    else if (!c.matched)
      snprintf(why, why_len, "blocked: needs one of the ops it schedules "
               "(%s...); none in scope", a->ops[0]);
    else
      snprintf(why, why_len, "blocked: %s", c.why);
  }
  return false;
}
