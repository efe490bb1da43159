// `mqss select`: loads a policy and prints the pipeline it chooses for a
// module (text or JSON), plus the option parsing and policy loading that
// `mqss compile` and `mqss explain` share (policy_cli_*). A hidden-in-plain-
// sight helper, --init-random-policy, writes an untrained policy for tests.
// Selection itself lives in src/policy.
#include "cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// ----------------------------------------------------------------------------
// shared by select, compile and explain

// Consumes argv[*i] (and its value) when it is a common policy option.
// Returns 1 when consumed, 0 when not, -1 on a missing value (error printed).
int policy_cli_option(policy_cli *o, int argc, char **argv, int *i) {
  const char *f = argv[*i];
  bool has = *i + 1 < argc;
  const char **dst = NULL;
  if (!strcmp(f, "--policy"))
    dst = &o->policy;
  else if (!strcmp(f, "--catalog"))
    dst = &o->catalog;
  else if (!strcmp(f, "--cache-dir"))
    dst = &o->cache_dir;
  else if (!strcmp(f, "--allow-version-mismatch")) {
    o->allow_version_mismatch = 1;
    return 1;
  } else if (!strcmp(f, "--sample")) {
    o->sample = 1;
    return 1;
  } else if (!strcmp(f, "--no-isolate")) {
    o->no_isolate = 1;
    return 1;
  } else if (!strcmp(f, "--fit-sizes") || !strcmp(f, "--no-fit-sizes")) {
    o->fit_sizes = strcmp(f, "--fit-sizes") ? -1 : 1;
    return 1;
  } else if (!strcmp(f, "--time-budget-ms")) {
    long ms;
    if (!has)
      return cli_error("%s needs a value", f), -1;
    if (!cli_parse_int(argv[0], f, argv[++*i], 0, 86400000, &ms))
      return -1;
    o->time_budget_ms = (int)ms + 1;
    return 1;
  } else if (!strcmp(f, "--max-compile")) {
    if (!has)
      return cli_error("%s needs a value", f), -1;
    if (!cli_parse_double(argv[0], f, argv[++*i], 0, 1e6, &o->max_compile))
      return -1;
    o->max_compile += 1;
    return 1;
  } else if (!strcmp(f, "--budget") || !strcmp(f, "--confirm-pairs")) {
    long v;
    bool pairs = !strcmp(f, "--confirm-pairs");
    if (!has)
      return cli_error("%s needs a value", f), -1;
    if (!cli_parse_int(argv[0], f, argv[++*i], pairs, pairs ? 10000 : 1000,
                       &v))
      return -1;
    if (pairs)
      o->confirm_pairs = (int)v;
    else
      o->budget = (int)v;
    return 1;
  } else if (!strcmp(f, "--seed") || !strcmp(f, "--max-steps")) {
    if (!has)
      return cli_error("%s needs a value", f), -1;
    char *end;
    errno = 0;
    long long v = strtoll(argv[++*i], &end, 10);
    bool steps = f[2] == 'm';
    if (*end || errno || v < 0 || (steps && v > MQSS_MAX_SELECT_STEPS))
      return cli_error(steps ? "%s: '%s' is not an integer in [0, %d]"
                             : "%s: '%s' is not a non-negative integer",
                       f, argv[*i], MQSS_MAX_SELECT_STEPS),
             -1;
    if (f[2] == 's')
      o->seed = (uint64_t)v;
    else
      o->max_steps = (int)v;
    return 1;
  } else {
    return 0;
  }
  if (!has)
    return cli_error("%s needs a value", f), -1;
  *dst = argv[++*i];
  return 1;
}

int policy_cli_open(policy_cli *o, const char *file, mqss_session **s,
                    mqss_policy **p, mqss_module **m) {
  if (mqss_session_create(s) != MQSS_OK)
    return cli_error("out of memory");
  mqss_policy_options po;
  mqss_policy_options_init(&po);
  po.catalog_path = o->catalog;
  po.allow_version_mismatch = o->allow_version_mismatch;
  if (mqss_policy_load(*s, o->policy, &po, p) != MQSS_OK)
    return cli_error("%s", mqss_errmsg(*s));
  if (cli_parse_module(*s, file, m) != MQSS_OK)
    return cli_error("%s", mqss_errmsg(*s));
  return 0;
}

