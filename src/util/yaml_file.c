// Loads a YAML file into a libyaml document (see yaml_file.h).
#include "util/yaml_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

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
    yaml_parser_delete(&parser);
  }
  fclose(f);
  return st;
}
