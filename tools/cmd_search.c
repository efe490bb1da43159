// `mqss search`: the command-line twin of mqss_search(). Parses the flags
// into mqss_search_options, prints progress to stderr with --verbose, and
// the result as text or JSON (libcjson). No search logic lives here.
#include "cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// flags

typedef struct {
  const char *file, *catalog, *policy;
  bool json, verbose, trace;
  check_cli check; // --skip-output, --ignore-schedule
  mqss_search_options o;
} search_args;

static bool parse_args(int argc, char **argv, search_args *a) {
  mqss_search_options_init(&a->o);
  for (int i = 1; i < argc; i++) {
    const char *f = argv[i];
    bool has_value = i + 1 < argc;
    const char *v = has_value ? argv[i + 1] : NULL;
    long x;
#define NEED_VALUE CLI_NEED_VALUE("search")
#define INT_FLAG(name, lo, hi, field) CLI_INT_FLAG("search", name, lo, hi, a->o.field)
    INT_FLAG("--budget", 1, 1000000, budget)
    INT_FLAG("--max-len", 1, 1000, max_len)
    INT_FLAG("--confirm", 0, 1000000, confirm_pairs)
    INT_FLAG("--confirm-top", 0, MQSS_SEARCH_CONFIRM_MAX, confirm_top)
    INT_FLAG("--warmup", 0, 1000000, measure.warmup)
    INT_FLAG("--repeat", 1, 1000000, measure.repeat)
    INT_FLAG("--timeout", 1, 86400000, measure.timeout_ms)
    INT_FLAG("--pin", 0, 4095, measure.cpu)
    INT_FLAG("--proposals", 0, 1000, proposals)
#undef INT_FLAG
    if (!strcmp(f, "--method")) {
      NEED_VALUE
      if (!strcmp(v, "random"))
        a->o.method = MQSS_SEARCH_RANDOM;
      else if (!strcmp(v, "greedy"))
        a->o.method = MQSS_SEARCH_GREEDY;
      else if (!strcmp(v, "policy"))
        a->o.method = MQSS_SEARCH_POLICY;
      else {
        cli_error("search: --method expects random, greedy or policy, got "
                  "'%s'", v);
        return false;
      }
    } else if (!strcmp(f, "--policy")) {
      NEED_VALUE a->policy = v;
    } else if (!strcmp(f, "--seed")) {
      NEED_VALUE a->o.seed = strtoull(v, NULL, 0);
    } else if (!strcmp(f, "--min-gain")) {
      NEED_VALUE a->o.min_gain = strtod(v, NULL);
    } else if (!strcmp(f, "--max-compile")) {
      NEED_VALUE
      if (!cli_parse_double("search", f, v, 0, 1e6, &a->o.max_compile))
        return false;
    } else if (!strcmp(f, "--cache")) {
      NEED_VALUE a->o.measure.cache_path = v;
    } else if (!strcmp(f, "--entry")) {
      NEED_VALUE a->o.measure.entry = v;
    } else if (!strcmp(f, "--catalog")) {
      NEED_VALUE a->catalog = v;
    } else if (!strcmp(f, "--no-explore")) {
      a->o.explore = 0;
    } else if (!strcmp(f, "--kind-wide")) {
      a->o.kind_wide = 1;
    } else if (!strcmp(f, "--no-code-size")) {
      a->o.measure.code_size = 0;
    } else if ((x = check_cli_option(&a->check, "search", argc, argv, &i))) {
      if (x < 0)
        return false;
    } else if (!strcmp(f, "--json")) {
      a->json = true;
    } else if (!strcmp(f, "--trace")) {
      a->trace = true;
    } else if (!strcmp(f, "--verbose") || !strcmp(f, "-v")) {
      a->verbose = true;
    } else if (f[0] == '-' && f[1]) {
      cli_error("search: unknown option '%s'; see 'mqss search --help'", f);
      return false;
    } else if (!a->file) {
      a->file = f;
    } else {
      cli_error("search: more than one input file ('%s' and '%s')", a->file, f);
      return false;
    }
#undef NEED_VALUE
  }
  if (!a->file) {
    cli_error("search: no input file; usage: mqss search --method random "
              "--budget N FILE");
    return false;
  }
  if ((a->o.method == MQSS_SEARCH_POLICY) != (a->policy != NULL)) {
    cli_error(a->policy ? "search: --policy needs --method policy"
                        : "search: --method policy needs --policy FILE (e.g. "
                          "models/default.safetensors)");
    return false;
  }
  check_cli_apply(&a->check, &a->o.measure);
  return true;
}

