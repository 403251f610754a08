/* The state of the MPI library as a whole: its endpoint, rank and size, and
 * whether it is initialised. */
#ifndef TW_MPI_STATE_H
#define TW_MPI_STATE_H

#include <pthread.h>
#include <stdio.h>

#include <mpi.h>
#include <tollway/tollway.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_state {
    int initialized, finalized;
    tw_ep_t *ep;
    int rank, size;
    int thread_level;      /* provided by MPI_Init_thread */
    pthread_t main_thread; /* the thread that called it */
    int crowded;           /* this node's ranks outnumber its CPUs (tw_ep_crowded) */
} tw_mpi_state_t;

extern tw_mpi_state_t tw_mpi;

/* Every call but a few needs an initialised, not yet finalised library. */
#define NEED_INIT(call)                                                                            \
    do {                                                                                           \
        if (!tw_mpi.initialized || tw_mpi.finalized) {                                             \
            fprintf(stderr, "tollway MPI: %s called %s\n", call,                                   \
                    tw_mpi.finalized ? "after MPI_Finalize" : "before MPI_Init");                  \
            return MPI_ERR_OTHER;                                                                  \
        }                                                                                          \
    } while (0)

#pragma GCC visibility pop

#endif
