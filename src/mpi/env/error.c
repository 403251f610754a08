/* MPI errors: what a call that fails does under the handler of the object it
 * concerns. */
#include <stdio.h>
#include <unistd.h>

#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

int tw_mpi_fatal_status(int errcode) {
    int errclass = errcode;
    if (MPI_Error_class(errcode, &errclass) != MPI_SUCCESS) errclass = errcode;
    return errclass < 1 ? 1 : errclass > 255 ? 255 : errclass;
}

static tw_mpi_comm_eh_fn *comm_target;

void tw_mpi_error_on_comms(tw_mpi_comm_eh_fn *fn) {
    comm_target = fn;
}

int tw_mpi_error(tw_mpi_comm_t *comm, const char *call, int errclass, const char *detail) {
    tw_mpi_eh_target_t t = comm_target
                               ? comm_target(comm)
                               : (tw_mpi_eh_target_t){MPI_ERRORS_ARE_FATAL, MPI_COMM_NULL, NULL};
    return tw_mpi_raise(t.handler, t.handle != MPI_COMM_NULL ? &t.handle : NULL, t.name, call,
                        errclass, detail);
}

int tw_mpi_raise(MPI_Errhandler h, int *handle, const char *name, const char *call, int errclass,
                 const char *detail) {
    if (h == MPI_ERRORS_RETURN) return errclass;
    if (handle && tw_mpi_eh_call(h, handle, &errclass)) return errclass;
    char msg[1024 + MPI_MAX_ERROR_STRING], text[MPI_MAX_ERROR_STRING];
    int len, cls = errclass; /* errclass may be a code of a class (a lost peer's) */
    MPI_Error_string(errclass, text, &len);
    MPI_Error_class(errclass, &cls);
    /* MPI_ERRORS_ABORT is MPI_Abort on the communicator, and MPI_Abort ends the whole
     * job (the standard allows it): the message says whose handler it was */
    char whose[MPI_MAX_OBJECT_NAME + 64] = "";
    if (h == MPI_ERRORS_ABORT)
        snprintf(whose, sizeof whose, " (MPI_ERRORS_ABORT on %s)",
                 name && name[0] ? name : "the object");
    snprintf(msg, sizeof msg, "tollway MPI: rank %d: %s: %s%s%s (error class %d)%s; ending the job",
             tw_mpi.rank, call, text, detail ? ": " : "", detail ? detail : "", cls, whose);
    int status = tw_mpi_fatal_status(errclass);
    fflush(NULL); /* what the program printed is not lost with the process (_exit below) */
    if (tw_mpi.ep) tw_ep_abort(tw_mpi.ep, status, msg);
    fprintf(stderr, "%s\n", msg);
    _exit(status);
}
