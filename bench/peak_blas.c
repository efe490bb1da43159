// The practical-peak reference of bench/peak.sh: single-thread OpenBLAS
// sgemm (row-major, no transposes) on one shape, BATCH independent products
// per call, inputs uniform on [-1, 1). Prints the median wall time of REPEATS
// calls (after one warm-up call) and the GFLOP/s it gives, on one line:
//   blas M N K BATCH median_ms GFLOP/s
// usage: bench_peak_blas M N K BATCH REPEATS
#include "internal.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

// OpenBLAS's own threading control; cblas.h declares it only in some builds.
void openblas_set_num_threads(int num_threads);

enum { MAX_REPEATS = 1001 };

static float *random_matrix(size_t n, unsigned *state) {
  float *m = malloc(n * sizeof *m);
  for (size_t i = 0; m && i < n; i++) {
    *state = *state * 1664525u + 1013904223u;
    m[i] = (float)((*state >> 8) / 8388608.0 - 1.0); // [-1, 1)
  }
  return m;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s M N K BATCH REPEATS\n", argv[0]);
    return 2;
  }
  int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  int batch = atoi(argv[4]), repeats = atoi(argv[5]);
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0 || repeats <= 0 ||
      repeats > MAX_REPEATS) {
    fprintf(stderr, "%s: M N K BATCH must be positive, REPEATS in 1..%d\n",
            argv[0], MAX_REPEATS);
    return 2;
  }
  openblas_set_num_threads(1);
  unsigned state = 1;
  size_t sa = (size_t)m * k, sb = (size_t)k * n, sc = (size_t)m * n;
  float *a = random_matrix(sa * batch, &state);
  float *b = random_matrix(sb * batch, &state);
  float *c = calloc(sc * batch, sizeof *c);
  if (!a || !b || !c) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 1;
  }
  static double ms[MAX_REPEATS];
  for (int r = -1; r < repeats; r++) {
    double t0 = now_ms();
    for (int i = 0; i < batch; i++)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                  a + sa * i, k, b + sb * i, n, 0.0f, c + sc * i, n);
    if (r >= 0)
      ms[r] = now_ms() - t0;
  }
  double med = median_of(ms, repeats);
  double flop = 2.0 * m * n * k * batch;
  printf("blas %d %d %d %d %.4f %.2f\n", m, n, k, batch, med,
         flop / (med * 1e6));
  free(a);
  free(b);
  free(c);
  return 0;
}
