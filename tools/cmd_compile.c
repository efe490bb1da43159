// `mqss compile`: selects a pipeline with a policy (optionally guarded by an
// output check against the reference), lowers the module to the LLVM
// dialect and writes .mlir, .ll or .o. Only argument handling and printing
// live here; the work is mqss_policy_select / mqss_policy_compile_guarded /
// mqss_module_emit.
#include "cli.h"

#include <stdio.h>
#include <string.h>

int cmd_compile(int argc, char **argv) {
  policy_cli o = {0};
  const char *file = NULL, *out = NULL, *baseline = NULL;
  bool guard = false;
  check_cli check = {0}; // --skip-output, --ignore-schedule (with --guard)
  for (int i = 1; i < argc; i++) {
    int r = policy_cli_option(&o, argc, argv, &i);
    if (r == 0)
      r = check_cli_option(&check, "compile", argc, argv, &i);
    if (r < 0)
      return 1;
    if (r)
      continue;
    if (!strcmp(argv[i], "--guard"))
      guard = true;
    else if (!strcmp(argv[i], "--baseline") && i + 1 < argc)
      baseline = argv[++i];
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_error("compile: unknown option or missing value '%s'; see "
                       "'mqss compile --help'", argv[i]);
    else
      file = argv[i];
  }
  if (o.budget > 0 && !guard)
    return cli_error("compile: --budget needs --guard (the proposals are "
                     "measured with the output check)");
  if (!file || !out)
    return cli_error("compile: usage: mqss compile FILE [--policy P] [--guard]"
                     " -o OUT.{mlir,ll,o}");
  const char *ext = strrchr(out, '.');
  if (!ext || (strcmp(ext, ".mlir") && strcmp(ext, ".ll") && strcmp(ext, ".o")))
    return cli_error("compile: cannot tell the output format of '%s': name it "
                     ".mlir, .ll or .o", out);
  mqss_session *s = NULL;
  mqss_policy *p = NULL;
  mqss_module *m = NULL;
  mqss_selection *sel = NULL;
  int rc = policy_cli_open(&o, file, &s, &p, &m);
  mqss_select_options so;
  policy_cli_select_options(&o, &so);
  if (!rc && guard) {
    mqss_guard_options go;
    mqss_guard_options_init(&go);
    go.baseline = baseline;
    go.cache_dir = o.cache_dir;
    go.skip_outputs = check.num_skips ? check.skips : NULL;
    go.num_skip_outputs = check.num_skips;
    go.ignore_schedule = check.ignore_schedule;
    go.budget = o.budget;
    if (o.max_compile > 0)
      go.max_compile = o.max_compile - 1;
    if (o.confirm_pairs > 0)
      go.confirm_pairs = o.confirm_pairs;
    if (o.seed)
      go.seed = o.seed;
    mqss_guard_report r;
    if (mqss_policy_compile_guarded(p, m, &so, &go, &r) != MQSS_OK)
      rc = cli_error("compile: %s", mqss_errmsg(s));
    else
      fprintf(stderr, "guard: %s pipeline '%s'\nguard: %s\n%s",
              r.used_fallback ? "baseline" : "selected", r.used, r.reason,
              r.budget_hit ? "select: time budget spent; used the decisions "
                             "so far\n" : "");
  } else if (!rc) {
    if (mqss_policy_select(p, m, &so, &sel) != MQSS_OK ||
        mqss_module_run_pipeline(m, mqss_selection_pipeline(sel)) != MQSS_OK ||
        mqss_module_finish(m) != MQSS_OK)
      rc = cli_error("compile: %s", mqss_errmsg(s));
    else
      fprintf(stderr, "selected pipeline '%s'\n",
              mqss_selection_pipeline(sel));
    policy_cli_print_notes(sel);
  }
  if (!rc && mqss_module_emit(m, out) != MQSS_OK)
    rc = cli_error("compile: %s", mqss_errmsg(s));
  mqss_selection_destroy(sel);
  mqss_module_destroy(m);
  mqss_policy_destroy(p);
  mqss_session_destroy(s);
  return rc;
}
