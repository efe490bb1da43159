// Rollout worker pool (see pool.h). The trainer and each worker exchange
// framed messages (header + payload) over a transport: a socketpair for
// local workers, or a caller's backend (MPI). A task's child talks to its
// worker over a pipe with length-prefixed records. Workers and task children
// are started, read, killed and reaped by util/proc.c.
#define _GNU_SOURCE // sched_setaffinity, CPU_SET
#include "rl/pool.h"
#include "util/proc.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h> // WIFSIGNALED and friends
#include <unistd.h>

// ----------------------------------------------------------------------------
// messages

enum { MSG_PARAMS = 1, MSG_TASK, MSG_QUIT, MSG_RECORD, MSG_DONE };

typedef struct {
  uint32_t type;
  int32_t index; // task index, for TASK / RECORD / DONE
  uint64_t len;  // payload bytes that follow
} msg_header;

typedef struct {
  int32_t status; // task_status
  int32_t signal;
} done_payload;

// Sends header + payload as one message over a send function.
typedef bool (*send_fn)(void *ctx, const void *msg, size_t len);

static bool send_msg(send_fn send, void *ctx, uint32_t type, int32_t index,
                     const void *data, size_t len) {
  char *msg = malloc(sizeof(msg_header) + len);
  if (!msg)
    return false;
  msg_header h = {type, index, len};
  memcpy(msg, &h, sizeof h);
  if (len)
    memcpy(msg + sizeof h, data, len);
  bool ok = send(ctx, msg, sizeof h + len);
  free(msg);
  return ok;
}

// Splits a received message; false when it is malformed.
static bool unpack(const void *msg, size_t len, msg_header *h,
                   const char **payload) {
  if (len < sizeof *h)
    return false;
  memcpy(h, msg, sizeof *h);
  *payload = (const char *)msg + sizeof *h;
  return h->len == len - sizeof *h;
}

// ----------------------------------------------------------------------------
// sockets between the trainer and its local workers

static bool fd_send(void *ctx, const void *msg, size_t len) {
  return proc_send((int)(intptr_t)ctx, msg, len);
}

static bool fd_recv(void *ctx, void **msg, size_t *len) {
  int fd = (int)(intptr_t)ctx;
  msg_header h;
  *msg = NULL;
  if (!proc_read_exact(fd, &h, sizeof h))
    return false;
  char *buf = malloc(sizeof h + h.len);
  if (!buf)
    return false;
  memcpy(buf, &h, sizeof h);
  if (!proc_read_exact(fd, buf + sizeof h, h.len)) {
    free(buf);
    return false;
  }
  *msg = buf;
  *len = sizeof h + h.len;
  return true;
}

// ----------------------------------------------------------------------------
// the worker side

static void emit_record(void *emit_ctx, const void *rec, size_t len) {
  int fd = *(int *)emit_ctx;
  uint64_t n = len;
  if (!proc_write(fd, &n, sizeof n) || !proc_write(fd, rec, len))
    _exit(3); // the worker is gone: nothing left to report to
}

typedef struct {
  const pool_link *link;
  pool_task_fn fn;
  void *user;
  int timeout_ms;
  int mem_limit_mb;
} serve_ctx;

// One task, as its child and its worker see it.
typedef struct {
  const serve_ctx *sc;
  int index;
  const void *params, *task;
  size_t plen, tlen;
} task_job;

static void task_child(void *arg, int fd) {
  const task_job *j = arg;
  prctl(PR_SET_PDEATHSIG, SIGKILL); // no orphan outlives its worker
  // The measurement sandbox's limits (faults fatal, CPU time, address
  // space); the worker is already pinned.
  child_limits_apply(&(child_limits){j->sc->timeout_ms, j->sc->mem_limit_mb, -1});
  j->sc->fn(j->sc->user, j->params, j->plen, j->task, j->tlen, emit_record, &fd);
}

// Relays the whole records (length-prefixed) the child sent so far.
static size_t relay_records(void *ctx, const char *data, size_t len) {
  const task_job *j = ctx;
  size_t used = 0;
  for (;;) {
    uint64_t n;
    if (len - used < sizeof n)
      return used;
    memcpy(&n, data + used, sizeof n);
    if (len - used - sizeof n < n)
      return used;
    if (!send_msg(j->sc->link->send, j->sc->link->ctx, MSG_RECORD, j->index,
                  data + used + sizeof n, n))
      _exit(0); // the trainer is gone
    used += sizeof n + n;
  }
}

// Runs one task in a child and relays its records; returns the outcome.
static done_payload run_task(const serve_ctx *sc, int index, const void *params,
                             size_t plen, const void *task, size_t tlen) {
  task_job j = {sc, index, params, task, plen, tlen};
  proc child;
  if (!proc_spawn(&child, false, task_child, &j))
    return (done_payload){TASK_FAILED, 0};
  strbuf buf = {0};
  bool timed_out = proc_read(&child, sc->timeout_ms, &buf, relay_records, &j);
  sb_free(&buf);
  int status = proc_wait(&child);
  if (timed_out)
    return (done_payload){TASK_TIMEOUT, SIGKILL};
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
    return (done_payload){TASK_TIMEOUT, SIGXCPU}; // RLIMIT_CPU
  if (WIFSIGNALED(status))
    return (done_payload){TASK_CRASHED, WTERMSIG(status)};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return (done_payload){TASK_OK, 0};
  return (done_payload){TASK_FAILED, 0};
}

