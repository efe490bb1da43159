// Sorting and medians of double arrays, for the measurement harness, the
// evaluation, the CLI and the benchmarks; and the Hodges-Lehmann estimate of
// a centre with its distribution-free confidence interval (the Wilcoxon
// signed-rank interval), which turns paired log ratios into a ratio with an
// interval (docs/MEASURE.md, "Ratios and their intervals").
#include "internal.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void sort_doubles(double *v, int n) {
  if (n > 1)
    qsort(v, (size_t)n, sizeof *v, cmp_double);
}

double median_of(double *v, int n) {
  if (n <= 0)
    return 0;
  sort_doubles(v, n);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ----------------------------------------------------------------------------
// Hodges-Lehmann

enum { EXACT_MAX_N = 100 }; // exact signed-rank distribution up to here

// Standard normal quantile by bisection on the CDF (|error| < 1e-12).
static double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (0.5 * erfc(-mid / sqrt(2.0)) < p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

int signed_rank_k(int n, double conf, double *achieved) {
  double alpha = 1.0 - conf;
  long m = (long)n * (n + 1) / 2;
  int k = 0;
  double tail = 0; // P(T+ <= k - 1)
  if (n <= EXACT_MAX_N) {
    // count[s] = number of subsets of {1..n} with rank sum s; P = count/2^n.
    double *count = calloc((size_t)m + 1, sizeof *count);
    if (!count) {
      *achieved = 0;
      return 0;
    }
    count[0] = 1;
    for (int r = 1; r <= n; r++)
      for (long s = m; s >= r; s--)
        count[s] += count[s - r];
    double total = ldexp(1.0, n), cum = 0;
    // Largest k with P(T+ <= k - 1) <= alpha / 2.
    for (long s = 0; s <= m; s++) {
      double next = cum + count[s] / total;
      if (next > alpha / 2 * (1 + 1e-12))
        break;
      cum = next;
      k = (int)s + 1;
    }
    tail = cum;
    free(count);
  } else {
    double z = normal_quantile(1 - alpha / 2);
    double sd = sqrt((double)n * (n + 1) * (2.0 * n + 1) / 24.0);
    k = (int)floor(m / 2.0 - z * sd);
    if (k < 0)
      k = 0;
    tail = alpha / 2; // the approximation's nominal tail
  }
  *achieved = k > 0 ? 1.0 - 2 * tail : 0;
  return k;
}

bool hodges_lehmann(const double *x, int n, double conf, double *est,
                    double *lo, double *hi, double *achieved) {
  *est = *lo = *hi = *achieved = 0;
  if (n <= 0)
    return false;
  long m = (long)n * (n + 1) / 2;
  double *w = malloc((size_t)m * sizeof *w); // (m,) Walsh averages
  if (!w)
    return false;
  long at = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++)
      w[at++] = 0.5 * (x[i] + x[j]);
  sort_doubles(w, (int)m);
  *est = m % 2 ? w[m / 2] : 0.5 * (w[m / 2 - 1] + w[m / 2]);
  int k = signed_rank_k(n, conf, achieved);
  if (k < 1) {
    // Too few values for the requested confidence: the widest interval
    // (all Walsh averages), with the coverage it really has.
    k = 1;
    *achieved = n > 1 ? 1.0 - 2.0 / ldexp(1.0, n) : 0;
  }
  *lo = w[k - 1];
  *hi = w[m - k];
  free(w);
  return true;
}
