// The outputs of `mqss eval`: the JSON document (every row and the
// aggregate), and with --out DIR the Markdown report, two gnuplot PNGs
// (speedup per family, CDF of per-module speedups) and one self-contained
// HTML dashboard (inline CSS, PNGs as base64 data URIs, no external
// resource). The terminal table is the CLI's (tools/cmd_eval.c). Nothing
// here measures or aggregates.
#include "eval/eval.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

// ----------------------------------------------------------------------------
// JSON

// A ratio or time: a number when available (> 0 or finite), else null.
static void add_opt(cJSON *o, const char *k, double v) {
  if (v > 0 && isfinite(v))
    cJSON_AddNumberToObject(o, k, v);
  else
    cJSON_AddNullToObject(o, k);
}

static void add_fin(cJSON *o, const char *k, double v) {
  if (isfinite(v))
    cJSON_AddNumberToObject(o, k, v);
  else
    cJSON_AddNullToObject(o, k);
}

// "faster", "within_noise" or "slower" (the policy against the other side).
static const char *verdict_name(int verdict) {
  return verdict > 0 ? "faster" : verdict < 0 ? "slower" : "within_noise";
}

// The interval of speedup `x` as [lo, hi] and its verdict; both null when
// `x` or its interval is not available.
static void add_interval(cJSON *o, const char *what, double x,
                         const eval_interval *ci) {
  char k[64];
  bool have = x > 0 && ci->lo > 0;
  snprintf(k, sizeof k, "interval_%s", what);
  if (have) {
    double v[2] = {ci->lo, ci->hi};
    cJSON_AddItemToObject(o, k, cJSON_CreateDoubleArray(v, 2));
  } else {
    cJSON_AddNullToObject(o, k);
  }
  snprintf(k, sizeof k, "verdict_%s", what);
  if (have)
    cJSON_AddStringToObject(o, k, verdict_name(ci->verdict));
  else
    cJSON_AddNullToObject(o, k);
}

static const char *base_name(eval_base_kind k) {
  return k == EVAL_BASE_FAMILY ? "family_baseline"
         : k == EVAL_BASE_REFERENCE ? "reference"
                                    : "reference_fallback";
}

static cJSON *row_json(const eval_row *r) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "file", r->in->file);
  if (r->in->family) {
    cJSON_AddStringToObject(j, "family", r->in->family);
    cJSON_AddStringToObject(j, "family_source", r->in->family_source);
  } else {
    cJSON_AddNullToObject(j, "family");
    cJSON_AddNullToObject(j, "family_source");
  }
  cJSON_AddStringToObject(j, "status", r->status);
  cJSON_AddStringToObject(j, "message", r->message);
  cJSON_AddStringToObject(j, "entry", r->entry);
  cJSON_AddStringToObject(j, "policy_pipeline",
                          r->policy_pipeline ? r->policy_pipeline : "");
  cJSON_AddNumberToObject(j, "decisions", r->n_decisions);
  cJSON_AddNumberToObject(j, "decision_ms", r->decision_ms);
  if (r->baseline_pipeline)
    cJSON_AddStringToObject(j, "baseline_pipeline", r->baseline_pipeline);
  else
    cJSON_AddNullToObject(j, "baseline_pipeline");
  cJSON_AddStringToObject(j, "compared_base", base_name(r->base));
  add_opt(j, "speedup_vs_baseline", r->vs_baseline);
  add_opt(j, "speedup_vs_reference", r->vs_reference);
  add_opt(j, "speedup_vs_fixed", r->vs_fixed);
  add_interval(j, "vs_baseline", r->vs_baseline, &r->ci_baseline);
  add_interval(j, "vs_reference", r->vs_reference, &r->ci_reference);
  add_interval(j, "vs_fixed", r->vs_fixed, &r->ci_fixed);
  add_opt(j, "compile_ms_policy", r->compile_ms_policy);
  add_opt(j, "compile_ms_base", r->compile_ms_base);
  add_opt(j, "compile_ratio", r->compile_ratio);
  if (r->text_policy > 0)
    cJSON_AddNumberToObject(j, "text_bytes_policy", (double)r->text_policy);
  else
    cJSON_AddNullToObject(j, "text_bytes_policy");
  if (r->text_base > 0)
    cJSON_AddNumberToObject(j, "text_bytes_base", (double)r->text_base);
  else
    cJSON_AddNullToObject(j, "text_bytes_base");
  add_opt(j, "size_ratio", r->size_ratio);
  add_opt(j, "run_ms_policy", r->run_ms_policy);
  if (r->has_search) {
    cJSON *s = cJSON_AddObjectToObject(j, "search");
    cJSON_AddNumberToObject(s, "speedup", r->search.speedup);
    cJSON_AddBoolToObject(s, "confirmed", r->search.confirmed);
    cJSON_AddNumberToObject(s, "wall_ms", r->search.wall_ms);
    cJSON_AddNumberToObject(s, "evaluations", r->search.evaluations);
    cJSON_AddStringToObject(s, "best_pipeline",
                            r->search.best_pipeline ? r->search.best_pipeline : "");
    add_opt(s, "fraction_of_best", r->search_fraction);
    cJSON_AddBoolToObject(s, "paired", r->search_paired);
    add_interval(s, "fraction", r->search_fraction, &r->ci_search);
    add_opt(s, "policy_time_ms", r->policy_time_ms);
    add_opt(s, "time_fraction", r->time_fraction);
  } else {
    cJSON_AddNullToObject(j, "search");
  }
  return j;
}

