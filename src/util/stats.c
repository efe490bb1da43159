// Sorting and medians of double arrays, for the measurement harness, the
// evaluation, the CLI and the benchmarks.
#include "internal.h"

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
