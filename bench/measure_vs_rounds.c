// Helper of bench/compile_order.py (KNOWN_REF=1): paired comparisons of two
// pipelines X and Y on one module in one process, as `mqss eval` makes them.
// The first comparison (untimed for the benchmark, not printed) computes the
// reference outputs; every later one finds them in the per-process table,
// so its child does not lower the reference for them. Then ROUNDS times:
// X vs Y and Y vs X (1 timed pair, no cache, no code size). Prints one line
// per comparison: the order ("XY" or "YX"), then pipeline_ms, jit_ms and
// compile_ms of side A and of side B. Exit 1 when a side fails.
// usage: bench_measure_vs_rounds MODULE X Y ROUNDS
#include "mqss/mqss.h"

#include <stdio.h>
#include <stdlib.h>

static int compare(mqss_module *m, const char *a, const char *b,
                   const char *order) {
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.pipeline = a;
  o.warmup = 0;
  o.repeat = 1;
  o.code_size = 0;
  mqss_measure_vs_result r;
  if (mqss_measure_vs(m, &o, b, &r) != MQSS_OK)
    return -1;
  if (r.a.status != MQSS_MEASURE_OK || r.b.status != MQSS_MEASURE_OK) {
    fprintf(stderr, "measure_vs_rounds: %s: %s / %s\n", order,
            r.a.message[0] ? r.a.message : "side A failed",
            r.b.message[0] ? r.b.message : "side B failed");
    return -1;
  }
  if (order)
    printf("%s %.3f %.3f %.3f %.3f %.3f %.3f\n", order, r.a.pipeline_ms,
           r.a.jit_ms, r.a.compile_ms, r.b.pipeline_ms, r.b.jit_ms,
           r.b.compile_ms);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: bench_measure_vs_rounds MODULE X Y ROUNDS\n");
    return 2;
  }
  int rounds = atoi(argv[4]);
  mqss_session *s = NULL;
  mqss_module *m = NULL;
  if (mqss_session_create(&s) != MQSS_OK ||
      mqss_module_parse_file(s, argv[1], &m) != MQSS_OK) {
    fprintf(stderr, "measure_vs_rounds: %s\n", mqss_errmsg(s));
    return 1;
  }
  int rc = compare(m, argv[2], argv[3], NULL); // computes the reference
  for (int r = 0; rc == 0 && r < rounds; r++)
    if ((rc = compare(m, argv[2], argv[3], "XY")) == 0)
      rc = compare(m, argv[3], argv[2], "YX");
  if (rc != 0 && mqss_errmsg(s)[0])
    fprintf(stderr, "measure_vs_rounds: %s\n", mqss_errmsg(s));
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return rc == 0 ? 0 : 1;
}
