// Small helpers of the measurement harness: a monotonic clock, robust
// summary statistics of run times, and result messages. Nothing else.
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double median_sorted(const double *x, int n) {
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

void summarize(double *x, int n, double *median, double *min, double *max,
               double *mad) {
  *median = *min = *max = *mad = 0;
  if (n <= 0)
    return;
  sort_doubles(x, n);
  *min = x[0];
  *max = x[n - 1];
  *median = median_sorted(x, n);
  double *dev = malloc((size_t)n * sizeof *dev); // (n,) |x - median|
  if (!dev)
    return;
  for (int i = 0; i < n; i++)
    dev[i] = x[i] > *median ? x[i] - *median : *median - x[i];
  sort_doubles(dev, n);
  *mad = median_sorted(dev, n);
  free(dev);
}

void set_message(mqss_measure_result *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->message, sizeof r->message, fmt, ap);
  va_end(ap);
}