static void pin_to_core(int worker) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(worker % (cores > 0 ? cores : 1), &set);
  sched_setaffinity(0, sizeof set, &set); // best effort: a hint, not a need
}

void pool_serve(const pool_link *link, const pool_options *opts,
                pool_task_fn fn, void *user, int worker) {
  if (opts->pin)
    pin_to_core(worker);
  serve_ctx sc = {link, fn, user, opts->task_timeout_ms, opts->mem_limit_mb};
  void *params_msg = NULL; // the whole PARAMS message, payload inside
  const char *params = NULL;
  size_t plen = 0;
  for (;;) {
    void *msg;
    size_t len;
    msg_header h;
    const char *payload;
    if (!link->recv(link->ctx, &msg, &len))
      break;
    if (!unpack(msg, len, &h, &payload) || h.type == MSG_QUIT) {
      free(msg);
      break;
    }
    if (h.type == MSG_PARAMS) {
      free(params_msg);
      params_msg = msg;
      params = payload;
      plen = h.len;
      continue;
    }
    bool ok = true;
    if (h.type == MSG_TASK) {
      done_payload d = run_task(&sc, h.index, params, plen, payload, h.len);
      ok = send_msg(link->send, link->ctx, MSG_DONE, h.index, &d, sizeof d);
    }
    free(msg);
    if (!ok)
      break;
  }
  free(params_msg);
}

// ----------------------------------------------------------------------------
// local workers: forked processes on socketpairs

typedef struct {
  int n;
  proc *w;          // (n) each worker and the trainer's end of its socketpair
  pool_options opts;
  pool_task_fn fn;
  void *user;
} local_workers;

typedef struct {
  local_workers *lw;
  int i; // which worker
} worker_args;

static void worker_main(void *arg, int fd) {
  const worker_args *a = arg;
  local_workers *lw = a->lw;
  for (int j = 0; j < lw->n; j++) // other workers' sockets are not ours
    if (lw->w[j].fd >= 0)
      close(lw->w[j].fd);
  pool_link link = {(void *)(intptr_t)fd, fd_send, fd_recv};
  pool_serve(&link, &lw->opts, lw->fn, lw->user, a->i);
}

static bool local_spawn(local_workers *lw, int i) {
  worker_args a = {lw, i};
  return proc_spawn(&lw->w[i], true, worker_main, &a);
}

static void local_reap(local_workers *lw, int i) { proc_kill(&lw->w[i]); }

static bool local_send(void *ctx, int w, const void *msg, size_t len) {
  local_workers *lw = ctx;
  return lw->w[w].fd >= 0 && proc_send(lw->w[w].fd, msg, len);
}

static bool local_recv_any(void *ctx, int *w, void **msg, size_t *len) {
  local_workers *lw = ctx;
  struct pollfd pf[lw->n];
  for (;;) {
    for (int i = 0; i < lw->n; i++)
      pf[i] = (struct pollfd){lw->w[i].fd, POLLIN, 0};
    if (poll(pf, (nfds_t)lw->n, -1) < 0) {
      if (errno == EINTR)
        continue;
      *w = 0;
      return false;
    }
    for (int i = 0; i < lw->n; i++) {
      if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      *w = i;
      if (fd_recv((void *)(intptr_t)lw->w[i].fd, msg, len))
        return true;
      local_reap(lw, i);
      return false;
    }
  }
}

static bool local_restart(void *ctx, int w) {
  local_workers *lw = ctx;
  local_reap(lw, w);
  return local_spawn(lw, w);
}

static void local_close(void *ctx) {
  local_workers *lw = ctx;
  for (int i = 0; i < lw->n; i++)
    local_reap(lw, i);
  free(lw->w);
  free(lw);
}

// ----------------------------------------------------------------------------
// the trainer side

// send_fn over a backend: ctx points at {backend, worker}.
static bool backend_send(void *ctx, const void *msg, size_t len) {
  struct { pool_backend *be; int w; } *dest = ctx;
  return dest->be->send(dest->be->ctx, dest->w, msg, len);
}

struct worker_pool {
  mqss_session *session;
  pool_backend be;
  bool (*restart)(void *ctx, int w); // local workers only
  int *task;    // (n) task index a worker runs, -1 idle, -2 retired
  void *params; // last parameter blob, resent to restarted workers
  size_t plen;
};

static bool to_worker(worker_pool *p, int w, uint32_t type, int32_t index,
                      const void *data, size_t len) {
  struct { pool_backend *be; int w; } dest = {&p->be, w};
  return send_msg(backend_send, &dest, type, index, data, len);
}

