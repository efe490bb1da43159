// `mqss eval`: evaluates a policy on held-out modules against the family
// baselines, the reference and the best fixed pipeline, and (optionally)
// against random-search results. Parses flags, loops over the modules and
// prints the terminal table; selecting, measuring, aggregating and report
// writing live in src/eval/eval*.c. See docs/EVAL.md.
#include "cli.h"
#include "eval/eval.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// ----------------------------------------------------------------------------
// flags

typedef struct {
  const char *policy, *catalog, *manifest, *baseline_json, *baselines;
  const char *fixed, *fixed_train, *search_dir, *out, *cache_dir;
  const char *inputs[256];
  int n_inputs, fixed_sample, max_steps;
  bool json, quiet, allow_mismatch;
  check_cli check; // --skip-output, --ignore-schedule
  eval_settings set;
} eval_args;

// Creates the --out directory and its parents before anything is measured,
// so that a path that cannot be written fails at once, not after the run.
static bool make_out_dir(const char *dir) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    cli_error("eval: --out path too long: '%s'", dir);
    return false;
  }
  for (char *p = path + 1;; p++) {
    bool end = !*p;
    if (*p != '/' && !end)
      continue;
    *p = '\0';
    struct stat sb;
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
      cli_error("eval: cannot create '%s' for --out '%s': %s; give a "
                "directory you can write", path, dir, strerror(errno));
      return false;
    }
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
      cli_error("eval: --out '%s': '%s' is not a directory; give a "
                "directory path", dir, path);
      return false;
    }
    if (end)
      return true;
    *p = '/';
  }
}

static bool parse_args(int argc, char **argv, eval_args *a) {
  mqss_measure_options_init(&a->set.measure);
  a->set.measure.warmup = 2;
  a->set.measure.repeat = 10;
  a->set.rounds = 1;
  a->set.compile_samples = 5;
  mqss_select_options_init(&a->set.select);
  a->set.select.isolate = 1; // as `mqss select`: a crashing pass cannot kill eval
  a->set.min_gain = MQSS_MIN_GAIN_DEFAULT;
  a->fixed_sample = 8;
  for (int i = 1; i < argc; i++) {
    const char *f = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define VALUE()                                                                \
  do {                                                                         \
    if (!v) {                                                                  \
      cli_error("eval: %s needs a value; see 'mqss eval --help'", f);          \
      return false;                                                            \
    }                                                                          \
    i++;                                                                       \
  } while (0)
#define STR(name, field)                                                       \
  if (!strcmp(f, name)) {                                                      \
    VALUE();                                                                   \
    a->field = v;                                                              \
    continue;                                                                  \
  }
#define INT(name, lo, hi, field)                                               \
  if (!strcmp(f, name)) {                                                      \
    VALUE();                                                                   \
    long x_;                                                                   \
    if (!cli_parse_int("eval", name, v, lo, hi, &x_))                          \
      return false;                                                            \
    a->field = (int)x_;                                                        \
    continue;                                                                  \
  }
    STR("--policy", policy)
    STR("--catalog", catalog)
    STR("--manifest", manifest)
    STR("--baseline", baseline_json)
    STR("--baselines", baselines)
    STR("--fixed", fixed)
    STR("--fixed-from-train", fixed_train)
    STR("--search-json", search_dir)
    STR("--out", out)
    STR("--cache-dir", cache_dir)
    INT("--pairs", 1, 100000, set.measure.repeat)
    INT("--warmup", 0, 100000, set.measure.warmup)
    INT("--repeat", 1, 64, set.rounds)
    INT("--compile-samples", 1, 16, set.compile_samples)
    INT("--timeout", 1, 86400000, set.measure.timeout_ms)
    INT("--pin", 0, 4095, set.measure.cpu)
    INT("--fixed-sample", 1, 100000, fixed_sample)
    INT("--max-steps", 0, 1000, max_steps)
#undef STR
#undef INT
    int c = check_cli_option(&a->check, "eval", argc, argv, &i);
    if (c < 0)
      return false;
    if (c > 0)
      continue;
    if (!strcmp(f, "--seed")) {
      VALUE();
      a->set.measure.seed = strtoull(v, NULL, 0);
    } else if (!strcmp(f, "--min-gain")) {
      VALUE();
      char *end;
      a->set.min_gain = strtod(v, &end);
      if (*end || !(a->set.min_gain >= 0 && a->set.min_gain < 1)) {
        cli_error("eval: --min-gain expects a number in [0, 1), got '%s'", v);
        return false;
      }
    } else if (!strcmp(f, "--kernels")) {
      a->set.kernels = true;
    } else if (!strcmp(f, "--no-isolate")) {
      a->set.select.isolate = 0;
    } else if (!strcmp(f, "--fit-sizes") || !strcmp(f, "--no-fit-sizes")) {
      a->set.select.fit_sizes = strcmp(f, "--fit-sizes") ? -1 : 1;
    } else if (!strcmp(f, "--json")) {
      a->json = true;
    } else if (!strcmp(f, "--quiet") || !strcmp(f, "-q")) {
      a->quiet = true;
    } else if (!strcmp(f, "--allow-version-mismatch")) {
      a->allow_mismatch = true;
    } else if (f[0] == '-' && f[1]) {
      cli_error("eval: unknown option '%s'; see 'mqss eval --help'", f);
      return false;
    } else if (a->n_inputs < 256) {
      a->inputs[a->n_inputs++] = f;
    } else {
      cli_error("eval: too many inputs; list them in a manifest");
      return false;
    }
#undef VALUE
  }
  if (!a->manifest && !a->n_inputs) {
    cli_error("eval: nothing to evaluate; give --manifest HOLDOUT.tsv, a "
              "directory or .mlir files");
    return false;
  }
  if (a->fixed && a->fixed_train) {
    cli_error("eval: give --fixed or --fixed-from-train, not both");
    return false;
  }
  // A directory is a positional input, not a manifest.
  const char *lists[] = {a->manifest, a->fixed_train};
  const char *flags[] = {"--manifest", "--fixed-from-train"};
  for (int k = 0; k < 2; k++) {
    struct stat sb;
    if (lists[k] && stat(lists[k], &sb) == 0 && S_ISDIR(sb.st_mode)) {
      cli_error("eval: %s expects a manifest file, and '%s' is a directory; "
                "give the directory without %s (mqss eval --policy P %s) or "
                "a manifest such as %s/holdout.tsv", flags[k], lists[k],
                flags[k], lists[k], lists[k]);
      return false;
    }
  }
  if (a->out && !make_out_dir(a->out))
    return false;
  check_cli_apply(&a->check, &a->set.measure);
  if (a->max_steps)
    a->set.select.max_steps = a->max_steps;
  a->set.select.cache_dir = a->cache_dir;
  return true;
}

