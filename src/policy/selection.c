// The selection object: an ordered list of decisions, each with its anchored
// pipeline text, and the whole pipeline as one "builtin.module(...)" string.
// It does not choose decisions (select.c) or run them.
#include "policy/policy.h"
#include "actions/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// building

mqss_selection *selection_new(const mqss_catalog *c) {
  mqss_selection *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->catalog = c;
  s->stop_odds.p = -1;
  s->pipeline = strdup("builtin.module()");
  if (!s->pipeline) {
    free(s);
    return NULL;
  }
  return s;
}

mqss_status selection_push(mqss_selection *s, const mqss_decision *d) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    mqss_decision *nd = realloc(s->d, sizeof *nd * cap);
    if (!nd)
      return MQSS_ERR_NOMEM;
    s->d = nd;
    char **ns = realloc(s->step, sizeof *ns * cap);
    if (!ns)
      return MQSS_ERR_NOMEM;
    s->step = ns;
    selection_odds *no = realloc(s->odds, sizeof *no * cap);
    if (!no)
      return MQSS_ERR_NOMEM;
    s->odds = no;
    s->cap = cap;
  }
  mqss_decision dd = *d;
  dd.target = NULL;
  char *text = mqss_decision_pipeline(s->catalog, &dd);
  if (!text)
    return MQSS_ERR_NOMEM;
  s->d[s->n] = dd;
  s->odds[s->n] = (selection_odds){.p = -1};
  s->step[s->n] = text;
  s->n++;
  char *joined = decisions_join(s->catalog, s->d, s->n);
  if (!joined)
    return MQSS_ERR_NOMEM;
  free(s->pipeline);
  s->pipeline = joined;
  return MQSS_OK;
}

mqss_status mqss_selection_create(const mqss_catalog *c,
                                  const mqss_decision *d, int n,
                                  mqss_selection **out) {
  if (!c || !out || n < 0 || (n > 0 && !d))
    return MQSS_ERR_INVALID_ARG;
  *out = NULL;
  for (int i = 0; i < n; i++) {
    const mqss_action *a = mqss_catalog_action(c, d[i].action);
    if (!a || a->is_stop)
      return fail(catalog_session(c), MQSS_ERR_INVALID_ARG,
                  "selection: decision %d has action %d, which is %s", i,
                  d[i].action, a ? "STOP" : "not in the catalog");
  }
  mqss_selection *s = selection_new(c);
  if (!s)
    return MQSS_ERR_NOMEM;
  for (int i = 0; i < n; i++)
    if (selection_push(s, &d[i]) != MQSS_OK) {
      mqss_selection_destroy(s);
      return MQSS_ERR_NOMEM;
    }
  *out = s;
  return MQSS_OK;
}

void mqss_selection_destroy(mqss_selection *s) {
  if (!s)
    return;
  for (int i = 0; i < s->n; i++)
    free(s->step[i]);
  free(s->step);
  free(s->d);
  free(s->odds);
  free(s->pipeline);
  free(s->notes);
  free(s);
}

// ----------------------------------------------------------------------------
// accessors

int mqss_selection_count(const mqss_selection *s) { return s ? s->n : 0; }

const mqss_decision *mqss_selection_decision(const mqss_selection *s, int i) {
  return s && i >= 0 && i < s->n ? &s->d[i] : NULL;
}

const char *mqss_selection_action_name(const mqss_selection *s, int i) {
  const mqss_decision *d = mqss_selection_decision(s, i);
  const mqss_action *a = d ? mqss_catalog_action(s->catalog, d->action) : NULL;
  return a ? a->name : NULL;
}

const char *mqss_selection_step_pipeline(const mqss_selection *s, int i) {
  return s && i >= 0 && i < s->n ? s->step[i] : NULL;
}

const char *mqss_selection_pipeline(const mqss_selection *s) {
  return s ? s->pipeline : NULL;
}

int mqss_selection_stopped(const mqss_selection *s) {
  return s ? s->stopped : 0;
}

double mqss_selection_pass_ms(const mqss_selection *s) {
  return s ? s->pass_ms : 0;
}

const char *mqss_selection_notes(const mqss_selection *s) {
  return s && s->notes ? s->notes : "";
}

int mqss_selection_budget_hit(const mqss_selection *s) {
  return s ? s->budget_hit : 0;
}

int mqss_selection_odds(const mqss_selection *s, int i, int k, float *p,
                        int *actions, float *probs) {
  if (!s || i < 0 || i > s->n || k < 0 || !p || (k > 0 && (!actions || !probs)))
    return -1;
  const selection_odds *o = i < s->n ? &s->odds[i] : &s->stop_odds;
  if (o->p < 0)
    return -1;
  *p = o->p;
  int n = k < o->n_alt ? k : o->n_alt;
  for (int j = 0; j < n; j++) {
    actions[j] = o->alt[j];
    probs[j] = o->alt_p[j];
  }
  return n;
}

// ----------------------------------------------------------------------------
// transform library

char *mqss_selection_schedule(const mqss_selection *s) {
  if (!s)
    return NULL;
  strbuf sb = {0};
  sb_printf(&sb, "// Transform schedules of a selection (mqss): preload this "
            "file and run\n// transform-interpreter{entry-point=...} where "
            "the pipeline does.\n%s", SCHEDULE_MODULE_HEAD);
  size_t head = sb.len;
  for (int i = 0; i < s->n;) {
    // As the pipeline runs them: a run of schedules through one entry.
    int run = decisions_schedule_run(s->catalog, &s->d[i], s->n - i);
    const mqss_action *a = mqss_catalog_action(s->catalog, s->d[i].action);
    strbuf seq = {0};
    char entry[32], key[48];
    bool ok = run > 1 ? schedule_run_sequences(&seq, s->catalog, &s->d[i],
                                               run, entry)
              : run ? schedule_sequence(&seq, a, &s->d[i], entry)
                    : true;
    if (!ok) {
      sb_free(&sb);
      return NULL;
    }
    snprintf(key, sizeof key, "@%s(", entry);
    if (run && !strstr(sb.data + head, key)) // each distinct schedule once
      sb_printf(&sb, "%s", seq.data);
    sb_free(&seq);
    i += run > 1 ? run : 1;
  }
  schedule_close_module(&sb, head);
  return sb.data;
}
