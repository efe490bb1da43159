// Internal declarations of hold-out evaluation (`mqss eval`, src/eval/eval*.c):
// the module list and where each module's family comes from, the per-module
// comparison of a policy with the family baseline, the reference and a fixed
// pipeline, the aggregation math, the best-fixed-pipeline search on a
// training split, and the report writers. Not API: the CLI (tools/cmd_eval.c)
// is the only caller; docs/EVAL.md says what every number means. The search
// baselines themselves are search*.c, not here.
#ifndef MQSS_EVAL_EVAL_H
#define MQSS_EVAL_EVAL_H

#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

// ----------------------------------------------------------------------------
// inputs (eval_input.c)

typedef struct {
  char *file;        // display name: the file's base name (owned)
  char *path;        // path to parse (owned)
  char *family;      // family name, or NULL when unknown (owned)
  const char *family_source; // "manifest", "baseline.json", "header" or NULL
  char *baseline_pipeline;   // from baseline.json's "pipeline", or NULL (owned)
} eval_input;

typedef struct {
  eval_input *v;     // (n) in input order
  int n, cap;
} eval_inputs;

// Appends the modules of a manifest (.tsv: FILE FAMILY ... lines, '#'
// comments; FILE relative to the manifest's directory), a directory (every
// *.mlir, sorted by name) or a single file. Errors go to `s`.
mqss_status eval_inputs_add_manifest(mqss_session *s, eval_inputs *in,
                                     const char *path);
mqss_status eval_inputs_add_dir(mqss_session *s, eval_inputs *in,
                                const char *dir);
mqss_status eval_inputs_add_file(mqss_session *s, eval_inputs *in,
                                 const char *path);
// Fills missing families: baseline.json's "family" of the same file name
// (when `baseline_json` is not NULL), else the corpus header comment
// "(family NAME," of the module's first lines. Also takes baseline.json's
// "pipeline" of each file.
mqss_status eval_inputs_resolve(mqss_session *s, eval_inputs *in,
                                const char *baseline_json);
void eval_inputs_free(eval_inputs *in);

// The baselines file to use when none is given: data/baselines.yaml when it
// exists in the working directory, else the source tree's. Static storage.
const char *eval_default_baselines_path(void);

// Random-search result of one module: DIR/<file>.json or DIR/<stem>.json
// (`mqss search --json` output). Returns 1 when found and usable, 0 when
// absent, -1 when present but unreadable (`why` says why).
typedef struct {
  double speedup;    // confirmed_speedup, else the search's own speedup
  int confirmed;     // nonzero when speedup is the confirmed one
  double wall_ms;    // the whole search call
  int evaluations;
  char *best_pipeline; // owned
} eval_search_info;
int eval_search_load(const char *dir, const char *file, eval_search_info *out,
                     char *why, size_t why_len);

// ----------------------------------------------------------------------------
// one module (eval_run.c)

// Settings of every comparison.
typedef struct {
  mqss_measure_options measure; // warmup = warm-up pairs, repeat = timed pairs
  int rounds;                   // mqss_measure_vs calls per comparison (>= 1)
  int compile_samples;          // compile-only measurements per side (>= 1);
                                // compile time is their minimum
  mqss_select_options select;
  double min_gain;              // a speedup counts when its interval clears 1 + this
  bool kernels;                 // time each module's kernel (entry_kernel), not
                                // its program; the selection sees the module
} eval_settings;

// Where the "baseline" side of a row's compile and size ratios came from.
typedef enum {
  EVAL_BASE_FAMILY,     // the family's hand-tuned pipeline
  EVAL_BASE_REFERENCE,  // the plain finisher (family unknown)
  EVAL_BASE_FALLBACK    // the family pipeline failed: the reference instead
} eval_base_kind;

// The interval of one speedup of a row (t_other / t_policy): over one
// round the Hodges-Lehmann interval of the interleaved pairs, over several
// [min lo, max hi] of the rounds (conservative); and the verdict
// mqss_ratio_verdict(lo, hi, min_gain): +1 the policy is faster, -1 slower,
// 0 within noise. All 0 when not available; [1, 1] (verdict 0) when the
// pipelines are the same.
typedef struct {
  double lo, hi;
  int verdict;
} eval_interval;

