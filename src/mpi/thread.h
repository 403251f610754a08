/* MPI_THREAD_MULTIPLE: the lock every public call takes while threads are on (the
 * generated PMPI_ wrappers, gen_api.py), released by blocking calls while they wait. */
#ifndef TW_MPI_THREAD_H
#define TW_MPI_THREAD_H

#pragma GCC visibility push(hidden)

/* Nonzero while the library runs at MPI_THREAD_MULTIPLE: only then is the lock taken,
 * so the single-threaded paths cost one load and a branch. */
extern int tw_mpi_threads_on;

void tw_mpi_enter(void);
void tw_mpi_leave(void);

#pragma GCC visibility pop

#endif
