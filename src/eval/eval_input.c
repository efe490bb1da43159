// What `mqss eval` evaluates: the list of modules (from a manifest, a
// directory or files), each module's family (manifest column, baseline.json's
// "family", or the corpus header comment) and the random-search results of
// `--search-json DIR`. It reads files only; it never parses MLIR or measures.
#include "eval/eval.h"
#include "util/manifest.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// helpers

char *eval_read_file(const char *path, size_t *len) {
  strbuf sb = {0};
  if (!sb_read_file(&sb, path)) {
    sb_free(&sb);
    return NULL;
  }
  if (len)
    *len = sb.len;
  return sb.data;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static mqss_status push(mqss_session *s, eval_inputs *in, const char *path,
                        const char *family, const char *source) {
  if (in->n == in->cap) {
    int cap = in->cap ? 2 * in->cap : 16;
    eval_input *v = realloc(in->v, (size_t)cap * sizeof *v);
    if (!v)
      return fail(s, MQSS_ERR_NOMEM, "out of memory");
    in->v = v;
    in->cap = cap;
  }
  eval_input *e = &in->v[in->n];
  memset(e, 0, sizeof *e);
  e->path = strdup(path);
  e->file = strdup(base_name(path));
  if (family && *family && strcmp(family, "-")) {
    e->family = strdup(family);
    e->family_source = source;
  }
  if (!e->path || !e->file) {
    free(e->path);
    free(e->file);
    free(e->family);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  in->n++;
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// sources

mqss_status eval_inputs_add_manifest(mqss_session *s, eval_inputs *in,
                                     const char *path) {
  manifest_list m;
  mqss_status st = manifest_read(s, path, &m);
  for (int i = 0; st == MQSS_OK && i < m.n; i++)
    st = push(s, in, m.v[i].path, m.v[i].family, "manifest");
  manifest_free(&m);
  return st;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

mqss_status eval_inputs_add_dir(mqss_session *s, eval_inputs *in,
                                const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return fail(s, MQSS_ERR_IO, "cannot read directory '%s': %s", dir,
                strerror(errno));
  char **names = NULL;
  int n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".mlir"))
      continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 32;
      char **v = realloc(names, (size_t)cap * sizeof *v);
      if (!v)
        break;
      names = v;
    }
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (n)
    qsort(names, (size_t)n, sizeof *names, cmp_str);
  mqss_status st = MQSS_OK;
  char full[4096];
  for (int i = 0; i < n; i++) {
    if (st == MQSS_OK && names[i]) {
      snprintf(full, sizeof full, "%s/%s", dir, names[i]);
      st = push(s, in, full, NULL, NULL);
    }
    free(names[i]);
  }
  free(names);
  if (st == MQSS_OK && !n)
    st = fail(s, MQSS_ERR_INVALID_ARG, "directory '%s' holds no .mlir file", dir);
  return st;
}

mqss_status eval_inputs_add_file(mqss_session *s, eval_inputs *in,
                                 const char *path) {
  struct stat sbuf;
  if (stat(path, &sbuf) != 0)
    return fail(s, MQSS_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  if (S_ISDIR(sbuf.st_mode))
    return eval_inputs_add_dir(s, in, path);
  size_t len = strlen(path);
  if (len > 4 && !strcmp(path + len - 4, ".tsv"))
    return eval_inputs_add_manifest(s, in, path);
  return push(s, in, path, NULL, NULL);
}

// ----------------------------------------------------------------------------
// families

// "(family NAME," in the first lines of the corpus header comment.
static char *family_from_header(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  char line[1024];
  char *out = NULL;
  for (int i = 0; i < 3 && !out && fgets(line, sizeof line, f); i++) {
    if (strncmp(line, "//", 2))
      break;
    const char *p = strstr(line, "(family ");
    if (!p)
      continue;
    p += 8;
    size_t k = strcspn(p, ", )\n");
    if (k > 0 && k < 64)
      out = strndup(p, k);
  }
  fclose(f);
  return out;
}

mqss_status eval_inputs_resolve(mqss_session *s, eval_inputs *in,
                                const char *baseline_json) {
  cJSON *root = NULL;
  if (baseline_json) {
    char *text = eval_read_file(baseline_json, NULL);
    if (!text)
      return fail(s, MQSS_ERR_IO, "cannot read '%s': %s", baseline_json,
                  strerror(errno));
    root = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(root)) {
      cJSON_Delete(root);
      return fail(s, MQSS_ERR_PARSE,
                  "cannot parse '%s': expected a JSON object keyed by module "
                  "file name (mqss baseline -o)", baseline_json);
    }
  }
  for (int i = 0; i < in->n; i++) {
    eval_input *e = &in->v[i];
    cJSON *obj = root ? cJSON_GetObjectItemCaseSensitive(root, e->file) : NULL;
    cJSON *fam = cJSON_GetObjectItemCaseSensitive(obj, "family");
    cJSON *pipe = cJSON_GetObjectItemCaseSensitive(obj, "pipeline");
    if (cJSON_IsString(pipe))
      e->baseline_pipeline = strdup(pipe->valuestring);
    if (e->family)
      continue;
    if (cJSON_IsString(fam) && *fam->valuestring) {
      e->family = strdup(fam->valuestring);
      e->family_source = "baseline.json";
    } else if ((e->family = family_from_header(e->path))) {
      e->family_source = "header";
    }
  }
  cJSON_Delete(root);
  return MQSS_OK;
}

void eval_inputs_free(eval_inputs *in) {
  for (int i = 0; i < in->n; i++) {
    free(in->v[i].file);
    free(in->v[i].path);
    free(in->v[i].family);
    free(in->v[i].baseline_pipeline);
  }
  free(in->v);
  memset(in, 0, sizeof *in);
}

static char default_baselines[4096];

static void init_default_baselines(void) {
  source_tree_path(default_baselines, sizeof default_baselines, __FILE__,
                   "src/eval/eval_input.c", "data/baselines.yaml");
}

const char *eval_default_baselines_path(void) {
  if (access("data/baselines.yaml", R_OK) == 0)
    return "data/baselines.yaml";
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_default_baselines);
  return default_baselines;
}

