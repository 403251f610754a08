/* The error handlers of communicators (MPI-4.1 section 9.3.1): setting, getting and
 * calling one, and the communicators' part in the handlers' sweep (env/errhandler.c). */
#include "mpi/comm/comm.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

static void holders(tw_mpi_eh_mark_fn *mark, unsigned char *in_use) {
    for (int k = 0; k < TW_MPI_COMMS; k++)
        if (tw_mpi_comm_table[k]) mark(in_use, tw_mpi_comm_table[k]->errhandler);
}

/* How an error on comm is raised (env/error.c): NULL is MPI_COMM_WORLD, where errors
 * that concern no object go; fatal while there is none. */
static tw_mpi_eh_target_t target(tw_mpi_comm_t *comm) {
    if (!comm) comm = tw_mpi_comm_get(MPI_COMM_WORLD);
    if (!comm) return (tw_mpi_eh_target_t){MPI_ERRORS_ARE_FATAL, MPI_COMM_NULL, NULL};
    return (tw_mpi_eh_target_t){comm->errhandler, comm->handle, comm->name};
}

void tw_mpi_comm_errhandler_init(void) {
    tw_mpi_eh_holders(TW_EH_COMM, holders);
    tw_mpi_error_on_comms(target);
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
    NEED_INIT("MPI_Comm_set_errhandler");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_set_errhandler", MPI_ERR_COMM, NULL);
    if (!tw_mpi_eh_settable(errhandler, TW_EH_COMM))
        return tw_mpi_error(c, "MPI_Comm_set_errhandler", MPI_ERR_ARG,
                            "not an error handler for communicators");
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler) {
    NEED_INIT("MPI_Comm_get_errhandler");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_get_errhandler", MPI_ERR_COMM, NULL);
    if (!errhandler) return tw_mpi_error(c, "MPI_Comm_get_errhandler", MPI_ERR_ARG, NULL);
    *errhandler = c->errhandler;
    tw_mpi_eh_ref(*errhandler); /* a new handle, for MPI_Errhandler_free */
    return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
    NEED_INIT("MPI_Comm_call_errhandler");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_call_errhandler", MPI_ERR_COMM, NULL);
    tw_mpi_error(c, "MPI_Comm_call_errhandler", errorcode, NULL);
    return MPI_SUCCESS; /* the handler was called (and returned) */
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
    return MPI_Comm_set_errhandler(comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler) {
    return MPI_Comm_get_errhandler(comm, errhandler);
}
