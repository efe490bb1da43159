// The bad-sequence log: (module hash, action sequence) pairs that produced a
// wrong output or a crash, one JSON object per line in
// <cache_dir>/bad_sequences.jsonl, so later selections avoid them. Appends
// are single write() calls on an O_APPEND file, so several processes may
// log at once. It does not decide what is bad (guard.c does).
#include "policy/policy.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void log_path(char *buf, size_t n, const char *dir) {
  snprintf(buf, n, "%s/bad_sequences.jsonl", dir);
}

// ----------------------------------------------------------------------------
// append

int badlog_append(const char *dir, uint64_t hash, const mqss_selection *sel,
                  const char *why) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return -1;
  char hex[17], path[4096];
  snprintf(hex, sizeof hex, "%016" PRIx64, hash);
  log_path(path, sizeof path, dir);
  cJSON *j = cJSON_CreateObject();
  cJSON *seq = cJSON_CreateArray();
  if (!j || !seq) {
    cJSON_Delete(j);
    cJSON_Delete(seq);
    return -1;
  }
  cJSON_AddStringToObject(j, "module", hex);
  for (int i = 0; i < sel->n; i++)
    cJSON_AddItemToArray(seq, cJSON_CreateString(sel->step[i]));
  cJSON_AddItemToObject(j, "seq", seq);
  cJSON_AddStringToObject(j, "why", why ? why : "");
  char *text = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  if (!text)
    return -1;
  size_t len = strlen(text);
  text[len] = '\n'; // replaces the NUL; written with its length
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666);
  int rc = -1;
  if (fd >= 0) {
    rc = write(fd, text, len + 1) == (ssize_t)(len + 1) ? 0 : -1;
    close(fd);
  }
  free(text);
  return rc;
}

// ----------------------------------------------------------------------------
// load and match

void badlog_free(badlog *b) {
  for (int i = 0; i < b->n; i++) {
    for (int k = 0; k < b->len[i]; k++)
      free(b->seq[i][k]);
    free(b->seq[i]);
  }
  free(b->seq);
  free(b->len);
  memset(b, 0, sizeof *b);
}

int badlog_add(badlog *b, char *const *src, int n) {
  char **steps = calloc(n ? (size_t)n : 1, sizeof *steps);
  int *len = realloc(b->len, sizeof *len * (b->n + 1));
  if (len)
    b->len = len;
  char ***all = realloc(b->seq, sizeof *all * (b->n + 1));
  if (all)
    b->seq = all;
  if (!steps || !len || !all) {
    free(steps);
    return -1;
  }
  for (int k = 0; k < n; k++)
    steps[k] = strdup(src[k] ? src[k] : "");
  b->seq[b->n] = steps;
  b->len[b->n] = n;
  b->n++;
  return 0;
}

// Adds the sequence of one JSON record to b. Returns 0 or -1.
static int add_record(badlog *b, const cJSON *seq) {
  int n = cJSON_GetArraySize(seq);
  char **steps = calloc(n ? (size_t)n : 1, sizeof *steps);
  if (!steps)
    return -1;
  for (int k = 0; k < n; k++) {
    const cJSON *it = cJSON_GetArrayItem(seq, k);
    steps[k] = cJSON_IsString(it) ? it->valuestring : "";
  }
  int rc = badlog_add(b, steps, n);
  free(steps);
  return rc;
}

int badlog_load(const char *dir, uint64_t hash, badlog *out) {
  memset(out, 0, sizeof *out);
  char hex[17], path[4096];
  snprintf(hex, sizeof hex, "%016" PRIx64, hash);
  log_path(path, sizeof path, dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return errno == ENOENT ? 0 : -1;
  char *line = NULL;
  size_t cap = 0;
  int rc = 0;
  while (rc == 0 && getline(&line, &cap, f) >= 0) {
    cJSON *j = cJSON_Parse(line); // a torn or foreign line is skipped
    const cJSON *mod = cJSON_GetObjectItemCaseSensitive(j, "module");
    const cJSON *seq = cJSON_GetObjectItemCaseSensitive(j, "seq");
    if (cJSON_IsString(mod) && !strcmp(mod->valuestring, hex) &&
        cJSON_IsArray(seq))
      rc = add_record(out, seq);
    cJSON_Delete(j);
  }
  free(line);
  fclose(f);
  if (rc)
    badlog_free(out);
  return rc;
}

bool badlog_completes(const badlog *b, char *const *prefix, int n,
                      const char *next) {
  for (int i = 0; i < b->n; i++) {
    if (b->len[i] != n + 1 || !b->seq[i][n] || strcmp(b->seq[i][n], next))
      continue;
    int k = 0;
    while (k < n && b->seq[i][k] && !strcmp(b->seq[i][k], prefix[k]))
      k++;
    if (k == n)
      return true;
  }
  return false;
}