// Replaces dead worker w when the backend can; otherwise retires it.
static mqss_status lose_worker(worker_pool *p, int w) {
  p->task[w] = -2;
  if (p->restart && p->restart(p->be.ctx, w)) {
    p->task[w] = -1;
    if (!p->params || to_worker(p, w, MSG_PARAMS, -1, p->params, p->plen))
      return MQSS_OK;
    p->task[w] = -2;
  }
  for (int i = 0; i < p->be.n; i++)
    if (p->task[i] != -2)
      return MQSS_OK;
  return fail(p->session, MQSS_ERR_INTERNAL, "pool: every worker has died");
}

mqss_status pool_create_with_backend(mqss_session *s, const pool_options *opts,
                                     const pool_backend *backend,
                                     worker_pool **out) {
  (void)opts; // remote workers apply their own options in pool_serve
  *out = NULL;
  worker_pool *p = calloc(1, sizeof *p);
  int *task = calloc((size_t)backend->n, sizeof(int));
  if (!p || !task) {
    free(p);
    free(task);
    backend->close(backend->ctx);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  *p = (worker_pool){s, *backend, NULL, task, NULL, 0};
  for (int i = 0; i < backend->n; i++)
    p->task[i] = -1;
  *out = p;
  return MQSS_OK;
}

mqss_status pool_create(mqss_session *s, const pool_options *opts,
                        pool_task_fn fn, void *user, worker_pool **out) {
  *out = NULL;
  if (!opts || opts->workers < 1 || !fn)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "pool: need at least one worker and a task function");
  local_workers *lw = calloc(1, sizeof *lw);
  proc *w = calloc((size_t)opts->workers, sizeof *w);
  if (!lw || !w) {
    free(lw);
    free(w);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  *lw = (local_workers){opts->workers, w, *opts, fn, user};
  for (int i = 0; i < lw->n; i++)
    lw->w[i].fd = -1;
  for (int i = 0; i < lw->n; i++) {
    if (!local_spawn(lw, i)) {
      int err = errno;
      local_close(lw);
      return fail(s, MQSS_ERR_INTERNAL, "pool: cannot start worker %d: %s", i,
                  strerror(err));
    }
  }
  pool_backend be = {lw, lw->n, local_send, local_recv_any, local_close};
  mqss_status st = pool_create_with_backend(s, opts, &be, out);
  if (st == MQSS_OK)
    (*out)->restart = local_restart;
  return st;
}

mqss_status pool_set_params(worker_pool *p, const void *params, size_t len) {
  void *copy = malloc(len ? len : 1);
  if (!copy)
    return fail(p->session, MQSS_ERR_NOMEM, "out of memory");
  memcpy(copy, params, len);
  free(p->params);
  p->params = copy;
  p->plen = len;
  for (int i = 0; i < p->be.n; i++) {
    if (p->task[i] == -2 || to_worker(p, i, MSG_PARAMS, -1, params, len))
      continue;
    mqss_status st = lose_worker(p, i); // a restarted worker gets them too
    if (st != MQSS_OK)
      return st;
  }
  return MQSS_OK;
}

mqss_status pool_run(worker_pool *p, int ntasks, const void *const *tasks,
                     const size_t *lens, pool_record_fn on_record,
                     pool_done_fn on_done, void *ctx) {
  int next = 0, done = 0;
  while (done < ntasks) {
    for (int i = 0; i < p->be.n && next < ntasks; i++) {
      if (p->task[i] != -1)
        continue;
      if (!to_worker(p, i, MSG_TASK, next, tasks[next], lens[next])) {
        mqss_status st = lose_worker(p, i); // the task stays queued
        if (st != MQSS_OK)
          return st;
        continue;
      }
      p->task[i] = next++;
    }
    int w;
    void *msg;
    size_t len;
    if (!p->be.recv_any(p->be.ctx, &w, &msg, &len)) {
      // The worker itself died: its task counts as crashed.
      int t = p->task[w];
      if (t >= 0) {
        on_done(ctx, t, TASK_CRASHED, 0);
        done++;
      }
      mqss_status st = lose_worker(p, w);
      if (st != MQSS_OK)
        return st;
      continue;
    }
    msg_header h;
    const char *payload;
    if (unpack(msg, len, &h, &payload)) {
      if (h.type == MSG_RECORD) {
        on_record(ctx, h.index, payload, h.len);
      } else if (h.type == MSG_DONE && h.len == sizeof(done_payload)) {
        done_payload d;
        memcpy(&d, payload, sizeof d);
        on_done(ctx, h.index, (task_status)d.status, d.signal);
        p->task[w] = -1;
        done++;
      }
    }
    free(msg);
  }
  return MQSS_OK;
}

void pool_destroy(worker_pool *p) {
  if (!p)
    return;
  for (int i = 0; i < p->be.n; i++)
    if (p->task[i] != -2)
      to_worker(p, i, MSG_QUIT, -1, NULL, 0);
  p->be.close(p->be.ctx);
  free(p->task);
  free(p->params);
  free(p);
}
