/* The large-count collective calls (MPI-4.1 chapter 6, the _c forms): the paths of
 * the int forms (coll_calls.c), whose counts are MPI_Count throughout; the arrays of
 * the v and w forms are read where they are, through coll/vec.h (no copy). */
#include "mpi/coll/coll_calls.h"
#include "mpi/coll/neighbor.h"
#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/coll/op.h"
#include "mpi/env/state.h"

#define C(a) tw_mpi_vec_count(a)
#define A(a) tw_mpi_vec_aint(a)
#define NONE tw_mpi_vec_int(NULL)

/* A v call's counts are there: told apart from the uniform form by the array. */
static int counts_given(const char *call, MPI_Comm comm, const void *counts) {
    if (counts) return MPI_SUCCESS;
    NEED_INIT(call);
    return tw_mpi_error(tw_mpi_comm_get(comm), call, MPI_ERR_ARG, "counts are NULL");
}

int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    return tw_coll_call_bcast("MPI_Bcast_c", buffer, count, datatype, root, comm, NULL, 0);
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm) {
    return tw_coll_call_reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm,
                               NULL, 0);
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm) {
    return tw_coll_call_reduce_everyone("MPI_Allreduce_c", TW_COLL_ALLREDUCE, sendbuf, recvbuf,
                                        count, datatype, op, comm, NULL, 0);
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm) {
    return tw_coll_call_reduce_everyone("MPI_Scan_c", TW_COLL_SCAN, sendbuf, recvbuf, count,
                                        datatype, op, comm, NULL, 0);
}

int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm) {
    return tw_coll_call_reduce_everyone("MPI_Exscan_c", TW_COLL_EXSCAN, sendbuf, recvbuf, count,
                                        datatype, op, comm, NULL, 0);
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    int rc = counts_given("MPI_Reduce_scatter_c", comm, recvcounts);
    return rc ? rc
              : tw_coll_call_reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, C(recvcounts),
                                            0, datatype, op, comm, NULL, 0);
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return tw_coll_call_reduce_scatter("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, NONE,
                                       recvcount, datatype, op, comm, NULL, 0);
}

int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return tw_coll_call_rooted("MPI_Gather_c", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm, NULL, 0);
}

int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return tw_coll_call_rooted("MPI_Scatter_c", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm, NULL, 0);
}

int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
    return tw_coll_call_rooted_v("MPI_Gatherv_c", 1, sendbuf, NONE, sendcount, A(displs), sendtype,
                                 recvbuf, C(recvcounts), 0, recvtype, root, comm, NULL, 0);
}

int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
    return tw_coll_call_rooted_v("MPI_Scatterv_c", 0, sendbuf, C(sendcounts), 0, A(displs),
                                 sendtype, recvbuf, NONE, recvcount, recvtype, root, comm, NULL, 0);
}

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_call_allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, NONE,
                                  recvcount, NONE, recvtype, comm, NULL, 0);
}

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
    int rc = counts_given("MPI_Allgatherv_c", comm, recvcounts);
    return rc ? rc
              : tw_coll_call_allgather("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                                       C(recvcounts), 0, A(displs), recvtype, comm, NULL, 0);
}

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_call_alltoall("MPI_Alltoall_c", 0, sendbuf, NONE, sendcount, NONE, &sendtype,
                                 recvbuf, NONE, recvcount, NONE, &recvtype, 0, comm, NULL, 0);
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_call_alltoall("MPI_Alltoallv_c", 1, sendbuf, C(sendcounts), 0, A(sdispls),
                                 &sendtype, recvbuf, C(recvcounts), 0, A(rdispls), &recvtype, 0,
                                 comm, NULL, 0);
}

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    return tw_coll_call_alltoall("MPI_Alltoallw_c", 1, sendbuf, C(sendcounts), 0, A(sdispls),
                                 sendtypes, recvbuf, C(recvcounts), 0, A(rdispls), recvtypes, 1,
                                 comm, NULL, 0);
}

int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *request) {
    return tw_coll_call_bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, request, 1);
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_reduce("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, comm,
                               request, 1);
}

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_reduce_everyone("MPI_Iallreduce_c", TW_COLL_ALLREDUCE, sendbuf, recvbuf,
                                        count, datatype, op, comm, request, 1);
}

int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_reduce_everyone("MPI_Iscan_c", TW_COLL_SCAN, sendbuf, recvbuf, count,
                                        datatype, op, comm, request, 1);
}

int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_reduce_everyone("MPI_Iexscan_c", TW_COLL_EXSCAN, sendbuf, recvbuf, count,
                                        datatype, op, comm, request, 1);
}

int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    int rc = counts_given("MPI_Ireduce_scatter_c", comm, recvcounts);
    return rc ? rc
              : tw_coll_call_reduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf,
                                            C(recvcounts), 0, datatype, op, comm, request, 1);
}

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request) {
    return tw_coll_call_reduce_scatter("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, NONE,
                                       recvcount, datatype, op, comm, request, 1);
}

