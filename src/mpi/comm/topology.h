/* Process topologies (topology.c): what a communicator's topology holds, and the
 * neighbours its neighbourhood collectives (neighbor.c) talk to. */
#ifndef TW_MPI_TOPOLOGY_H
#define TW_MPI_TOPOLOGY_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_comm tw_mpi_comm_t;

typedef struct tw_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* Cartesian: ndims dimensions, and this rank's coordinates */
    int ndims;
    int *dims, *periods, *coords;
    /* graph: the whole graph as given to MPI_Graph_create */
    int nnodes, nedges;
    int *index, *edges;
    /* distributed graph: weights NULL when unweighted */
    int weighted;
    int *sweights, *dweights;
    /* every kind: the ranks this one receives from (in order) and sends to (in
     * order); MPI_PROC_NULL for a Cartesian neighbour off the grid's edge. In a
     * distributed graph these are its sources and destinations. */
    int nin, nout;
    int *in, *out;
    size_t nints; /* every array above lies in data */
    int data[];
} tw_topo_t;

void tw_topo_free(tw_topo_t *t);
/* Gives to the communicator to a copy of from's topology (none when from has none).
 * MPI_SUCCESS or MPI_ERR_NO_MEM. */
int tw_topo_copy(const tw_mpi_comm_t *from, tw_mpi_comm_t *to);

#pragma GCC visibility pop

#endif
