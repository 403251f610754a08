/* The context of a program's callback, for the faces (callback.h). */
#include <mpi.h>

#include "mpi/env/callback.h"

_Thread_local tw_mpi_callback_fn *tw_mpi_callback_context;

int tw_mpi_callback_context_set(int handle, tw_mpi_callback_fn *context) {
    switch ((unsigned)handle >> 24) { /* the handle's kind (mpi.h) */
    case 0x58:
        return tw_mpi_op_context_set(handle, context);
    case 0x54:
        return tw_mpi_eh_context_set(handle, context);
    default:
        return MPI_ERR_ARG;
    }
}
