// `mqss dashboard`: turns metrics JSONL (one object per module run, as
// `mqss-opt --mqss-metrics` and the plugin's `metrics=` option write them)
// into one self-contained HTML page. This file reads and validates the lines
// and embeds the valid records, as JSON, in the page template
// (tools/dashboard.html, compiled in by CMake); the page's own script computes
// the figures and draws the charts. It computes no statistics itself.
//
// A line that is not a JSON object, or whose known fields have the wrong
// type or range, is skipped and counted, never trusted: the count and the
// first reasons are printed on stderr and shown on the page. Unknown fields
// are ignored, so newer writers stay readable.
#include "cli.h"
#include "internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// The page template and its length (generated from tools/dashboard.html).
extern const char dashboard_page[];
extern const size_t dashboard_page_len;

// The template line the records replace.
static const char placeholder[] = "@MQSS_DATA@";

// Reasons of skipped lines printed and embedded; the count is always exact.
enum { MAX_REPORTED_SKIPS = 20 };

// ----------------------------------------------------------------------------
// the record fields: name, type, and whether a line must carry it

typedef enum {
  FIELD_STRING,        // a string
  FIELD_STRING_OR_NULL,
  FIELD_BOOL,
  FIELD_MS,            // a finite number >= 0
  FIELD_RATIO_OR_NULL, // a finite number > 0, or null (not measured)
} field_kind;

// `alias` is another name a writer may use for the field; the page sees
// `name`. "selector" false marks a run with the A/B switch off (the user's
// pipeline alone): the page leaves it out of fallback and latency figures.
static const struct {
  const char *name, *alias;
  field_kind kind;
  bool required;
} fields[] = {
    {"module_hash", "module", FIELD_STRING, true},
    {"pipeline", NULL, FIELD_STRING, false},
    {"decision_ms", NULL, FIELD_MS, false},
    {"fallback", NULL, FIELD_BOOL, false},
    {"fallback_reason", NULL, FIELD_STRING_OR_NULL, false},
    {"compile_ms", NULL, FIELD_MS, false},
    {"speedup", NULL, FIELD_RATIO_OR_NULL, false},
    {"budget_hit", NULL, FIELD_BOOL, false},
    {"selector", NULL, FIELD_BOOL, false},
};
enum { NFIELDS = sizeof fields / sizeof fields[0] };

static const char *const kind_text[] = {
    [FIELD_STRING] = "a string",
    [FIELD_STRING_OR_NULL] = "a string or null",
    [FIELD_BOOL] = "true or false",
    [FIELD_MS] = "a number >= 0",
    [FIELD_RATIO_OR_NULL] = "a number > 0 or null",
};

static bool field_ok(field_kind k, const cJSON *v) {
  switch (k) {
  case FIELD_STRING: return cJSON_IsString(v);
  case FIELD_STRING_OR_NULL: return cJSON_IsString(v) || cJSON_IsNull(v);
  case FIELD_BOOL: return cJSON_IsBool(v);
  case FIELD_MS: return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
                        v->valuedouble >= 0;
  case FIELD_RATIO_OR_NULL:
    return cJSON_IsNull(v) || (cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
                               v->valuedouble > 0);
  }
  return false;
}

static const cJSON *field_value(const cJSON *obj, int i) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, fields[i].name);
  if (!v && fields[i].alias)
    v = cJSON_GetObjectItemCaseSensitive(obj, fields[i].alias);
  return v;
}

static const char *json_type_name(const cJSON *v) {
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsBool(v)) return "a boolean";
  if (cJSON_IsNull(v)) return "null";
  if (cJSON_IsArray(v)) return "an array";
  return "an object";
}