// One row of the report. Ratios are 0 when not available.
typedef struct {
  const eval_input *in;  // borrowed
  char status[32];       // "ok", a measure status name, "select_failed",
                         // "parse_failed"
  bool ok;               // the policy's pipeline measured ok
  char message[512];     // why not ok; notes otherwise
  char entry[128];       // the function timed ("" before it is known)
  char *policy_pipeline; // "" = the empty selection (owned)
  int n_decisions;
  double decision_ms;    // wall time of mqss_policy_select
  const char *baseline_pipeline; // NULL when the family is unknown (borrowed)
  eval_base_kind base;
  double vs_baseline;    // t_baseline / t_policy, Hodges-Lehmann estimate
                         // over the interleaved pairs (median over rounds)
  double vs_reference;   // t_reference / t_policy
  double vs_fixed;       // t_fixed / t_policy
  double compile_ms_policy, compile_ms_base; // medians of compile-only samples
  double compile_ratio;                       // compile_ms_policy / compile_ms_base
  int64_t text_policy, text_base;
  double size_ratio;     // text_policy / text_base
  double run_ms_policy;  // median run time of the policy side (vs reference)
  // random search (when --search-json has this module)
  bool has_search;
  eval_search_info search;
  double search_fraction; // t_best / t_policy, paired with the search's best
                          // pipeline; vs_reference / search.speedup (cross-run)
                          // when that pipeline no longer runs (!search_paired)
  bool search_paired;
  double policy_time_ms;  // decision_ms + compile_ms_policy
  double time_fraction;   // policy_time_ms / search.wall_ms
  eval_interval ci_baseline, ci_reference, ci_fixed; // of vs_baseline, ...
  eval_interval ci_search; // of search_fraction when paired
} eval_row;

// Selects with `policy` on `m`, then compares the selection with
// `baseline_pipeline` (NULL: family unknown), the reference (""), `fixed`
// (NULL: none) and, when row->has_search, random search's best pipeline in
// interleaved A/B pairs. Fills `row` (row->in and the search must be set).
// Returns MQSS_OK whenever the row holds an outcome; an error only when the
// harness failed (the session message says why).
mqss_status eval_module(const mqss_policy *policy, mqss_module *m,
                        const char *baseline_pipeline, const char *fixed,
                        const eval_settings *s, eval_row *row);
void eval_row_free(eval_row *row);

// Returns the contents of the file at `path` (NUL-terminated, malloc'ed;
// *len its length when len is not NULL), or NULL when it cannot be read.
char *eval_read_file(const char *path, size_t *len);

// Treats "", NULL and "builtin.module()" as the empty pipeline.
bool eval_pipeline_empty(const char *p);

// ----------------------------------------------------------------------------
// best fixed pipeline on the training split (eval_fixed.c)

typedef struct {
  char *pipeline;     // owned; "" = the reference
  char origin[96];    // "baseline:FAMILY" or "catalog"
  double geomean;     // of t_reference / t_candidate over the sample
  int n, failures;    // modules measured, of which not ok (counted as 1.0)
} eval_fixed_candidate;

typedef struct {
  eval_fixed_candidate *v; // (n)
  int n;
  int best;           // index of the winner
  int sample;         // training modules measured
} eval_fixed_report;

// Tries the candidate fixed pipelines (the distinct pipelines of
// `baselines` over the corpus families, then a few catalog-derived ones) on
// up to `sample` training modules spread evenly over `train`, each against
// the reference in interleaved pairs, and keeps the best geomean. A
// candidate that fails on a module counts 1.0 there (a guard would fall back
// to the reference). `progress` (may be NULL) gets one line per measurement.
mqss_status eval_fixed_choose(mqss_session *s, const mqss_catalog *catalog,
                              const mqss_baselines *baselines,
                              const eval_inputs *train, int sample,
                              const eval_settings *set,
                              void (*progress)(const char *line, void *user),
                              void *user, eval_fixed_report *out);
