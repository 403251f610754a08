/* The argument checks the generated wrappers (api.c) make: what the MPI Forum's
 * description of a call says alone, with no library state but the handler to call. */
#ifndef TW_MPI_BINDINGS_CHECKS_H
#define TW_MPI_BINDINGS_CHECKS_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* count, the argument param of call, is negative: reports MPI_ERR_COUNT as comm's
 * error handler says. MPI_SUCCESS when the call has an earlier error to report itself
 * (no library, or no such communicator), so the implementation runs and reports it. */
int tw_mpi_negative_count(MPI_Comm comm, const char *call, const char *param, long long count);

#pragma GCC visibility pop

#endif
