// Per-iteration training logs in two formats: JSON Lines (one object a line,
// for programs) and CSV (for gnuplot and spreadsheets). See metrics.h.
#include "rl/metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const names[] = {
#define METRIC_NAME(e, name) name,
    METRIC_TABLE(METRIC_NAME)
#undef METRIC_NAME
};

const char *metric_name(metric_id m) {
  return m < METRIC_COUNT ? names[m] : "unknown";
}

struct metrics_log {
  mqss_session *session;
  FILE *jsonl;
  FILE *csv;
};

// ----------------------------------------------------------------------------
// resuming: keep the rows up to an iteration

// The iteration a complete log line records, or -1 when the line is torn
// (no trailing newline: the run died while writing it) or does not start
// with one. The iteration is the first field of both formats.
static long line_iteration(const char *line, size_t n, bool csv) {
  if (n == 0 || line[n - 1] != '\n')
    return -1;
  const char *key = "{\"iteration\":";
  const char *p = line;
  if (!csv) {
    if (strncmp(line, key, strlen(key)))
      return -1;
    p += strlen(key);
  }
  char *end;
  errno = 0;
  long it = strtol(p, &end, 10);
  if (end == p || errno || it < 0 || (*end != ',' && *end != '}'))
    return -1;
  return it;
}

// Rewrites `path` keeping the header (CSV) and the complete rows of
// iterations up to `keep_upto`. A missing file is fine.
static bool filter_file(const char *path, int keep_upto, bool csv) {
  FILE *in = fopen(path, "r");
  if (!in)
    return errno == ENOENT;
  strbuf kept = {0};
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  bool header = csv;
  while ((n = getline(&line, &cap, in)) > 0) {
    long it = line_iteration(line, (size_t)n, csv);
    // A torn header is dropped too; metrics_open writes a new one.
    bool complete = line[n - 1] == '\n';
    if ((header && complete) || (it >= 0 && it <= keep_upto))
      sb_append(&kept, line, (size_t)n);
    header = false;
  }
  free(line);
  fclose(in);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *out = fopen(tmp, "w");
  bool ok = out && fwrite(kept.data ? kept.data : "", 1, kept.len, out) == kept.len;
  ok = out && fclose(out) == 0 && ok;
  sb_free(&kept);
  return ok && rename(tmp, path) == 0;
}

mqss_status metrics_open(mqss_session *s, const char *dir, int keep_upto,
                         metrics_log **out) {
  *out = NULL;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return fail(s, MQSS_ERR_IO, "cannot create log directory '%s': %s", dir,
                strerror(errno));
  char jpath[4096], cpath[4096];
  snprintf(jpath, sizeof jpath, "%s/metrics.jsonl", dir);
  snprintf(cpath, sizeof cpath, "%s/metrics.csv", dir);
  bool resume = keep_upto >= 0;
  if (resume && (!filter_file(jpath, keep_upto, false) ||
                 !filter_file(cpath, keep_upto, true)))
    return fail(s, MQSS_ERR_IO, "cannot rewrite the logs in '%s': %s", dir,
                strerror(errno));
  metrics_log *log = calloc(1, sizeof *log);
  if (!log)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  log->session = s;
  log->jsonl = fopen(jpath, resume ? "a" : "w");
  log->csv = fopen(cpath, resume ? "a" : "w");
  if (!log->jsonl || !log->csv) {
    metrics_close(log);
    return fail(s, MQSS_ERR_IO, "cannot write the logs in '%s': %s", dir,
                strerror(errno));
  }
  if (ftell(log->csv) == 0) {
    for (int m = 0; m < METRIC_COUNT; m++)
      fprintf(log->csv, "%s%s", m ? "," : "", names[m]);
    fputc('\n', log->csv);
    fflush(log->csv);
  }
  *out = log;
  return MQSS_OK;
}

mqss_status metrics_write(metrics_log *log, const double v[METRIC_COUNT]) {
  fputc('{', log->jsonl);
  for (int m = 0; m < METRIC_COUNT; m++) {
    if (isfinite(v[m])) // JSON has no NaN: a missing figure is null
      fprintf(log->jsonl, "%s\"%s\":%.9g", m ? "," : "", names[m], v[m]);
    else
      fprintf(log->jsonl, "%s\"%s\":null", m ? "," : "", names[m]);
    fprintf(log->csv, "%s%.9g", m ? "," : "", v[m]);
  }
  fputs("}\n", log->jsonl);
  fputc('\n', log->csv);
  if (fflush(log->jsonl) != 0 || fflush(log->csv) != 0)
    return fail(log->session, MQSS_ERR_IO, "cannot write the training logs: %s",
                strerror(errno));
  return MQSS_OK;
}

void metrics_close(metrics_log *log) {
  if (!log)
    return;
  if (log->jsonl)
    fclose(log->jsonl);
  if (log->csv)
    fclose(log->csv);
  free(log);
}