// ----------------------------------------------------------------------------
// printing

// Prints one evaluation to `user` (a FILE *; stderr when NULL).
static void progress(const mqss_search_eval *e, void *user) {
  fprintf(user ? (FILE *)user : stderr,
          "eval %3d  %-9s %-13s %s run_ms %9.4f  compile_ms %8.1f%s  "
          "best #%d %.4f  %s\n",
          e->index, e->source, mqss_measure_status_name(e->status),
          e->cached ? "cached" : "      ", e->run_ms, e->compile_ms,
          e->slow_compile ? " slow" : "     ", e->best_index,
          e->best_run_ms, e->pipeline[0] ? e->pipeline : "(empty)");
}

static cJSON *eval_json(const mqss_search_eval *e) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "index", e->index);
  cJSON_AddStringToObject(j, "pipeline", e->pipeline);
  cJSON_AddNumberToObject(j, "decisions", e->n_decisions);
  cJSON_AddStringToObject(j, "status", mqss_measure_status_name(e->status));
  cJSON_AddStringToObject(j, "source", e->source);
  cJSON_AddBoolToObject(j, "cached", e->cached);
  cJSON_AddNumberToObject(j, "run_ms", e->run_ms);
  cJSON_AddNumberToObject(j, "compile_ms", e->compile_ms);
  cJSON_AddNumberToObject(j, "elapsed_ms", e->elapsed_ms);
  cJSON_AddNumberToObject(j, "best_index", e->best_index);
  cJSON_AddNumberToObject(j, "best_run_ms", e->best_run_ms);
  cJSON_AddBoolToObject(j, "slow_compile", e->slow_compile);
  return j;
}

// "confirmed", "within noise", "slower" or the failing status.
static const char *verdict_word(const mqss_search_confirmation *c) {
  if (c->status != MQSS_MEASURE_OK)
    return mqss_measure_status_name(c->status);
  return c->verdict > 0 ? "confirmed" : c->verdict < 0 ? "slower" : "within noise";
}