static cJSON *agg_json(const eval_agg *a) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "modules", a->n);
  cJSON_AddNumberToObject(j, "ok", a->n_ok);
  cJSON_AddNumberToObject(j, "crashes", a->n_crashed);
  cJSON_AddNumberToObject(j, "wrong_outputs", a->n_wrong);
  cJSON_AddNumberToObject(j, "other_failures", a->n_failed_other);
  cJSON_AddNumberToObject(j, "unknown_family", a->n_unknown_family);
  add_opt(j, "geomean_speedup_vs_baseline", a->geo_baseline);
  cJSON_AddNumberToObject(j, "n_vs_baseline", a->n_baseline);
  add_opt(j, "geomean_speedup_vs_reference", a->geo_reference);
  cJSON_AddNumberToObject(j, "n_vs_reference", a->n_reference);
  add_opt(j, "geomean_speedup_vs_fixed", a->geo_fixed);
  cJSON_AddNumberToObject(j, "n_vs_fixed", a->n_fixed);
  const char *vk[3] = {"verdicts_vs_baseline", "verdicts_vs_reference",
                       "verdicts_vs_fixed"};
  const int *vc[3] = {a->verdicts_baseline, a->verdicts_reference,
                      a->verdicts_fixed};
  for (int i = 0; i < 3; i++) {
    cJSON *v = cJSON_AddObjectToObject(j, vk[i]);
    cJSON_AddNumberToObject(v, "faster", vc[i][0]);
    cJSON_AddNumberToObject(v, "within_noise", vc[i][1]);
    cJSON_AddNumberToObject(v, "slower", vc[i][2]);
  }
  add_fin(j, "p95_compile_increase", a->p95_compile_increase);
  add_fin(j, "median_compile_increase", a->median_compile_increase);
  add_opt(j, "geomean_size_ratio", a->geo_size_ratio);
  add_fin(j, "decision_ms_median", a->decision_ms_median);
  add_fin(j, "decision_ms_p95", a->decision_ms_p95);
  cJSON_AddNumberToObject(j, "n_search", a->n_search);
  add_opt(j, "search_fraction_geomean", a->search_fraction_geo);
  add_opt(j, "time_fraction_total", a->time_fraction_total);
  add_fin(j, "time_fraction_median", a->time_fraction_median);
  return j;
}

