/* Errors: reported as the error handler of the object they concern says (error.c). */
#ifndef TW_MPI_ERROR_H
#define TW_MPI_ERROR_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_comm tw_mpi_comm_t;

/* Reports an error as handler h says: returns the class for MPI_ERRORS_RETURN, calls
 * a handler of the program's on *handle (when handle is not NULL) and returns the
 * class, ends the job for MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT (whose message
 * names the object, name, when given). */
int tw_mpi_raise(MPI_Errhandler h, int *handle, const char *name, const char *call, int errclass,
                 const char *detail);

/* Reports an error as comm's error handler says (NULL: MPI_COMM_WORLD's, where errors
 * that concern no object go). */
int tw_mpi_error(tw_mpi_comm_t *comm, const char *call, int errclass, const char *detail);

/* What tw_mpi_error raises an error of comm by, as the unit that keeps communicators
 * (comm/comm_errhandler.c) reads them and names when they come to be: the handler,
 * the handle, the name. Before, every error is fatal. */
typedef struct tw_mpi_eh_target {
    MPI_Errhandler handler;
    MPI_Comm handle; /* MPI_COMM_NULL: none */
    const char *name;
} tw_mpi_eh_target_t;
typedef tw_mpi_eh_target_t tw_mpi_comm_eh_fn(tw_mpi_comm_t *comm);
void tw_mpi_error_on_comms(tw_mpi_comm_eh_fn *fn);

/* The exit status of a rank that an error ends under MPI_ERRORS_ARE_FATAL: the error
 * class of errcode, clamped into 1..255 so that it never reads as success nor wraps. */
int tw_mpi_fatal_status(int errcode);

#pragma GCC visibility pop

#endif
