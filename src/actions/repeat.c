// Repeats of a schedule decision. A schedule decision addresses one op, the
// focus op (focus.c); its tiling marks that op, so the focus moves on. The
// decision's repeats are the same action and parameters on each further op
// of the action's kinds, heaviest first, that the safety layer allows and
// that the sizes fit, so that one decision carries a recipe to every op of
// a module it suits (an MLP's matmuls, an attention block's, the pointwise
// convolutions between a network's depthwise ones), as a family recipe's
// kind-wide schedule does. With fitted sizes (selection's fit_sizes), the
// ops the sizes do not fit follow, each with the decision's sizes moved to
// the nearest that fit it (fit.c): a decision's 16 output channels per tile
// also reach a convolution with 8. An op no sizes divide (a matmul with 100
// columns, where N is one of 8, 16, 32, 64) gets the decision's own sizes
// with its partial tiles peeled off (mqss_decision.peel, schedule_peels).
// The environment, selection and the
// replay of demonstrations apply a decision's repeats as part of its step;
// search uses them for its candidates. Each repeat is its own decision
// (its own pipeline piece, addressing its own op): the pipeline printed and
// measured lists them all. It chooses nothing itself.
#include "internal.h"

// d's action on the heaviest untiled op of its kinds in d's scope, one that
// d's sizes fit (sized) or any, when d addressed one op, the safety layer
// allows the action on m and that op is another. A peeled d is checked as
// the decision on that op: the mask would refuse an action no sizes fit.
static bool repeat_target(const mqss_module *m, const mqss_catalog *c,
                          const mqss_decision *d, bool sized,
                          mqss_decision *next) {
  *next = *d;
  const mqss_action *a = mqss_catalog_action(c, d->action);
  if (!d->op || !a || !a->n_steps || !a->n_ops ||
      (!d->peel && !mqss_action_check(m, c, d->action, d->target, NULL, 0)))
    return false;
  MlirOperation scope = decision_scope(m, d);
  if (mlirOperationIsNull(scope))
    return false;
  linalg_focus f;
  schedule_heaviest_fit(scope, a, sized ? d : NULL, &f);
  next->op = f.tag;
  return next->op != 0 && next->op != d->op &&
         (!d->peel || decision_allowed(m, c, next));
}

bool decision_repeat(const mqss_module *m, const mqss_catalog *c,
                     const mqss_decision *prev, mqss_decision *next) {
  return repeat_target(m, c, prev, true, next);
}

bool decision_repeat_fitted(const mqss_module *m, const mqss_catalog *c,
                            const mqss_decision *d, mqss_decision *next) {
  if (repeat_target(m, c, d, false, next) && decision_fit_sizes(m, c, next))
    return true;
  mqss_decision peeled = *d;
  peeled.peel = 1;
  return repeat_target(m, c, &peeled, true, next);
}

int decision_apply_repeats(mqss_module **m, uint64_t *hash,
                           const mqss_catalog *c, const mqss_decision *d,
                           bool fit, const repeat_hooks *h) {
  mqss_decision prev = *d, r; // d's sizes, the op last addressed
  int kept = 0;
  while (kept < DECISION_MAX_REPEATS &&
         (decision_repeat(*m, c, &prev, &r) ||
          (fit && decision_repeat_fitted(*m, c, &prev, &r)))) {
    if (h && h->before && !h->before(h->ctx, &r))
      break;
    mqss_module *next = mqss_module_clone(*m);
    if (!next)
      return -1;
    bool ok = mqss_decision_apply(next, c, &r) == MQSS_OK;
    uint64_t next_hash = ok ? module_fingerprint(next) : *hash;
    ok = ok && next_hash != *hash; // failed, or changed nothing: the end
    if (h && h->after)
      h->after(h->ctx, &r, ok);
    if (!ok) {
      mqss_module_destroy(next);
      break;
    }
    mqss_module_destroy(*m);
    *m = next;
    *hash = next_hash;
    prev.op = r.op;
    kept++;
  }
  return kept;
}
