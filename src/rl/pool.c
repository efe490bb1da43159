// Rollout worker pool (see pool.h). Trainer and workers talk over one
// AF_UNIX socketpair per worker with framed messages; a task's child talks to
// its worker over a pipe with length-prefixed records.
#define _GNU_SOURCE // sched_setaffinity, CPU_SET
#include "rl/pool.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// framing

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

static bool write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) // pipes: the task child writes with write()
      n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

static bool read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  while (len > 0) {
    ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

static bool send_msg(int fd, uint32_t type, int32_t index, const void *data,
                     size_t len) {
  msg_header h = {type, index, len};
  return write_all(fd, &h, sizeof h) && (len == 0 || write_all(fd, data, len));
}

// Reads one message; *data is malloc'ed (NULL when empty). False on EOF/error.
static bool recv_msg(int fd, msg_header *h, void **data) {
  *data = NULL;
  if (!read_all(fd, h, sizeof *h))
    return false;
  if (h->len == 0)
    return true;
  if (!(*data = malloc(h->len)))
    return false;
  if (!read_all(fd, *data, h->len)) {
    free(*data);
    *data = NULL;
    return false;
  }
  return true;
}

// ----------------------------------------------------------------------------
// the worker process

static void emit_record(void *emit_ctx, const void *rec, size_t len) {
  int fd = *(int *)emit_ctx;
  uint64_t n = len;
  if (!write_all(fd, &n, sizeof n) || !write_all(fd, rec, len))
    _exit(3); // the worker is gone: nothing left to report to
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// Runs one task in a child and relays its records; returns the outcome.
static done_payload run_task(int sock, int index, const worker_pool *p,
                             const void *params, size_t plen, const void *task,
                             size_t tlen);

struct worker_pool {
  mqss_session *session;
  pool_options opts;
  pool_task_fn fn;
  void *user;
  int n;
  pid_t *pid;   // (n) worker pids
  int *fd;      // (n) trainer end of each socketpair
  int *task;    // (n) task index a worker runs, or -1 when idle
  void *params; // last parameter blob, resent to respawned workers
  size_t plen;
};

static done_payload run_task(int sock, int index, const worker_pool *p,
                             const void *params, size_t plen, const void *task,
                             size_t tlen) {
  done_payload d = {TASK_FAILED, 0};
  int pfd[2];
  if (pipe(pfd) != 0)
    return d;
  pid_t pid = fork();
  if (pid < 0) {
    close(pfd[0]);
    close(pfd[1]);
    return d;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); // no orphan outlives its worker
    // A fault must kill the child, whatever handlers the host installed.
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
      signal(faults[i], SIG_DFL);
    close(pfd[0]);
    close(sock);
    p->fn(p->user, params, plen, task, tlen, emit_record, &pfd[1]);
    _exit(0);
  }
  close(pfd[1]);
  int64_t deadline = p->opts.task_timeout_ms > 0
                         ? now_ms() + p->opts.task_timeout_ms
                         : -1;
  bool timed_out = false;
  for (;;) {
    int wait = deadline < 0 ? -1 : (int)(deadline - now_ms());
    if (deadline >= 0 && wait <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd pf = {pfd[0], POLLIN, 0};
    int r = poll(&pf, 1, wait);
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0) {
      timed_out = true;
      break;
    }
    uint64_t len;
    if (!read_all(pfd[0], &len, sizeof len))
      break; // EOF: the child exited (or died mid-record)
    void *rec = malloc(len ? len : 1);
    if (!rec || !read_all(pfd[0], rec, len)) {
      free(rec);
      break;
    }
    bool sent = send_msg(sock, MSG_RECORD, index, rec, len);
    free(rec);
    if (!sent)
      _exit(0); // the trainer is gone
  }
  if (timed_out)
    kill(pid, SIGKILL);
  close(pfd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (timed_out)
    d = (done_payload){TASK_TIMEOUT, SIGKILL};
  else if (WIFSIGNALED(status))
    d = (done_payload){TASK_CRASHED, WTERMSIG(status)};
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    d = (done_payload){TASK_OK, 0};
  return d;
}

static void pin_to_core(int worker) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(worker % (cores > 0 ? cores : 1), &set);
  sched_setaffinity(0, sizeof set, &set); // best effort: a hint, not a need
}

static _Noreturn void worker_main(const worker_pool *p, int worker, int sock) {
  if (p->opts.pin)
    pin_to_core(worker);
  void *params = NULL;
  size_t plen = 0;
  for (;;) {
    msg_header h;
    void *data;
    if (!recv_msg(sock, &h, &data) || h.type == MSG_QUIT)
      _exit(0);
    if (h.type == MSG_PARAMS) {
      free(params);
      params = data;
      plen = h.len;
    } else if (h.type == MSG_TASK) {
      done_payload d = run_task(sock, h.index, p, params, plen, data, h.len);
      free(data);
      if (!send_msg(sock, MSG_DONE, h.index, &d, sizeof d))
        _exit(0);
    } else {
      free(data);
    }
  }
}

// ----------------------------------------------------------------------------
// the trainer side

static bool spawn(worker_pool *p, int i) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return false;
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    return false;
  }
  if (pid == 0) {
    close(sv[0]);
    for (int j = 0; j < p->n; j++) // other workers' sockets are not ours
      if (p->fd[j] >= 0)
        close(p->fd[j]);
    worker_main(p, i, sv[1]);
  }
  close(sv[1]);
  p->pid[i] = pid;
  p->fd[i] = sv[0];
  p->task[i] = -1;
  return !p->params || send_msg(sv[0], MSG_PARAMS, -1, p->params, p->plen);
}

