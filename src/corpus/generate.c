// mqss_corpus_generate(): turns the family emitters into a corpus on disk.
// It draws candidates, applies the line-count and (optional) reference-
// runtime filters, verifies that every kept module parses, writes the
// modules, the manifest and the stratified train/hold-out split, and hashes
// the manifest. It does not know how any module is made (families.c does).
#include "corpus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_SELECTED = 64 };

typedef struct {
  char file[96];
  const corpus_family *fam;
  int index, lines;
  uint64_t hash;  // FNV-1a of the module text
  double ref_ms;  // reference runtime, or -1 when not measured
  bool holdout;
} entry;

void mqss_corpus_options_init(mqss_corpus_options *o) {
  *o = (mqss_corpus_options){
      .out_dir = NULL,
      .count = 500,
      .seed = 0,
      .min_lines = 100,
      .max_lines = 5000,
      .families = NULL,
      .holdout_fraction = 0.1,
      .min_holdout = 50,
      .max_candidates = 0,
      .verify = 1,
      .min_run_ms = 0,
      .max_run_ms = 0,
      .timeout_ms = 20000,
      .driver = 0,
  };
}

// ----------------------------------------------------------------------------
// family selection

static mqss_status select_families(mqss_session *s, const char *list,
                                   const corpus_family **sel, int *n) {
  *n = 0;
  if (!list || !*list) {
    for (int i = 0; i < corpus_nfamilies && *n < MAX_SELECTED; i++)
      if (!corpus_families[i].opt_in)
        sel[(*n)++] = &corpus_families[i];
    return MQSS_OK;
  }
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)len, p);
    const corpus_family *f = corpus_family_find(name);
    if (!f)
      return fail(s, MQSS_ERR_INVALID_ARG,
                  "unknown corpus family '%s'; run 'mqss corpus list' for "
                  "the families",
                  name);
    if (*n < MAX_SELECTED)
      sel[(*n)++] = f;
    p += len + (p[len] == ',');
  }
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// files

static mqss_status write_text(mqss_session *s, const char *path,
                              const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path,
                strerror(errno));
  size_t w = fwrite(data, 1, len, f);
  if (fclose(f) != 0 || w != len)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path,
                strerror(errno));
  return MQSS_OK;
}

static void manifest_text(strbuf *sb, const mqss_corpus_options *o,
                          const char *split, const entry *es, int n,
                          int which) {
  sb_printf(sb,
            "# mqss corpus manifest v1: split=%s seed=%llu count=%d "
            "lines=%d-%d runtime_ms=%g-%g%s\n"
            "# file\tfamily\tdomain\tindex\tlines\tfnv64\tref_ms\n",
            split, (unsigned long long)o->seed, o->count, o->min_lines,
            o->max_lines, o->min_run_ms, o->max_run_ms,
            o->driver ? " form=driver" : "");
  for (int i = 0; i < n; i++) {
    if (which >= 0 && es[i].holdout != (which == 1))
      continue;
    sb_printf(sb, "%s\t%s\t%s\t%d\t%d\t%016llx\t", es[i].file,
              es[i].fam->name, es[i].fam->domain, es[i].index, es[i].lines,
              (unsigned long long)es[i].hash);
    if (es[i].ref_ms >= 0)
      sb_printf(sb, "%.4f\n", es[i].ref_ms);
    else
      sb_printf(sb, "-\n");
  }
}

// ----------------------------------------------------------------------------
// split

// Hold-out size: max(ceil(fraction * n), min(min_holdout, n / 5)).
static int holdout_size(const mqss_corpus_options *o, int n) {
  int h = (int)(o->holdout_fraction * n + 0.999999);
  int floor_h = o->min_holdout < n / 5 ? o->min_holdout : n / 5;
  if (h < floor_h)
    h = floor_h;
  return h > n ? n : h;
}

