/* The generated wrappers' argument checks (checks.h). */
#include <stdio.h>

#include "mpi/bindings/checks.h"
#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

int tw_mpi_negative_count(MPI_Comm comm, const char *call, const char *param, long long count) {
    if (!tw_mpi.initialized || tw_mpi.finalized) return MPI_SUCCESS;
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return MPI_SUCCESS;
    char detail[96];
    snprintf(detail, sizeof detail, "%s %lld is negative", param, count);
    return tw_mpi_error(c, call, MPI_ERR_COUNT, detail);
}