// Checks one parsed line; on success returns the record (known fields only,
// missing ones null, plus "file"), else NULL with the reason in `why`.
static cJSON *validate(const cJSON *obj, const char *file, strbuf *why) {
  if (!cJSON_IsObject(obj)) {
    sb_printf(why, "not a JSON object but %s", json_type_name(obj));
    return NULL;
  }
  for (int i = 0; i < NFIELDS; i++) {
    const cJSON *v = field_value(obj, i);
    if (!v && fields[i].required) {
      sb_printf(why, "no \"%s\" field", fields[i].name);
      return NULL;
    }
    if (v && !field_ok(fields[i].kind, v)) {
      sb_printf(why, "\"%s\" must be %s, got %s", fields[i].name,
                kind_text[fields[i].kind], json_type_name(v));
      if (cJSON_IsNumber(v))
        sb_printf(why, " %g", v->valuedouble);
      return NULL;
    }
  }
  cJSON *rec = cJSON_CreateObject();
  for (int i = 0; rec && i < NFIELDS; i++) {
    const cJSON *v = field_value(obj, i);
    cJSON *copy = v ? cJSON_Duplicate(v, false) : cJSON_CreateNull();
    if (!copy || !cJSON_AddItemToObject(rec, fields[i].name, copy)) {
      cJSON_Delete(copy);
      cJSON_Delete(rec);
      rec = NULL;
    }
  }
  if (rec && !cJSON_AddStringToObject(rec, "file", file)) {
    cJSON_Delete(rec);
    rec = NULL;
  }
  if (!rec)
    sb_printf(why, "out of memory");
  return rec;
}

// ----------------------------------------------------------------------------
// reading the files

typedef struct {
  cJSON *records, *files, *skips; // arrays of the page's data
  long skipped;
} dash_data;

static void skip_line(dash_data *d, const char *file, long line, long col,
                      const char *why) {
  d->skipped++;
  if (d->skipped > MAX_REPORTED_SKIPS)
    return;
  char where[4200];
  snprintf(where, sizeof where, "%s:%ld:%ld", file, line, col);
  fprintf(stderr, "mqss: dashboard: %s: skipped: %s\n", where, why);
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "where", where);
  cJSON_AddStringToObject(s, "why", why);
  cJSON_AddItemToArray(d->skips, s);
}

// Reads one JSONL file into `d`. False (message printed) when it cannot be
// read; corrupt lines are skipped, not errors.
static bool read_file(dash_data *d, const char *path) {
  strbuf text = {0};
  errno = 0;
  if (!sb_read_file(&text, path)) {
    cli_error("dashboard: cannot read '%s': %s", path,
              errno ? strerror(errno) : "read error");
    sb_free(&text);
    return false;
  }
  long nrec = 0, nskip = d->skipped, lineno = 0;
  strbuf why = {0};
  for (const char *p = text.data, *end = text.data + text.len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    lineno++;
    size_t len = (size_t)(eol - p);
    if (strspn(p, " \t\r") < len) { // blank lines are not records
      const char *err = NULL;
      cJSON *obj = cJSON_ParseWithLengthOpts(p, len, &err, false);
      sb_clear(&why);
      cJSON *rec = NULL;
      long col = 1;
      if (!obj) {
        col = err && err >= p ? (long)(err - p) + 1 : 1;
        sb_printf(&why, "not valid JSON");
      } else {
        // Trailing text after the object is corruption too (torn writes).
        const char *rest = err ? err : eol;
        if (rest < eol && strspn(rest, " \t\r") < (size_t)(eol - rest)) {
          col = (long)(rest - p) + 1;
          sb_printf(&why, "text after the JSON value");
        } else if (cJSON_GetObjectItemCaseSensitive(obj, "fnv1a") &&
                   !mqss_metrics_line_check(p, len)) {
          sb_printf(&why, "checksum mismatch (edited or torn line)");
        } else {
          rec = validate(obj, path, &why);
        }
      }
      cJSON_Delete(obj);
      if (rec) {
        cJSON_AddItemToArray(d->records, rec);
        nrec++;
      } else {
        skip_line(d, path, lineno, col, why.data);
      }
    }
    p = eol + 1;
  }
  cJSON *f = cJSON_CreateObject();
  cJSON_AddStringToObject(f, "path", path);
  cJSON_AddNumberToObject(f, "records", (double)nrec);
  cJSON_AddNumberToObject(f, "skipped", (double)(d->skipped - nskip));
  cJSON_AddItemToArray(d->files, f);
  sb_free(&why);
  sb_free(&text);
  return true;
}