// Stratified: family f gets round(H * n_f / n) hold-out modules (largest
// remainders settle the rounding); within a family the hold-out modules are
// the first ones in FNV(seed, file name) order, a fixed pseudo-random order.
static void split(const mqss_corpus_options *o, entry *es, int n,
                  const corpus_family **sel, int nsel) {
  int H = holdout_size(o, n);
  int quota[MAX_SELECTED], count[MAX_SELECTED];
  double rem[MAX_SELECTED];
  int given = 0;
  for (int f = 0; f < nsel; f++) {
    count[f] = 0;
    for (int i = 0; i < n; i++)
      count[f] += es[i].fam == sel[f];
    double exact = n ? (double)H * count[f] / n : 0;
    quota[f] = (int)exact;
    rem[f] = exact - quota[f];
    given += quota[f];
  }
  while (given < H) { // largest remainder first, lowest family index on ties
    int best = -1;
    for (int f = 0; f < nsel; f++)
      if (quota[f] < count[f] && (best < 0 || rem[f] > rem[best]))
        best = f;
    if (best < 0)
      break;
    quota[best]++;
    rem[best] = -1;
    given++;
  }
  for (int f = 0; f < nsel; f++) {
    for (int k = 0; k < quota[f]; k++) {
      int pick = -1;
      uint64_t best = 0;
      for (int i = 0; i < n; i++) {
        if (es[i].fam != sel[f] || es[i].holdout)
          continue;
        uint64_t h = fnv1a(FNV_OFFSET, &o->seed, sizeof o->seed);
        h = fnv1a(h, es[i].file, strlen(es[i].file));
        if (pick < 0 || h < best)
          pick = i, best = h;
      }
      if (pick >= 0)
        es[pick].holdout = true;
    }
  }
}

// ----------------------------------------------------------------------------
// filters

typedef enum { KEEP, DROP_SHORT, DROP_LONG, DROP_FAST, DROP_SLOW,
               DROP_FAILED } verdict;

static verdict runtime_filter(mqss_module *m, const mqss_corpus_options *o,
                              double *ms) {
  mqss_measure_options mo;
  mqss_measure_options_init(&mo);
  mo.pipeline = NULL;
  mo.warmup = 1;
  mo.repeat = 3;
  mo.check_reference = 0;
  mo.code_size = 0;
  mo.no_cache = 1;
  mo.timeout_ms = o->timeout_ms;
  mqss_measure_result r;
  if (mqss_measure(m, &mo, &r) != MQSS_OK)
    return DROP_FAILED;
  if (r.status == MQSS_MEASURE_TIMEOUT)
    return DROP_SLOW;
  if (r.status != MQSS_MEASURE_OK)
    return DROP_FAILED;
  *ms = r.run_ms_median;
  if (o->min_run_ms > 0 && r.run_ms_median < o->min_run_ms)
    return DROP_FAST;
  if (o->max_run_ms > 0 && r.run_ms_median > o->max_run_ms)
    return DROP_SLOW;
  return KEEP;
}

// Parses a generated module into *m; a failure is a generator bug.
static mqss_status parse_generated(mqss_session *s, const strbuf *text,
                                   const entry *e, uint64_t seed,
                                   mqss_module **m) {
  if (mqss_module_parse_string(s, text->data, text->len, e->file, m) ==
      MQSS_OK)
    return MQSS_OK;
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", mqss_errmsg(s));
  return fail(s, MQSS_ERR_INTERNAL,
              "corpus generator bug: family %s, seed %llu, index %d does not "
              "parse (%s); please report it",
              e->fam->name, (unsigned long long)seed, e->index, msg);
}

// ----------------------------------------------------------------------------
// generate

