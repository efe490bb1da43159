// Loader of the per-family hand-tuned baseline pipelines (data/baselines.yaml):
//
//   version: 1
//   families:
//     conv2d:
//       pipeline: "..."     # run before the finisher; "" = finisher only
//
// A relative transform-library-paths= (a schedule script kept next to the
// file, e.g. data/schedules/) is resolved against the file's directory, so
// the table works from any working directory.
// It only reads the file into a small table; measuring the baselines is the
// CLI's job (tools/cmd_baseline.c) through mqss_measure().
#include "corpus.h"
#include "util/yaml_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BASELINES = 64 };

struct mqss_baselines {
  int n;
  char *family[MAX_BASELINES];   // owned
  char *pipeline[MAX_BASELINES]; // owned, library paths resolved
  char *raw[MAX_BASELINES];      // owned, as written in the file
};

// ----------------------------------------------------------------------------
// YAML helpers

static const char *scalar(yaml_document_t *d, yaml_node_t *n) {
  (void)d;
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                          : NULL;
}

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *map,
                            const char *key) {
  if (!map || map->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++) {
    const char *k = scalar(d, yaml_document_get_node(d, p->key));
    if (k && !strcmp(k, key))
      return yaml_document_get_node(d, p->value);
  }
  return NULL;
}

// ----------------------------------------------------------------------------
// schedule scripts next to the file

// pipe with every relative transform-library-paths= path prefixed by the
// directory of yaml_path, made absolute when it exists, so that the same
// file gives the same text from any working directory (a catalog's recipe
// action and mqss eval's baseline then compare equal); malloc'd, NULL when
// out of memory.
static char *resolve_libraries(const char *yaml_path, const char *pipe) {
  static const char key[] = "transform-library-paths=";
  const char *slash = strrchr(yaml_path, '/');
  char rel[4096];
  snprintf(rel, sizeof rel, "%.*s", slash ? (int)(slash - yaml_path) : 1,
           slash ? yaml_path : ".");
  char *abs = realpath(rel, NULL);
  const char *dir = abs ? abs : rel;
  strbuf sb = {0};
  sb_append(&sb, "", 0);
  for (const char *p = pipe, *k; *p; p = k) {
    k = strstr(p, key);
    if (!k) {
      sb_append(&sb, p, strlen(p));
      break;
    }
    k += sizeof key - 1;
    sb_append(&sb, p, (size_t)(k - p));
    if (*k != '/')
      sb_printf(&sb, "%s/", dir);
  }
  free(abs);
  return sb.data;
}

// ----------------------------------------------------------------------------
// load

void mqss_baselines_destroy(mqss_baselines *b) {
  if (!b)
    return;
  for (int i = 0; i < b->n; i++) {
    free(b->family[i]);
    free(b->pipeline[i]);
    free(b->raw[i]);
  }
  free(b);
}

mqss_status mqss_baselines_load(mqss_session *s, const char *path,
                                mqss_baselines **out) {
  if (!s || !path || !out)
    return s ? fail(s, MQSS_ERR_INVALID_ARG, "baselines: no path given")
             : MQSS_ERR_INVALID_ARG;
  *out = NULL;
  yaml_document_t doc;
  mqss_status st = yaml_load_file(s, path, "", NULL, &doc);
  if (st != MQSS_OK)
    return st;
  mqss_baselines *b = calloc(1, sizeof *b);
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  yaml_node_t *fams = map_get(&doc, root, "families");
  if (!b) {
    st = fail(s, MQSS_ERR_NOMEM, "out of memory");
  } else if (!fams || fams->type != YAML_MAPPING_NODE) {
    st = fail(s, MQSS_ERR_PARSE,
              "cannot parse '%s': %s:1:1: expected a 'families:' mapping of "
              "family name to {pipeline: TEXT}",
              path, path);
  } else {
    for (yaml_node_pair_t *p = fams->data.mapping.pairs.start;
         p < fams->data.mapping.pairs.top && st == MQSS_OK; p++) {
      yaml_node_t *kn = yaml_document_get_node(&doc, p->key);
      yaml_node_t *vn = yaml_document_get_node(&doc, p->value);
      const char *name = scalar(&doc, kn);
      const char *pipe = scalar(&doc, map_get(&doc, vn, "pipeline"));
      if (!name || !pipe) {
        st = fail(s, MQSS_ERR_PARSE,
                  "cannot parse '%s': %s:%zu:%zu: each family needs a "
                  "'pipeline:' string",
                  path, path, kn->start_mark.line + 1,
                  kn->start_mark.column + 1);
      } else if (b->n == MAX_BASELINES) {
        st = fail(s, MQSS_ERR_PARSE, "cannot parse '%s': more than %d families",
                  path, MAX_BASELINES);
      } else {
        b->family[b->n] = strdup(name);
        b->pipeline[b->n] = resolve_libraries(path, pipe);
        b->raw[b->n] = strdup(pipe);
        if (!b->family[b->n] || !b->pipeline[b->n] || !b->raw[b->n])
          st = fail(s, MQSS_ERR_NOMEM, "out of memory");
        b->n++;
      }
    }
  }
  yaml_document_delete(&doc);
  if (st != MQSS_OK) {
    mqss_baselines_destroy(b);
    return st;
  }
  *out = b;
  return MQSS_OK;
}

static int find(const mqss_baselines *b, const char *family) {
  for (int i = 0; b && family && i < b->n; i++)
    if (!strcmp(b->family[i], family))
      return i;
  return -1;
}

const char *mqss_baselines_pipeline(const mqss_baselines *b,
                                    const char *family) {
  int i = find(b, family);
  return i < 0 ? NULL : b->pipeline[i];
}

const char *baselines_raw_pipeline(const mqss_baselines *b,
                                   const char *family) {
  int i = find(b, family);
  return i < 0 ? NULL : b->raw[i];
}
