// The output-check flags that every measuring command shares
// (--skip-output SPEC, repeatable, and --ignore-schedule): parsing them out
// of argv and copying them into measurement or guard options. The specs are
// validated by the library (mqss_measure), not here.
#include "cli.h"

#include <string.h>

int check_cli_option(check_cli *c, const char *cmd, int argc, char **argv,
                     int *i) {
  const char *f = argv[*i];
  if (!strcmp(f, "--ignore-schedule")) {
    c->ignore_schedule = 1;
    return 1;
  }
  if (strcmp(f, "--skip-output"))
    return 0;
  if (*i + 1 >= argc) {
    cli_error("%s: --skip-output needs a value (result:N, arg:N, line:N[-M] "
              "or stdout)", cmd);
    return -1;
  }
  if (c->num_skips == CHECK_CLI_MAX_SKIPS) {
    cli_error("%s: more than %d --skip-output flags", cmd, CHECK_CLI_MAX_SKIPS);
    return -1;
  }
  c->skips[c->num_skips++] = argv[++*i];
  return 1;
}

void check_cli_apply(const check_cli *c, mqss_measure_options *o) {
  o->skip_outputs = c->num_skips ? c->skips : NULL;
  o->num_skip_outputs = c->num_skips;
  o->ignore_schedule = c->ignore_schedule;
}