void eval_fixed_report_free(eval_fixed_report *r);

// ----------------------------------------------------------------------------
// aggregation math (eval_stats.c)

// Geometric mean of the entries > 0 of x (n); *used (may be NULL) gets how
// many there were. 0 when none.
double eval_geomean(const double *x, int n, int *used);
// Percentile p (0..100) of x (n) with linear interpolation between order
// statistics: rank r = p/100 * (n-1), value x[floor r] + frac(r) * (x[floor
// r + 1] - x[floor r]) on the sorted copy. NaN when n == 0.
double eval_percentile(const double *x, int n, double p);
// Empirical CDF points of x (n): xs = sorted x, ys[i] = (i + 1) / n. Returns n.
int eval_cdf(const double *x, int n, double *xs, double *ys);

enum { EVAL_MAX_FAMILIES = 64 };

typedef struct {
  char name[64];       // family, or "(unknown)"
  int n, n_ok;
  double geo_baseline, geo_reference, geo_fixed;
} eval_family_agg;

typedef struct {
  int n, n_ok, n_crashed, n_wrong, n_failed_other, n_unknown_family;
  int n_baseline, n_reference, n_fixed; // rows in each geomean
  double geo_baseline, geo_reference, geo_fixed;
  int n_compile;
  double p95_compile_increase, median_compile_increase; // ratio - 1
  int n_size;
  double geo_size_ratio;
  int n_decision;
  double decision_ms_median, decision_ms_p95;
  int n_search;
  double search_fraction_geo; // geomean of per-module vs_reference / best
  double time_fraction_total; // sum policy_time_ms / sum search wall_ms
  double time_fraction_median;
  int n_families;
  eval_family_agg families[EVAL_MAX_FAMILIES]; // (n_families) by first seen
  // ok rows by verdict [0] faster, [1] within noise, [2] slower
  int verdicts_baseline[3], verdicts_reference[3], verdicts_fixed[3];
} eval_agg;

// Aggregates rows (n). Only ok rows enter the speedup, compile, size,
// verdict and search figures; decision latency covers every row that
// selected. A verdict is counted where its speedup is available (x > 0)
// and has an interval (lo > 0), so the three counts may sum to fewer rows.
void eval_aggregate(const eval_row *rows, int n, eval_agg *out);

// ----------------------------------------------------------------------------
// reports (eval_report.c)

typedef struct {
  const char *policy_path;
  const char *fixed_pipeline;   // NULL = none
  const char *fixed_source;     // "--fixed", "--fixed-from-train FILE" or NULL
  const eval_fixed_report *fixed_report; // NULL unless from train
  const eval_settings *settings;
} eval_meta;

// The whole evaluation as JSON text (caller frees), NULL when out of memory.
char *eval_json(const eval_row *rows, int n, const eval_agg *agg,
                const eval_meta *meta);

// Writes DIR/report.json, report.md, speedup_family.png, speedup_cdf.png
// (gnuplot, pngcairo noenhanced) and report.html (self-contained: inline
// CSS, the PNGs as base64 data URIs). Creates DIR. Errors go to `s`
// (MQSS_ERR_IO; gnuplot's errors are in DIR/gnuplot.err).
mqss_status eval_write_reports(mqss_session *s, const char *dir,
                               const eval_row *rows, int n,
                               const eval_agg *agg, const eval_meta *meta);

// A speedup ratio as the reports print it: "1.234x", or "n/a" when v is 0
// (not measured) or not finite.
void eval_format_ratio(char *buf, size_t len, double v);
// A change as "+1.2%", and milliseconds as "12.34"; "n/a" when not finite
// (nothing measured).
void eval_format_pct(char *buf, size_t len, double v);
void eval_format_ms(char *buf, size_t len, double v);

// Standard base64 of `len` bytes (caller frees), NULL when out of memory.
char *eval_base64(const unsigned char *data, size_t len);

#endif // MQSS_EVAL_EVAL_H