// ----------------------------------------------------------------------------
// writing the page

// The data as JSON that is safe inside a <script> element: '<', '>' and '&'
// can only occur inside JSON strings, where \u escapes mean the same.
static void append_script_safe(strbuf *out, const char *json) {
  for (const char *p = json; *p; p++) {
    if (*p == '<' || *p == '>' || *p == '&')
      sb_printf(out, "\\u%04x", (unsigned)*p);
    else
      sb_append(out, p, 1);
  }
}

static int write_page(const char *out, const char *json) {
  const char *at = strstr(dashboard_page, placeholder);
  if (!at)
    return cli_error("dashboard: the page template has no %s placeholder "
                     "(tools/dashboard.html); rebuild mqss", placeholder);
  strbuf page = {0};
  sb_append(&page, dashboard_page, (size_t)(at - dashboard_page));
  append_script_safe(&page, json);
  const char *after = at + strlen(placeholder);
  sb_append(&page, after, dashboard_page_len - (size_t)(after - dashboard_page));
  FILE *f = fopen(out, "wb");
  if (!f) {
    int e = errno;
    sb_free(&page);
    return cli_error("dashboard: cannot write '%s': %s (use -o with a "
                     "writable path)", out, strerror(e));
  }
  bool ok = fwrite(page.data, 1, page.len, f) == page.len;
  int e = errno;
  if (fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  sb_free(&page);
  if (!ok)
    return cli_error("dashboard: cannot write '%s': %s", out, strerror(e));
  return 0;
}

int cmd_dashboard(int argc, char **argv) {
  const char *out = NULL;
  int nfiles = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-o")) {
      if (i + 1 >= argc)
        return cli_error("dashboard: -o needs a value; see 'mqss dashboard --help'");
      out = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_error("dashboard: unknown option '%s'; see 'mqss dashboard "
                       "--help'", argv[i]);
    } else {
      argv[1 + nfiles++] = argv[i]; // compact the file names in place
    }
  }
  if (!nfiles)
    return cli_error("dashboard: no input file; usage: mqss dashboard "
                     "FILE.jsonl... -o OUT.html");
  if (!out)
    return cli_error("dashboard: no output; pass -o OUT.html");

  dash_data d = {cJSON_CreateArray(), cJSON_CreateArray(), cJSON_CreateArray(), 0};
  cJSON *root = cJSON_CreateObject();
  int rc = 0;
  for (int i = 0; i < nfiles && !rc; i++)
    if (!read_file(&d, argv[1 + i]))
      rc = 1;
  if (!rc) {
    char gen[128];
    snprintf(gen, sizeof gen, "mqss %s (MLIR %s)", mqss_version(),
             mqss_mlir_version());
    cJSON_AddStringToObject(root, "generator", gen);
    cJSON_AddItemToObject(root, "files", d.files);
    cJSON_AddNumberToObject(root, "skipped_total", (double)d.skipped);
    cJSON_AddItemToObject(root, "skipped", d.skips);
    cJSON_AddItemToObject(root, "records", d.records);
    d.files = d.skips = d.records = NULL; // owned by root now
    char *json = cJSON_PrintUnformatted(root);
    rc = json ? write_page(out, json) : cli_error("out of memory");
    cJSON_free(json);
  }
  if (!rc) {
    if (d.skipped > MAX_REPORTED_SKIPS)
      fprintf(stderr, "mqss: dashboard: ... and %ld more\n",
              d.skipped - MAX_REPORTED_SKIPS);
    if (d.skipped)
      fprintf(stderr, "mqss: dashboard: %ld corrupt line%s skipped\n",
              d.skipped, d.skipped == 1 ? "" : "s");
    printf("wrote %s: %d records from %d file%s, %ld line%s skipped\n", out,
           cJSON_GetArraySize(cJSON_GetObjectItem(root, "records")), nfiles,
           nfiles == 1 ? "" : "s", d.skipped, d.skipped == 1 ? "" : "s");
  }
  cJSON_Delete(d.records);
  cJSON_Delete(d.files);
  cJSON_Delete(d.skips);
  cJSON_Delete(root);
  return rc;
}
