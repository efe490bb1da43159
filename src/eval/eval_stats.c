// Aggregation math of `mqss eval`: geometric means, percentiles, CDF points
// and the report's aggregate over per-module rows. Pure arithmetic on plain
// arrays: no IR, no measuring, no I/O. The definitions are the ones
// docs/EVAL.md states, and tests/unit/test_eval_stats.c checks them on
// hand-computed values.
#include "eval/eval.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// primitives

double eval_geomean(const double *x, int n, int *used) {
  double s = 0;
  int k = 0;
  for (int i = 0; i < n; i++)
    if (x[i] > 0 && isfinite(x[i])) {
      s += log(x[i]);
      k++;
    }
  if (used)
    *used = k;
  return k ? exp(s / k) : 0;
}

double eval_percentile(const double *x, int n, double p) {
  if (n <= 0)
    return NAN;
  double *v = malloc((size_t)n * sizeof *v);
  if (!v)
    return NAN;
  memcpy(v, x, (size_t)n * sizeof *v);
  sort_doubles(v, n);
  if (p < 0)
    p = 0;
  if (p > 100)
    p = 100;
  double r = p / 100.0 * (n - 1);
  int lo = (int)floor(r);
  int hi = lo + 1 < n ? lo + 1 : lo;
  double out = v[lo] + (r - lo) * (v[hi] - v[lo]);
  free(v);
  return out;
}

int eval_cdf(const double *x, int n, double *xs, double *ys) {
  memcpy(xs, x, (size_t)n * sizeof *xs);
  sort_doubles(xs, n);
  for (int i = 0; i < n; i++)
    ys[i] = (double)(i + 1) / n;
  return n;
}

// ----------------------------------------------------------------------------
// aggregate

static eval_family_agg *family_slot(eval_agg *a, const char *name) {
  for (int i = 0; i < a->n_families; i++)
    if (!strcmp(a->families[i].name, name))
      return &a->families[i];
  if (a->n_families == EVAL_MAX_FAMILIES)
    return NULL;
  eval_family_agg *f = &a->families[a->n_families++];
  memset(f, 0, sizeof *f);
  snprintf(f->name, sizeof f->name, "%s", name);
  return f;
}

// Geomean of one field over the ok rows of `family` (NULL: all rows).
static double field_geo(const eval_row *rows, int n, size_t off,
                        const char *family, int *used) {
  double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  if (!v) {
    if (used)
      *used = 0;
    return 0;
  }
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (!rows[i].ok)
      continue;
    const char *fam = rows[i].in->family ? rows[i].in->family : "(unknown)";
    if (family && strcmp(fam, family))
      continue;
    v[k++] = *(const double *)((const char *)&rows[i] + off);
  }
  double g = eval_geomean(v, k, used);
  free(v);
  return g;
}

// Counts the verdict of an available speedup that has an interval: [0]
// faster, [1] within noise, [2] slower. A speedup without one has no
// verdict, so it is not counted as within noise.
static void count_verdict(int counts[3], double x, const eval_interval *ci) {
  if (x > 0 && ci->lo > 0)
    counts[ci->verdict > 0 ? 0 : ci->verdict < 0 ? 2 : 1]++;
}

void eval_aggregate(const eval_row *rows, int n, eval_agg *a) {
  memset(a, 0, sizeof *a);
  a->n = n;
  size_t cap = (size_t)(n ? n : 1);
  double *comp = malloc(cap * sizeof *comp), *size = malloc(cap * sizeof *size);
  double *dec = malloc(cap * sizeof *dec), *frac = malloc(cap * sizeof *frac);
  double *tfr = malloc(cap * sizeof *tfr);
  if (!comp || !size || !dec || !frac || !tfr)
    goto done;
  double pol_t = 0, search_t = 0;
  for (int i = 0; i < n; i++) {
    const eval_row *r = &rows[i];
    if (!r->in->family)
      a->n_unknown_family++;
    eval_family_agg *f = family_slot(a, r->in->family ? r->in->family : "(unknown)");
    if (f)
      f->n++;
    if (strcmp(r->status, "select_failed") && strcmp(r->status, "parse_failed"))
      dec[a->n_decision++] = r->decision_ms;
    if (!r->ok) {
      if (!strcmp(r->status, "crashed"))
        a->n_crashed++;
      else if (!strcmp(r->status, "wrong_output"))
        a->n_wrong++;
      else
        a->n_failed_other++;
      continue;
    }
    a->n_ok++;
    if (f)
      f->n_ok++;
    count_verdict(a->verdicts_baseline, r->vs_baseline, &r->ci_baseline);
    count_verdict(a->verdicts_reference, r->vs_reference, &r->ci_reference);
    count_verdict(a->verdicts_fixed, r->vs_fixed, &r->ci_fixed);
    if (r->compile_ratio > 0)
      comp[a->n_compile++] = r->compile_ratio - 1.0;
    if (r->size_ratio > 0)
      size[a->n_size++] = r->size_ratio;
    if (r->has_search && r->search_fraction > 0) {
      frac[a->n_search] = r->search_fraction;
      tfr[a->n_search++] = r->time_fraction;
      pol_t += r->policy_time_ms;
      search_t += r->search.wall_ms;
    }
  }
  a->geo_baseline = field_geo(rows, n, offsetof(eval_row, vs_baseline), NULL,
                              &a->n_baseline);
  a->geo_reference = field_geo(rows, n, offsetof(eval_row, vs_reference), NULL,
                               &a->n_reference);
  a->geo_fixed = field_geo(rows, n, offsetof(eval_row, vs_fixed), NULL, &a->n_fixed);
  for (int i = 0; i < a->n_families; i++) {
    eval_family_agg *f = &a->families[i];
    f->geo_baseline = field_geo(rows, n, offsetof(eval_row, vs_baseline), f->name, NULL);
    f->geo_reference = field_geo(rows, n, offsetof(eval_row, vs_reference), f->name, NULL);
    f->geo_fixed = field_geo(rows, n, offsetof(eval_row, vs_fixed), f->name, NULL);
  }
  a->p95_compile_increase = eval_percentile(comp, a->n_compile, 95);
  a->median_compile_increase = eval_percentile(comp, a->n_compile, 50);
  a->geo_size_ratio = eval_geomean(size, a->n_size, NULL);
  a->decision_ms_median = eval_percentile(dec, a->n_decision, 50);
  a->decision_ms_p95 = eval_percentile(dec, a->n_decision, 95);
  a->search_fraction_geo = eval_geomean(frac, a->n_search, NULL);
  a->time_fraction_total = search_t > 0 ? pol_t / search_t : 0;
  a->time_fraction_median = eval_percentile(tfr, a->n_search, 50);
done:
  free(comp);
  free(size);
  free(dec);
  free(frac);
  free(tfr);
}
