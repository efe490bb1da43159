// Rollout worker pool: persistent workers that run tasks (episodes) for the
// trainer. Each task runs in a child forked from its worker, so a crash,
// abort or hang inside a task kills only that child: the worker reports it as
// a failed task and carries on. Records a task emits stream back to the
// trainer as they happen, so a task that dies midway still delivers what it
// did before dying. What a task means (an episode, a measurement) is the
// caller's.
//
// Workers are local processes (pool_create) or, through a backend the caller
// supplies, remote ones such as MPI ranks (pool_create_with_backend and
// pool_serve). The protocol and the semantics are the same.
#ifndef MQSS_RL_POOL_H
#define MQSS_RL_POOL_H

#include "internal.h"

#include <stdint.h>

typedef struct worker_pool worker_pool;

// Called inside a task's child to send one record to the trainer.
typedef void (*pool_emit_fn)(void *emit_ctx, const void *rec, size_t len);

// Runs one task in the task's child process. `params` is the blob of the last
// pool_set_params() call (for example policy weights); `task` describes the
// task. The child exits when it returns.
typedef void (*pool_task_fn)(void *user, const void *params, size_t plen,
                             const void *task, size_t tlen, pool_emit_fn emit,
                             void *emit_ctx);

typedef enum {
  TASK_OK = 0,      // returned normally
  TASK_CRASHED = 1, // killed by a signal (see `signal`), or its worker died
  TASK_TIMEOUT = 2, // exceeded the wall-clock limit and was killed
  TASK_FAILED = 3,  // exited with a non-zero status
} task_status;

// Receives, in the trainer, each record of task `index` as it arrives.
typedef void (*pool_record_fn)(void *ctx, int index, const void *rec,
                               size_t len);
// Receives, in the trainer, the end of task `index`.
typedef void (*pool_done_fn)(void *ctx, int index, task_status status,
                             int signal);

typedef struct {
  int workers;         // number of worker processes (>= 1)
  int pin;             // 1: pin worker i to core i % online cores
  int task_timeout_ms; // wall-clock limit of one task (0 = none); also its
                       // RLIMIT_CPU (timeout + 1 s)
  int mem_limit_mb;    // MiB a task's child may map beyond what it inherits
                       // (RLIMIT_AS; 0 = none)
} pool_options;

// Forks local workers. `fn` and `user` are inherited by every worker (fork),
// so `user` may point at anything set up before this call.
mqss_status pool_create(mqss_session *s, const pool_options *opts,
                        pool_task_fn fn, void *user, worker_pool **out);

// Sends a new parameter blob to every worker; later tasks see it.
mqss_status pool_set_params(worker_pool *p, const void *params, size_t len);

// Runs `ntasks` tasks (task i is tasks[i] of lens[i] bytes) on the workers,
// handing each to the next idle worker, and returns when all are done. A
// worker that dies has its task reported as TASK_CRASHED and is replaced
// (local workers) or retired (remote ones; if none is left, the call fails).
mqss_status pool_run(worker_pool *p, int ntasks, const void *const *tasks,
                     const size_t *lens, pool_record_fn on_record,
                     pool_done_fn on_done, void *ctx);

// Stops and reaps the workers. NULL is harmless.
void pool_destroy(worker_pool *p);

// ----------------------------------------------------------------------------
// other transports (MPI): a message is one opaque byte string either way

// The trainer's end: how to reach `n` remote workers.
typedef struct {
  void *ctx;
  int n;
  // Sends one message to worker w; false when w is gone.
  bool (*send)(void *ctx, int w, const void *msg, size_t len);
  // Waits for the next message from any worker; *msg is malloc'ed. Returns
  // false (with *w set) when worker w is gone.
  bool (*recv_any)(void *ctx, int *w, void **msg, size_t *len);
  // Releases ctx (the workers have been told to stop).
  void (*close)(void *ctx);
} pool_backend;

// A worker's end: its one channel to the trainer.
typedef struct {
  void *ctx;
  bool (*send)(void *ctx, const void *msg, size_t len);
  bool (*recv)(void *ctx, void **msg, size_t *len); // *msg malloc'ed
} pool_link;

// A pool over remote workers; takes ownership of `backend`.
mqss_status pool_create_with_backend(mqss_session *s, const pool_options *opts,
                                     const pool_backend *backend,
                                     worker_pool **out);

// Serves tasks on a remote worker until the trainer says stop or the link
// breaks. `worker` is this worker's number (for pinning).
void pool_serve(const pool_link *link, const pool_options *opts,
                pool_task_fn fn, void *user, int worker);

#endif // MQSS_RL_POOL_H
