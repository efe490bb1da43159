// `mqss opt`: parse a module, run a pass pipeline and/or the finisher, and
// print the result. The thin CLI twin of mqss_module_run_pipeline() and
// mqss_module_finish().
#include "cli.h"
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_file(const char *data, size_t len, void *user) {
  fwrite(data, 1, len, user);
}

// The passes and the finisher, as one piece of work for isolated_trial().
typedef struct {
  mqss_module *m;
  const char *pipeline;
  bool finish;
} opt_work;

static mqss_status run_opt(void *ctx) {
  opt_work *w = ctx;
  mqss_status st = MQSS_OK;
  if (w->pipeline)
    st = mqss_module_run_pipeline(w->m, w->pipeline);
  if (st == MQSS_OK && w->finish)
    st = mqss_module_finish(w->m);
  return st;
}

int cmd_opt(int argc, char **argv) {
  const char *file = NULL, *pipeline = NULL, *out_path = NULL;
  bool finish = false, print_finish = false, isolate = false, tag = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--pipeline") || !strcmp(a, "-o")) {
      if (i + 1 >= argc)
        return cli_error("opt: %s needs a value; see 'mqss opt --help'", a);
      *(a[1] == 'o' ? &out_path : &pipeline) = argv[++i];
    } else if (!strncmp(a, "--pipeline=", 11)) {
      pipeline = a + 11;
    } else if (!strcmp(a, "--finish")) {
      finish = true;
    } else if (!strcmp(a, "--tag")) {
      tag = true;
    } else if (!strcmp(a, "--print-finish")) {
      print_finish = true;
    } else if (!strcmp(a, "--isolate")) {
      isolate = true;
    } else if (a[0] == '-' && a[1]) {
      return cli_error("opt: unknown option '%s'; see 'mqss opt --help'", a);
    } else if (!file) {
      file = a;
    } else {
      return cli_error("opt: more than one input file ('%s' and '%s')", file, a);
    }
  }
  if (!file)
    return cli_error("opt: no input file; usage: mqss opt FILE [--pipeline "
                     "TEXT] [--finish] [-o OUT]");

  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  mqss_module *m = NULL;
  int rc = 0;
  mqss_status st = cli_parse_module(s, file, &m);
  if (st != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  if (tag)
    mqss_module_tag_ops(m, NULL);
  // A trial run in a sandbox child first: a pass that crashes kills only it.
  opt_work trial = {m, pipeline, finish};
  if (isolate && (pipeline || finish) &&
      isolated_trial(s, run_opt, &trial, ISOLATE_TIMEOUT_MS, ISOLATE_MEM_MB,
                     NULL, 0) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  if (pipeline && (st = mqss_module_run_pipeline(m, pipeline)) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  if (finish) {
    st = mqss_module_finish(m);
    if (print_finish)
      fprintf(stderr, "finish: %s\n", mqss_module_finish_pipeline(m));
    if (st != MQSS_OK) {
      rc = cli_error("%s", mqss_errmsg(s));
      goto done;
    }
  }
  FILE *out = stdout;
  if (out_path && !(out = fopen(out_path, "w"))) {
    rc = cli_error("cannot write '%s': %s", out_path, strerror(errno));
    goto done;
  }
  mqss_module_print(m, write_file, out);
  fputc('\n', out);
  if (out != stdout && fclose(out) != 0)
    rc = cli_error("cannot write '%s': %s", out_path, strerror(errno));
done:
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return rc;
}
