// The error model's sensitivity runs (docs/MEASURE.md, "Correctness
// check"). The magnitude run gives sum |a||b| for multilinear code, which
// bounds its rounding; code that amplifies rounding on the way to an output
// needs more. exp in a softmax is the common case: an error e in a logit is
// a relative error e in its probability, and the logits of a long reduction
// carry errors far larger than the probabilities' magnitudes account for.
// Two more runs of the reference estimate that amplification per element:
//   - inputs perturbed by a relative SENSITIVITY_EPS with random signs: the
//     change divided by SENSITIVITY_EPS is how much the code amplifies
//     relative errors of its inputs (for a sum of products of d inputs at
//     most d * sum |a||b|, and with random signs far below it, so that the
//     bound of such code stays as it was);
//   - every operation rounded upwards: the change is a coherent, near worst
//     case sample of the reference's own rounding error, which covers long
//     sums whose errors build up with their partial sums, and an element
//     whose random perturbations happened to cancel.
// Both only ever raise the magnitude M of the bound. It does not run
// anything: measure.c runs the program.
#include "measure.h"

#include <math.h>
#include <string.h>

// |run - val| / scale at element k; NaN where either is not finite.
static double change(const output_buf *val, const output_buf *run, int64_t k,
                     double scale) {
  double v = elem_get(val->et, val->data, k);
  double r = elem_get(run->et, run->data, k);
  return isfinite(v) && isfinite(r) ? fabs(r - v) / scale : NAN;
}

static bool same_shape(const output_buf *a, const output_buf *b) {
  return a->et == b->et && a->count == b->count;
}

void sensitivity_fold(outputs *mag, const outputs *val, const outputs *pert,
                      const outputs *up, double depth) {
  if (mag->n != val->n || pert->n != val->n || up->n != val->n)
    return;
  for (int o = 0; o < val->n; o++) {
    output_buf *m = &mag->v[o];
    const output_buf *v = &val->v[o], *p = &pert->v[o], *u = &up->v[o];
    if (!elem_is_float(v->et) || !same_shape(m, v) || !same_shape(p, v) ||
        !same_shape(u, v))
      continue;
    // The bound is 2 u M steps: this scale makes it at least twice the
    // upward run's change (both sides of the check carry rounding).
    double rounding = unit_roundoff(v->et) * error_steps(depth);
    for (int64_t k = 0; k < v->count; k++) {
      double had = fabs(elem_get(m->et, m->data, k));
      double raised = fmax(change(v, p, k, SENSITIVITY_EPS),
                           change(v, u, k, rounding)); // fmax skips NaN
      if (raised > had)
        elem_put(m->et, m->data, k, raised);
    }
  }
}
