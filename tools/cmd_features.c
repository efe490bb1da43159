// `mqss features`: prints the state vector of a module with the
// name of every index (text or JSON), or with --doc the Markdown table that
// is committed as docs/FEATURES.md. The layout itself lives in the library
// (src/features/layout.h); this file only prints.
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_doc(void) {
  printf("# State features\n\n"
         "Generated from `src/features/layout.h` by\n"
         "`mqss features --doc > docs/FEATURES.md`; do not edit by hand (the "
         "lit test\n`env_features.test` fails when this file and the code "
         "differ).\n\n"
         "The state vector has %d floats in four levels: syntax (`syn.`), "
         "semantics (`sem.`),\ncontext (`ctx.`) and the shapes of the linalg "
         "ops (`op.`). Layout version %d,\nhash `%016llx`. Layouts only grow "
         "at the end (and the graph's node columns on\nthe right), so a policy "
         "trained on an older version is migrated when it is\nloaded "
         "(docs/POLICY_FORMAT.md, \"Migration\").\n\n"
         "The state, the graph and the op a schedule decision addresses "
         "describe the\nkernel, not a test harness: a public `@main` with no "
         "arguments and no results\nthat calls another function of the "
         "module (as in MLIR's integration tests and\n`examples/`), and "
         "body-less declarations, are left out\n"
         "(`src/features/harness.c`).\n\n"
         "| index | name | meaning |\n| ---: | --- | --- |\n",
         MQSS_FEATURE_DIM, mqss_feature_layout_version(),
         (unsigned long long)mqss_feature_layout_hash());
  for (int i = 0; i < MQSS_FEATURE_DIM; i++)
    printf("| %d | `%s` | %s |\n", i, mqss_feature_name(i), mqss_feature_doc(i));
  printf("\n## Graph node columns\n\n"
         "Each node of `mqss graph` has %d columns. Column 0 is not a number "
         "the network\nreads: it selects the node's row of the policy's "
         "learned op-kind embedding\n(blocks use the last row).\n\n"
         "| column | name | meaning |\n| ---: | --- | --- |\n",
         MQSS_GRAPH_FEATURE_DIM);
  for (int i = 0; i < MQSS_GRAPH_FEATURE_DIM; i++)
    printf("| %d | `%s` | %s |\n", i, mqss_graph_feature_name(i),
           mqss_graph_feature_doc(i));
}

// Parses "a,b,c" (action names or ids) into ids.
static int parse_history(const mqss_catalog *c, const char *text, int *ids,
                         int cap, int *n) {
  *n = 0;
  char *copy = strdup(text);
  for (char *tok = strtok(copy, ","); tok && *n < cap; tok = strtok(NULL, ",")) {
    char *end;
    long id = strtol(tok, &end, 10);
    if (*end)
      id = mqss_catalog_find(c, tok);
    if (id < 0 || id >= mqss_catalog_size(c)) {
      int rc = cli_error("features: unknown action '%s' in --history", tok);
      free(copy);
      return rc;
    }
    ids[(*n)++] = (int)id;
  }
  free(copy);
  return 0;
}

int cmd_features(int argc, char **argv) {
  const char *file = NULL, *history = NULL, *catalog = NULL;
  bool json = false, nonzero = false;
  int max_steps = 16;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--doc")) {
      print_doc();
      return 0;
    } else if (!strcmp(a, "--json")) {
      json = true;
    } else if (!strcmp(a, "--nonzero")) {
      nonzero = true;
    } else if (!strcmp(a, "--history") || !strcmp(a, "--catalog") ||
               !strcmp(a, "--max-steps")) {
      if (i + 1 >= argc)
        return cli_error("features: %s needs a value", a);
      const char *v = argv[++i];
      if (a[2] == 'h')
        history = v;
      else if (a[2] == 'c')
        catalog = v;
      else
        max_steps = atoi(v);
    } else if (a[0] == '-' && a[1]) {
      return cli_error("features: unknown option '%s'; see 'mqss features "
                       "--help'", a);
    } else {
      file = a;
    }
  }
  if (!file)
    return cli_error("features: no input file; usage: mqss features FILE "
                     "[--json]");
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  mqss_catalog *c = NULL;
  mqss_module *m = NULL;
  int rc = 0, ids[256], n = 0;
  float f[MQSS_FEATURE_DIM];
  if (mqss_catalog_load(s, catalog, &c) != MQSS_OK ||
      cli_parse_module(s, file, &m) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  if (history && (rc = parse_history(c, history, ids, 256, &n)))
    goto done;
  if (mqss_features(m, c, ids, n, max_steps, f) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  if (json)
    printf("{\"dim\": %d, \"layout_hash\": \"%016llx\", \"features\": {",
           MQSS_FEATURE_DIM, (unsigned long long)mqss_feature_layout_hash());
  for (int i = 0, first = 1; i < MQSS_FEATURE_DIM; i++) {
    if (nonzero && f[i] == 0.0f)
      continue;
    if (json)
      printf("%s\n  \"%s\": %.6g", first ? "" : ",", mqss_feature_name(i), f[i]);
    else
      printf("%3d %-36s %.6g\n", i, mqss_feature_name(i), f[i]);
    first = 0;
  }
  if (json)
    printf("\n}}\n");
done:
  mqss_module_destroy(m);
  mqss_catalog_destroy(c);
  mqss_session_destroy(s);
  return rc;
}