static void reap(worker_pool *p, int i) {
  if (p->fd[i] >= 0)
    close(p->fd[i]);
  p->fd[i] = -1;
  if (p->pid[i] > 0) {
    kill(p->pid[i], SIGKILL);
    while (waitpid(p->pid[i], NULL, 0) < 0 && errno == EINTR)
      ;
  }
  p->pid[i] = 0;
}

mqss_status pool_create(mqss_session *s, const pool_options *opts,
                        pool_task_fn fn, void *user, worker_pool **out) {
  *out = NULL;
  if (!opts || opts->workers < 1 || !fn)
    return fail(s, MQSS_ERR_INVALID_ARG, "pool: need at least one worker and a task function");
  worker_pool *p = calloc(1, sizeof *p);
  if (!p)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  *p = (worker_pool){s, *opts, fn, user, opts->workers, calloc((size_t)opts->workers, sizeof(pid_t)),
                     malloc((size_t)opts->workers * sizeof(int)),
                     malloc((size_t)opts->workers * sizeof(int)), NULL, 0};
  if (!p->pid || !p->fd || !p->task) {
    pool_destroy(p);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < p->n; i++)
    p->fd[i] = -1;
  for (int i = 0; i < p->n; i++) {
    if (!spawn(p, i)) {
      pool_destroy(p);
      return fail(s, MQSS_ERR_INTERNAL, "pool: cannot start worker %d: %s", i,
                  strerror(errno));
    }
  }
  *out = p;
  return MQSS_OK;
}

mqss_status pool_set_params(worker_pool *p, const void *params, size_t len) {
  void *copy = malloc(len ? len : 1);
  if (!copy)
    return fail(p->session, MQSS_ERR_NOMEM, "out of memory");
  memcpy(copy, params, len);
  free(p->params);
  p->params = copy;
  p->plen = len;
  for (int i = 0; i < p->n; i++)
    if (!send_msg(p->fd[i], MSG_PARAMS, -1, params, len)) {
      reap(p, i); // it died; respawning resends the new parameters
      if (!spawn(p, i))
        return fail(p->session, MQSS_ERR_INTERNAL, "pool: cannot restart worker %d", i);
    }
  return MQSS_OK;
}

mqss_status pool_run(worker_pool *p, int ntasks, const void *const *tasks,
                     const size_t *lens, pool_record_fn on_record,
                     pool_done_fn on_done, void *ctx) {
  int next = 0, done = 0;
  struct pollfd *pf = malloc((size_t)p->n * sizeof *pf);
  if (!pf)
    return fail(p->session, MQSS_ERR_NOMEM, "out of memory");
  mqss_status st = MQSS_OK;
  while (done < ntasks) {
    for (int i = 0; i < p->n && next < ntasks; i++) {
      if (p->task[i] >= 0)
        continue;
      p->task[i] = next;
      if (!send_msg(p->fd[i], MSG_TASK, next, tasks[next], lens[next]))
        p->task[i] = -1; // found dead below via POLLHUP, task not lost
      else
        next++;
    }
    for (int i = 0; i < p->n; i++)
      pf[i] = (struct pollfd){p->fd[i], POLLIN, 0};
    if (poll(pf, (nfds_t)p->n, -1) < 0) {
      if (errno == EINTR)
        continue;
      st = fail(p->session, MQSS_ERR_INTERNAL, "pool: poll: %s", strerror(errno));
      break;
    }
    for (int i = 0; i < p->n; i++) {
      if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      msg_header h;
      void *data;
      if (!recv_msg(p->fd[i], &h, &data)) {
        // The worker itself died: its task counts as crashed, and a fresh
        // worker takes its place.
        int t = p->task[i];
        reap(p, i);
        if (t >= 0) {
          on_done(ctx, t, TASK_CRASHED, 0);
          done++;
        }
        if (!spawn(p, i)) {
          st = fail(p->session, MQSS_ERR_INTERNAL, "pool: cannot restart worker %d", i);
          goto out;
        }
        continue;
      }
      if (h.type == MSG_RECORD) {
        on_record(ctx, h.index, data, h.len);
      } else if (h.type == MSG_DONE && h.len == sizeof(done_payload)) {
        done_payload d;
        memcpy(&d, data, sizeof d);
        on_done(ctx, h.index, (task_status)d.status, d.signal);
        p->task[i] = -1;
        done++;
      }
      free(data);
    }
  }
out:
  free(pf);
  return st;
}

void pool_destroy(worker_pool *p) {
  if (!p)
    return;
  for (int i = 0; p->fd && i < p->n; i++) {
    if (p->fd[i] >= 0)
      send_msg(p->fd[i], MSG_QUIT, -1, NULL, 0);
    reap(p, i);
  }
  free(p->pid);
  free(p->fd);
  free(p->task);
  free(p->params);
  free(p);
}
