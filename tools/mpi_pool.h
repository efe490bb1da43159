// MPI transport for the rollout pool: with `mpirun -np K mqss train --mpi`,
// rank 0 trains and ranks 1..K-1 are rollout workers. Only the CLI links MPI;
// the library stays free of it.
#ifndef MQSS_TOOLS_MPI_POOL_H
#define MQSS_TOOLS_MPI_POOL_H

#include "rl/pool.h"

// Initialises MPI; sets this process's rank and the number of ranks.
// Returns 0, or 1 after printing "mqss: ..." when MPI cannot start.
int mpi_start(int *argc, char ***argv, int *rank, int *size);

// Finalises MPI.
void mpi_stop(void);

// The trainer's backend over ranks 1..size-1 (rank 0 only).
pool_backend mpi_trainer_backend(int size);

// Serves rollout tasks on this worker rank until the trainer stops it.
void mpi_worker_serve(const pool_options *opts, pool_task_fn fn, void *user,
                      int rank);

#endif // MQSS_TOOLS_MPI_POOL_H
