// Rollout worker pool: N persistent worker processes that run tasks (episodes)
// for the trainer. Each task runs in a child forked from its worker, so a
// crash, abort or hang inside a task kills only that child: the worker reports
// it as a failed task and carries on. Records a task emits stream back to the
// trainer as they happen, so a task that dies midway still delivers what it
// did before dying. Not a scheduler of anything but tasks: what a task means
// (an episode, a measurement) is the caller's.
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
  TASK_CRASHED = 1, // killed by a signal (see `signal`)
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
  int task_timeout_ms; // wall-clock limit of one task (0 = none)
} pool_options;

// Forks the workers. `fn` and `user` are inherited by every worker (fork), so
// `user` may point at anything set up before this call.
mqss_status pool_create(mqss_session *s, const pool_options *opts,
                        pool_task_fn fn, void *user, worker_pool **out);

// Sends a new parameter blob to every worker; later tasks see it.
mqss_status pool_set_params(worker_pool *p, const void *params, size_t len);

// Runs `ntasks` tasks (task i is tasks[i] of lens[i] bytes) on the workers,
// handing each to the next idle worker, and returns when all are done. A
// worker that dies is replaced and its task reported as TASK_CRASHED.
mqss_status pool_run(worker_pool *p, int ntasks, const void *const *tasks,
                     const size_t *lens, pool_record_fn on_record,
                     pool_done_fn on_done, void *ctx);

// Stops and reaps the workers. NULL is harmless.
void pool_destroy(worker_pool *p);

#endif // MQSS_RL_POOL_H
