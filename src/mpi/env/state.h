/* The state of the MPI library as a whole: its endpoint, rank and size, and who
 * uses it (the world model, sessions: session/runtime.c). */
#ifndef TW_MPI_STATE_H
#define TW_MPI_STATE_H

#include <pthread.h>
#include <stdio.h>

#include <mpi.h>
#include <tollway/tollway.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_state {
    int initialized, finalized; /* the world model: MPI_Init and MPI_Finalize were called */
    int users;   /* the world model and the open sessions: the endpoint is open while > 0 */
    int started; /* the endpoint was opened once (the one-time set-up ran) */
    tw_ep_t *ep;
    /* every channel's endpoint (eps[0] is ep), neps of them once the channels are open:
     * a wait sleeps on all their doorbells (tw_mpi_relax) */
    tw_ep_t *eps[TW_EP_WAIT_SET_MOST];
    int neps;
    int rank, size;
    int thread_level;      /* provided by MPI_Init_thread */
    pthread_t main_thread; /* the thread that called it */
    int crowded;           /* this node's ranks outnumber its CPUs (tw_ep_crowded) */
    int appnum;            /* MPI_APPNUM: the command of a spawn this process runs */
} tw_mpi_state_t;

extern tw_mpi_state_t tw_mpi;

/* Every call but a few needs a running library: the world model or a session. */
#define NEED_INIT(call)                                                                            \
    do {                                                                                           \
        if (tw_mpi.users <= 0) {                                                                   \
            fprintf(stderr, "tollway MPI: %s called %s\n", call,                                   \
                    tw_mpi.finalized ? "after MPI_Finalize (and with no session open)"             \
                    : tw_mpi.started ? "after the last MPI_Session_finalize"                       \
                                     : "before MPI_Init or MPI_Session_init");                     \
            return MPI_ERR_OTHER;                                                                  \
        }                                                                                          \
    } while (0)

#pragma GCC visibility pop

#endif
