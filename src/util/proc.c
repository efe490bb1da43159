// Child processes (see proc.h): fork with a channel, read under a wall-clock
// timeout, kill, reap. The only fork() in the library. It knows nothing
// about what the children do.
#include "util/proc.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// children left to reap later

// Children that had not finished exiting when the parent was done with them:
// reaped later (WNOHANG) instead of waiting for their address-space
// teardown. Another waitpid(-1) in the host may reap them first; that is
// harmless.
enum { MAX_EXITING = 64 };
static pthread_mutex_t exiting_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t exiting[MAX_EXITING];
static int n_exiting;

static void reap_exiting(void) {
  pthread_mutex_lock(&exiting_lock);
  int k = 0;
  for (int i = 0; i < n_exiting; i++) {
    pid_t r = waitpid(exiting[i], NULL, WNOHANG);
    if (r == 0)
      exiting[k++] = exiting[i]; // still exiting
  }
  n_exiting = k;
  pthread_mutex_unlock(&exiting_lock);
}

static void close_end(proc *p) {
  if (p->fd >= 0)
    close(p->fd);
  p->fd = -1;
}

void proc_reap_later(proc *p) {
  close_end(p);
  pid_t pid = p->pid;
  p->pid = 0;
  if (pid <= 0 || waitpid(pid, NULL, WNOHANG) != 0)
    return;
  pthread_mutex_lock(&exiting_lock);
  bool kept = n_exiting < MAX_EXITING;
  if (kept)
    exiting[n_exiting++] = pid;
  pthread_mutex_unlock(&exiting_lock);
  if (!kept) // the list is full: wait for this one
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
      ;
}

// ----------------------------------------------------------------------------
// spawn, read, wait

bool proc_spawn(proc *p, bool duplex, proc_main_fn fn, void *arg) {
  *p = (proc){0, -1, {0, 0}};
  int ch[2]; // [0] the parent's end, [1] the child's
  if (duplex ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ch) != 0
             : pipe(ch) != 0)
    return false;
  reap_exiting();
  fflush(NULL);
  p->fork_ms[0] = now_ms();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(ch[0]);
    close(ch[1]);
    errno = e;
    return false;
  }
  if (pid == 0) {
    close(ch[0]);
    fn(arg, ch[1]);
    _exit(0);
  }
  p->fork_ms[1] = now_ms();
  close(ch[1]);
  p->pid = pid;
  p->fd = ch[0];
  return true;
}

bool proc_read(proc *p, int timeout_ms, strbuf *buf, proc_consume_fn consume,
               void *ctx) {
  double deadline = now_ms() + timeout_ms;
  char chunk[8192];
  for (;;) {
    double left = deadline - now_ms();
    if (timeout_ms > 0 && left <= 0) {
      kill(p->pid, SIGKILL);
      return true;
    }
    struct pollfd pfd = {p->fd, POLLIN, 0};
    int n = poll(&pfd, 1, timeout_ms > 0 ? (int)left + 1 : -1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n == 0)
      continue; // re-check the deadline
    ssize_t got = read(p->fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false; // end of file: the child exited
    size_t had = buf->len;
    sb_append(buf, chunk, (size_t)got);
    if (buf->len != had + (size_t)got)
      return false; // no memory for it
    if (consume) {
      size_t used = consume(ctx, buf->data, buf->len);
      memmove(buf->data, buf->data + used, buf->len - used);
      buf->len -= used;
      buf->data[buf->len] = '\0';
    }
  }
}

int proc_wait(proc *p) {
  close_end(p);
  int status = 0;
  if (p->pid > 0)
    while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
      ;
  p->pid = 0;
  return status;
}

void proc_kill(proc *p) {
  close_end(p);
  if (p->pid > 0)
    kill(p->pid, SIGKILL);
  proc_wait(p);
}

// ----------------------------------------------------------------------------
// whole messages

// Moves all `len` bytes with `op`, retrying on EINTR; false at end of file
// or on an error.
static bool move_all(ssize_t (*op)(int, void *, size_t), int fd, void *buf,
                     size_t len) {
  char *c = buf;
  while (len > 0) {
    ssize_t n = op(fd, c, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    c += n;
    len -= (size_t)n;
  }
  return true;
}

static ssize_t op_write(int fd, void *buf, size_t len) {
  return write(fd, buf, len);
}

static ssize_t op_send(int fd, void *buf, size_t len) {
  return send(fd, buf, len, MSG_NOSIGNAL);
}

bool proc_write(int fd, const void *data, size_t len) {
  return move_all(op_write, fd, (void *)data, len);
}

bool proc_send(int fd, const void *data, size_t len) {
  return move_all(op_send, fd, (void *)data, len);
}

bool proc_read_exact(int fd, void *buf, size_t len) {
  return move_all(read, fd, buf, len);
}
