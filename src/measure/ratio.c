// Ratio statistics of a paired comparison (mqss_measure_vs): the summary of
// the per-pair ratios time(B) / time(A), their Hodges-Lehmann estimate with
// a distribution-free 95% interval over the pairs' log ratios, and the
// verdict "faster / within noise" against a minimum gain. Pure arithmetic on
// the timed pairs; the timing itself is measure.c's vs_child.
#include "measure.h"

#include <math.h>
#include <stdlib.h>

enum { CONF_PERCENT = 95 }; // nominal coverage of every ratio interval

void vs_ratio_stats(const double *ta, const double *tb, int n,
                    mqss_measure_vs_result *v) {
  double *r = malloc(2 * (size_t)(n > 0 ? n : 1) * sizeof *r); // (2, n)
  if (!r || n <= 0) {
    free(r);
    return;
  }
  double *lr = r + n; // (n,) log ratios
  int k = 0;
  for (int i = 0; i < n; i++)
    if (ta[i] > 0 && tb[i] > 0) {
      r[k] = tb[i] / ta[i];
      lr[k] = log(r[k]);
      k++;
    }
  summarize(r, k, &v->ratio_median, &v->ratio_min, &v->ratio_max,
            &v->ratio_mad);
  double est, lo, hi, conf;
  if (hodges_lehmann(lr, k, CONF_PERCENT / 100.0, &est, &lo, &hi, &conf)) {
    v->ratio_hl = exp(est);
    // Under 6 pairs no distribution-free interval reaches 95%: report none
    // (0) rather than a narrower one that would pass for it.
    if (conf >= CONF_PERCENT / 100.0) {
      v->ratio_lo = exp(lo);
      v->ratio_hi = exp(hi);
      v->ratio_conf = conf;
    }
  }
  free(r);
}

int mqss_ratio_verdict(double lo, double hi, double min_gain) {
  if (!(lo > 0) || !(hi >= lo))
    return 0;
  if (lo > 1.0 + min_gain)
    return 1;
  if (hi < 1.0 / (1.0 + min_gain))
    return -1;
  return 0;
}

const char *mqss_ratio_verdict_name(int verdict) {
  return verdict > 0 ? "A faster" : verdict < 0 ? "B faster" : "within noise";
}
