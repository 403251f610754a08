/* How many entries an array indexed by a communicator's peers has: side 0, the
 * group's size, or the remote group's (alltoallw's types); 1 and 2, the topology's
 * in- and out-neighbours (neighbor_alltoallw's); 0 where the call will fail anyway.
 * Header only: the faces (face.c, over the native calls) and the faces' Fortran
 * library (fortran.c, over the face's calls) compile it against their own mpi.h. */
#ifndef TW_MPI_BINDINGS_COMM_PEERS_H
#define TW_MPI_BINDINGS_COMM_PEERS_H

static inline int tw_comm_peers(MPI_Comm comm, int side) {
    int n = 0, inter = 0, topo = MPI_UNDEFINED;
    if (side == 0) {
        if (MPI_Comm_test_inter(comm, &inter)) return 0;
        if (inter ? MPI_Comm_remote_size(comm, &n) : MPI_Comm_size(comm, &n)) return 0;
        return n;
    }
    if (MPI_Topo_test(comm, &topo)) return 0;
    if (topo == MPI_CART) {
        if (MPI_Cartdim_get(comm, &n)) return 0;
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        int rank;
        if (MPI_Comm_rank(comm, &rank) || MPI_Graph_neighbors_count(comm, rank, &n)) return 0;
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        int in, out, weighted;
        if (MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted)) return 0;
        return side == 1 ? in : out;
    }
    return 0;
}

#endif
