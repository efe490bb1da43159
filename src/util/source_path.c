// Paths of data files in the source tree, found from a source file's own
// __FILE__: the defaults of the catalog and the policy when no environment
// variable names them (an installed build would set those).
#include "internal.h"

#include <stdio.h>
#include <string.h>

void source_tree_path(char *out, size_t len, const char *here,
                      const char *self, const char *target) {
#ifdef MQSS_SOURCE_ROOT
  // The build names the tree: __FILE__ is relative under a compiler cache
  // with a base directory (CCACHE_BASEDIR), which would make the path
  // depend on the working directory.
  (void)here;
  (void)self;
  snprintf(out, len, "%s/%s", MQSS_SOURCE_ROOT, target);
#else
  const char *cut = strstr(here, self);
  size_t root = cut ? (size_t)(cut - here) : 0;
  snprintf(out, len, "%.*s%s", (int)root, here, target);
#endif
}