void policy_cli_select_options(const policy_cli *o, mqss_select_options *so) {
  mqss_select_options_init(so);
  if (o->max_steps > 0)
    so->max_steps = o->max_steps;
  so->sample = o->sample;
  if (o->seed)
    so->seed = o->seed;
  so->cache_dir = o->cache_dir;
  so->isolate = !o->no_isolate;
  so->time_budget_ms = o->time_budget_ms - 1;
  so->fit_sizes = o->fit_sizes;
}

void policy_cli_print_notes(const mqss_selection *sel) {
  const char *notes = mqss_selection_notes(sel);
  if (notes[0])
    fprintf(stderr, "select: a crashing step was avoided:\n%s\n", notes);
  if (mqss_selection_budget_hit(sel))
    fprintf(stderr, "select: time budget spent after %d decision(s); using "
            "them\n", mqss_selection_count(sel));
}

// ----------------------------------------------------------------------------
// output

// The policy's odds at step i (mqss_selection_odds) as "p" and
// "alternatives" of `obj`, to four decimals; nothing without a record.
static void add_odds(cJSON *obj, const mqss_catalog *c,
                     const mqss_selection *sel, int i) {
  float p, probs[MQSS_SELECTION_ALTS];
  int acts[MQSS_SELECTION_ALTS];
  int n = mqss_selection_odds(sel, i, MQSS_SELECTION_ALTS, &p, acts, probs);
  if (n < 0)
    return;
  cJSON_AddNumberToObject(obj, "p", round(p * 1e4) / 1e4);
  cJSON *alts = cJSON_AddArrayToObject(obj, "alternatives");
  for (int k = 0; k < n; k++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "action", mqss_catalog_action(c, acts[k])->name);
    cJSON_AddNumberToObject(x, "p", round(probs[k] * 1e4) / 1e4);
    cJSON_AddItemToArray(alts, x);
  }
}

static void print_json(const mqss_policy *p, const mqss_selection *sel) {
  const mqss_catalog *c = mqss_policy_catalog(p);
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "pipeline", mqss_selection_pipeline(sel));
  cJSON_AddBoolToObject(j, "stopped", mqss_selection_stopped(sel));
  cJSON_AddBoolToObject(j, "budget_hit", mqss_selection_budget_hit(sel));
  cJSON *steps = cJSON_AddArrayToObject(j, "decisions");
  for (int i = 0; i < mqss_selection_count(sel); i++) {
    const mqss_decision *d = mqss_selection_decision(sel, i);
    const mqss_action *a = mqss_catalog_action(c, d->action);
    cJSON *st = cJSON_CreateObject();
    cJSON_AddStringToObject(st, "action", a->name);
    if (d->op) // the linalg op (mqss.id) a schedule decision addresses
      cJSON_AddNumberToObject(st, "op", (double)d->op);
    cJSON_AddStringToObject(st, "pipeline", mqss_selection_step_pipeline(sel, i));
    cJSON *params = cJSON_AddObjectToObject(st, "params");
    for (int k = 0; k < a->n_params; k++) {
      const mqss_param *pp = &a->params[k];
      int64_t v = mqss_param_map(pp, d->u[k]);
      if (pp->kind == MQSS_PARAM_DIVISOR)
        cJSON_AddNumberToObject(params, pp->name,
                                (double)strtoll(pp->values[v], NULL, 10));
      else if (pp->kind == MQSS_PARAM_CHOICE)
        cJSON_AddStringToObject(params, pp->name, pp->values[v]);
      else if (pp->kind == MQSS_PARAM_BOOL)
        cJSON_AddBoolToObject(params, pp->name, v != 0);
      else
        cJSON_AddNumberToObject(params, pp->name, (double)v);
    }
    add_odds(st, c, sel, i);
    cJSON_AddItemToArray(steps, st);
  }
  if (mqss_selection_stopped(sel)) {
    cJSON *st = cJSON_AddObjectToObject(j, "stop");
    add_odds(st, c, sel, mqss_selection_count(sel));
  }
  char *text = cJSON_Print(j);
  if (text)
    printf("%s\n", text);
  free(text);
  cJSON_Delete(j);
}

