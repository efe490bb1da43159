// `mqss measure`: the command-line twin of mqss_measure() and
// mqss_measure_vs(). Parses the flags into mqss_measure_options, prints the
// result as text or JSON (libcjson). No measuring logic lives here.
#include "cli.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// flags

typedef struct {
  const char *file, *vs, *libs;
  bool json;
  double min_gain; // --vs: relative gain the interval must clear
  check_cli check; // --skip-output, --ignore-schedule
  mqss_measure_options o;
} measure_args;

static bool parse_args(int argc, char **argv, measure_args *a) {
  mqss_measure_options_init(&a->o);
  a->min_gain = MQSS_MIN_GAIN_DEFAULT;
  for (int i = 1; i < argc; i++) {
    const char *f = argv[i];
    bool has_value = i + 1 < argc;
    const char *v = has_value ? argv[i + 1] : NULL;
    long x;
#define NEED_VALUE CLI_NEED_VALUE("measure")
#define INT_FLAG(name, lo, hi, field) CLI_INT_FLAG("measure", name, lo, hi, a->o.field)
    INT_FLAG("--warmup", 0, 1000000, warmup)
    INT_FLAG("--repeat", 1, 1000000, repeat)
    INT_FLAG("--timeout", 1, 86400000, timeout_ms)
    INT_FLAG("--mem", 0, 1 << 30, mem_limit_mb)
    INT_FLAG("--output-limit", 0, 1 << 20, output_limit_mb)
    INT_FLAG("--pin", 0, 4095, cpu)
    INT_FLAG("--opt", 0, 3, opt_level)
#undef INT_FLAG
    if (!strcmp(f, "--pipeline")) {
      NEED_VALUE a->o.pipeline = v;
    } else if (!strcmp(f, "--entry")) {
      NEED_VALUE a->o.entry = v;
    } else if (!strcmp(f, "--cache")) {
      NEED_VALUE a->o.cache_path = v;
    } else if (!strcmp(f, "--vs")) {
      NEED_VALUE a->vs = v;
    } else if (!strcmp(f, "--shared-libs")) {
      NEED_VALUE a->libs = v;
    } else if (!strcmp(f, "--seed")) {
      NEED_VALUE a->o.seed = strtoull(v, NULL, 0);
    } else if (!strcmp(f, "--rtol") || !strcmp(f, "--atol")) {
      NEED_VALUE
      char *end;
      double t = strtod(v, &end);
      if (!*v || *end || !isfinite(t) || t < 0) {
        cli_error("measure: %s expects a finite number >= 0, got '%s'", f, v);
        return false;
      }
      *(f[2] == 'r' ? &a->o.rtol : &a->o.atol) = t;
    } else if (!strcmp(f, "--min-gain")) {
      NEED_VALUE
      char *end;
      a->min_gain = strtod(v, &end);
      if (*end || !(a->min_gain >= 0 && a->min_gain < 1)) {
        cli_error("measure: --min-gain expects a number in [0, 1), got '%s'", v);
        return false;
      }
    } else if ((x = check_cli_option(&a->check, "measure", argc, argv, &i))) {
      if (x < 0)
        return false;
    } else if (!strcmp(f, "--json")) {
      a->json = true;
    } else if (!strcmp(f, "--no-cache")) {
      a->o.no_cache = 1;
    } else if (!strcmp(f, "--no-check")) {
      a->o.check_reference = 0;
    } else if (!strcmp(f, "--no-runner-libs")) {
      a->o.no_runner_libs = 1;
    } else if (!strcmp(f, "--no-code-size")) {
      a->o.code_size = 0;
    } else if (f[0] == '-' && f[1]) {
      cli_error("measure: unknown option '%s'; see 'mqss measure --help'", f);
      return false;
    } else if (!a->file) {
      a->file = f;
    } else {
      cli_error("measure: more than one input file ('%s' and '%s')", a->file, f);
      return false;
    }
#undef NEED_VALUE
  }
  if (!a->file) {
    cli_error("measure: no input file; usage: mqss measure FILE --pipeline TEXT");
    return false;
  }
  check_cli_apply(&a->check, &a->o);
  return true;
}

// Splits "a,b,c" into `out` (at most `max`), in place. Returns the count.
static int split_libs(char *s, const char **out, int max) {
  int n = 0;
  for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
    out[n++] = tok;
  return n;
}

// ----------------------------------------------------------------------------
// printing

