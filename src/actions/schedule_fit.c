// Which ops a kind-wide schedule decision on linalg.generic takes
// (docs/SCHEDULES.md, "Kind-wide decisions"). A decision without an mqss.id
// addresses every op of its kinds; a generic has any number of loops, and a
// fixed recipe replayed as text meets generics its sizes do not fit (a
// program's rank-1 fills and one-element sums), on which MLIR 19 fails,
// crashes or miscompiles. So such a decision collects its generics with
// transform.collect_matching and a private matcher, named after what it
// checks:
//
//   mqss_fit_generic_r<R>[_v][_p]   at least R loops (as many as the tiling
//       steps name); _v, the decision vectorises: outputs indexed by
//       projected permutations of the loops; _p, its sizes must name
//       parallel loops (fuse): loops 0 to R-1 parallel.
//
// The others are left as they are. A library defines each matcher it uses
// once (schedule_close_module); the matchers are private and of one text per
// name, so libraries that each define one load together.
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY "!transform.any_op"
#define PARAM "!transform.param<i64>"
#define GENERIC "mqss_fit_generic_r"

bool schedule_fit_name(const schedule_builder *b, const char *kind, char *out,
                       size_t len) {
  int flags = schedule_action_flags(b->a);
  int r = flags & STEP_TILES ? schedule_tiled_rank(b->a, kind) : 0;
  bool vec = flags & STEP_VECTORIZES;
  if (b->d->op || linalg_kind_rank(kind) >= 0 || (r < 1 && !vec) ||
      r > LINALG_MAX_RANK)
    return false;
  snprintf(out, len, GENERIC "%d%s%s", r < 1 ? 0 : r, vec ? "_v" : "",
           flags & STEP_PARALLEL ? "_p" : "");
  return true;
}

// The definition of matcher `name` (a schedule_fit_name).
static void define(strbuf *sb, const char *name) {
  int rank = 0;
  sscanf(name, GENERIC "%d", &rank);
  const char *rest = strchr(name + strlen(GENERIC), '_');
  bool vec = rest && strstr(rest, "_v"), par = rest && strstr(rest, "_p");
  sb_printf(sb, "  transform.named_sequence private @%s(%%op: " ANY
            " {transform.readonly}) -> " ANY " {\n", name);
  sb_printf(sb, "    transform.match.operation_name %%op [\"linalg.generic\"] "
            ": " ANY "\n");
  sb_printf(sb, "    %%rank = transform.match.structured %%op : (" ANY ") -> "
            PARAM " {\n    ^bb0(%%s: " ANY "):\n");
  sb_printf(sb, "      %%r = transform.match.structured.rank %%s : (" ANY
            ") -> " PARAM "\n");
  if (vec)
    sb_printf(sb, "      transform.match.structured.init %%s[all] "
              "{projected_permutation} : " ANY "\n");
  sb_printf(sb, "      transform.match.structured.yield %%r : " PARAM
            "\n    }\n");
  sb_printf(sb, "    %%need = transform.param.constant %d : i64 -> " PARAM
            "\n", rank);
  sb_printf(sb, "    transform.match.param.cmpi ge %%rank, %%need : " PARAM
            "\n");
  if (par && rank > 0) { // after the rank check: the loops exist
    sb_printf(sb, "    transform.match.structured %%op : " ANY " {\n    "
              "^bb0(%%t: " ANY "):\n      transform.match.structured.dim "
              "%%t[");
    for (int d = 0; d < rank; d++)
      sb_printf(sb, "%s%d", d ? ", " : "", d);
    sb_printf(sb, "] {parallel} : " ANY "\n      "
              "transform.match.structured.yield\n    }\n");
  }
  sb_printf(sb, "    transform.yield %%op : " ANY "\n  }\n");
}

void schedule_close_module(strbuf *sb, size_t from) {
  enum { MAX_NAMES = 4 * (LINALG_MAX_RANK + 1) }; // every rank and suffix
  char names[MAX_NAMES][128];
  int n = 0;
  static const char key[] = "collect_matching @" GENERIC;
  for (const char *p = sb->data ? sb->data + from : NULL;
       p && (p = strstr(p, key)); p++) {
    const char *name = p + strlen("collect_matching @");
    size_t len = strcspn(name, " ");
    bool seen = len >= sizeof names[0];
    for (int i = 0; i < n && !seen; i++)
      seen = strlen(names[i]) == len && !strncmp(names[i], name, len);
    if (!seen && n < MAX_NAMES)
      snprintf(names[n++], sizeof names[0], "%.*s", (int)len, name);
  }
  // Appended after the scan: sb_printf may move sb->data.
  for (int i = 0; i < n; i++)
    define(sb, names[i]);
  sb_printf(sb, "}\n");
}