static cJSON *result_json(const mqss_search_result *r, const char *file,
                          const mqss_search_options *o) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "file", file);
  cJSON_AddStringToObject(j, "method", mqss_search_method_name(r->method));
  cJSON_AddNumberToObject(j, "budget", o->budget);
  cJSON_AddNumberToObject(j, "seed", (double)o->seed);
  cJSON_AddStringToObject(j, "best_pipeline", r->best_pipeline);
  cJSON_AddNumberToObject(j, "best_index", r->best_index);
  cJSON_AddNumberToObject(j, "reference_run_ms", r->reference_run_ms);
  cJSON_AddNumberToObject(j, "best_run_ms", r->best_run_ms);
  cJSON_AddNumberToObject(j, "speedup", r->speedup);
  cJSON_AddBoolToObject(j, "confirmed", r->confirmed);
  cJSON_AddNumberToObject(j, "confirmed_speedup", r->confirmed_speedup);
  cJSON_AddNumberToObject(j, "min_gain", o->min_gain);
  cJSON_AddStringToObject(j, "winner_pipeline",
                          r->winner_pipeline ? r->winner_pipeline : "");
  cJSON_AddNumberToObject(j, "winner_index", r->winner_index);
  if (r->confirmed) {
    cJSON *c = cJSON_AddObjectToObject(j, "confirm");
    cJSON_AddNumberToObject(c, "pairs", r->confirm.pairs);
    cJSON_AddStringToObject(c, "best_status",
                            mqss_measure_status_name(r->confirm.a.status));
    cJSON_AddStringToObject(c, "reference_status",
                            mqss_measure_status_name(r->confirm.b.status));
    cJSON_AddNumberToObject(c, "ratio_median", r->confirm.ratio_median);
    cJSON_AddNumberToObject(c, "ratio_mad", r->confirm.ratio_mad);
    cJSON_AddNumberToObject(c, "ratio_hl", r->confirm.ratio_hl);
    cJSON_AddNumberToObject(c, "ratio_lo", r->confirm.ratio_lo);
    cJSON_AddNumberToObject(c, "ratio_hi", r->confirm.ratio_hi);
    cJSON_AddNumberToObject(c, "ratio_conf", r->confirm.ratio_conf);
  }
  cJSON *cs = cJSON_AddArrayToObject(j, "confirmations");
  for (int i = 0; i < r->n_confirmations; i++) {
    const mqss_search_confirmation *c = &r->confirmations[i];
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "index", c->index);
    cJSON_AddStringToObject(e, "status", mqss_measure_status_name(c->status));
    cJSON_AddNumberToObject(e, "speedup", c->speedup);
    cJSON_AddNumberToObject(e, "lo", c->lo);
    cJSON_AddNumberToObject(e, "hi", c->hi);
    cJSON_AddNumberToObject(e, "conf", c->conf);
    cJSON_AddStringToObject(e, "verdict", verdict_word(c));
    cJSON_AddItemToArray(cs, e);
  }
  cJSON_AddNumberToObject(j, "evaluations", r->evaluations);
  cJSON_AddNumberToObject(j, "cache_hits", r->cache_hits);
  cJSON_AddNumberToObject(j, "failures", r->failures);
  cJSON *f = cJSON_AddObjectToObject(j, "failures_by_status");
  for (int s = 1; s < MQSS_SEARCH_STATUS_SLOTS; s++)
    if (r->failures_by_status[s])
      cJSON_AddNumberToObject(f, mqss_measure_status_name((mqss_measure_status)s),
                              r->failures_by_status[s]);
  cJSON_AddNumberToObject(j, "max_compile", o->max_compile);
  cJSON_AddNumberToObject(j, "slow_compiles", r->slow_compiles);
  cJSON_AddNumberToObject(j, "search_ms", r->search_ms);
  cJSON_AddNumberToObject(j, "confirm_ms", r->confirm_ms);
  cJSON_AddNumberToObject(j, "wall_ms", r->wall_ms);
  cJSON *t = cJSON_AddArrayToObject(j, "trace");
  for (int i = 0; i < r->n_trace; i++)
    cJSON_AddItemToArray(t, eval_json(&r->trace[i]));
  return j;
}