static cJSON *result_json(const mqss_measure_result *r) {
  cJSON *j = cJSON_CreateObject();
  char hex[32];
  cJSON_AddStringToObject(j, "status", mqss_measure_status_name(r->status));
  if (r->status == MQSS_MEASURE_CRASHED)
    cJSON_AddNumberToObject(j, "signal", r->signal);
  cJSON_AddStringToObject(j, "entry", r->entry);
  cJSON_AddBoolToObject(j, "cached", r->cached);
  if (r->lowered_hash) {
    snprintf(hex, sizeof hex, "%016" PRIx64, r->lowered_hash);
    cJSON_AddStringToObject(j, "lowered_hash", hex);
  }
  cJSON_AddNumberToObject(j, "compile_ms", r->compile_ms);
  cJSON_AddNumberToObject(j, "pipeline_ms", r->pipeline_ms);
  cJSON_AddNumberToObject(j, "finish_ms", r->finish_ms);
  cJSON_AddNumberToObject(j, "jit_ms", r->jit_ms);
  cJSON_AddNumberToObject(j, "llvm_ms", r->llvm_ms);
  cJSON_AddNumberToObject(j, "text_bytes", (double)r->text_bytes);
  cJSON *run = cJSON_AddObjectToObject(j, "run_ms");
  cJSON_AddNumberToObject(run, "median", r->run_ms_median);
  cJSON_AddNumberToObject(run, "min", r->run_ms_min);
  cJSON_AddNumberToObject(run, "max", r->run_ms_max);
  cJSON_AddNumberToObject(run, "mad", r->run_ms_mad);
  cJSON_AddNumberToObject(j, "runs", r->runs);
  snprintf(hex, sizeof hex, "%016" PRIx64, r->checksum);
  cJSON_AddStringToObject(j, "checksum", hex);
  cJSON_AddNumberToObject(j, "values", (double)r->num_values);
  cJSON_AddNumberToObject(j, "max_error", r->max_error);
  cJSON_AddNumberToObject(j, "error_depth", r->error_depth);
  cJSON_AddNumberToObject(j, "skipped_values", (double)r->skipped_values);
  if (r->status == MQSS_MEASURE_WRONG_OUTPUT) {
    cJSON *mm = cJSON_AddObjectToObject(j, "mismatch");
    cJSON_AddNumberToObject(mm, "output", r->mismatch_output);
    cJSON_AddNumberToObject(mm, "index", (double)r->mismatch_index);
    cJSON_AddNumberToObject(mm, "got", r->mismatch_got);
    cJSON_AddNumberToObject(mm, "want", r->mismatch_want);
    cJSON_AddNumberToObject(mm, "allowed", r->mismatch_bound);
  }
  cJSON_AddStringToObject(j, "message", r->message);
  cJSON_AddStringToObject(j, "notes", r->notes);
  return j;
}

static void print_text(const char *label, const mqss_measure_result *r) {
  const char *p = label ? label : "";
  printf("%sstatus: %s", p, mqss_measure_status_name(r->status));
  if (r->status == MQSS_MEASURE_CRASHED && r->signal)
    printf(" (signal %d)", r->signal);
  printf("\n");
  if (r->message[0])
    printf("%smessage: %s\n", p, r->message);
  if (r->notes[0])
    printf("%snotes: %s\n", p, r->notes);
  printf("%sentry: @%s\n", p, r->entry);
  printf("%scached: %s\n", p,
         r->cached == 2 ? "yes (same lowered code as a stored pipeline)"
         : r->cached  ? "yes"
                      : "no");
  if (r->compile_ms > 0)
    printf("%scompile_ms: %.3f (pipeline %.3f, finish %.3f, jit %.3f)\n", p,
           r->compile_ms, r->pipeline_ms, r->finish_ms, r->jit_ms);
  if (r->text_bytes >= 0)
    printf("%stext_bytes: %" PRId64 "\n", p, r->text_bytes);
  if (r->runs > 0)
    printf("%srun_ms: median %.4f min %.4f max %.4f mad %.4f (%d runs)\n", p,
           r->run_ms_median, r->run_ms_min, r->run_ms_max, r->run_ms_mad, r->runs);
  if (r->status == MQSS_MEASURE_OK || r->status == MQSS_MEASURE_WRONG_OUTPUT) {
    printf("%schecksum: %016" PRIx64 "\n", p, r->checksum);
    printf("%svalues: %" PRId64 " (max error %.9g)\n", p, r->num_values,
           r->max_error);
    if (r->error_depth > 0)
      printf("%scheck: error model depth %.0f, %" PRId64 " values skipped\n",
             p, r->error_depth, r->skipped_values);
  }
}

// ----------------------------------------------------------------------------
// main

