// Reading a corpus manifest (docs/CORPUS.md, "Files"): one module a line,
// tab-separated, the module's file first (relative to the manifest's own
// directory unless absolute) and its family second; further columns are
// the generator's and are ignored here; '#' lines and blank lines are
// skipped. eval, train, expert iteration and baseline all read manifests
// through this one reader, so a manifest means the same to each of them.
#ifndef MQSS_UTIL_MANIFEST_H
#define MQSS_UTIL_MANIFEST_H

#include "internal.h"

typedef struct {
  char *path;   // the file resolved against the manifest's directory
  char *file;   // the first column, as written
  char *family; // the second column, "" when there is none
  int line;     // 1-based line of the manifest
} manifest_entry;

typedef struct {
  manifest_entry *v;
  int n;
} manifest_list;

// Reads the manifest at `path` into *out (free it with manifest_free(),
// also after a failure). Fails when the manifest cannot be read, when it
// lists no module, and when a listed module cannot be read: the error then
// names the manifest's line ("PATH:LINE:1: cannot read module ...").
mqss_status manifest_read(mqss_session *s, const char *path, manifest_list *out);
void manifest_free(manifest_list *m);

#endif // MQSS_UTIL_MANIFEST_H
