// `mqss graph`: builds the IR graph of a module (mqss_graph_build) and prints
// its size, its CSR arrays, or Graphviz dot for a person to look at. Only
// printing lives here.
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void print_dot(const mqss_graph *g) {
  printf("graph ir {\n  node [fontsize=10];\n");
  for (int i = 0; i < g->n_nodes; i++) {
    const float *x = g->x + (size_t)i * g->dim;
    if (i < g->n_ops)
      printf("  n%d [shape=box, label=\"%d: %s\"];\n", i, i,
             mqss_op_kind_name(g->kind[i]));
    else
      printf("  n%d [shape=ellipse, label=\"%d: block (%ld args)\"];\n", i, i,
             lroundf(expm1f(x[2]))); // x[2] = log1p(#arguments)
  }
  for (int i = 0; i < g->n_nodes; i++)
    for (int e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++)
      if (g->col[e] > i) // each undirected edge once
        printf("  n%d -- n%d;\n", i, g->col[e]);
  printf("}\n");
}

int cmd_graph(int argc, char **argv) {
  const char *file = NULL;
  bool dot = false, csr = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dot"))
      dot = true;
    else if (!strcmp(argv[i], "--csr"))
      csr = true;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_error("graph: unknown option '%s'; see 'mqss graph --help'",
                       argv[i]);
    else
      file = argv[i];
  }
  if (!file)
    return cli_error("graph: no input file; usage: mqss graph FILE [--dot]");
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  mqss_module *m = NULL;
  mqss_graph *g = NULL;
  int rc = 0;
  if (cli_parse_module(s, file, &m) != MQSS_OK ||
      mqss_graph_build(m, &g) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
  } else if (dot) {
    print_dot(g);
  } else {
    printf("nodes %d ops %d blocks %d edges %d dim %d\n", g->n_nodes, g->n_ops,
           g->n_nodes - g->n_ops, g->nnz, g->dim);
    for (int i = 0; csr && i < g->n_nodes; i++) {
      printf("%d %s:", i, i < g->n_ops ? mqss_op_kind_name(g->kind[i]) : "block");
      for (int e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++)
        printf(" %d", g->col[e]);
      printf("\n");
    }
  }
  mqss_graph_destroy(g);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return rc;
}
