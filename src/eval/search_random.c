// Random search: each candidate is a sequence of up to max_len decisions,
// each drawn uniformly among the actions the safety mask allows on the IR
// the sequence has produced so far (STOP included, except as the first
// decision: the empty sequence is evaluation 0), parameters uniform in
// [-1, 1]. To make the mask follow the IR, the decisions are applied one by
// one to a clone of the module (tagged, each schedule decision addressing
// the focus op as the policy's would: focus.c). That happens in a forked child, because
// passes can crash: the child streams each decision (and the RNG state after
// drawing it) before applying it, so a crash or a hang simply ends the
// sequence at the decision that caused it (the measurement then records the
// failure). The candidate's joined pipeline is measured on the original
// module. It does not measure anything itself (search.c does).
#include "eval/search.h"
#include "actions/linalg_ops.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// child: sample and apply

// One record from the child. kind: DECISION = drawn, about to be applied;
// STOP = STOP drawn (no decision); FAILED = the last decision failed to
// apply; FULL = max_len reached.
enum { REC_DECISION, REC_STOP, REC_FAILED, REC_FULL };
typedef struct {
  int32_t kind;
  int32_t action;
  float u[MQSS_MAX_PARAMS];
  uint64_t rng; // RNG state after this record's draws
  int64_t op;   // the op the decision addresses (focus.c), 0: all
} sample_rec;

static void put(int fd, const sample_rec *r) {
  const char *p = (const char *)r;
  size_t left = sizeof *r;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      _exit(3);
    p += n;
    left -= (size_t)n;
  }
}

static void sample_child(const search_ctx *c, search_rng rng, int fd) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE};
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
    signal(fatal[i], SIG_DFL); // a host's handlers must not catch a crash
  const mqss_catalog *cat = c->catalog;
  int n_actions = mqss_catalog_size(cat);
  uint8_t *mask = malloc((size_t)n_actions);   // (n_actions)
  int *allowed = malloc((size_t)n_actions * sizeof *allowed);
  mqss_module *cur = mqss_module_clone(c->module);
  if (!mask || !allowed || !cur)
    _exit(2);
  // numbered as the measurement numbers the module (mqss_module_run_pipeline)
  linalg_tag_once(mlirModuleGetOperation(cur->mod));
  for (int step = 0;; step++) {
    sample_rec r = {0};
    if (step == c->opts->max_len) {
      r.kind = REC_FULL;
      r.rng = rng.s;
      put(fd, &r);
      break;
    }
    mqss_action_mask(cur, cat, NULL, mask);
    int n = 0;
    for (int a = 0; a < n_actions; a++)
      if (mask[a] && !(step == 0 && mqss_catalog_action(cat, a)->is_stop))
        allowed[n++] = a;
    if (n == 0) { // only STOP is allowed on the original IR
      r.kind = REC_STOP;
      r.rng = rng.s;
      put(fd, &r);
      break;
    }
    r.action = allowed[search_rng_below(&rng, n)];
    const mqss_action *act = mqss_catalog_action(cat, r.action);
    for (int p = 0; p < act->n_params; p++)
      r.u[p] = (float)(2.0 * search_rng_uniform(&rng) - 1.0);
    r.rng = rng.s;
    r.kind = act->is_stop ? REC_STOP : REC_DECISION;
    mqss_decision d = {.action = r.action};
    memcpy(d.u, r.u, sizeof d.u);
    r.op = d.op = decision_focus(cur, cat, &d); // the per-op rule
    put(fd, &r);
    if (act->is_stop)
      break;
    if (mqss_decision_apply(cur, cat, &d) != MQSS_OK) {
      sample_rec f = {.kind = REC_FAILED, .rng = rng.s};
      put(fd, &f);
      break;
    }
  }
  _exit(0); // no atexit handlers, no stdio flush of the parent's buffers
}

// ----------------------------------------------------------------------------
// parent: collect one sequence

// Draws one sequence into d (max_len entries) and *n; advances *rng.
static mqss_status sample(search_ctx *c, search_rng *rng, mqss_decision *d,
                          int *n) {
  mqss_session *s = mqss_module_session(c->module);
  int fds[2];
  if (pipe(fds) != 0)
    return fail(s, MQSS_ERR_INTERNAL, "search: pipe failed: %s",
                strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return fail(s, MQSS_ERR_INTERNAL, "search: fork failed: %s",
                strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    sample_child(c, *rng, fds[1]);
  }
  close(fds[1]);
  *n = 0;
  double deadline = now_ms() + c->opts->measure.timeout_ms;
  sample_rec r;
  size_t got = 0;
  for (;;) {
    int wait_ms = (int)(deadline - now_ms());
    if (wait_ms <= 0) {
      kill(pid, SIGKILL); // a pass loops: end the sequence here
      break;
    }
    struct pollfd p = {.fd = fds[0], .events = POLLIN};
    int pr = poll(&p, 1, wait_ms);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr <= 0)
      continue; // deadline check above
    ssize_t k = read(fds[0], (char *)&r + got, sizeof r - got);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      break; // EOF: the child is done (or died)
    got += (size_t)k;
    if (got < sizeof r)
      continue;
    got = 0;
    rng->s = r.rng;
    if (r.kind == REC_DECISION && *n < c->opts->max_len) {
      d[*n] = (mqss_decision){.action = r.action, .op = r.op};
      memcpy(d[*n].u, r.u, sizeof r.u);
      (*n)++;
    }
  }
  close(fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// the search

mqss_status search_random_until(search_ctx *c, uint64_t seed, int stop_at) {
  search_rng rng = {.s = seed};
  mqss_decision *d = calloc((size_t)c->opts->max_len, sizeof *d);
  if (!d)
    return fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: out of memory");
  mqss_status st = MQSS_OK;
  int saved = c->stop_at;
  c->stop_at = stop_at;
  while (search_budget_left(c)) {
    int n = 0, idx;
    if ((st = sample(c, &rng, d, &n)) != MQSS_OK)
      break;
    char *text = search_join(c->catalog, d, n);
    if (!text) {
      st = fail(mqss_module_session(c->module), MQSS_ERR_NOMEM,
                "search: cannot format a candidate pipeline");
      break;
    }
    st = search_eval(c, text, d, n, &idx);
    free(text);
    if (st != MQSS_OK)
      break;
    // The best is the fastest correct candidate, once one beats the
    // reference by more than min_gain.
    search_offer_best(c, idx);
    search_eval_done(c, idx);
  }
  c->stop_at = saved;
  free(d);
  return st;
}

mqss_status search_random(search_ctx *c) {
  return search_random_until(c, c->opts->seed, 0);
}
