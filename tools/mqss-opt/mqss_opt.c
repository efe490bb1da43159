// mqss-opt: a driver in the style of mlir-opt for trying MQSS-Selector in an
// existing flow. It runs the user's fixed --pass-pipeline, or, with the A/B
// switch --use-mqss-selector, the policy's choice, guarded by an output check
// when --mqss-guard is given, with the user's pipeline as the fallback.
// --mqss-metrics appends one checksummed JSON line per module
// (docs/INTEGRATION.md). Everything it does goes through include/mqss/mqss.h;
// this file only parses arguments, times and reports.
#include "mqss/mqss.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  const char *input, *output, *pipeline, *policy, *metrics;
  bool selector, guard;
  int time_budget_ms, pairs, timeout_ms;
} opt_args;

static const char USAGE[] =
    "usage: mqss-opt FILE|- [-o OUT] [--pass-pipeline=PIPE] [--use-mqss-selector]\n"
    "                [--mqss-policy P] [--mqss-guard [--mqss-pairs N] [--mqss-timeout-ms MS]]\n"
    "                [--mqss-metrics FILE.jsonl] [--time-budget-ms MS]\n"
    "\n"
    "Runs PIPE on the module and prints it, as mlir-opt does. With\n"
    "--use-mqss-selector the policy's pipeline runs instead, and PIPE is the\n"
    "fallback when selection fails or, with --mqss-guard, when the choice\n"
    "changes the program's outputs; the guard also measures the speedup of the\n"
    "choice over PIPE in N interleaved pairs (default 10), each sandboxed run\n"
    "limited to MS ms of wall clock (default 30000). --mqss-metrics appends one\n"
    "JSON line per module. See docs/INTEGRATION.md.\n";

static int error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("mqss-opt: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// ----------------------------------------------------------------------------
// arguments

// Matches "--name VALUE" or "--name=VALUE"; returns the value or NULL.
static const char *value_of(const char *name, int argc, char **argv, int *i) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n))
    return NULL;
  if (argv[*i][n] == '=')
    return argv[*i] + n + 1;
  if (argv[*i][n] == '\0' && *i + 1 < argc)
    return argv[++*i];
  return NULL;
}

static bool parse_int(const char *flag, const char *v, long lo, long hi,
                      int *out) {
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (!*v || *end || errno || x < lo || x > hi) {
    error("%s expects an integer in [%ld, %ld], got '%s'", flag, lo, hi, v);
    return false;
  }
  *out = (int)x;
  return true;
}

static int parse_args(int argc, char **argv, opt_args *a) {
  memset(a, 0, sizeof *a);
  a->time_budget_ms = -1;
  a->pairs = 10;
  a->timeout_ms = 30000;
  for (int i = 1; i < argc; i++) {
    const char *f = argv[i], *v;
    if (!strcmp(f, "-h") || !strcmp(f, "--help"))
      return fputs(USAGE, stdout), -1;
    if (!strcmp(f, "--use-mqss-selector"))
      a->selector = true;
    else if (!strcmp(f, "--mqss-guard"))
      a->guard = true;
    else if ((v = value_of("-o", argc, argv, &i)))
      a->output = v;
    else if ((v = value_of("--pass-pipeline", argc, argv, &i)))
      a->pipeline = v;
    else if ((v = value_of("--mqss-policy", argc, argv, &i)))
      a->policy = v;
    else if ((v = value_of("--mqss-metrics", argc, argv, &i)))
      a->metrics = v;
    else if ((v = value_of("--time-budget-ms", argc, argv, &i))) {
      if (!parse_int("--time-budget-ms", v, 0, 86400000, &a->time_budget_ms))
        return 1;
    } else if ((v = value_of("--mqss-timeout-ms", argc, argv, &i))) {
      if (!parse_int("--mqss-timeout-ms", v, 1, 86400000, &a->timeout_ms))
        return 1;
    } else if ((v = value_of("--mqss-pairs", argc, argv, &i))) {
      if (!parse_int("--mqss-pairs", v, 1, 1000, &a->pairs))
        return 1;
    } else if (f[0] == '-' && f[1])
      return error("unknown option or missing value '%s'; see 'mqss-opt "
                   "--help'", f);
    else if (a->input)
      return error("more than one input file ('%s' and '%s')", a->input, f);
    else
      a->input = f;
  }
  if (!a->input)
    return error("no input file; see 'mqss-opt --help'");
  return 0;
}

