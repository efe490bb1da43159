// Reads a corpus manifest (see manifest.h).
#include "util/manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void manifest_free(manifest_list *m) {
  for (int i = 0; i < m->n; i++) {
    free(m->v[i].path);
    free(m->v[i].file);
    free(m->v[i].family);
  }
  free(m->v);
  m->v = NULL;
  m->n = 0;
}

static bool skipped(const char *line) {
  line += strspn(line, " \t");
  return !*line || *line == '#';
}

// Why the module at `path` cannot be read, or NULL when it can.
static const char *unreadable(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || access(path, R_OK) != 0)
    return strerror(errno);
  return S_ISDIR(st.st_mode) ? "it is a directory" : NULL;
}

static mqss_status add(mqss_session *s, manifest_list *m, int *cap, char *line,
                       int lineno, const char *dir) {
  if (m->n == *cap) {
    int grown = *cap ? 2 * *cap : 64;
    manifest_entry *v = realloc(m->v, (size_t)grown * sizeof *v);
    if (!v)
      return fail(s, MQSS_ERR_NOMEM, "out of memory");
    m->v = v;
    *cap = grown;
  }
  char *tab = strchr(line, '\t');
  if (tab)
    *tab = '\0';
  const char *family = tab ? tab + 1 : "";
  size_t flen = strcspn(family, "\t");
  manifest_entry *e = &m->v[m->n++];
  *e = (manifest_entry){.line = lineno};
  e->file = strdup(line);
  e->family = strndup(family, flen);
  bool absolute = line[0] == '/';
  size_t plen = strlen(dir) + strlen(line) + 2;
  if ((e->path = malloc(plen)))
    snprintf(e->path, plen, "%s%s%s", absolute ? "" : dir, absolute ? "" : "/",
             line);
  if (!e->file || !e->family || !e->path)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  return MQSS_OK;
}

mqss_status manifest_read(mqss_session *s, const char *path, manifest_list *out) {
  *out = (manifest_list){0};
  FILE *f = fopen(path, "r");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot read manifest '%s': %s", path,
                strerror(errno));
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, (size_t)(slash - path + (slash == path)))
                    : strdup(".");
  char *line = NULL;
  size_t cap = 0;
  int lineno = 0, slots = 0;
  mqss_status st = dir ? MQSS_OK : fail(s, MQSS_ERR_NOMEM, "out of memory");
  while (st == MQSS_OK && getline(&line, &cap, f) > 0) {
    lineno++;
    line[strcspn(line, "\r\n")] = '\0';
    if (!skipped(line))
      st = add(s, out, &slots, line, lineno, dir);
  }
  free(line);
  free(dir);
  fclose(f);
  for (int i = 0; st == MQSS_OK && i < out->n; i++) {
    const manifest_entry *e = &out->v[i];
    const char *why = unreadable(e->path);
    if (why)
      st = fail(s, MQSS_ERR_IO,
                "%s:%d:1: cannot read module '%s' ('%s': %s); a manifest's "
                "paths are relative to its own directory%s", path, e->line,
                e->file, e->path, why,
                strchr(e->file, ' ') ? ", and its columns are separated by "
                                       "tabs" : "");
  }
  if (st == MQSS_OK && !out->n)
    st = fail(s, MQSS_ERR_INVALID_ARG,
              "manifest '%s' lists no module; expected 'FILE<TAB>FAMILY...' "
              "lines (docs/CORPUS.md)", path);
  return st;
}
