// libFuzzer harness: MLIR text through the library's front door. Each input
// is parsed as a module (mqss_module_parse_string: the nesting pre-scan,
// then MLIR's parser and verifier); a module that parses then goes through
// everything that reads IR without running passes: the state features (with
// a history from the default catalog), the IR graph, the safety layer's
// action mask and stages, the static cost and the module hash.
//
// One session serves every input; it is replaced every RENEW inputs, since
// MLIR's context keeps every type and attribute it ever uniqued.
#include "mqss/mqss.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { RENEW = 2000 };

static mqss_session *session;
static mqss_catalog *catalog;
static unsigned long inputs;

static void renew(void) {
  mqss_catalog_destroy(catalog);
  mqss_session_destroy(session);
  catalog = NULL;
  if (mqss_session_create(&session) != MQSS_OK ||
      mqss_catalog_load(session, MQSS_SOURCE_DIR "/data/catalog.yaml",
                        &catalog) != MQSS_OK) {
    fprintf(stderr, "fuzz_module: %s\n", mqss_errmsg(session));
    abort(); // the harness itself is broken: say so loudly
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (inputs++ % RENEW == 0)
    renew();
  mqss_module *m = NULL;
  if (mqss_module_parse_string(session, (const char *)data, size, "<fuzz>",
                               &m) != MQSS_OK)
    return 0;
  int n = mqss_catalog_size(catalog);
  int history[MQSS_HISTORY_LEN];
  for (int i = 0; i < MQSS_HISTORY_LEN; i++)
    history[i] = (int)(size + i) % n;
  float f[MQSS_FEATURE_DIM];
  if (mqss_features(m, catalog, history, MQSS_HISTORY_LEN, 16, f) == MQSS_OK)
    for (int i = 0; i < MQSS_FEATURE_DIM; i++)
      if (!isfinite(f[i]))
        abort(); // the header promises finite features
  mqss_graph *g = NULL;
  if (mqss_graph_build(m, &g) == MQSS_OK) {
    for (int i = 0; i < g->nnz; i++)
      if (g->col[i] < 0 || g->col[i] >= g->n_nodes)
        abort(); // a neighbour id out of range
    mqss_graph_destroy(g);
  }
  uint8_t mask[512];
  if (n <= (int)sizeof mask && mqss_action_mask(m, catalog, NULL, mask) < 1)
    abort(); // STOP is always allowed
  (void)mqss_module_stages(m);
  (void)mqss_env_static_cost(m);
  (void)mqss_module_hash(m);
  mqss_module_destroy(m);
  return 0;
}