char *eval_json(const eval_row *rows, int n, const eval_agg *agg,
                const eval_meta *meta) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "policy", meta->policy_path ? meta->policy_path : "");
  cJSON *set = cJSON_AddObjectToObject(root, "settings");
  cJSON_AddNumberToObject(set, "pairs", meta->settings->measure.repeat);
  cJSON_AddNumberToObject(set, "warmup", meta->settings->measure.warmup);
  cJSON_AddNumberToObject(set, "repeat", meta->settings->rounds);
  cJSON_AddNumberToObject(set, "compile_samples", meta->settings->compile_samples);
  cJSON_AddNumberToObject(set, "seed", (double)meta->settings->measure.seed);
  cJSON_AddNumberToObject(set, "min_gain", meta->settings->min_gain);
  cJSON_AddBoolToObject(set, "kernels", meta->settings->kernels);
  cJSON *fx = cJSON_AddObjectToObject(root, "fixed");
  if (meta->fixed_pipeline)
    cJSON_AddStringToObject(fx, "pipeline", meta->fixed_pipeline);
  else
    cJSON_AddNullToObject(fx, "pipeline");
  cJSON_AddStringToObject(fx, "source", meta->fixed_source ? meta->fixed_source : "none");
  if (meta->fixed_report) {
    const eval_fixed_report *fr = meta->fixed_report;
    cJSON_AddNumberToObject(fx, "sample", fr->sample);
    cJSON *cs = cJSON_AddArrayToObject(fx, "candidates");
    for (int i = 0; i < fr->n; i++) {
      cJSON *c = cJSON_CreateObject();
      cJSON_AddStringToObject(c, "pipeline", fr->v[i].pipeline);
      cJSON_AddStringToObject(c, "origin", fr->v[i].origin);
      cJSON_AddNumberToObject(c, "geomean_vs_reference", fr->v[i].geomean);
      cJSON_AddNumberToObject(c, "failures", fr->v[i].failures);
      cJSON_AddBoolToObject(c, "chosen", i == fr->best);
      cJSON_AddItemToArray(cs, c);
    }
  }
  cJSON *mods = cJSON_AddArrayToObject(root, "modules");
  for (int i = 0; i < n; i++)
    cJSON_AddItemToArray(mods, row_json(&rows[i]));
  cJSON_AddItemToObject(root, "aggregate", agg_json(agg));
  cJSON *fams = cJSON_AddArrayToObject(root, "families");
  for (int i = 0; i < agg->n_families; i++) {
    const eval_family_agg *f = &agg->families[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "family", f->name);
    cJSON_AddNumberToObject(o, "modules", f->n);
    cJSON_AddNumberToObject(o, "ok", f->n_ok);
    add_opt(o, "geomean_speedup_vs_baseline", f->geo_baseline);
    add_opt(o, "geomean_speedup_vs_reference", f->geo_reference);
    add_opt(o, "geomean_speedup_vs_fixed", f->geo_fixed);
    cJSON_AddItemToArray(fams, o);
  }
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  return text;
}

// ----------------------------------------------------------------------------
// base64

