/* Process topologies (topology.c, MPI-4.1 chapter 8); the topology itself is part of
 * the communicator (comm/comm.h). */
#ifndef TW_MPI_TOPOLOGY_H
#define TW_MPI_TOPOLOGY_H

#include "mpi/comm/comm.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Gives to a copy of from's topology (a duplicate keeps its parent's). */
int tw_topo_copy(const tw_mpi_comm_t *from, tw_mpi_comm_t *to);

#pragma GCC visibility pop

#endif
