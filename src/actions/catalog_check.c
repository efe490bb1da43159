// Checks a loaded catalog's pipelines against MLIR's pass pipeline parser:
// every action's template, filled at both ends of its parameter ranges and
// with every choice value, must parse and must not set an option known to
// crash MLIR (pipeline_parse). Loading checks the syntax alone
// (catalog_action_parses: a catalog may hold an action whose option values
// crash MLIR, to test isolation); `mqss catalog --check` checks both, and
// says which action, at which line, fails and why.
#include "internal.h"

#include <mlir-c/Pass.h>
#include <stdlib.h>
#include <string.h>

// Parses one filled decision of action `i` (syntax only, or also against
// the option values known to crash MLIR); on failure appends the reason to
// `why`.
static int check_one(const mqss_catalog *c, int i, const float *u, bool syntax,
                     strbuf *why) {
  mqss_session *s = catalog_session(c);
  mqss_decision d = {.action = i};
  memcpy(d.u, u, sizeof d.u);
  char *text = mqss_decision_pipeline(c, &d);
  if (!text)
    return 1;
  strbuf anchored = {0};
  if (strncmp(text, "builtin.module(", 15))
    sb_printf(&anchored, "builtin.module(%s)", text);
  else
    sb_printf(&anchored, "%s", text);
  MlirPassManager pm = mlirPassManagerCreate(s->ctx);
  diag_reset(s, NULL);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  int bad = (syntax ? pipeline_parse_syntax(s, opm, anchored.data, text)
                    : pipeline_parse(s, opm, anchored.data, text)) != MQSS_OK;
  if (bad)
    sb_printf(why, "%s", mqss_errmsg(s));
  mlirPassManagerDestroy(pm);
  sb_free(&anchored);
  free(text);
  return bad;
}

// Both ends of every range at once; then each choice value alone.
static int check_action(const mqss_catalog *c, int i, bool syntax, strbuf *why) {
  const mqss_action *a = mqss_catalog_action(c, i);
  float lo[MQSS_MAX_PARAMS], hi[MQSS_MAX_PARAMS];
  for (int k = 0; k < MQSS_MAX_PARAMS; k++)
    lo[k] = -1.0f, hi[k] = 1.0f;
  int bad = check_one(c, i, lo, syntax, why);
  if (!bad && a->n_params)
    bad = check_one(c, i, hi, syntax, why);
  for (int k = 0; !bad && k < a->n_params; k++) {
    const mqss_param *p = &a->params[k];
    for (int v = 0; !bad && p->kind == MQSS_PARAM_CHOICE && v < p->n_values;
         v++) {
      float u[MQSS_MAX_PARAMS] = {0};
      u[k] = -1.0f + (2.0f * (float)v + 1.0f) / (float)p->n_values;
      bad = check_one(c, i, u, syntax, why);
    }
  }
  return bad;
}

bool catalog_action_parses(const mqss_catalog *c, int i, strbuf *why) {
  return !check_action(c, i, true, why);
}

int catalog_check_pipelines(const mqss_catalog *c, const char *path,
                            strbuf *report) {
  int failed = 0;
  for (int i = 0; i < mqss_catalog_size(c); i++) {
    const mqss_action *a = mqss_catalog_action(c, i);
    if (a->is_stop)
      continue;
    strbuf why = {0};
    if (check_action(c, i, false, &why)) {
      sb_printf(report, "%s:%d: action '%s': %s\n", path, a->line, a->name,
                why.data);
      failed++;
    }
    sb_free(&why);
  }
  return failed;
}
