// Benchmark of the safety mask (mqss_action_mask: one IR summary walk, then
// every action's rules) on loop-level IR, where the rules that look past one
// op (loop bounds used in a body, write-after-read between nests) have work
// to do: corpus modules lowered to affine loops and to scf loops. Prints the
// median time of one mask over REPEATS, the machine and the commit. Not a
// test: nothing here asserts.
#include "mqss/mqss.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFERS "one-shot-bufferize{bufferize-function-boundaries},"
static const struct {
  const char *family, *ir, *pipeline;
} cases[] = {
    {"poly_stencil", "affine", "builtin.module()"},
    {"poly_stencil", "scf", "builtin.module(func.func(lower-affine))"},
    {"poly_blas3", "affine", "builtin.module()"},
    {"poly_blas3", "scf", "builtin.module(func.func(lower-affine))"},
    {"transformer", "affine", "builtin.module(" BUFFERS
                              "func.func(convert-linalg-to-affine-loops))"},
    {"transformer", "scf", "builtin.module(" BUFFERS
                           "func.func(convert-linalg-to-loops))"},
};

int main(int argc, char **argv) {
  const char *commit = argc > 1 ? argv[1] : "unknown";
  int repeats = argc > 2 ? atoi(argv[2]) : 101;
  if (repeats < 1)
    repeats = 1;
  printf("safety mask benchmark; commit %s; %d repeats\n", commit, repeats);
  fflush(stdout);
  if (system("uname -a; grep -m1 'model name' /proc/cpuinfo") != 0)
    printf("(machine info unavailable)\n");
  mqss_session *s = NULL;
  mqss_catalog *c = NULL;
  if (mqss_session_create(&s) != MQSS_OK ||
      mqss_catalog_load(s, NULL, &c) != MQSS_OK) {
    fprintf(stderr, "cannot load the catalog: %s\n", s ? mqss_errmsg(s) : "");
    return 1;
  }
  uint8_t *mask = malloc((size_t)mqss_catalog_size(c));
  double *t = malloc((size_t)repeats * sizeof *t);
  printf("%-14s %-7s %8s %10s\n", "family", "loops", "ops", "mask_ms");
  for (size_t k = 0; mask && t && k < sizeof cases / sizeof *cases; k++) {
    char *text = mqss_corpus_emit(cases[k].family, 0, 0);
    mqss_module *m = NULL;
    if (!text || mqss_module_parse_string(s, text, strlen(text),
                                          cases[k].family, &m) != MQSS_OK ||
        mqss_module_run_pipeline(m, cases[k].pipeline) != MQSS_OK) {
      printf("%-14s skipped: %s\n", cases[k].family, mqss_errmsg(s));
      free(text);
      mqss_module_destroy(m);
      continue;
    }
    free(text);
    mqss_graph *g = NULL;
    int ops = mqss_graph_build(m, &g) == MQSS_OK ? (int)g->n_ops : -1;
    mqss_graph_destroy(g);
    for (int r = 0; r < repeats; r++) {
      double t0 = now_ms();
      mqss_action_mask(m, c, NULL, mask);
      t[r] = now_ms() - t0;
    }
    printf("%-14s %-7s %8d %10.4f\n", cases[k].family, cases[k].ir, ops,
           median_of(t, repeats));
    mqss_module_destroy(m);
  }
  free(t);
  free(mask);
  mqss_catalog_destroy(c);
  mqss_session_destroy(s);
  return 0;
}
