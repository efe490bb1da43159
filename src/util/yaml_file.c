// Loads a YAML file into a libyaml document (see yaml_file.h), refusing
// repeated keys.
#include "util/yaml_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

// YAML says keys are unique, but libyaml keeps every pair and the loaders
// look keys up first-match or last-match: a repeated key would be silently
// ignored. Refuses the first repeated scalar key of any mapping.
static mqss_status check_duplicate_keys(mqss_session *s, const char *path,
                                        yaml_document_t *doc) {
  for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++) {
    if (n->type != YAML_MAPPING_NODE)
      continue;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(doc, p->key);
      if (!k || k->type != YAML_SCALAR_NODE)
        continue;
      for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
        yaml_node_t *e = yaml_document_get_node(doc, q->key);
        if (e && e->type == YAML_SCALAR_NODE &&
            e->data.scalar.length == k->data.scalar.length &&
            !memcmp(e->data.scalar.value, k->data.scalar.value,
                    k->data.scalar.length))
          return fail(s, MQSS_ERR_PARSE,
                      "%s:%zu:%zu: duplicate key '%s' (first at line %zu); "
                      "keep one of them", path, k->start_mark.line + 1,
                      k->start_mark.column + 1,
                      (const char *)k->data.scalar.value,
                      e->start_mark.line + 1);
      }
    }
  }
  return MQSS_OK;
}

mqss_status yaml_load_file(mqss_session *s, const char *path, const char *what,
                           const char *hint, yaml_document_t *doc) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot open %s'%s': %s%s%s", what, path,
                strerror(errno), hint ? " " : "", hint ? hint : "");
  yaml_parser_t parser;
  mqss_status st = MQSS_OK;
  if (!yaml_parser_initialize(&parser)) {
    st = fail(s, MQSS_ERR_NOMEM, "out of memory");
  } else {
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, doc))
      st = fail(s, MQSS_ERR_PARSE, "%s:%zu:%zu: %s%s%s; fix the YAML syntax",
                path, parser.problem_mark.line + 1,
                parser.problem_mark.column + 1,
                parser.problem ? parser.problem : "invalid YAML",
                parser.context ? " " : "", parser.context ? parser.context : "");
    else if ((st = check_duplicate_keys(s, path, doc)) != MQSS_OK)
      yaml_document_delete(doc);
    yaml_parser_delete(&parser);
  }
  fclose(f);
  return st;
}