// ----------------------------------------------------------------------------
// printing

static void progress(const char *line, void *user) {
  if (!((const eval_args *)user)->quiet)
    fprintf(stderr, "%s\n", line);
}

// A speedup and its verdict mark: "+" faster, "-" slower, "~" within noise,
// none without an interval.
static void x_or_na(char *b, size_t n, double v, const eval_interval *ci) {
  if (v > 0)
    snprintf(b, n, "%.3f%s", v,
             ci->lo <= 0        ? ""
             : ci->verdict > 0 ? "+"
             : ci->verdict < 0 ? "-"
                               : "~");
  else
    snprintf(b, n, "n/a");
}

// The reference speedup's 95% interval, "[lo, hi]", or "" when there is
// none (not measured, or under 6 pairs: ratio.c).
static void ref_interval(char *b, size_t n, const eval_row *r) {
  b[0] = '\0';
  if (r->vs_reference > 0 && r->ci_reference.lo > 0)
    snprintf(b, n, "[%.3f, %.3f]", r->ci_reference.lo, r->ci_reference.hi);
}

static void print_table(FILE *o, const eval_row *rows, int n, const eval_agg *a,
                        double min_gain) {
  fprintf(o, "%-28s %-14s %-14s %8s %8s %8s %9s %7s %9s %5s  %s\n", "module",
          "family", "status", "vs_base", "vs_ref", "vs_fixed", "compile+", "size",
          "decide_ms", "steps", "vs_ref 95% interval");
  for (int i = 0; i < n; i++) {
    const eval_row *r = &rows[i];
    char b[3][32], c[32], sz[32], ci[48];
    x_or_na(b[0], 32, r->vs_baseline, &r->ci_baseline);
    x_or_na(b[1], 32, r->vs_reference, &r->ci_reference);
    x_or_na(b[2], 32, r->vs_fixed, &r->ci_fixed);
    ref_interval(ci, sizeof ci, r);
    if (r->compile_ratio > 0)
      snprintf(c, sizeof c, "%+.1f%%", 100 * (r->compile_ratio - 1));
    else
      snprintf(c, sizeof c, "n/a");
    if (r->size_ratio > 0)
      snprintf(sz, sizeof sz, "%.3f", r->size_ratio);
    else
      snprintf(sz, sizeof sz, "n/a");
    fprintf(o, "%-28.28s %-14.14s %-14.14s %8s %8s %8s %9s %7s %9.2f %5d  %s\n",
            r->in->file, r->in->family ? r->in->family : "(unknown)", r->status,
            b[0], b[1], b[2], c, sz, r->decision_ms, r->n_decisions, ci);
  }
  fprintf(o, "speedups: Hodges-Lehmann over the interleaved pairs; + faster, - "
             "slower: the whole 95%% interval clears a %g%% gain; ~ within noise\n",
          100 * min_gain);
  fprintf(o, "\nchosen pipelines (then the finisher):\n");
  for (int i = 0; i < n; i++) {
    const char *p = rows[i].policy_pipeline;
    fprintf(o, "  %-28.28s %s\n", rows[i].in->file,
            p && !eval_pipeline_empty(p) ? p : "(none: the reference)");
  }
  char g[3][32];
  const double geo[3] = {a->geo_baseline, a->geo_reference, a->geo_fixed};
  for (int k = 0; k < 3; k++)
    if (geo[k] > 0)
      snprintf(g[k], sizeof g[k], "%.3f", geo[k]);
    else
      snprintf(g[k], sizeof g[k], "n/a");
  fprintf(o, "\ngeomean speedup: vs family baseline %s (%d), vs reference %s (%d), "
             "vs best fixed %s (%d)\n",
          g[0], a->n_baseline, g[1], a->n_reference, g[2], a->n_fixed);
  fprintf(o, "verdicts (faster / within noise / slower): vs family baseline "
             "%d / %d / %d, vs reference %d / %d / %d, vs best fixed %d / %d / %d\n",
          a->verdicts_baseline[0], a->verdicts_baseline[1], a->verdicts_baseline[2],
          a->verdicts_reference[0], a->verdicts_reference[1],
          a->verdicts_reference[2], a->verdicts_fixed[0], a->verdicts_fixed[1],
          a->verdicts_fixed[2]);
  char p95[32], median[32], size[32];
  eval_format_pct(p95, sizeof p95, a->p95_compile_increase);
  eval_format_pct(median, sizeof median, a->median_compile_increase);
  eval_format_ratio(size, sizeof size, a->geo_size_ratio);
  fprintf(o, "compile-time increase: p95 %s, median %s (%d); code-size "
             "ratio geomean %s (%d)\n", p95, median, a->n_compile, size, a->n_size);
  fprintf(o, "status: %d ok of %d, %d crashes, %d wrong outputs, %d other failures; "
             "%d unknown family (reference only)\n",
          a->n_ok, a->n, a->n_crashed, a->n_wrong, a->n_failed_other,
          a->n_unknown_family);
  eval_format_ms(median, sizeof median, a->decision_ms_median);
  eval_format_ms(p95, sizeof p95, a->decision_ms_p95);
  fprintf(o, "decision latency: median %s ms, p95 %s ms\n", median, p95);
  if (a->n_search)
    fprintf(o, "random search: policy reaches %.1f%% of the best-found speedup "
               "(geomean, %d modules) in %.2f%% of the time (median %.2f%%)\n",
            100 * a->search_fraction_geo, a->n_search, 100 * a->time_fraction_total,
            100 * a->time_fraction_median);
}

