// The best single fixed pipeline of a training split (`mqss eval
// --fixed-from-train`): a small candidate set (the distinct family baseline
// pipelines, then a few catalog-derived sequences from the table below),
// each measured against the reference in interleaved pairs on an even
// sample of training modules; the best geomean wins. It is the "one
// pipeline for everything" baseline a learned per-module choice must beat.
// Not a search: the candidates are fixed in advance.
#include "eval/eval.h"
#include "eval/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// catalog-derived candidates: action names with the raw parameter u of
// their first parameter (docs/EVAL.md lists what they map to)

enum { MAX_SEQ = 5 };

static const struct {
  const char *actions[MAX_SEQ];
  float u[MAX_SEQ];
} derived[] = {
    // bufferize -> affine loops -> tile 16 (log-int 4..128 at u = -0.2)
    {{"bufferize", "linalg-to-affine", "affine-tile"}, {0, 0, -0.2f}},
    // ... tile 64 (u = 0.6)
    {{"bufferize", "linalg-to-affine", "affine-tile"}, {0, 0, 0.6f}},
    // ... tile 32 (u = 0.2) then scalar replacement and hoisting
    {{"bufferize", "linalg-to-affine", "affine-tile", "affine-scalrep",
      "affine-licm"},
     {0, 0, 0.2f, 0, 0}},
    // bufferize -> plain loops (the reference's own lowering, made explicit)
    {{"bufferize", "linalg-to-loops"}, {0, 0}},
};

// Pipeline of derived row `i`, or NULL when an action is not in the catalog.
static char *derived_pipeline(const mqss_catalog *cat, int i) {
  mqss_decision d[MAX_SEQ];
  int n = 0;
  for (; n < MAX_SEQ && derived[i].actions[n]; n++) {
    memset(&d[n], 0, sizeof d[n]);
    d[n].action = mqss_catalog_find(cat, derived[i].actions[n]);
    if (d[n].action < 0)
      return NULL;
    d[n].u[0] = derived[i].u[n];
  }
  return decisions_join(cat, d, n);
}

// ----------------------------------------------------------------------------
// candidates

static bool has_candidate(const eval_fixed_report *r, const char *p) {
  for (int i = 0; i < r->n; i++)
    if (!strcmp(r->v[i].pipeline, p))
      return true;
  return false;
}

static mqss_status add_candidate(mqss_session *s, eval_fixed_report *r, char *p,
                                 const char *origin) {
  if (!p)
    return MQSS_OK;
  if (has_candidate(r, p)) {
    free(p);
    return MQSS_OK;
  }
  eval_fixed_candidate *v = realloc(r->v, (size_t)(r->n + 1) * sizeof *v);
  if (!v) {
    free(p);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  r->v = v;
  eval_fixed_candidate *c = &r->v[r->n++];
  memset(c, 0, sizeof *c);
  c->pipeline = p;
  snprintf(c->origin, sizeof c->origin, "%s", origin);
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// choosing

mqss_status eval_fixed_choose(mqss_session *s, const mqss_catalog *catalog,
                              const mqss_baselines *baselines,
                              const eval_inputs *train, int sample,
                              const eval_settings *set,
                              void (*progress)(const char *line, void *user),
                              void *user, eval_fixed_report *out) {
  memset(out, 0, sizeof *out);
  mqss_status st = MQSS_OK;
  char origin[96];
  for (int f = 0; st == MQSS_OK && f < mqss_corpus_family_count(); f++) {
    const char *p = mqss_baselines_pipeline(baselines, mqss_corpus_family_name(f));
    if (!p)
      continue;
    snprintf(origin, sizeof origin, "baseline:%s", mqss_corpus_family_name(f));
    st = add_candidate(s, out, strdup(eval_pipeline_empty(p) ? "" : p), origin);
  }
  for (size_t i = 0; st == MQSS_OK && catalog && i < sizeof derived / sizeof derived[0]; i++)
    st = add_candidate(s, out, derived_pipeline(catalog, (int)i), "catalog");
  if (st != MQSS_OK)
    return st;
  if (!train->n || sample < 1)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "fixed-from-train: the training manifest lists no module");
  int k = sample < train->n ? sample : train->n;
  out->sample = k;
  double *ratio = calloc((size_t)out->n * (size_t)k, sizeof *ratio); // (cand, k)
  if (!ratio)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  char line[512];
  for (int j = 0; st == MQSS_OK && j < k; j++) {
    const eval_input *in = &train->v[(int)((long)j * train->n / k)];
    mqss_module *m = NULL;
    if (mqss_module_parse_file(s, in->path, &m) != MQSS_OK) {
      st = MQSS_ERR_PARSE;
      break;
    }
    for (int c = 0; st == MQSS_OK && c < out->n; c++) {
      eval_fixed_candidate *cand = &out->v[c];
      double r = 1.0;
      const char *stname = "ok";
      if (!eval_pipeline_empty(cand->pipeline)) {
        mqss_measure_options o = set->measure;
        o.pipeline = cand->pipeline;
        mqss_measure_vs_result vr;
        st = mqss_measure_vs(m, &o, "", &vr);
        if (st != MQSS_OK)
          break;
        if (vr.a.status == MQSS_MEASURE_OK && vr.b.status == MQSS_MEASURE_OK) {
          r = vr.ratio_hl;
        } else {
          cand->failures++;
          stname = mqss_measure_status_name(vr.a.status);
        }
      }
      cand->n++;
      ratio[c * k + j] = r;
      if (progress) {
        snprintf(line, sizeof line, "fixed-from-train: %s candidate %d (%s): %s %.3fx",
                 in->file, c, cand->origin, stname, r);
        progress(line, user);
      }
    }
    mqss_module_destroy(m);
  }
  if (st == MQSS_OK) {
    for (int c = 0; c < out->n; c++) {
      out->v[c].geomean = eval_geomean(&ratio[c * k], k, NULL);
      if (out->v[c].geomean > out->v[out->best].geomean)
        out->best = c;
    }
  }
  free(ratio);
  return st;
}

void eval_fixed_report_free(eval_fixed_report *r) {
  for (int i = 0; r && i < r->n; i++)
    free(r->v[i].pipeline);
  if (r) {
    free(r->v);
    memset(r, 0, sizeof *r);
  }
}
