/* Generalized requests: the request pool's hooks into their callbacks. */
#ifndef TW_MPI_GREQUEST_H
#define TW_MPI_GREQUEST_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* Generalized requests, slot i of kind REQ_GREQ: completing one (its
 * query and free callbacks; *req becomes null), its status (the query callback
 * alone), freeing one (at once when complete, else when it completes) and
 * cancelling one (its cancel callback). Each returns what the callbacks did. */
int tw_mpi_greq_complete(int i, MPI_Request *req, MPI_Status *status);
int tw_mpi_greq_status(int i, MPI_Status *status);
int tw_mpi_greq_free(int i);
int tw_mpi_greq_cancel(int i);

#pragma GCC visibility pop

#endif
