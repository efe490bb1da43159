// Helper of bench/compile_spread.py: compile-only samples of two pipelines
// A and B on one module, no cache, code size on, in the order A B B A A B:
//   SAMPLES N: N samples of each side, one sandboxed child per sample, as
//     `mqss eval` took them until 2026-12-04; one line per sample: the
//     side, then compile_ms, pipeline_ms, finish_ms and llvm_ms;
//   CHILDREN N R: R children, each compiling each side N times and keeping
//     its fastest (mqss_measure_vs with compile_only, as `mqss eval` does
//     now); one line per child: "C", A's and B's compile_ms.
// Exit 1 when a sample fails.
// usage: bench_compile_samples MODULE A B SAMPLES N | CHILDREN N R
#include "mqss/mqss.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail_side(mqss_session *s, char side, const mqss_measure_result *r) {
  fprintf(stderr, "compile_samples: side %c: %s\n", side,
          r->message[0] ? r->message : mqss_errmsg(s));
  return 1;
}

int main(int argc, char **argv) {
  bool children = argc == 7 && !strcmp(argv[4], "CHILDREN");
  if (!children && !(argc == 6 && !strcmp(argv[4], "SAMPLES"))) {
    fprintf(stderr, "usage: bench_compile_samples MODULE A B SAMPLES N | "
                    "CHILDREN N R\n");
    return 2;
  }
  int k = atoi(argv[5]), rounds = children ? atoi(argv[6]) : 2 * k;
  mqss_session *s = NULL;
  mqss_module *m = NULL;
  if (mqss_session_create(&s) != MQSS_OK ||
      mqss_module_parse_file(s, argv[1], &m) != MQSS_OK) {
    fprintf(stderr, "compile_samples: %s\n", mqss_errmsg(s));
    return 1;
  }
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.compile_only = 1;
  o.check_reference = 0;
  o.warmup = 0;
  o.repeat = children ? k : 1;
  int rc = 0;
  for (int i = 0; rc == 0 && i < rounds; i++) {
    if (children) {
      o.pipeline = argv[2];
      mqss_measure_vs_result v;
      if (mqss_measure_vs(m, &o, argv[3], &v) != MQSS_OK ||
          v.a.status != MQSS_MEASURE_OK || v.b.status != MQSS_MEASURE_OK)
        rc = fail_side(s, v.a.status != MQSS_MEASURE_OK ? 'A' : 'B',
                       v.a.status != MQSS_MEASURE_OK ? &v.a : &v.b);
      else
        printf("C %.3f %.3f\n", v.a.compile_ms, v.b.compile_ms);
    } else {
      int side = (i + 1) / 2 % 2; // 0 1 1 0 0 1 1 0 ...
      o.pipeline = argv[2 + side];
      mqss_measure_result r;
      if (mqss_measure(m, &o, &r) != MQSS_OK || r.status != MQSS_MEASURE_OK)
        rc = fail_side(s, "AB"[side], &r);
      else
        printf("%c %.3f %.3f %.3f %.3f\n", "AB"[side], r.compile_ms,
               r.pipeline_ms, r.finish_ms, r.llvm_ms);
    }
    fflush(stdout);
  }
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return rc;
}