char *eval_base64(const unsigned char *d, size_t len) {
  static const char tab[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char *out = malloc(4 * ((len + 2) / 3) + 1);
  if (!out)
    return NULL;
  size_t o = 0;
  for (size_t i = 0; i < len; i += 3) {
    unsigned v = (unsigned)d[i] << 16;
    if (i + 1 < len)
      v |= (unsigned)d[i + 1] << 8;
    if (i + 2 < len)
      v |= d[i + 2];
    out[o++] = tab[(v >> 18) & 63];
    out[o++] = tab[(v >> 12) & 63];
    out[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
    out[o++] = i + 2 < len ? tab[v & 63] : '=';
  }
  out[o] = 0;
  return out;
}

// ----------------------------------------------------------------------------
// plots


// Writes the data files and runs gnuplot on the script it writes.
static mqss_status plots(mqss_session *s, const char *dir, const eval_row *rows,
                         int n, const eval_agg *a) {
  char path[4096];
  snprintf(path, sizeof path, "%s/speedup_family.dat", dir);
  FILE *f = fopen(path, "w");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  // Ratios go on a log axis: an n/a (0) is written as missing ('?').
  fprintf(f, "# family vs_baseline vs_reference vs_fixed (? = n/a)\n");
  for (int i = 0; i < a->n_families; i++) {
    double g[3] = {a->families[i].geo_baseline, a->families[i].geo_reference,
                   a->families[i].geo_fixed};
    fprintf(f, "%s", a->families[i].name);
    for (int k = 0; k < 3; k++)
      fprintf(f, g[k] > 0 ? " %.6g" : " ?", g[k]);
    fprintf(f, "\n");
  }
  fclose(f);
  snprintf(path, sizeof path, "%s/speedup_cdf.dat", dir);
  f = fopen(path, "w");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  const char *cols[3] = {"vs family baseline", "vs reference", "vs best fixed"};
  size_t offs[3] = {offsetof(eval_row, vs_baseline), offsetof(eval_row, vs_reference),
                    offsetof(eval_row, vs_fixed)};
  double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  double *xs = malloc((size_t)(n ? n : 1) * sizeof *xs);
  double *ys = malloc((size_t)(n ? n : 1) * sizeof *ys);
  int blocks = 0, present[3] = {0};
  for (int c = 0; v && xs && ys && c < 3; c++) {
    int k = 0;
    for (int i = 0; i < n; i++) {
      double x = *(const double *)((const char *)&rows[i] + offs[c]);
      if (rows[i].ok && x > 0)
        v[k++] = x;
    }
    if (!k)
      continue;
    eval_cdf(v, k, xs, ys);
    fprintf(f, "# %s\n", cols[c]);
    for (int i = 0; i < k; i++)
      fprintf(f, "%.6g %.6g\n", xs[i], ys[i]);
    fprintf(f, "\n\n");
    present[c] = ++blocks;
  }
  free(v);
  free(xs);
  free(ys);
  fclose(f);

  snprintf(path, sizeof path, "%s/plots.gp", dir);
  f = fopen(path, "w");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  fprintf(f,
          "# Drawn by mqss eval; rerun with: gnuplot plots.gp (in this directory)\n"
          "set terminal pngcairo size 900,500 noenhanced\n"
          "set output 'speedup_family.png'\n"
          "set title 'Policy speedup per family (geomean; log scale, 1x "
          "dashed; no bar = n/a)'\n"
          "set datafile missing '?'\nset logscale y 2\n"
          "set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
          "set grid ytics\nset key outside right top\n"
          "set xtics rotate by -35\nset ylabel 'speedup (x, log scale)'\n"
          "plot 'speedup_family.dat' using 2:xtic(1) title 'vs family baseline', "
          "'' using 3 title 'vs reference', '' using 4 title 'vs best fixed', "
          "1 with lines lc rgb 'black' dt 2 notitle\n"
          "reset\n"
          "set terminal pngcairo size 900,500 noenhanced\n"
          "set output 'speedup_cdf.png'\n"
          "set title 'CDF of per-module speedups (log scale, 1x dashed)'\n"
          "set grid\nset key bottom right\nset yrange [0:1.05]\n"
          "set xlabel 'speedup (x, log scale)'\nset ylabel 'fraction of modules'\n"
          "set arrow from 1, graph 0 to 1, graph 1 nohead dt 2\n");
  if (!blocks) {
    fprintf(f, "set label 'no successful module' at graph 0.4, graph 0.5\n"
               "plot [0:2] -1 notitle\n");
  } else {
    fprintf(f, "set logscale x 2\nplot ");
    for (int c = 0, first = 1; c < 3; c++)
      if (present[c]) {
        fprintf(f, "%s'speedup_cdf.dat' index %d using 1:2 with steps lw 2 title '%s'",
                first ? "" : ", ", present[c] - 1, cols[c]);
        first = 0;
      }
    fprintf(f, "\n");
  }
  fclose(f);
  char cmd[8400];
  snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot plots.gp 2>gnuplot.err", dir);
  int rc = system(cmd);
  if (rc != 0 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 0)
    return fail(s, MQSS_ERR_IO,
                "gnuplot failed drawing the plots of '%s'; see %s/gnuplot.err "
                "(install gnuplot-nox: scripts/install-deps.sh)", dir, dir);
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// Markdown and HTML

static void fmt_x(char *b, size_t n, double v) {
  if (v > 0 && isfinite(v))
    snprintf(b, n, "%.3fx", v);
  else
    snprintf(b, n, "n/a");
}

void eval_format_ratio(char *buf, size_t len, double v) { fmt_x(buf, len, v); }

void eval_format_pct(char *b, size_t n, double v) {
  if (isfinite(v))
    snprintf(b, n, "%+.1f%%", 100 * v);
  else
    snprintf(b, n, "n/a");
}

void eval_format_ms(char *b, size_t n, double v) {
  if (isfinite(v))
    snprintf(b, n, "%.2f", v);
  else
    snprintf(b, n, "n/a");
}

// One aggregate table as (label, value) pairs.
typedef struct {
  const char *label;
  char value[96];
} kv;

static int summary(const eval_agg *a, kv *t) {
  int k = 0;
#define ROW(l) (t[k].label = (l), t[k++].value)
  char x[64];
  fmt_x(x, sizeof x, a->geo_baseline);
  snprintf(ROW("geomean speedup vs family baseline"), 96, "%s (%d modules)", x, a->n_baseline);
  fmt_x(x, sizeof x, a->geo_reference);
  snprintf(ROW("geomean speedup vs reference"), 96, "%s (%d modules)", x, a->n_reference);
  fmt_x(x, sizeof x, a->geo_fixed);
  snprintf(ROW("geomean speedup vs best fixed"), 96, "%s (%d modules)", x, a->n_fixed);
  char y[32];
  eval_format_pct(y, sizeof y, a->median_compile_increase);
  eval_format_pct(x, sizeof x, a->p95_compile_increase);
  snprintf(ROW("p95 compile-time increase"), 96, "%.30s (median %.30s)", x, y);
  fmt_x(x, sizeof x, a->geo_size_ratio);
  snprintf(ROW("code-size ratio (geomean)"), 96, "%s", x);
  snprintf(ROW("vs baseline: faster / within noise / slower"), 96, "%d / %d / %d",
           a->verdicts_baseline[0], a->verdicts_baseline[1], a->verdicts_baseline[2]);
  snprintf(ROW("vs reference: faster / within noise / slower"), 96, "%d / %d / %d",
           a->verdicts_reference[0], a->verdicts_reference[1],
           a->verdicts_reference[2]);
  snprintf(ROW("modules ok / total"), 96, "%d / %d", a->n_ok, a->n);
  snprintf(ROW("crashes"), 96, "%d", a->n_crashed);
  snprintf(ROW("wrong outputs"), 96, "%d", a->n_wrong);
  snprintf(ROW("other failures"), 96, "%d", a->n_failed_other);
  snprintf(ROW("unknown family (reference only)"), 96, "%d", a->n_unknown_family);
  eval_format_ms(x, sizeof x, a->decision_ms_median);
  eval_format_ms(y, sizeof y, a->decision_ms_p95);
  snprintf(ROW("decision latency median / p95"), 96, "%.30s / %.30s ms", x, y);
  if (a->n_search) {
    snprintf(ROW("fraction of random search's best speedup"), 96, "%.1f%% (%d modules)",
             100 * a->search_fraction_geo, a->n_search);
    snprintf(ROW("policy time / search time"), 96, "%.2f%% total, %.2f%% median",
             100 * a->time_fraction_total, 100 * a->time_fraction_median);
  }
#undef ROW
  return k;
}

static void md_escape(FILE *f, const char *s) {
  for (; s && *s; s++)
    fputs(*s == '|' ? "\\|" : (char[2]){*s, 0}, f);
}

static void html_escape(FILE *f, const char *s) {
  for (; s && *s; s++)
    switch (*s) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f);
    }
}

// A speedup with its interval, "(noise)" when within noise: "1.234x
// [1.201, 1.270]".
static void fmt_ci(char *b, size_t n, double x, const eval_interval *ci) {
  fmt_x(b, n, x);
  if (x > 0 && ci->lo > 0) {
    size_t len = strlen(b);
    snprintf(b + len, n - len, " [%.3f, %.3f]%s", ci->lo, ci->hi,
             ci->verdict == 0 ? " (noise)" : "");
  }
}

// Per-module columns shared by both formats.
static void row_cells(const eval_row *r, char c[8][64]) {
  snprintf(c[0], 64, "%s", r->status);
  fmt_ci(c[1], 64, r->vs_baseline, &r->ci_baseline);
  fmt_ci(c[2], 64, r->vs_reference, &r->ci_reference);
  fmt_ci(c[3], 64, r->vs_fixed, &r->ci_fixed);
  if (r->compile_ratio > 0)
    eval_format_pct(c[4], 64, r->compile_ratio - 1);
  else
    snprintf(c[4], 64, "n/a");
  fmt_x(c[5], 64, r->size_ratio);
  snprintf(c[6], 64, "%.2f ms, %d steps", r->decision_ms, r->n_decisions);
  if (r->has_search)
    snprintf(c[7], 64, "%.0f%% at %.1f%% time", 100 * r->search_fraction,
             100 * r->time_fraction);
  else
    snprintf(c[7], 64, "-");
}

static const char *const row_heads[] = {
    "module", "family", "status", "vs baseline", "vs reference", "vs fixed",
    "compile +", "size ratio", "decision", "of search best", "policy pipeline"};
enum { NHEADS = sizeof row_heads / sizeof row_heads[0] };

static mqss_status write_md(mqss_session *s, const char *path, const eval_row *rows,
                            int n, const eval_agg *a, const eval_meta *m) {
  FILE *f = fopen(path, "w");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  kv t[24];
  int k = summary(a, t);
  fprintf(f, "# MQSS-Selector evaluation\n\npolicy: `%s`; %d interleaved pairs "
             "(%d warm-up) x %d round(s) per comparison, compile time the "
             "minimum of %d compile-only samples per side; see docs/EVAL.md. "
             "Speedups are Hodges-Lehmann estimates with their 95%% interval; "
             "\"(noise)\": the interval does not clear a %g%% gain either "
             "way.\n\n",
          m->policy_path ? m->policy_path : "(default)", m->settings->measure.repeat,
          m->settings->measure.warmup, m->settings->rounds,
          m->settings->compile_samples, 100 * m->settings->min_gain);
  if (m->settings->kernels)
    fprintf(f, "Timed: each module's kernel (`--kernels`: its one public "
               "function other than @main, on generated inputs), not the "
               "program; the policy selects for the whole module.\n\n");
  if (m->fixed_pipeline)
    fprintf(f, "best fixed pipeline (%s): `%s`\n\n", m->fixed_source,
            *m->fixed_pipeline ? m->fixed_pipeline : "(reference)");
  fprintf(f, "## Aggregate\n\n| metric | value |\n| --- | --- |\n");
  for (int i = 0; i < k; i++)
    fprintf(f, "| %s | %s |\n", t[i].label, t[i].value);
  fprintf(f, "\n## Per family\n\n| family | modules | ok | vs baseline | vs reference | vs fixed |\n"
             "| --- | --- | --- | --- | --- | --- |\n");
  for (int i = 0; i < a->n_families; i++) {
    char b1[32], b2[32], b3[32];
    fmt_x(b1, 32, a->families[i].geo_baseline);
    fmt_x(b2, 32, a->families[i].geo_reference);
    fmt_x(b3, 32, a->families[i].geo_fixed);
    fprintf(f, "| %s | %d | %d | %s | %s | %s |\n", a->families[i].name,
            a->families[i].n, a->families[i].n_ok, b1, b2, b3);
  }
  fprintf(f, "\n![speedup per family](speedup_family.png)\n\n"
             "![CDF of per-module speedups](speedup_cdf.png)\n\n## Per module\n\n|");
  for (int i = 0; i < NHEADS; i++)
    fprintf(f, " %s |", row_heads[i]);
  fprintf(f, "\n|");
  for (int i = 0; i < NHEADS; i++)
    fprintf(f, " --- |");
  fprintf(f, "\n");
  for (int i = 0; i < n; i++) {
    char c[8][64];
    row_cells(&rows[i], c);
    fprintf(f, "| %s | %s |", rows[i].in->file,
            rows[i].in->family ? rows[i].in->family : "(unknown)");
    for (int j = 0; j < 8; j++)
      fprintf(f, " %s |", c[j]);
    fprintf(f, " `");
    md_escape(f, rows[i].policy_pipeline && *rows[i].policy_pipeline
                     ? rows[i].policy_pipeline : "(empty)");
    fprintf(f, "` |\n");
  }
  fprintf(f, "\n## Notes\n\n");
  for (int i = 0; i < n; i++)
    if (rows[i].message[0]) {
      fprintf(f, "- %s: ", rows[i].in->file);
      md_escape(f, rows[i].message);
      fprintf(f, "\n");
    }
  fclose(f);
  return MQSS_OK;
}

static void html_img(FILE *f, const char *dir, const char *name, const char *alt) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t len = 0;
  char *png = eval_read_file(path, &len);
  char *b64 = png ? eval_base64((const unsigned char *)png, len) : NULL;
  if (b64)
    fprintf(f, "<figure><img alt=\"%s\" src=\"data:image/png;base64,%s\"></figure>\n",
            alt, b64);
  else
    fprintf(f, "<p>(plot %s missing)</p>\n", name);
  free(png);
  free(b64);
}

