// select_isolated: mqss_policy_select in a forked child (the measurement
// sandbox), so that a pass that crashes, hangs or runs out of memory cannot
// take the caller down. The child writes each candidate decision to a trace
// file before running its passes; when it dies, the last candidate after
// the kept steps is the culprit. That sequence is recorded as bad (in
// memory and in cache_dir) and the selection runs again, avoiding it.
#include "measure/measure.h"
#include "policy/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_ATTEMPTS = 5 }; // one selection plus 4 retries after crashes

typedef struct {
  mqss_decision d; // target NULL
  selection_odds odds;
} kept;

typedef struct {
  int rc;
  int n, stopped, budget_hit;
  double pass_ms;
  selection_odds stop_odds;
  char message[1024];
  kept k[]; // kept decisions, repeats included
} reply;

typedef struct {
  const mqss_policy *p;
  const mqss_module *module;
  const mqss_select_options *opts;
  const badlog *bad;
  double deadline;
  int trace_fd;
} job;

static void child(void *user, void *out, size_t size) {
  job *j = user;
  reply *r = out;
  mqss_selection *sel = NULL;
  r->rc = select_run(j->p, j->module, j->opts, j->bad, j->deadline,
                     j->trace_fd, &sel);
  if (r->rc != MQSS_OK) {
    snprintf(r->message, sizeof r->message, "%s",
             mqss_errmsg(mqss_module_session(j->module)));
    return;
  }
  size_t room = (size - sizeof *r) / sizeof r->k[0];
  r->n = sel->n < (int)room ? sel->n : (int)room;
  r->stopped = sel->stopped;
  r->budget_hit = sel->budget_hit;
  r->pass_ms = sel->pass_ms;
  r->stop_odds = sel->stop_odds;
  for (int i = 0; i < r->n; i++)
    r->k[i] = (kept){sel->d[i], sel->odds[i]};
  mqss_selection_destroy(sel);
}

// Reads the trace of a dead child: the kept steps and the candidate being
// tried when it died, as a selection (NULL when it died outside a pass).
static mqss_selection *culprit(const mqss_catalog *c, int fd) {
  if (lseek(fd, 0, SEEK_SET) != 0)
    return NULL;
  mqss_selection *sel = selection_new(c);
  select_trace t;
  bool pending = false;
  mqss_decision cand = {0};
  while (sel && read(fd, &t, sizeof t) == (ssize_t)sizeof t) {
    pending = t.tag == 'T';
    if (pending)
      cand = t.d;
    if (t.tag == 'K' && selection_push(sel, &t.d) != MQSS_OK) {
      mqss_selection_destroy(sel);
      sel = NULL;
    }
  }
  if (sel && (!pending || selection_push(sel, &cand) != MQSS_OK)) {
    mqss_selection_destroy(sel);
    sel = NULL;
  }
  return sel;
}

mqss_status select_isolated(const mqss_policy *p, const mqss_module *module,
                            const mqss_select_options *opts, badlog *bad,
                            double deadline, mqss_selection **out) {
  mqss_session *s = mqss_module_session(module);
  int max_steps = opts->max_steps > 0 ? opts->max_steps : p->episode_steps;
  // every step kept, each with all its repeats (repeat.c)
  size_t size = sizeof(reply) + sizeof(kept) * (size_t)max_steps *
                                    (1 + DECISION_MAX_REPEATS);
  reply *r = calloc(1, size);
  if (!r)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  mqss_measure_options mo;
  mqss_measure_options_init(&mo);
  mo.timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 60000;
  mo.mem_limit_mb = opts->mem_limit_mb;
  strbuf notes = {0};
  mqss_status rc = MQSS_ERR_CRASHED;
  for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    FILE *tf = tmpfile();
    if (!tf) {
      rc = fail(s, MQSS_ERR_IO, "select: cannot create a temporary file: %s",
                strerror(errno));
      break;
    }
    job j = {p, module, opts, bad, deadline, fileno(tf)};
    bool replied = false;
    mqss_measure_result death;
    memset(&death, 0, sizeof death);
    memset(r, 0, size);
    rc = sandbox_run(s, &mo, child, &j, r, size, &replied, &death);
    if (rc == MQSS_OK && replied) {
      fclose(tf);
      if (r->rc != MQSS_OK) {
        rc = fail(s, (mqss_status)r->rc, "%s", r->message);
        break;
      }
      mqss_selection *sel = selection_new(p->catalog);
      for (int i = 0; sel && i < r->n; i++) {
        if (selection_push(sel, &r->k[i].d) != MQSS_OK) {
          mqss_selection_destroy(sel);
          sel = NULL;
        } else {
          sel->odds[i] = r->k[i].odds;
        }
      }
      if (!sel) {
        rc = fail(s, MQSS_ERR_NOMEM, "out of memory");
        break;
      }
      sel->stop_odds = r->stop_odds;
      sel->stopped = r->stopped;
      sel->budget_hit = r->budget_hit;
      sel->pass_ms = r->pass_ms;
      sel->notes = notes.data;
      notes.data = NULL;
      *out = sel;
      break;
    }
    if (rc != MQSS_OK) { // fork or pipe failed: the session says why
      fclose(tf);
      break;
    }
    mqss_selection *bad_seq = culprit(p->catalog, fileno(tf));
    fclose(tf);
    if (!bad_seq) {
      rc = fail(s, MQSS_ERR_CRASHED, "select: the isolated selection died "
                "outside any pass: %s", death.message);
      break;
    }
    const char *why = mqss_measure_status_name(death.status);
    sb_printf(&notes, "%sstep %d: '%s': %s; avoided", notes.len ? "\n" : "",
              bad_seq->n, bad_seq->step[bad_seq->n - 1], death.message);
    bool stored = badlog_add(bad, bad_seq->step, bad_seq->n) == 0 &&
                  (!opts->cache_dir ||
                   badlog_append(opts->cache_dir, mqss_module_hash(module),
                                 bad_seq, why) == 0);
    mqss_selection_destroy(bad_seq);
    if (!stored) {
      rc = fail(s, MQSS_ERR_IO, "select: cannot record a crashing step: %s",
                notes.data);
      break;
    }
    rc = fail(s, MQSS_ERR_CRASHED, "select: %d selections in a row hit a "
              "crashing pass; the last: %s", attempt + 1, notes.data);
  }
  sb_free(&notes);
  free(r);
  return rc;
}