// ----------------------------------------------------------------------------
// input and output

static mqss_status parse_input(mqss_session *s, const char *path,
                               mqss_module **out) {
  if (strcmp(path, "-"))
    return mqss_module_parse_file(s, path, out);
  size_t len = 0, cap = 1 << 16;
  char *text = malloc(cap);
  for (size_t n; text && (n = fread(text + len, 1, cap - len, stdin)) > 0;) {
    len += n;
    if (len == cap) {
      char *bigger = realloc(text, cap *= 2);
      if (!bigger)
        free(text);
      text = bigger;
    }
  }
  if (!text)
    return MQSS_ERR_NOMEM;
  mqss_status rc = mqss_module_parse_string(s, text, len, "<stdin>", out);
  free(text);
  return rc;
}

static void write_file(const char *data, size_t len, void *user) {
  fwrite(data, 1, len, user);
}

static int write_output(const mqss_module *m, const char *path) {
  FILE *f = path && strcmp(path, "-") ? fopen(path, "w") : stdout;
  if (!f)
    return error("cannot write '%s': %s", path, strerror(errno));
  mqss_module_print(m, write_file, f);
  fputc('\n', f);
  if (f != stdout && fclose(f) != 0)
    return error("cannot write '%s': %s", path, strerror(errno));
  return 0;
}

// ----------------------------------------------------------------------------
// the selector side of the A/B switch

// What the selector did, for the metrics line.
typedef struct {
  char *chosen;        // the policy's pipeline (owned), NULL when none
  int decisions, budget_hit, guarded;
  double decision_ms;
  char reason[2048];   // why the fallback ran; "" = it did not
  const char *verdict; // the guard's verdict, NULL unguarded
  double speedup, lo, hi;
} selector_run;

// Guards the choice: checks its outputs (falling back to the user's
// pipeline when they differ) and, when it stands, measures its speedup over
// the user's pipeline in interleaved pairs.
static mqss_status guard(const opt_args *a, const mqss_policy *p,
                         mqss_module *m, const mqss_selection *sel,
                         selector_run *r) {
  mqss_guard_options go;
  mqss_guard_options_init(&go);
  go.baseline = a->pipeline;
  go.timeout_ms = a->timeout_ms;
  mqss_guard_report rep;
  mqss_status rc = mqss_policy_fallback_to_baseline(p, m, sel, &go, &rep);
  if (rc != MQSS_OK)
    return rc;
  r->guarded = 1;
  r->verdict = mqss_measure_status_name(rep.verdict);
  if (rep.used_fallback) {
    snprintf(r->reason, sizeof r->reason, "%s", rep.reason);
    return MQSS_OK;
  }
  mqss_measure_options mo;
  mqss_measure_options_init(&mo);
  mo.pipeline = r->chosen;
  mo.warmup = 1;
  mo.repeat = a->pairs;
  mo.timeout_ms = a->timeout_ms;
  mqss_measure_vs_result vs;
  rc = mqss_measure_vs(m, &mo, a->pipeline ? a->pipeline : "", &vs);
  if (rc == MQSS_OK && vs.a.status == MQSS_MEASURE_OK &&
      vs.b.status == MQSS_MEASURE_OK) {
    r->speedup = vs.ratio_hl;
    r->lo = vs.ratio_lo;
    r->hi = vs.ratio_hi;
  }
  return rc;
}