static mqss_status write_html(mqss_session *s, const char *dir, const char *path,
                              const eval_row *rows, int n, const eval_agg *a,
                              const eval_meta *m) {
  FILE *f = fopen(path, "w");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  fprintf(f,
          "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
          "<title>MQSS-Selector evaluation</title>\n<style>\n"
          "body{font-family:sans-serif;margin:2em;color:#222;background:#fafafa}\n"
          "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}\n"
          "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
          "th{background:#eee}\ntr.fail td{background:#fdd}\n"
          "code{font-size:0.85em;word-break:break-all}\n"
          ".cards{display:flex;flex-wrap:wrap;gap:1em}\n"
          ".card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:0.8em 1.2em}\n"
          ".card b{display:block;font-size:1.4em}\nimg{max-width:100%%}\n"
          "</style></head><body>\n<h1>MQSS-Selector evaluation</h1>\n<p>policy <code>");
  html_escape(f, m->policy_path ? m->policy_path : "(default)");
  fprintf(f, "</code>; %d interleaved pairs (%d warm-up) x %d round(s) per comparison.</p>\n",
          m->settings->measure.repeat, m->settings->measure.warmup, m->settings->rounds);
  kv t[24];
  int k = summary(a, t);
  fprintf(f, "<div class=\"cards\">\n");
  for (int i = 0; i < k; i++) {
    fprintf(f, "<div class=\"card\">");
    html_escape(f, t[i].label);
    fprintf(f, "<b>");
    html_escape(f, t[i].value);
    fprintf(f, "</b></div>\n");
  }
  fprintf(f, "</div>\n");
  if (m->fixed_pipeline) {
    fprintf(f, "<p>best fixed pipeline (");
    html_escape(f, m->fixed_source);
    fprintf(f, "): <code>");
    html_escape(f, *m->fixed_pipeline ? m->fixed_pipeline : "(reference)");
    fprintf(f, "</code></p>\n");
  }
  html_img(f, dir, "speedup_family.png", "speedup per family");
  html_img(f, dir, "speedup_cdf.png", "CDF of per-module speedups");
  fprintf(f, "<h2>Per module</h2>\n<table><tr>");
  for (int i = 0; i < NHEADS; i++)
    fprintf(f, "<th>%s</th>", row_heads[i]);
  fprintf(f, "</tr>\n");
  for (int i = 0; i < n; i++) {
    char c[8][64];
    row_cells(&rows[i], c);
    fprintf(f, "<tr%s><td>", rows[i].ok ? "" : " class=\"fail\"");
    html_escape(f, rows[i].in->file);
    fprintf(f, "</td><td>");
    html_escape(f, rows[i].in->family ? rows[i].in->family : "(unknown)");
    fprintf(f, "</td>");
    for (int j = 0; j < 8; j++) {
      fprintf(f, "<td>");
      html_escape(f, c[j]);
      fprintf(f, "</td>");
    }
    fprintf(f, "<td><code>");
    html_escape(f, rows[i].policy_pipeline && *rows[i].policy_pipeline
                       ? rows[i].policy_pipeline : "(empty)");
    fprintf(f, "</code><br><small>");
    html_escape(f, rows[i].message);
    fprintf(f, "</small></td></tr>\n");
  }
  fprintf(f, "</table>\n</body></html>\n");
  fclose(f);
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// entry point

mqss_status eval_write_reports(mqss_session *s, const char *dir,
                               const eval_row *rows, int n, const eval_agg *a,
                               const eval_meta *m) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return fail(s, MQSS_ERR_IO, "cannot create '%s': %s", dir, strerror(errno));
  char path[4096];
  snprintf(path, sizeof path, "%s/report.json", dir);
  char *json = eval_json(rows, n, a, m);
  FILE *f = json ? fopen(path, "w") : NULL;
  if (!f) {
    free(json);
    return fail(s, MQSS_ERR_IO, "cannot write '%s'", path);
  }
  fputs(json, f);
  fputc('\n', f);
  fclose(f);
  free(json);
  mqss_status st = plots(s, dir, rows, n, a);
  if (st != MQSS_OK)
    return st;
  snprintf(path, sizeof path, "%s/report.md", dir);
  if ((st = write_md(s, path, rows, n, a, m)) != MQSS_OK)
    return st;
  snprintf(path, sizeof path, "%s/report.html", dir);
  return write_html(s, dir, path, rows, n, a, m);
}