int cmd_measure(int argc, char **argv) {
  measure_args a = {0};
  if (!parse_args(argc, argv, &a))
    return 1;
  char *libs_copy = a.libs ? strdup(a.libs) : NULL;
  const char *libs[64];
  if (libs_copy) {
    a.o.num_shared_libs = split_libs(libs_copy, libs, 64);
    a.o.shared_libs = libs;
  }
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK) {
    free(libs_copy);
    return cli_error("out of memory");
  }
  int rc = 0;
  mqss_module *m = NULL;
  mqss_status st = cli_parse_module(s, a.file, &m);
  if (st != MQSS_OK) {
    mqss_measure_result r = {.status = MQSS_MEASURE_PARSE_ERROR};
    snprintf(r.message, sizeof r.message, "%s", mqss_errmsg(s));
    if (a.json) {
      cJSON *j = result_json(&r);
      char *text = cJSON_PrintUnformatted(j);
      puts(text);
      free(text);
      cJSON_Delete(j);
    }
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  cJSON *j = NULL;
  if (a.vs) {
    mqss_measure_vs_result v;
    st = mqss_measure_vs(m, &a.o, a.vs, &v);
    if (st != MQSS_OK) {
      rc = cli_error("%s", mqss_errmsg(s));
      goto done;
    }
    bool ok = v.a.status == MQSS_MEASURE_OK && v.b.status == MQSS_MEASURE_OK;
    if (a.json) {
      j = cJSON_CreateObject();
      cJSON_AddItemToObject(j, "a", result_json(&v.a));
      cJSON_AddItemToObject(j, "b", result_json(&v.b));
      cJSON_AddNumberToObject(j, "pairs", v.pairs);
      cJSON_AddNumberToObject(j, "batch", v.batch);
      cJSON_AddNumberToObject(j, "discarded", v.discarded);
      cJSON *ratio = cJSON_AddObjectToObject(j, "ratio_b_over_a");
      cJSON_AddNumberToObject(ratio, "median", v.ratio_median);
      cJSON_AddNumberToObject(ratio, "min", v.ratio_min);
      cJSON_AddNumberToObject(ratio, "max", v.ratio_max);
      cJSON_AddNumberToObject(ratio, "mad", v.ratio_mad);
      cJSON_AddNumberToObject(ratio, "hl", v.ratio_hl);
      cJSON_AddNumberToObject(ratio, "lo", v.ratio_lo);
      cJSON_AddNumberToObject(ratio, "hi", v.ratio_hi);
      cJSON_AddNumberToObject(ratio, "conf", v.ratio_conf);
      cJSON_AddNumberToObject(j, "min_gain", a.min_gain);
      cJSON_AddStringToObject(j, "verdict", ok ? mqss_ratio_verdict_name(
          mqss_ratio_verdict(v.ratio_lo, v.ratio_hi, a.min_gain)) : "failed");
      cJSON_AddBoolToObject(j, "identical", v.identical);
    } else {
      print_text("A ", &v.a);
      print_text("B ", &v.b);
      if (ok && v.identical)
        printf("ratio B/A: median %.4f (identical lowered code: not timed, "
               "%d pairs)\n", v.ratio_median, v.pairs);
      else if (ok)
        printf("ratio B/A: median %.4f min %.4f max %.4f mad %.4f (%d pairs; "
               "> 1 means A is faster; %d call%s per sample, %d preempted "
               "pairs measured again)\n", v.ratio_median, v.ratio_min,
               v.ratio_max, v.ratio_mad, v.pairs, v.batch,
               v.batch == 1 ? "" : "s", v.discarded);
      if (ok && v.identical)
        ; // nothing was timed: no interval
      else if (ok && v.ratio_lo <= 0)
        printf("ratio B/A: %.4f (Hodges-Lehmann); no 95%% interval with "
               "under 6 pairs; verdict: within noise\n", v.ratio_hl);
      else if (ok)
        printf("ratio B/A: %.4f [%.4f, %.4f] (Hodges-Lehmann, %.1f%% "
               "interval); verdict: %s (min gain %g%%)\n", v.ratio_hl,
               v.ratio_lo, v.ratio_hi, 100 * v.ratio_conf,
               mqss_ratio_verdict_name(
                   mqss_ratio_verdict(v.ratio_lo, v.ratio_hi, a.min_gain)),
               100 * a.min_gain);
    }
    rc = ok ? 0 : 1;
  } else {
    mqss_measure_result r;
    st = mqss_measure(m, &a.o, &r);
    if (st != MQSS_OK) {
      rc = cli_error("%s", mqss_errmsg(s));
      goto done;
    }
    if (a.json)
      j = result_json(&r);
    else
      print_text(NULL, &r);
    rc = r.status == MQSS_MEASURE_OK ? 0 : 1;
  }
  if (j) {
    char *text = cJSON_Print(j);
    puts(text);
    free(text);
    cJSON_Delete(j);
  }
done:
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  free(libs_copy);
  return rc;
}
