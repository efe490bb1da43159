// Isolated trials: runs a piece of in-process MLIR work (a pipeline, the
// finisher, a catalog action) first in a forked, resource-limited child
// through the measurement sandbox (sandbox_run), so that an upstream pass
// that crashes, hangs or exhausts memory kills only the child. The caller
// repeats the work in process only after the child succeeded; passes are
// deterministic, so the trial's outcome is the real one. `mqss opt
// --isolate` and `mqss catalog --apply --isolate` use it; isolated
// selection (src/policy/isolate.c) uses the same sandbox with a trace.
#include "measure/measure.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  int rc;
  char message[4096];
} trial_reply;

typedef struct {
  mqss_session *s;
  mqss_status (*work)(void *ctx);
  void *ctx;
} trial_job;

static void trial_child(void *user, void *out, size_t size) {
  (void)size;
  trial_job *j = user;
  trial_reply *r = out;
  child_report_stage(STAGE_PIPELINE);
  r->rc = j->work(j->ctx);
  snprintf(r->message, sizeof r->message, "%s",
           r->rc == MQSS_OK ? "" : mqss_errmsg(j->s));
}

mqss_status isolated_trial(mqss_session *s, mqss_status (*work)(void *ctx),
                           void *ctx, int timeout_ms, int mem_limit_mb,
                           char *died, size_t died_size) {
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.timeout_ms = timeout_ms;
  o.mem_limit_mb = mem_limit_mb;
  trial_job j = {s, work, ctx};
  trial_reply r;
  memset(&r, 0, sizeof r);
  mqss_measure_result death;
  memset(&death, 0, sizeof death);
  bool replied = false;
  mqss_status st = sandbox_run(s, &o, trial_child, &j, &r, sizeof r, &replied,
                               &death);
  if (st != MQSS_OK)
    return st; // fork or pipe failed: the session says why
  diag_reset(s, NULL);
  if (!replied && died)
    snprintf(died, died_size, "%s", death.message);
  if (!replied)
    return fail(s, MQSS_ERR_CRASHED, "the isolated child running the passes "
                "died (%s); nothing ran in this process. Leave out the pass "
                "or option that crashes", death.message);
  if (r.rc != MQSS_OK)
    return fail(s, (mqss_status)r.rc, "%s", r.message);
  return MQSS_OK;
}
