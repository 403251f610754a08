/* MPI errors: what a call that fails does under its communicator's handler. */
#include <stdio.h>
#include <unistd.h>

#include "mpi/comm/comm.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

int tw_mpi_fatal_status(int errcode) {
    int errclass = errcode;
    if (MPI_Error_class(errcode, &errclass) != MPI_SUCCESS) errclass = errcode;
    return errclass < 1 ? 1 : errclass > 255 ? 255 : errclass;
}

int tw_mpi_error(tw_mpi_comm_t *comm, const char *call, int errclass, const char *detail) {
    if (!comm) comm = tw_mpi_comm_get(MPI_COMM_WORLD);
    MPI_Errhandler h = comm ? comm->errhandler : MPI_ERRORS_ARE_FATAL;
    if (h == MPI_ERRORS_RETURN) return errclass;
    MPI_Comm handle = comm ? comm->handle : MPI_COMM_NULL;
    if (comm && tw_mpi_eh_call(h, &handle, errclass)) return errclass;
    char msg[1024 + MPI_MAX_ERROR_STRING], name[MPI_MAX_ERROR_STRING];
    int len, cls = errclass; /* errclass may be a code of a class (a lost peer's) */
    MPI_Error_string(errclass, name, &len);
    MPI_Error_class(errclass, &cls);
    /* MPI_ERRORS_ABORT is MPI_Abort on the communicator, and MPI_Abort ends the whole
     * job (the standard allows it): the message says whose handler it was */
    char whose[MPI_MAX_OBJECT_NAME + 64] = "";
    if (h == MPI_ERRORS_ABORT)
        snprintf(whose, sizeof whose, " (MPI_ERRORS_ABORT on %s)",
                 comm && comm->name[0] ? comm->name : "the object");
    snprintf(msg, sizeof msg, "tollway MPI: rank %d: %s: %s%s%s (error class %d)%s; ending the job",
             tw_mpi.rank, call, name, detail ? ": " : "", detail ? detail : "", cls, whose);
    int status = tw_mpi_fatal_status(errclass);
    if (tw_mpi.ep) tw_ep_abort(tw_mpi.ep, status, msg);
    fprintf(stderr, "%s\n", msg);
    _exit(status);
}
