// MPI backend of the rollout pool (see mpi_pool.h): each pool message is one
// MPI message of bytes with a fixed tag, so the pool's protocol is unchanged.
#include "mpi_pool.h"

#include "cli.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

enum { TAG = 7 };

int mpi_start(int *argc, char ***argv, int *rank, int *size) {
  if (MPI_Init(argc, argv) != MPI_SUCCESS)
    return cli_error("cannot initialise MPI; run under mpirun");
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

void mpi_stop(void) { MPI_Finalize(); }

static bool send_to(int rank, const void *msg, size_t len) {
  return len <= (size_t)INT_MAX &&
         MPI_Send(msg, (int)len, MPI_BYTE, rank, TAG, MPI_COMM_WORLD) == MPI_SUCCESS;
}

// Receives the next message from `source` (or MPI_ANY_SOURCE).
static bool recv_from(int source, int *from, void **msg, size_t *len) {
  MPI_Status st;
  int count;
  *msg = NULL;
  if (MPI_Probe(source, TAG, MPI_COMM_WORLD, &st) != MPI_SUCCESS ||
      MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS)
    return false;
  *from = st.MPI_SOURCE;
  if (!(*msg = malloc(count > 0 ? (size_t)count : 1)))
    return false;
  if (MPI_Recv(*msg, count, MPI_BYTE, st.MPI_SOURCE, TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    free(*msg);
    *msg = NULL;
    return false;
  }
  *len = (size_t)count;
  return true;
}

// ----------------------------------------------------------------------------
// rank 0: worker w is rank w + 1

static bool trainer_send(void *ctx, int w, const void *msg, size_t len) {
  (void)ctx;
  return send_to(w + 1, msg, len);
}

static bool trainer_recv_any(void *ctx, int *w, void **msg, size_t *len) {
  (void)ctx;
  int from = 1;
  bool ok = recv_from(MPI_ANY_SOURCE, &from, msg, len);
  *w = from - 1;
  return ok;
}

static void trainer_close(void *ctx) { (void)ctx; }

pool_backend mpi_trainer_backend(int size) {
  return (pool_backend){NULL, size - 1, trainer_send, trainer_recv_any,
                        trainer_close};
}

// ----------------------------------------------------------------------------
// ranks 1..K-1

static bool worker_send(void *ctx, const void *msg, size_t len) {
  (void)ctx;
  return send_to(0, msg, len);
}

static bool worker_recv(void *ctx, void **msg, size_t *len) {
  (void)ctx;
  int from;
  return recv_from(0, &from, msg, len);
}

void mpi_worker_serve(const pool_options *opts, pool_task_fn fn, void *user,
                      int rank) {
  pool_link link = {NULL, worker_send, worker_recv};
  pool_serve(&link, opts, fn, user, rank - 1);
}
