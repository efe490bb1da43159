// Joins a list of decisions into one pass pipeline text, the one a
// selection prints and a search measures. Consecutive schedule decisions
// share one transform interpreter (schedule_run_pipeline): on a layer norm
// whose selection runs 17 schedules in a row, that took its pipeline from
// 150 ms to 100 ms in mlir-opt-19, with the same output (docs/SCHEDULES.md).
#include "internal.h"
#include "actions/schedule.h"

#include <stdlib.h>
#include <string.h>

static bool is_schedule(const mqss_catalog *c, const mqss_decision *d) {
  const mqss_action *a = mqss_catalog_action(c, d->action);
  return a && a->n_steps > 0;
}

int decisions_schedule_run(const mqss_catalog *c, const mqss_decision *d,
                           int n) {
  int run = 0;
  while (run < n && is_schedule(c, &d[run]))
    run++;
  return run;
}

// Appends anchored piece p to sb (pieces counted in *n): a module-anchored
// piece loses its "builtin.module(...)", which nested would run on nested
// modules only; an empty piece (STOP) adds nothing.
static void append_piece(strbuf *sb, int *n, const char *p) {
  static const char mod[] = "builtin.module(";
  size_t len = strlen(p), k = sizeof mod - 1;
  if (!len)
    return;
  sb_printf(sb, "%s", (*n)++ ? "," : "builtin.module(");
  if (len > k && !strncmp(p, mod, k) && p[len - 1] == ')')
    sb_append(sb, p + k, len - k - 1);
  else
    sb_append(sb, p, len);
}

char *decisions_join(const mqss_catalog *c, const mqss_decision *d, int n) {
  strbuf sb = {0};
  int pieces = 0;
  for (int i = 0; i < n;) {
    int run = decisions_schedule_run(c, &d[i], n - i);
    char *p = NULL;
    if (run > 1)
      schedule_run_pipeline(c, &d[i], run, &p);
    else
      p = mqss_decision_pipeline(c, &d[i]);
    if (!p) {
      sb_free(&sb);
      return NULL;
    }
    append_piece(&sb, &pieces, p);
    free(p);
    i += run > 1 ? run : 1;
  }
  sb_append(&sb, ")", pieces ? 1 : 0);
  if (sb.data)
    schedule_drop_repeated_preloads(sb.data);
  return sb.data;
}