static void print_text(const mqss_search_result *r,
                       const mqss_search_options *o, bool trace) {
  printf("method: %s\n", mqss_search_method_name(r->method));
  printf("search best: %s\n", r->best_pipeline[0]
                                  ? r->best_pipeline
                                  : "(empty pipeline: the reference)");
  printf("best_index: %d\n", r->best_index);
  printf("run_ms: reference %.4f best %.4f (search speedup %.3fx, one "
         "measurement each: not a claim)\n",
         r->reference_run_ms, r->best_run_ms, r->speedup);
  if (r->n_confirmations)
    printf("re-measured (%d interleaved pairs each vs the reference, "
           "Hodges-Lehmann speedup and interval, min gain %g%%):\n",
           r->confirm.pairs, 100 * o->min_gain);
  for (int i = 0; i < r->n_confirmations; i++) {
    const mqss_search_confirmation *c = &r->confirmations[i];
    char ci[64] = "[no interval: < 6 pairs]";
    if (c->lo > 0)
      snprintf(ci, sizeof ci, "[%.3f, %.3f]", c->lo, c->hi);
    printf("  #%-4d %.3fx %s %-12s %s\n", c->index, c->speedup, ci,
           verdict_word(c), r->trace[c->index].pipeline);
  }
  if (r->winner_index > 0)
    printf("winner: %s\nconfirmed_speedup: %.3fx [%.3f, %.3f] (%.1f%% "
           "interval, %d pairs)\n", r->winner_pipeline, r->confirmed_speedup,
           r->confirmed_lo, r->confirmed_hi, 100 * r->confirm.ratio_conf,
           r->confirm.pairs);
  else if (r->confirmed && r->confirmed_speedup > 0)
    printf("winner: none: no confirmed speedup (fastest re-measured: %.3fx "
           "[%.3f, %.3f]); the reference stands\nconfirmed_speedup: 1.000x\n",
           r->confirm.ratio_hl, r->confirmed_lo, r->confirmed_hi);
  else if (r->confirmed)
    printf("winner: none: every re-measurement failed (%s)\n"
           "confirmed_speedup: 0 (failed)\n",
           r->n_confirmations ? verdict_word(&r->confirmations[0]) : "?");
  else if (r->confirmed_speedup == 1.0)
    printf("winner: none: no candidate beat the reference by the min gain\n"
           "confirmed_speedup: 1.000x\n");
  else
    printf("winner: not confirmed (--confirm 0 or --confirm-top 0)\n"
           "confirmed_speedup: 0 (skipped)\n");
  printf("evaluations: %d (cache hits %d)\n", r->evaluations, r->cache_hits);
  printf("failures: %d", r->failures);
  for (int s = 1; s < MQSS_SEARCH_STATUS_SLOTS; s++)
    if (r->failures_by_status[s])
      printf(" %s=%d", mqss_measure_status_name((mqss_measure_status)s),
             r->failures_by_status[s]);
  printf("\n");
  if (o->max_compile > 0)
    printf("slow compiles: %d over %gx the reference's compile time (%.1f "
           "ms), never best\n", r->slow_compiles, o->max_compile,
           o->max_compile * r->trace[0].compile_ms);
  printf("time_ms: search %.1f confirm %.1f total %.1f\n", r->search_ms,
         r->confirm_ms, r->wall_ms);
  if (trace)
    for (int i = 0; i < r->n_trace; i++)
      progress(&r->trace[i], stdout);
}

// ----------------------------------------------------------------------------
// main

int cmd_search(int argc, char **argv) {
  search_args a = {0};
  if (!parse_args(argc, argv, &a))
    return 1;
  if (a.verbose)
    a.o.progress = progress; // to stderr
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  int rc = 0;
  mqss_module *m = NULL;
  mqss_catalog *cat = NULL;
  mqss_policy *p = NULL;
  mqss_search_result r = {0};
  mqss_policy_options po;
  mqss_policy_options_init(&po);
  po.catalog_path = a.catalog;
  if (cli_parse_module(s, a.file, &m) != MQSS_OK ||
      (a.policy ? mqss_policy_load(s, a.policy, &po, &p)
                : mqss_catalog_load(s, a.catalog, &cat)) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  a.o.policy = p; // the search's catalog is the one the policy is bound to
  if (mqss_search(m, p ? mqss_policy_catalog(p) : cat, &a.o, &r) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  if (a.json) {
    cJSON *j = result_json(&r, a.file, &a.o);
    char *text = cJSON_Print(j);
    puts(text);
    free(text);
    cJSON_Delete(j);
  } else {
    print_text(&r, &a.o, a.trace);
  }
done:
  mqss_search_result_free(&r);
  mqss_policy_destroy(p);
  mqss_catalog_destroy(cat);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return rc;
}
