// Child processes: the one place that forks. A child runs a function with
// its end of a channel (a pipe it writes, or a socketpair for two-way
// messages) and exits when the function returns; the parent reads what it
// sends under a wall-clock timeout that SIGKILLs it, then reaps it and gets
// its wait status. A persistent child exchanges whole messages over its
// socketpair (proc_send, proc_read_exact) until it is killed and reaped.
// Used by the measurement sandbox (and through it the isolated select), the
// training pool (persistent workers and their task children) and random
// search. What a child does, which limits it applies and what its records or
// its death mean are the caller's.
#ifndef MQSS_UTIL_PROC_H
#define MQSS_UTIL_PROC_H

#include "internal.h"

#include <stddef.h>
#include <sys/types.h>

typedef struct {
  pid_t pid;          // the child; 0 once reaped
  int fd;             // the parent's end of the channel; -1 once closed
  double fork_ms[2];  // now_ms() right before and right after fork()
} proc;

// What the child runs, with its end of the channel. The child _exit(0)s when
// it returns (no atexit handlers, no second flush of the parent's stdio).
typedef void (*proc_main_fn)(void *arg, int fd);

// Forks a child that runs fn(arg, fd). `duplex`: the channel is a
// socketpair (both ways, SOCK_CLOEXEC); otherwise a pipe the child writes.
// Flushes stdio first (or the child could write the parent's buffered output
// a second time) and reaps children left to proc_reap_later. False with
// errno set when the channel or fork() fails.
bool proc_spawn(proc *p, bool duplex, proc_main_fn fn, void *arg);

// Takes whole records from the start of what has been read (`data`, `len`
// bytes) and returns how many bytes it used.
typedef size_t (*proc_consume_fn)(void *ctx, const char *data, size_t len);

// Reads from the child until end of file (it exited or closed its end) or,
// with timeout_ms > 0, until that many ms of wall clock have passed: then it
// kills the child (SIGKILL) and returns true. What it reads is appended to
// `buf`; with `consume`, after each read, the bytes consume used are
// dropped from the start of `buf`. A read that `buf` has no memory for ends
// the reading like end of file.
bool proc_read(proc *p, int timeout_ms, strbuf *buf, proc_consume_fn consume,
               void *ctx);

// Closes the parent's end, waits for the child and returns its wait status.
int proc_wait(proc *p);
// Closes the parent's end, kills the child (SIGKILL) and reaps it.
void proc_kill(proc *p);
// Closes the parent's end; reaps the child now if it has exited, else on a
// later proc_spawn (for a child that replied and whose large address space
// is still being torn down: its status is not needed).
void proc_reap_later(proc *p);

// Writes all `len` bytes to `fd` with write(), retrying on EINTR; false when
// the reader is gone. Plain write() (no send()): a confined child may call it.
bool proc_write(int fd, const void *data, size_t len);
// The same on a socket (a duplex channel) with send(MSG_NOSIGNAL): a peer
// that is gone gives false, not SIGPIPE.
bool proc_send(int fd, const void *data, size_t len);
// Reads exactly `len` bytes from `fd` into `buf`, retrying on EINTR; false
// at end of file or on an error.
bool proc_read_exact(int fd, void *buf, size_t len);

#endif // MQSS_UTIL_PROC_H
