// Loading a YAML file into a libyaml document, with errors that name the
// file, line and column. Shared by the catalog, the baselines and the
// training configuration; what the document means is theirs.
#ifndef MQSS_UTIL_YAML_FILE_H
#define MQSS_UTIL_YAML_FILE_H

#include "internal.h"

#include <yaml.h>

// Loads the first document of `path` into *doc; free it with
// yaml_document_delete(). Fails with MQSS_ERR_IO ("cannot open WHAT'PATH':
// reason HINT") or MQSS_ERR_PARSE ("PATH:LINE:COL: problem; fix the YAML
// syntax", or "PATH:LINE:COL: duplicate key 'K' ..." for a key repeated in
// one mapping). `what` ("catalog ") and `hint` may be "" / NULL.
mqss_status yaml_load_file(mqss_session *s, const char *path, const char *what,
                           const char *hint, yaml_document_t *doc);

#endif // MQSS_UTIL_YAML_FILE_H