int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request) {
    return tw_coll_call_rooted("MPI_Igather_c", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm, request, 1);
}

int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request) {
    return tw_coll_call_rooted("MPI_Iscatter_c", 0, sendbuf, sendcount, sendtype, recvbuf,
                               recvcount, recvtype, root, comm, request, 1);
}

int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_rooted_v("MPI_Igatherv_c", 1, sendbuf, NONE, sendcount, A(displs), sendtype,
                                 recvbuf, C(recvcounts), 0, recvtype, root, comm, request, 1);
}

int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_rooted_v("MPI_Iscatterv_c", 0, sendbuf, C(sendcounts), 0, A(displs),
                                 sendtype, recvbuf, NONE, recvcount, recvtype, root, comm, request,
                                 1);
}

int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request) {
    return tw_coll_call_allgather("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, NONE,
                                  recvcount, NONE, recvtype, comm, request, 1);
}

int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    int rc = counts_given("MPI_Iallgatherv_c", comm, recvcounts);
    return rc ? rc
              : tw_coll_call_allgather("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                                       C(recvcounts), 0, A(displs), recvtype, comm, request, 1);
}

int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request) {
    return tw_coll_call_alltoall("MPI_Ialltoall_c", 0, sendbuf, NONE, sendcount, NONE, &sendtype,
                                 recvbuf, NONE, recvcount, NONE, &recvtype, 0, comm, request, 1);
}

int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request) {
    return tw_coll_call_alltoall("MPI_Ialltoallv_c", 1, sendbuf, C(sendcounts), 0, A(sdispls),
                                 &sendtype, recvbuf, C(recvcounts), 0, A(rdispls), &recvtype, 0,
                                 comm, request, 1);
}

int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request *request) {
    return tw_coll_call_alltoall("MPI_Ialltoallw_c", 1, sendbuf, C(sendcounts), 0, A(sdispls),
                                 sendtypes, recvbuf, C(recvcounts), 0, A(rdispls), recvtypes, 1,
                                 comm, request, 1);
}

/* ---- neighbourhood collectives (MPI-4.1 section 8.6) ---- */

int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm) {
    return tw_coll_neighbor_allgather("MPI_Neighbor_allgather_c", sendbuf, sendcount, sendtype,
                                      recvbuf, recvcount, NONE, NONE, recvtype, 0, comm, NULL, 0);
}

int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_neighbor_allgather("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype,
                                      recvbuf, 0, C(recvcounts), A(displs), recvtype, 1, comm, NULL,
                                      0);
}

int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm) {
    return tw_coll_neighbor_alltoall("MPI_Neighbor_alltoall_c", sendbuf, sendcount, NONE, NONE,
                                     NULL, sendtype, NULL, recvbuf, recvcount, NONE, NONE, NULL,
                                     recvtype, NULL, 0, comm, NULL, 0);
}

int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_neighbor_alltoall("MPI_Neighbor_alltoallv_c", sendbuf, 0, C(sendcounts),
                                     A(sdispls), NULL, sendtype, NULL, recvbuf, 0, C(recvcounts),
                                     A(rdispls), NULL, recvtype, NULL, 1, comm, NULL, 0);
}

int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm) {
    return tw_coll_neighbor_alltoall("MPI_Neighbor_alltoallw_c", sendbuf, 0, C(sendcounts), NONE,
                                     sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0,
                                     C(recvcounts), NONE, rdispls, MPI_DATATYPE_NULL, recvtypes, 2,
                                     comm, NULL, 0);
}

int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request) {
    return tw_coll_neighbor_allgather("MPI_Ineighbor_allgather_c", sendbuf, sendcount, sendtype,
                                      recvbuf, recvcount, NONE, NONE, recvtype, 0, comm, request,
                                      1);
}

int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_neighbor_allgather("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount, sendtype,
                                      recvbuf, 0, C(recvcounts), A(displs), recvtype, 1, comm,
                                      request, 1);
}

int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request) {
    return tw_coll_neighbor_alltoall("MPI_Ineighbor_alltoall_c", sendbuf, sendcount, NONE, NONE,
                                     NULL, sendtype, NULL, recvbuf, recvcount, NONE, NONE, NULL,
                                     recvtype, NULL, 0, comm, request, 1);
}

int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_neighbor_alltoall("MPI_Ineighbor_alltoallv_c", sendbuf, 0, C(sendcounts),
                                     A(sdispls), NULL, sendtype, NULL, recvbuf, 0, C(recvcounts),
                                     A(rdispls), NULL, recvtype, NULL, 1, comm, request, 1);
}

int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request) {
    return tw_coll_neighbor_alltoall("MPI_Ineighbor_alltoallw_c", sendbuf, 0, C(sendcounts), NONE,
                                     sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0,
                                     C(recvcounts), NONE, rdispls, MPI_DATATYPE_NULL, recvtypes, 2,
                                     comm, request, 1);
}

/* ---- reduction operations (MPI-4.1 section 6.9.5) ---- */

int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op) {
    return tw_mpi_op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op) {
    return tw_mpi_reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