mqss_status mqss_corpus_generate(mqss_session *s,
                                 const mqss_corpus_options *o,
                                 mqss_corpus_report *rep) {
  mqss_corpus_report dummy;
  if (!rep)
    rep = &dummy;
  *rep = (mqss_corpus_report){0};
  if (!s || !o || !o->out_dir || o->count <= 0 || o->min_lines > o->max_lines)
    return s ? fail(s, MQSS_ERR_INVALID_ARG,
                    "corpus: need an output directory, count > 0 and "
                    "min_lines <= max_lines")
             : MQSS_ERR_INVALID_ARG;
  const corpus_family *sel[MAX_SELECTED];
  int nsel;
  mqss_status st = select_families(s, o->families, sel, &nsel);
  if (st != MQSS_OK)
    return st;
  if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST)
    return fail(s, MQSS_ERR_IO, "cannot create directory '%s': %s",
                o->out_dir, strerror(errno));

  bool runtime = o->min_run_ms > 0 || o->max_run_ms > 0;
  int max_cand = o->max_candidates > 0 ? o->max_candidates : 20 * o->count;
  entry *es = calloc((size_t)o->count, sizeof *es);
  if (!es)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  strbuf text = {0}, drv = {0}, path = {0};
  for (int j = 0; rep->kept < o->count && j < max_cand; j++) {
    const corpus_family *f = sel[j % nsel];
    sb_clear(&text);
    sb_clear(&drv);
    bool drv_ok = corpus_emit_module(f, o->seed, j, &text,
                                     o->driver ? &drv : NULL);
    rep->candidates++;
    entry *e = &es[rep->kept];
    *e = (entry){.fam = f, .index = j, .ref_ms = -1};
    snprintf(e->file, sizeof e->file, "%s_%d.mlir", f->name, j);
    e->lines = count_lines(text.data, text.len);
    if (e->lines < o->min_lines) {
      rep->dropped_short++;
      continue;
    }
    if (e->lines > o->max_lines) {
      rep->dropped_long++;
      continue;
    }
    if (!drv_ok) {
      st = fail(s, MQSS_ERR_INTERNAL,
                "corpus: family %s, seed %llu, index %d has more than %d "
                "arguments, too many for the driver form; leave out "
                "--driver or this family",
                f->name, (unsigned long long)o->seed, j, MAX_FORWARD_ARGS);
      goto done;
    }
    // The filters see the usual form; with --driver, the driver form is
    // what is verified and written.
    const strbuf *out = o->driver ? &drv : &text;
    if (runtime || (o->verify && !o->driver)) {
      mqss_module *m = NULL;
      if ((st = parse_generated(s, &text, e, o->seed, &m)) != MQSS_OK)
        goto done;
      verdict v = runtime ? runtime_filter(m, o, &e->ref_ms) : KEEP;
      mqss_module_destroy(m);
      if (v != KEEP) {
        rep->dropped_fast += v == DROP_FAST;
        rep->dropped_slow += v == DROP_SLOW;
        rep->dropped_failed += v == DROP_FAILED;
        continue;
      }
    }
    if (o->driver) {
      e->lines = count_lines(drv.data, drv.len);
      mqss_module *m = NULL;
      if (o->verify && (st = parse_generated(s, &drv, e, o->seed, &m)) !=
                           MQSS_OK)
        goto done;
      mqss_module_destroy(m);
    }
    e->hash = fnv1a(FNV_OFFSET, out->data, out->len);
    sb_clear(&path);
    sb_printf(&path, "%s/%s", o->out_dir, e->file);
    if ((st = write_text(s, path.data, out->data, out->len)) != MQSS_OK)
      goto done;
    rep->kept++;
  }

  split(o, es, rep->kept, sel, nsel);
  for (int i = 0; i < rep->kept; i++)
    rep->holdout += es[i].holdout;
  rep->train = rep->kept - rep->holdout;
  static const char *const names[3] = {"manifest.tsv", "train.tsv",
                                        "holdout.tsv"};
  for (int w = 0; w < 3; w++) {
    sb_clear(&text);
    manifest_text(&text, o, w == 0 ? "all" : w == 1 ? "train" : "holdout", es,
                  rep->kept, w == 0 ? -1 : w == 1 ? 0 : 1);
    if (w == 0)
      rep->manifest_hash = fnv1a(FNV_OFFSET, text.data, text.len);
    sb_clear(&path);
    sb_printf(&path, "%s/%s", o->out_dir, names[w]);
    if ((st = write_text(s, path.data, text.data, text.len)) != MQSS_OK)
      goto done;
  }
  sb_clear(&text);
  sb_printf(&text, "%016llx  manifest.tsv\n",
            (unsigned long long)rep->manifest_hash);
  sb_clear(&path);
  sb_printf(&path, "%s/manifest.hash", o->out_dir);
  st = write_text(s, path.data, text.data, text.len);
done:
  sb_free(&text);
  sb_free(&drv);
  sb_free(&path);
  free(es);
  return st;
}
