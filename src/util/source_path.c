// Paths of data files in the source tree, found from a source file's own
// __FILE__: the defaults of the catalog and the policy when no environment
// variable names them (an installed build would set those).
#include "internal.h"

#include <stdio.h>
#include <string.h>

void source_tree_path(char *out, size_t len, const char *here,
                      const char *self, const char *target) {
#ifdef MQSS_SOURCE_ROOT
  // A compiler launcher (ccache with a base directory) can make __FILE__
  // relative to the build directory, which says nothing at run time.
  if (here[0] != '/') {
    snprintf(out, len, "%s/%s", MQSS_SOURCE_ROOT, target);
    return;
  }
#endif
  const char *cut = strstr(here, self);
  size_t root = cut ? (size_t)(cut - here) : 0;
  snprintf(out, len, "%.*s%s", (int)root, here, target);
}