// ----------------------------------------------------------------------------
// search results

int eval_search_load(const char *dir, const char *file, eval_search_info *out,
                     char *why, size_t why_len) {
  memset(out, 0, sizeof *out);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.json", dir, file);
  char *text = eval_read_file(path, NULL);
  if (!text) {
    size_t len = strlen(file);
    if (len > 5 && !strcmp(file + len - 5, ".mlir")) {
      snprintf(path, sizeof path, "%s/%.*s.json", dir, (int)(len - 5), file);
      text = eval_read_file(path, NULL);
    }
  }
  if (!text)
    return 0;
  cJSON *j = cJSON_Parse(text);
  free(text);
  cJSON *conf = cJSON_GetObjectItemCaseSensitive(j, "confirmed_speedup");
  cJSON *sp = cJSON_GetObjectItemCaseSensitive(j, "speedup");
  cJSON *wall = cJSON_GetObjectItemCaseSensitive(j, "wall_ms");
  cJSON *ev = cJSON_GetObjectItemCaseSensitive(j, "evaluations");
  cJSON *best = cJSON_GetObjectItemCaseSensitive(j, "best_pipeline");
  int rc = 1;
  if (!cJSON_IsNumber(wall) || (!cJSON_IsNumber(conf) && !cJSON_IsNumber(sp))) {
    snprintf(why, why_len, "%s: not a 'mqss search --json' result (no wall_ms "
             "or speedup)", path);
    rc = -1;
  } else {
    if (cJSON_IsNumber(conf) && conf->valuedouble > 0) {
      out->speedup = conf->valuedouble;
      out->confirmed = 1;
    } else {
      out->speedup = cJSON_IsNumber(sp) ? sp->valuedouble : 0;
    }
    out->wall_ms = wall->valuedouble;
    out->evaluations = cJSON_IsNumber(ev) ? ev->valueint : 0;
    out->best_pipeline = strdup(cJSON_IsString(best) ? best->valuestring : "");
    if (out->speedup <= 0) {
      snprintf(why, why_len, "%s: search speedup is not positive", path);
      rc = -1;
    }
  }
  cJSON_Delete(j);
  return rc;
}
