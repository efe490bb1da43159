// `mqss explain`: prints the state features that contribute most to the
// policy's log-probability of one action on a module (gradient x input), with
// their names, values and weights, and the op a schedule decision of that
// action would address. The computation is mqss_policy_explain(_op).
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_explain(int argc, char **argv) {
  policy_cli o = {0};
  const char *file = NULL, *action = NULL;
  int top = 10;
  for (int i = 1; i < argc; i++) {
    int r = policy_cli_option(&o, argc, argv, &i);
    if (r < 0)
      return 1;
    if (r)
      continue;
    if (!strcmp(argv[i], "--action") && i + 1 < argc) {
      action = argv[++i];
    } else if (!strcmp(argv[i], "--top") && i + 1 < argc) {
      top = atoi(argv[++i]);
      if (top <= 0 || top > MQSS_FEATURE_DIM)
        return cli_error("explain: --top must be in 1..%d", MQSS_FEATURE_DIM);
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_error("explain: unknown option or missing value '%s'; see "
                       "'mqss explain --help'", argv[i]);
    } else {
      file = argv[i];
    }
  }
  if (!file || !action)
    return cli_error("explain: usage: mqss explain FILE [--policy P] --action "
                     "NAME [--top K]");
  mqss_session *s = NULL;
  mqss_policy *p = NULL;
  mqss_module *m = NULL;
  int rc = policy_cli_open(&o, file, &s, &p, &m);
  mqss_feature_contribution c[MQSS_FEATURE_DIM];
  int n = 0;
  float prob = 0;
  if (!rc && mqss_policy_explain(p, m, action, top, c, &n, &prob) != MQSS_OK)
    rc = cli_error("explain: %s", mqss_errmsg(s));
  int64_t op = 0;
  char kind[64];
  if (!rc && mqss_policy_explain_op(p, m, action, &op, kind, sizeof kind) !=
                 MQSS_OK)
    rc = cli_error("explain: %s", mqss_errmsg(s));
  if (!rc) {
    printf("action %s probability %.6f\n", action, prob);
    if (op) // a schedule decision addresses the focus op alone
      printf("addresses %s mqss.id = %lld (as 'mqss opt --tag' numbers the "
             "ops)\n", kind, (long long)op);
    printf("%-5s %-40s %12s %12s\n", "index", "feature", "value", "weight");
    for (int i = 0; i < n; i++)
      printf("%-5d %-40s %12.6g %12.6g\n", c[i].index, c[i].name, c[i].value,
             c[i].weight);
  }
  mqss_module_destroy(m);
  mqss_policy_destroy(p);
  mqss_session_destroy(s);
  return rc;
}
