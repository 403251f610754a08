/* How many entries an array indexed by a communicator's peers has: side 0, the
 * group's size, or the remote group's (alltoallw's types); 1 and 2, the topology's
 * in- and out-neighbours (neighbor_alltoallw's); 0 where the call will fail anyway.
 * Header only: the faces (face.c, over the native calls) and the faces' Fortran
 * library (fortran.c, over the face's calls) compile it against their own mpi.h. */
#ifndef TW_MPI_BINDINGS_COMM_PEERS_H
#define TW_MPI_BINDINGS_COMM_PEERS_H

/* the calls it makes: MPI_X in face.c (the library's own, renamed), PMPI_X where a
 * tool's MPI_X must not see them (the Fortran library defines TW_COMM_PEERS_CALL) */
#ifndef TW_COMM_PEERS_CALL
#define TW_COMM_PEERS_CALL(name) MPI_##name
#endif

static inline int tw_comm_peers(MPI_Comm comm, int side) {
    int n = 0, inter = 0, topo = MPI_UNDEFINED;
    if (side == 0) {
        if (TW_COMM_PEERS_CALL(Comm_test_inter)(comm, &inter)) return 0;
        if (inter ? TW_COMM_PEERS_CALL(Comm_remote_size)(comm, &n)
                  : TW_COMM_PEERS_CALL(Comm_size)(comm, &n))
            return 0;
        return n;
    }
    if (TW_COMM_PEERS_CALL(Topo_test)(comm, &topo)) return 0;
    if (topo == MPI_CART) {
        if (TW_COMM_PEERS_CALL(Cartdim_get)(comm, &n)) return 0;
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        int rank;
        if (TW_COMM_PEERS_CALL(Comm_rank)(comm, &rank) ||
            TW_COMM_PEERS_CALL(Graph_neighbors_count)(comm, rank, &n))
            return 0;
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        int in, out, weighted;
        if (TW_COMM_PEERS_CALL(Dist_graph_neighbors_count)(comm, &in, &out, &weighted)) return 0;
        return side == 1 ? in : out;
    }
    return 0;
}

#endif
