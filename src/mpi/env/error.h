/* Errors: reported as the communicator's error handler says (session/init.c). */
#ifndef TW_MPI_ERROR_H
#define TW_MPI_ERROR_H

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_comm tw_mpi_comm_t;

/* Reports an error as comm's error handler says: returns the class for
 * MPI_ERRORS_RETURN, ends the job for MPI_ERRORS_ARE_FATAL. */
int tw_mpi_error(tw_mpi_comm_t *comm, const char *call, int errclass, const char *detail);

/* The exit status of a rank that an error ends under MPI_ERRORS_ARE_FATAL: the error
 * class of errcode, clamped into 1..255 so that it never reads as success nor wraps. */
int tw_mpi_fatal_status(int errcode);

#pragma GCC visibility pop

#endif
