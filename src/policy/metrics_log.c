// The deployment metrics log: one JSON object a line (JSONL) per compiled
// module, written by mqss-opt and the pass plugin, read by dashboards. Each
// line carries its own FNV-1a checksum as its last field, so a torn or edited
// line is detected (mqss_metrics_line_check) and never trusted. This file
// only formats, appends and checks lines; it decides nothing.
#include "internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// The checksum field closes every line: ,"fnv1a":"<16 hex digits>"}
static const char CHECK_KEY[] = ",\"fnv1a\":\"";
enum { CHECK_HEX = 16 };

void mqss_metrics_record_init(mqss_metrics_record *r) {
  memset(r, 0, sizeof *r);
  r->time_budget_ms = -1;
}

// ----------------------------------------------------------------------------
// formatting

static void add_string_or_null(cJSON *j, const char *key, const char *v) {
  if (v)
    cJSON_AddStringToObject(j, key, v);
  else
    cJSON_AddNullToObject(j, key);
}

static void add_positive_or_null(cJSON *j, const char *key, double v) {
  if (v > 0)
    cJSON_AddNumberToObject(j, key, v);
  else
    cJSON_AddNullToObject(j, key);
}

static cJSON *record_json(const mqss_metrics_record *r) {
  cJSON *j = cJSON_CreateObject();
  if (!j)
    return NULL;
  char hash[17];
  snprintf(hash, sizeof hash, "%016" PRIx64, r->module_hash);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  cJSON_AddNumberToObject(j, "v", MQSS_METRICS_FORMAT);
  cJSON_AddNumberToObject(j, "time", (double)ts.tv_sec + ts.tv_nsec * 1e-9);
  add_string_or_null(j, "tool", r->tool);
  add_string_or_null(j, "source", r->source);
  cJSON_AddStringToObject(j, "module", hash);
  cJSON_AddBoolToObject(j, "selector", r->selector != 0);
  add_string_or_null(j, "chosen", r->chosen);
  cJSON_AddNumberToObject(j, "decisions", r->decisions);
  add_string_or_null(j, "pipeline", r->pipeline);
  cJSON_AddNumberToObject(j, "decision_ms", r->decision_ms);
  cJSON_AddBoolToObject(j, "fallback", r->fallback != 0);
  add_string_or_null(j, "fallback_reason", r->fallback_reason);
  if (r->time_budget_ms >= 0)
    cJSON_AddNumberToObject(j, "time_budget_ms", r->time_budget_ms);
  else
    cJSON_AddNullToObject(j, "time_budget_ms");
  cJSON_AddBoolToObject(j, "budget_hit", r->budget_hit != 0);
  cJSON_AddNumberToObject(j, "compile_ms", r->compile_ms);
  cJSON_AddBoolToObject(j, "guarded", r->guarded != 0);
  add_string_or_null(j, "verdict", r->verdict);
  add_positive_or_null(j, "speedup", r->speedup);
  add_positive_or_null(j, "speedup_lo", r->speedup_lo);
  add_positive_or_null(j, "speedup_hi", r->speedup_hi);
  return j;
}

char *mqss_metrics_format(const mqss_metrics_record *r) {
  if (!r)
    return NULL;
  cJSON *j = record_json(r);
  char *body = j ? cJSON_PrintUnformatted(j) : NULL;
  cJSON_Delete(j);
  if (!body)
    return NULL;
  // body is "{...}": the checksum covers "{..." and replaces the brace
  size_t n = strlen(body) - 1;
  uint64_t h = fnv1a64(FNV1A64_INIT, body, n);
  size_t cap = n + sizeof CHECK_KEY + CHECK_HEX + 4;
  char *line = malloc(cap);
  if (line)
    snprintf(line, cap, "%.*s%s%016" PRIx64 "\"}\n", (int)n, body, CHECK_KEY,
             h);
  free(body);
  return line;
}

// ----------------------------------------------------------------------------
// appending and checking

mqss_status mqss_metrics_append(mqss_session *s, const char *path,
                                const mqss_metrics_record *r) {
  if (!s)
    return MQSS_ERR_INVALID_ARG;
  diag_reset(s, NULL);
  if (!path || !r)
    return fail(s, MQSS_ERR_INVALID_ARG, "metrics: NULL argument");
  char *line = mqss_metrics_format(r);
  if (!line)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  size_t len = strlen(line);
  // One write() of the whole line with O_APPEND: processes appending to the
  // same log at once do not interleave their lines.
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  ssize_t n = fd >= 0 ? write(fd, line, len) : -1;
  int err = errno;
  free(line);
  if (fd >= 0 && close(fd) != 0 && n >= 0) {
    n = -1;
    err = errno;
  }
  if (n != (ssize_t)len)
    return fail(s, MQSS_ERR_IO, "cannot append to the metrics log '%s': %s; "
                "give a writable path", path,
                n < 0 ? strerror(err) : "short write");
  return MQSS_OK;
}

int mqss_metrics_line_check(const char *line, size_t len) {
  if (!line)
    return 0;
  while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    len--;
  size_t key = sizeof CHECK_KEY - 1, tail = key + CHECK_HEX + 2;
  if (len < tail + 1 || line[0] != '{')
    return 0;
  size_t cut = len - tail;
  const char *p = line + cut;
  if (memcmp(p, CHECK_KEY, key) || memcmp(p + key + CHECK_HEX, "\"}", 2))
    return 0;
  uint64_t want = 0;
  for (int i = 0; i < CHECK_HEX; i++) {
    char c = p[key + i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0)
      return 0;
    want = want << 4 | (uint64_t)d;
  }
  return fnv1a64(FNV1A64_INIT, line, cut) == want;
}
