// Helper of bench/compile_spread.py: compile-only samples of two pipelines
// A and B on one module, as `mqss eval` takes them (src/eval/eval_run.c,
// compile_cost): one sandboxed child per sample, no cache, code size on, in
// the order A B B A A B ... Prints one line per sample: the side, then
// compile_ms, pipeline_ms, finish_ms and llvm_ms. Exit 1 when a sample
// fails.
// usage: bench_compile_samples MODULE A B SAMPLES [CPU]
//   CPU: pin each child to that core (mqss_measure_options.cpu)
#include "mqss/mqss.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 5 && argc != 6) {
    fprintf(stderr, "usage: bench_compile_samples MODULE A B SAMPLES [CPU]\n");
    return 2;
  }
  int k = atoi(argv[4]);
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
  o.repeat = 1;
  o.cpu = argc == 6 ? atoi(argv[5]) : -1;
  int rc = 0;
  for (int i = 0; rc == 0 && i < 2 * k; i++) {
    int side = (i + 1) / 2 % 2; // 0 1 1 0 0 1 1 0 ...
    o.pipeline = argv[2 + side];
    mqss_measure_result r;
    if (mqss_measure(m, &o, &r) != MQSS_OK || r.status != MQSS_MEASURE_OK) {
      fprintf(stderr, "compile_samples: side %c: %s\n", "AB"[side],
              r.message[0] ? r.message : mqss_errmsg(s));
      rc = 1;
      break;
    }
    printf("%c %.3f %.3f %.3f %.3f\n", "AB"[side], r.compile_ms,
           r.pipeline_ms, r.finish_ms, r.llvm_ms);
    fflush(stdout);
  }
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return rc;
}
