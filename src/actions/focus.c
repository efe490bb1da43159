// The per-op rule of schedule decisions: which linalg op a decision of the
// policy transforms. The state vector describes one "focus" op (the untiled
// linalg op with known loops and the most flops, op_shape_focus_better);
// when the chosen action is a schedule action of that op's kind, the
// decision addresses that op alone through its mqss.id tag, so the sizes
// the policy picks are checked against, and fit, that op's extents. The
// tiling steps mark what they tiled (mqss.tiled), so the focus then moves
// on to the next-heaviest op. When the focus is of another kind, the
// decision addresses every op of its kinds, as a family recipe's kind-wide
// step does, if each has sizes that fit; else, and when no size fits the
// focus, the heaviest op of its kinds that its sizes fit (its repeats then
// take the others they fit), so that an op no size fits (a 10-class head's
// matmul under tiles of 8-64) does not block the action on the others. A
// kind_wide action always addresses every op of its kinds.
// Every caller (mask, environment, selection, explanation, search) decides
// through focus_target. It tags nothing: the module is tagged when it
// first meets a schedule (linalg_tag_once).
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"
#include "features/irscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  name_cache names;
  op_shape best;
  linalg_focus *out;
  state_skip skip; // functions the state leaves out (harness.c)
  focus_filter keep; // NULL: every op may be the focus
  void *keep_ctx;
} walker;

// As the state vector's walk: every linalg op with a region, nothing
// nested inside one, nothing in a function the state skips.
static MlirWalkResult visit(MlirOperation op, void *user) {
  walker *w = user;
  if (state_skip_has(&w->skip, op))
    return MlirWalkResultSkip;
  op_class tmp;
  if (!name_class(&w->names, op, &tmp)->linalg ||
      mlirOperationGetNumRegions(op) == 0)
    return MlirWalkResultAdvance;
  op_shape sh;
  bool have = !mlirOperationIsNull(w->out->op);
  if (op_shape_of(op, &w->names, &sh) &&
      (!w->keep || w->keep(op, w->keep_ctx)) &&
      op_shape_focus_better(&sh, have ? &w->best : NULL)) {
    w->best = sh;
    w->out->op = op;
  }
  return MlirWalkResultSkip;
}

void linalg_focus_find_if(MlirOperation scope, focus_filter keep,
                          void *keep_ctx, linalg_focus *out) {
  memset(out, 0, sizeof *out);
  walker *w = calloc(1, sizeof *w); // the name cache is 9 KiB
  if (!w)
    return;
  w->out = out;
  w->keep = keep;
  w->keep_ctx = keep_ctx;
  state_skip_find(scope, &w->skip);
  mlirOperationWalk(scope, visit, w, MlirWalkPreOrder);
  free(w);
  if (mlirOperationIsNull(out->op))
    return;
  out->tag = linalg_op_tag(out->op);
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(out->op));
  snprintf(out->kind, sizeof out->kind, "%.*s", (int)n.length, n.data);
}

void linalg_focus_find(MlirOperation scope, linalg_focus *out) {
  linalg_focus_find_if(scope, NULL, NULL, out);
}

// The ops a decision may address away from the focus: tagged, of the
// action's kinds, fitting the decision's sizes (any sizes without one).
typedef struct {
  const mqss_action *a;
  const mqss_decision *d;
} fit_filter;

static bool may_address(MlirOperation op, void *ctx) {
  const fit_filter *t = ctx;
  return linalg_op_tag(op) && schedule_fits_op(op, t->a, t->d);
}

void schedule_heaviest_fit(MlirOperation scope, const mqss_action *a,
                           const mqss_decision *d, linalg_focus *out) {
  fit_filter t = {a, d};
  linalg_focus_find_if(scope, may_address, &t, out);
}

int64_t focus_target(MlirOperation scope, const mqss_action *a,
                     const mqss_decision *d, const linalg_focus *f,
                     linalg_focus *hit) {
  linalg_focus none = {0}, *h = hit ? hit : &none;
  *h = *f;
  if (!a || !a->n_steps || !f->tag || a->kind_wide)
    return 0;
  bool of_kind = false;
  for (int i = 0; i < a->n_ops; i++)
    of_kind |= !strcmp(a->ops[i], f->kind);
  if (of_kind && schedule_fits_op(f->op, a, NULL))
    return f->tag;
  if (!of_kind && (!a->n_ops || schedule_applies(scope, a, NULL, 0, NULL, 0)))
    return 0; // every op of its kinds
  schedule_heaviest_fit(scope, a, d, h);
  if (!h->tag && d)
    schedule_heaviest_fit(scope, a, NULL, h); // sizes to adapt (fit.c)
  return h->tag;
}

int64_t decision_focus(const mqss_module *m, const mqss_catalog *c,
                       const mqss_decision *d) {
  const mqss_action *a = m && d ? mqss_catalog_action(c, d->action) : NULL;
  if (!a || !a->n_steps || !a->n_ops)
    return 0;
  MlirOperation scope = decision_scope(m, d);
  if (mlirOperationIsNull(scope))
    return 0;
  linalg_focus f;
  linalg_focus_find(scope, &f);
  return focus_target(scope, a, d, &f, NULL);
}