// Writes `text` (owned, freed here; NULL: out of memory) to `path`.
static int write_text(const char *path, char *text) {
  FILE *f = text ? fopen(path, "w") : NULL;
  bool ok = f && fputs(text, f) >= 0;
  ok = f && fclose(f) == 0 && ok;
  free(text);
  return ok ? 0 : cli_error("select: cannot write '%s'", path);
}

// ----------------------------------------------------------------------------
// the command

static int init_random(const policy_cli *o, const char *out, const char *arch) {
  mqss_session *s = NULL;
  mqss_catalog *c = NULL;
  int rc = 0;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  if (mqss_catalog_load(s, o->catalog, &c) != MQSS_OK ||
      mqss_policy_write_random(s, c, arch, o->seed, out) != MQSS_OK)
    rc = cli_error("%s", mqss_errmsg(s));
  else
    fprintf(stderr, "mqss: wrote an UNTRAINED random policy (%s, seed %llu) "
            "to '%s'\n", arch ? arch : "gnn", (unsigned long long)o->seed, out);
  mqss_catalog_destroy(c);
  mqss_session_destroy(s);
  return rc;
}

int cmd_select(int argc, char **argv) {
  policy_cli o = {0};
  const char *file = NULL, *random_out = NULL, *arch = NULL;
  bool json = false;
  const char *emit = NULL, *emit_tagged = NULL;
  for (int i = 1; i < argc; i++) {
    int r = policy_cli_option(&o, argc, argv, &i);
    if (r < 0)
      return 1;
    if (r)
      continue;
    if (!strcmp(argv[i], "--json")) {
      json = true;
    } else if (!strcmp(argv[i], "--emit-schedule") && i + 1 < argc) {
      emit = argv[++i];
    } else if (!strcmp(argv[i], "--emit-tagged") && i + 1 < argc) {
      emit_tagged = argv[++i];
    } else if (!strcmp(argv[i], "--init-random-policy") && i + 1 < argc) {
      random_out = argv[++i];
    } else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
      arch = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_error("select: unknown option '%s'; see 'mqss select --help'",
                       argv[i]);
    } else {
      file = argv[i];
    }
  }
  if (random_out)
    return init_random(&o, random_out, arch);
  if (!file)
    return cli_error("select: no input file; usage: mqss select FILE "
                     "[--policy P] [--json]");
  mqss_session *s = NULL;
  mqss_policy *p = NULL;
  mqss_module *m = NULL;
  mqss_selection *sel = NULL;
  int rc = policy_cli_open(&o, file, &s, &p, &m);
  if (!rc) {
    mqss_select_options so;
    policy_cli_select_options(&o, &so);
    mqss_budget_options bo;
    mqss_budget_options_init(&bo);
    bo.budget = o.budget;
    if (o.max_compile > 0)
      bo.max_compile = o.max_compile - 1;
    if (o.confirm_pairs > 0)
      bo.confirm_pairs = o.confirm_pairs;
    char cache[4096];
    if (o.cache_dir && o.budget > 0) {
      mkdir(o.cache_dir, 0777); // an error shows when the cache opens
      snprintf(cache, sizeof cache, "%s/measure.sqlite", o.cache_dir);
      bo.measure.cache_path = cache;
    }
    mqss_budget_report br;
    if (mqss_policy_select_budget(p, m, &so, &bo, &sel, &br) != MQSS_OK) {
      rc = cli_error("select: %s", mqss_errmsg(s));
    } else {
      if (o.budget > 0)
        fprintf(stderr, "select: budget %d: %d measured, %d failed; %s\n",
                o.budget, br.measured, br.failed, br.reason);
      policy_cli_print_notes(sel);
      if (json)
        print_json(p, sel);
      else
        printf("%s\n", mqss_selection_pipeline(sel));
      if (emit)
        rc = write_text(emit, mqss_selection_schedule(sel));
      if (emit_tagged && !rc) // as the pipeline's first schedule tags it
        rc = mqss_module_tag_ops(m, NULL) == MQSS_OK
                 ? write_text(emit_tagged, mqss_module_to_string(m))
                 : cli_error("select: %s", mqss_errmsg(s));
    }
  }
  mqss_selection_destroy(sel);
  mqss_module_destroy(m);
  mqss_policy_destroy(p);
  mqss_session_destroy(s);
  return rc;
}
