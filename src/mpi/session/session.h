/* Sessions (session.c, from_group.c): the table, their error handlers, and the
 * check of MPI_Comm_create_from_group's members. */
#ifndef TW_MPI_SESSION_SESSION_H
#define TW_MPI_SESSION_SESSION_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The session a group or communicator derives from (index + 1; 0: none): its handle,
 * or MPI_SESSION_NULL when none or finalised. */
MPI_Session tw_mpi_session_handle(int session);
/* Reports an error of call as session's handler says (MPI_SESSION_NULL: as eh says,
 * MPI_ERRORS_ARE_FATAL when it is none): returns the class, or ends the job. */
int tw_mpi_session_error(MPI_Session session, MPI_Errhandler eh, const char *call, int errclass,
                         const char *detail);

#pragma GCC visibility pop

#endif