// Selects (and guards); on failure leaves the reason in r->reason.
static int run_selector(const opt_args *a, mqss_session *s, mqss_module *m,
                        selector_run *r) {
  mqss_policy *p = NULL;
  if (mqss_policy_load(s, a->policy, NULL, &p) != MQSS_OK)
    return error("%s", mqss_errmsg(s));
  mqss_select_options so;
  mqss_select_options_init(&so);
  so.time_budget_ms = a->time_budget_ms;
  so.isolate = 1; // a pass that crashes while selecting is avoided, as in select
  mqss_selection *sel = NULL;
  double t0 = now_ms();
  mqss_status rc = mqss_policy_select(p, m, &so, &sel);
  r->decision_ms = now_ms() - t0;
  int status = 0;
  if (rc != MQSS_OK) {
    snprintf(r->reason, sizeof r->reason, "selection failed: %s",
             mqss_errmsg(s));
  } else {
    r->chosen = strdup(mqss_selection_pipeline(sel));
    r->decisions = mqss_selection_count(sel);
    r->budget_hit = mqss_selection_budget_hit(sel);
    if (!r->chosen)
      status = error("out of memory");
    else if (a->guard && guard(a, p, m, sel, r) != MQSS_OK)
      status = error("guard: %s", mqss_errmsg(s));
  }
  mqss_selection_destroy(sel);
  mqss_policy_destroy(p);
  return status;
}

// ----------------------------------------------------------------------------
// main

int main(int argc, char **argv) {
  opt_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc)
    return rc < 0 ? 0 : rc;
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return error("out of memory");
  mqss_module *m = NULL, *original = NULL;
  selector_run r = {0};
  if (parse_input(s, a.input, &m) != MQSS_OK) {
    rc = error("%s", mqss_errmsg(s));
    goto done;
  }
  uint64_t hash = mqss_module_hash(m);
  if (a.selector && (rc = run_selector(&a, s, m, &r)) != 0)
    goto done;
  // The choice, unless it was rejected; if it fails to run, the fallback
  // runs on the original module.
  const char *user = a.pipeline && a.pipeline[0] ? a.pipeline : NULL;
  bool chose = a.selector && !r.reason[0];
  double t0 = now_ms();
  if (chose && !(original = mqss_module_clone(m))) {
    rc = error("out of memory");
    goto done;
  }
  if (chose && mqss_module_run_pipeline(m, r.chosen) != MQSS_OK) {
    snprintf(r.reason, sizeof r.reason, "the chosen pipeline failed: %s",
             mqss_errmsg(s));
    mqss_module_destroy(m);
    m = original;
    original = NULL;
    chose = false;
  }
  if (r.reason[0])
    fprintf(stderr, "mqss-opt: %s; running the fallback '%s'\n", r.reason,
            user ? user : "");
  if (!chose && user && mqss_module_run_pipeline(m, user) != MQSS_OK) {
    rc = error("%s", mqss_errmsg(s));
    goto done;
  }
  double compile_ms = now_ms() - t0;
  if ((rc = write_output(m, a.output)) != 0)
    goto done;
  if (a.metrics) {
    mqss_metrics_record rec;
    mqss_metrics_record_init(&rec);
    rec.tool = "mqss-opt";
    rec.source = a.input;
    rec.module_hash = hash;
    rec.selector = a.selector;
    rec.chosen = r.chosen;
    rec.decisions = r.decisions;
    rec.pipeline = chose ? r.chosen : (user ? user : "");
    rec.decision_ms = r.decision_ms;
    rec.fallback = r.reason[0] != 0;
    rec.fallback_reason = r.reason[0] ? r.reason : NULL;
    rec.time_budget_ms = a.selector ? a.time_budget_ms : -1;
    rec.budget_hit = r.budget_hit;
    rec.compile_ms = compile_ms;
    rec.guarded = r.guarded;
    rec.verdict = r.verdict;
    rec.speedup = r.speedup;
    rec.speedup_lo = r.lo;
    rec.speedup_hi = r.hi;
    if (mqss_metrics_append(s, a.metrics, &rec) != MQSS_OK)
      rc = error("%s", mqss_errmsg(s));
  }
done:
  free(r.chosen);
  mqss_module_destroy(original);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return rc;
}
