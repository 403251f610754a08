/* Persistent collectives (coll/persistent.c, MPI-4.1 sections 6.13 and 8.8): the
 * collective calls of coll_calls.c and neighbor.c, written once into a schedule
 * kept by an inactive persistent request; MPI_Start runs its steps again. */
#ifndef TW_MPI_COLL_PERSISTENT_H
#define TW_MPI_COLL_PERSISTENT_H

#include <mpi.h>

#include "mpi/coll/schedule.h"

#pragma GCC visibility push(hidden)

/* The nb argument of the calls below: 0 blocking, 1 non-blocking, or this: a
 * persistent request (req) whose schedule is written now and run at each start. */
enum { TW_COLL_PERSISTENT = 2 };

/* Seals schedule s (written with keep set) and gives it to a new inactive
 * persistent request; frees s on failure. 0 or the error class. */
int tw_coll_persistent_make(tw_sched_t *s, MPI_Request *req);
/* MPI_Start of request slot handle r, whose schedule is s (engine.c's tw_mpi_start). */
int tw_coll_persistent_start(tw_sched_t *s, MPI_Request r);

#pragma GCC visibility pop

#endif