// ----------------------------------------------------------------------------
// main

int cmd_eval(int argc, char **argv) {
  eval_args a = {0};
  if (!parse_args(argc, argv, &a))
    return 1;
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  int rc = 0;
  mqss_policy *pol = NULL;
  mqss_baselines *bl = NULL;
  eval_inputs in = {0}, train = {0};
  eval_row *rows = NULL;
  eval_fixed_report fr = {0};
  char *fixed = a.fixed ? strdup(a.fixed) : NULL;
  mqss_policy_options po;
  mqss_policy_options_init(&po);
  po.catalog_path = a.catalog;
  po.allow_version_mismatch = a.allow_mismatch;
  const char *bl_path = a.baselines ? a.baselines : eval_default_baselines_path();
  mqss_status st = mqss_policy_load(s, a.policy, &po, &pol);
  if (st == MQSS_OK)
    st = mqss_baselines_load(s, bl_path, &bl);
  if (st == MQSS_OK && a.manifest)
    st = eval_inputs_add_manifest(s, &in, a.manifest);
  for (int i = 0; st == MQSS_OK && i < a.n_inputs; i++)
    st = eval_inputs_add_file(s, &in, a.inputs[i]);
  if (st == MQSS_OK)
    st = eval_inputs_resolve(s, &in, a.baseline_json);
  if (st == MQSS_OK)
    st = mqss_policy_warmup(pol, s);
  if (st == MQSS_OK && a.fixed_train) {
    st = eval_inputs_add_manifest(s, &train, a.fixed_train);
    if (st == MQSS_OK)
      st = eval_fixed_choose(s, mqss_policy_catalog(pol), bl, &train, a.fixed_sample,
                             &a.set, progress, &a, &fr);
    if (st == MQSS_OK) {
      fixed = strdup(fr.v[fr.best].pipeline);
      if (!a.quiet)
        fprintf(stderr, "fixed-from-train: chose %s (%s), geomean %.3fx over %d modules\n",
                *fixed ? fixed : "(reference)", fr.v[fr.best].origin,
                fr.v[fr.best].geomean, fr.sample);
    }
  }
  if (st != MQSS_OK) {
    rc = cli_error("eval: %s", mqss_errmsg(s));
    goto done;
  }
  rows = calloc((size_t)in.n, sizeof *rows);
  if (!rows) {
    rc = cli_error("out of memory");
    goto done;
  }
  for (int i = 0; i < in.n; i++) {
    eval_row *r = &rows[i];
    const eval_input *e = &in.v[i];
    r->in = e;
    const char *base = e->family ? mqss_baselines_pipeline(bl, e->family) : NULL;
    if (!base && e->family && e->baseline_pipeline)
      base = e->baseline_pipeline;
    if (a.search_dir) {
      char why[512];
      int got = eval_search_load(a.search_dir, e->file, &r->search, why, sizeof why);
      if (got < 0)
        fprintf(stderr, "mqss: eval: %s\n", why);
      r->has_search = got > 0;
    }
    mqss_module *m = NULL;
    if (mqss_module_parse_file(s, e->path, &m) != MQSS_OK) {
      snprintf(r->status, sizeof r->status, "parse_failed");
      snprintf(r->message, sizeof r->message, "%.500s", mqss_errmsg(s));
    } else {
      if (e->family && !base)
        fprintf(stderr, "mqss: eval: %s: family '%s' has no entry in '%s'; "
                        "compared with the reference only\n", e->file, e->family, bl_path);
      if (eval_module(pol, m, base, fixed, &a.set, r) != MQSS_OK) {
        rc = cli_error("eval: %s: %s", e->file, mqss_errmsg(s));
        mqss_module_destroy(m);
        goto done;
      }
    }
    mqss_module_destroy(m);
    r->has_search = r->has_search && r->ok; // search figures of ok rows only
    if (r->has_search) {
      r->policy_time_ms = r->decision_ms + r->compile_ms_policy;
      r->time_fraction = r->search.wall_ms > 0 ? r->policy_time_ms / r->search.wall_ms : 0;
    }
    if (!a.quiet) {
      // The same "n/a" as the report's table for what was not measured.
      char vb[32], vr[32], vf[32];
      eval_format_ratio(vb, sizeof vb, r->vs_baseline);
      eval_format_ratio(vr, sizeof vr, r->vs_reference);
      eval_format_ratio(vf, sizeof vf, r->vs_fixed);
      char ci[48], judged[64];
      ref_interval(ci, sizeof ci, r);
      snprintf(judged, sizeof judged, "%s %s", ci,
               r->ci_reference.verdict > 0   ? "faster"
               : r->ci_reference.verdict < 0 ? "slower"
                                             : "within noise");
      fprintf(stderr, "[%d/%d] %s %s vs_base %s vs_ref %s %s vs_fixed %s\n",
              i + 1, in.n, e->file, r->status, vb, vr,
              r->vs_reference <= 0 ? "n/a"
              : ci[0]              ? judged
                                   : "no 95% interval (under 6 pairs)",
              vf);
    }
  }
  eval_agg agg;
  eval_aggregate(rows, in.n, &agg);
  char fixed_src[1100];
  if (a.fixed_train)
    snprintf(fixed_src, sizeof fixed_src, "--fixed-from-train %s", a.fixed_train);
  else
    snprintf(fixed_src, sizeof fixed_src, "--fixed");
  eval_meta meta = {a.policy ? a.policy : mqss_policy_default_path(), fixed,
                    fixed ? fixed_src : NULL, a.fixed_train ? &fr : NULL, &a.set};
  if (a.json) {
    char *text = eval_json(rows, in.n, &agg, &meta);
    if (text)
      puts(text);
    free(text);
  } else {
    print_table(stdout, rows, in.n, &agg, a.set.min_gain);
  }
  if (a.out) {
    if (eval_write_reports(s, a.out, rows, in.n, &agg, &meta) != MQSS_OK)
      rc = cli_error("eval: %s", mqss_errmsg(s));
    else if (!a.quiet)
      fprintf(stderr, "wrote %s/report.md, report.html, report.json, "
                      "speedup_family.png, speedup_cdf.png\n", a.out);
  }
done:
  for (int i = 0; rows && i < in.n; i++)
    eval_row_free(&rows[i]);
  free(rows);
  free(fixed);
  eval_fixed_report_free(&fr);
  eval_inputs_free(&in);
  eval_inputs_free(&train);
  mqss_baselines_destroy(bl);
  mqss_policy_destroy(pol);
  mqss_session_destroy(s);
  return rc;
}
