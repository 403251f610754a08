/* Persistent collectives (MPI-4.1 sections 6.13 and 8.8).
 *
 * An _init call makes the same checks, the same choice of algorithm (by the same
 * rules, on the same bytes, so every member chooses alike) and the same schedule as
 * the non-blocking call, once: its tag, the packed views of non-contiguous buffers,
 * the temporary buffers and the steps. The schedule is kept (keep) and sealed, and
 * an inactive persistent request holds it. MPI_Start resets the steps to the sealed
 * ones and runs them as a non-blocking collective's, without writing anything: what
 * differs from run to run is the data, which steps pack from the user's buffers at
 * every run (tw_sched_pack). A call large enough to be written in segments writes
 * the later ones as it runs, as the non-blocking call does, into scratch given back
 * at the next start.
 *
 * The tag is taken at init from the non-blocking collectives' sequence and kept:
 * members initialise persistent collectives in the same order (the standard's rule),
 * so they agree on it, and the messages of one request's consecutive runs are told
 * apart by their order, as those of one run are.
 *
 * A Barrier, a Reduce or an Allreduce of up to 56 bytes, and a Bcast of as many on two
 * ranks, whose blocking form goes through the shared-memory lines (coll_shm.c) goes
 * there too, without steps: the init decides everything once (the block, this rank's
 * line, where the data comes from and goes, the reduction), a start gives this rank's
 * data and returns, and the request's progress reads the others' lines when they are
 * there, the blocking call's steps (coll_shm_block.h) driven without waiting.
 *
 * The info argument is checked (an info object or MPI_INFO_NULL); none of its keys
 * changes anything yet. */
#include "mpi/coll/persistent.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/coll_calls.h"
#include "mpi/coll/neighbor.h"

#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/env/state.h"

int tw_coll_persistent_make(tw_sched_t *s, MPI_Request *req) {
    int rc = tw_sched_seal(s);
    if (!rc) rc = tw_mpi_coll_request(s->context - TW_CTX_COLL, req);
    if (rc) {
        tw_sched_free(s);
        return rc;
    }
    req_t *r = &tw_reqs[*req & 0xffff];
    r->persistent = 1;
    r->active = 0; /* inactive until started */
    r->done = 1;
    r->buf = s;
    return MPI_SUCCESS;
}

int tw_coll_persistent_start(tw_sched_t *s, MPI_Request r) {
    if (s->shm_op) return tw_coll_shm_persistent_start(s->shm_op, r);
    tw_sched_rerun(s, r);
    return MPI_SUCCESS;
}

/* The checks every _init call makes before the call's own. */
static int check_init(const char *call, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    NEED_INIT(call);
    if (!tw_mpi_info_ok(info))
        return tw_mpi_error(tw_mpi_comm_get(comm), call, MPI_ERR_INFO,
                            "info is neither an info object nor MPI_INFO_NULL");
    if (!request)
        return tw_mpi_error(tw_mpi_comm_get(comm), call, MPI_ERR_REQUEST, "request is NULL");
    return MPI_SUCCESS;
}

/* v calls whose counts are told apart from the plain form by a non-NULL array */
static int need_counts(const char *call, MPI_Comm comm, const void *counts) {
    if (counts) return MPI_SUCCESS;
    return tw_mpi_error(tw_mpi_comm_get(comm), call, MPI_ERR_ARG, "the counts array is NULL");
}

#define P TW_COLL_PERSISTENT

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Barrier_init", comm, info, request);
    return rc ? rc : tw_coll_call_barrier("MPI_Barrier_init", comm, request, P);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Bcast_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_bcast("MPI_Bcast_init", buffer, count, datatype, root, comm, request,
                                   P);
}

int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request) {
    int rc = check_init("MPI_Gather_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_rooted("MPI_Gather_init", 1, sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, root, comm, request, P);
}

int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Gatherv_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_rooted_v("MPI_Gatherv_init", 1, sendbuf, tw_mpi_vec_int(NULL),
                                      sendcount, tw_mpi_vec_int(displs), sendtype, recvbuf,
                                      tw_mpi_vec_int(recvcounts), 0, recvtype, root, comm, request,
                                      P);
}

int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request) {
    int rc = check_init("MPI_Scatter_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_rooted("MPI_Scatter_init", 0, sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, root, comm, request, P);
}

int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Scatterv_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_rooted_v("MPI_Scatterv_init", 0, sendbuf, tw_mpi_vec_int(sendcounts),
                                      0, tw_mpi_vec_int(displs), sendtype, recvbuf,
                                      tw_mpi_vec_int(NULL), recvcount, recvtype, root, comm,
                                      request, P);
}

int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
    int rc = check_init("MPI_Allgather_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_allgather("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf,
                                       tw_mpi_vec_int(NULL), recvcount, tw_mpi_vec_int(NULL),
                                       recvtype, comm, request, P);
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Allgatherv_init", comm, info, request);
    if (!rc) rc = need_counts("MPI_Allgatherv_init", comm, recvcounts);
    return rc ? rc
              : tw_coll_call_allgather("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                                       tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(displs),
                                       recvtype, comm, request, P);
}

int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request) {
    int rc = check_init("MPI_Alltoall_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_alltoall("MPI_Alltoall_init", 0, sendbuf, tw_mpi_vec_int(NULL),
                                      sendcount, tw_mpi_vec_int(NULL), &sendtype, recvbuf,
                                      tw_mpi_vec_int(NULL), recvcount, tw_mpi_vec_int(NULL),
                                      &recvtype, 0, comm, request, P);
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
    int rc = check_init("MPI_Alltoallv_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_alltoall("MPI_Alltoallv_init", 1, sendbuf, tw_mpi_vec_int(sendcounts),
                                      0, tw_mpi_vec_int(sdispls), &sendtype, recvbuf,
                                      tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(rdispls),
                                      &recvtype, 0, comm, request, P);
}

int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Alltoallw_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_alltoall("MPI_Alltoallw_init", 1, sendbuf, tw_mpi_vec_int(sendcounts),
                                      0, tw_mpi_vec_int(sdispls), sendtypes, recvbuf,
                                      tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(rdispls),
                                      recvtypes, 1, comm, request, P);
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Reduce_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root,
                                    comm, request, P);
}

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Allreduce_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce_everyone("MPI_Allreduce_init", TW_COLL_ALLREDUCE, sendbuf,
                                             recvbuf, count, datatype, op, comm, request, P);
}

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request) {
    int rc = check_init("MPI_Reduce_scatter_init", comm, info, request);
    if (!rc) rc = need_counts("MPI_Reduce_scatter_init", comm, recvcounts);
    return rc ? rc
              : tw_coll_call_reduce_scatter("MPI_Reduce_scatter_init", sendbuf, recvbuf,
                                            tw_mpi_vec_int(recvcounts), 0, datatype, op, comm,
                                            request, P);
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request) {
    int rc = check_init("MPI_Reduce_scatter_block_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce_scatter("MPI_Reduce_scatter_block_init", sendbuf, recvbuf,
                                            tw_mpi_vec_int(NULL), recvcount, datatype, op, comm,
                                            request, P);
}

int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Scan_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce_everyone("MPI_Scan_init", TW_COLL_SCAN, sendbuf, recvbuf, count,
                                             datatype, op, comm, request, P);
}

int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Exscan_init", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce_everyone("MPI_Exscan_init", TW_COLL_EXSCAN, sendbuf, recvbuf,
                                             count, datatype, op, comm, request, P);
}

int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_allgather_init", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_allgather("MPI_Neighbor_allgather_init", sendbuf, sendcount,
                                           sendtype, recvbuf, recvcount, tw_mpi_vec_int(NULL),
                                           tw_mpi_vec_int(NULL), recvtype, 0, comm, request, P);
}

int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_allgatherv_init", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_allgather("MPI_Neighbor_allgatherv_init", sendbuf, sendcount,
                                           sendtype, recvbuf, 0, tw_mpi_vec_int(recvcounts),
                                           tw_mpi_vec_int(displs), recvtype, 1, comm, request, P);
}

int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_alltoall_init", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_alltoall("MPI_Neighbor_alltoall_init", sendbuf, sendcount,
                                          tw_mpi_vec_int(NULL), tw_mpi_vec_int(NULL), NULL,
                                          sendtype, NULL, recvbuf, recvcount, tw_mpi_vec_int(NULL),
                                          tw_mpi_vec_int(NULL), NULL, recvtype, NULL, 0, comm,
                                          request, P);
}

int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_alltoallv_init", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_alltoall("MPI_Neighbor_alltoallv_init", sendbuf, 0,
                                          tw_mpi_vec_int(sendcounts), tw_mpi_vec_int(sdispls), NULL,
                                          sendtype, NULL, recvbuf, 0, tw_mpi_vec_int(recvcounts),
                                          tw_mpi_vec_int(rdispls), NULL, recvtype, NULL, 1, comm,
                                          request, P);
}

int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_alltoallw_init", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_alltoall("MPI_Neighbor_alltoallw_init", sendbuf, 0,
                                          tw_mpi_vec_int(sendcounts), tw_mpi_vec_int(NULL), sdispls,
                                          MPI_DATATYPE_NULL, sendtypes, recvbuf, 0,
                                          tw_mpi_vec_int(recvcounts), tw_mpi_vec_int(NULL), rdispls,
                                          MPI_DATATYPE_NULL, recvtypes, 2, comm, request, P);
}

/* ---- the large-count forms: MPI_Count counts, MPI_Aint displacements ---- */

int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Bcast_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_bcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm, request,
                                   P);
}

int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Gather_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_rooted("MPI_Gather_init_c", 1, sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, root, comm, request, P);
}

int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request) {
    int rc = check_init("MPI_Gatherv_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_rooted_v("MPI_Gatherv_init_c", 1, sendbuf, tw_mpi_vec_int(NULL),
                                      sendcount, tw_mpi_vec_aint(displs), sendtype, recvbuf,
                                      tw_mpi_vec_count(recvcounts), 0, recvtype, root, comm,
                                      request, P);
}

int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Scatter_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_rooted("MPI_Scatter_init_c", 0, sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, recvtype, root, comm, request, P);
}

int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request) {
    int rc = check_init("MPI_Scatterv_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_rooted_v("MPI_Scatterv_init_c", 0, sendbuf,
                                      tw_mpi_vec_count(sendcounts), 0, tw_mpi_vec_aint(displs),
                                      sendtype, recvbuf, tw_mpi_vec_int(NULL), recvcount, recvtype,
                                      root, comm, request, P);
}

int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Allgather_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_allgather("MPI_Allgather_init_c", sendbuf, sendcount, sendtype,
                                       recvbuf, tw_mpi_vec_int(NULL), recvcount,
                                       tw_mpi_vec_int(NULL), recvtype, comm, request, P);
}

int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request) {
    int rc = check_init("MPI_Allgatherv_init_c", comm, info, request);
    if (!rc) rc = need_counts("MPI_Allgatherv_init_c", comm, recvcounts);
    return rc ? rc
              : tw_coll_call_allgather("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype,
                                       recvbuf, tw_mpi_vec_count(recvcounts), 0,
                                       tw_mpi_vec_aint(displs), recvtype, comm, request, P);
}

int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Alltoall_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_alltoall("MPI_Alltoall_init_c", 0, sendbuf, tw_mpi_vec_int(NULL),
                                      sendcount, tw_mpi_vec_int(NULL), &sendtype, recvbuf,
                                      tw_mpi_vec_int(NULL), recvcount, tw_mpi_vec_int(NULL),
                                      &recvtype, 0, comm, request, P);
}

int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request) {
    int rc = check_init("MPI_Alltoallv_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_alltoall("MPI_Alltoallv_init_c", 1, sendbuf,
                                      tw_mpi_vec_count(sendcounts), 0, tw_mpi_vec_aint(sdispls),
                                      &sendtype, recvbuf, tw_mpi_vec_count(recvcounts), 0,
                                      tw_mpi_vec_aint(rdispls), &recvtype, 0, comm, request, P);
}

int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request *request) {
    int rc = check_init("MPI_Alltoallw_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_alltoall("MPI_Alltoallw_init_c", 1, sendbuf,
                                      tw_mpi_vec_count(sendcounts), 0, tw_mpi_vec_aint(sdispls),
                                      sendtypes, recvbuf, tw_mpi_vec_count(recvcounts), 0,
                                      tw_mpi_vec_aint(rdispls), recvtypes, 1, comm, request, P);
}

int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Reduce_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce("MPI_Reduce_init_c", sendbuf, recvbuf, count, datatype, op,
                                    root, comm, request, P);
}

int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Allreduce_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce_everyone("MPI_Allreduce_init_c", TW_COLL_ALLREDUCE, sendbuf,
                                             recvbuf, count, datatype, op, comm, request, P);
}

int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request) {
    int rc = check_init("MPI_Reduce_scatter_init_c", comm, info, request);
    if (!rc) rc = need_counts("MPI_Reduce_scatter_init_c", comm, recvcounts);
    return rc ? rc
              : tw_coll_call_reduce_scatter("MPI_Reduce_scatter_init_c", sendbuf, recvbuf,
                                            tw_mpi_vec_count(recvcounts), 0, datatype, op, comm,
                                            request, P);
}

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request) {
    int rc = check_init("MPI_Reduce_scatter_block_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce_scatter("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf,
                                            tw_mpi_vec_int(NULL), recvcount, datatype, op, comm,
                                            request, P);
}

int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Scan_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce_everyone("MPI_Scan_init_c", TW_COLL_SCAN, sendbuf, recvbuf,
                                             count, datatype, op, comm, request, P);
}

int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Exscan_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_call_reduce_everyone("MPI_Exscan_init_c", TW_COLL_EXSCAN, sendbuf, recvbuf,
                                             count, datatype, op, comm, request, P);
}

int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_allgather_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_allgather("MPI_Neighbor_allgather_init_c", sendbuf, sendcount,
                                           sendtype, recvbuf, recvcount, tw_mpi_vec_int(NULL),
                                           tw_mpi_vec_int(NULL), recvtype, 0, comm, request, P);
}

int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_allgatherv_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_allgather("MPI_Neighbor_allgatherv_init_c", sendbuf, sendcount,
                                           sendtype, recvbuf, 0, tw_mpi_vec_count(recvcounts),
                                           tw_mpi_vec_aint(displs), recvtype, 1, comm, request, P);
}

int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_alltoall_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_alltoall("MPI_Neighbor_alltoall_init_c", sendbuf, sendcount,
                                          tw_mpi_vec_int(NULL), tw_mpi_vec_int(NULL), NULL,
                                          sendtype, NULL, recvbuf, recvcount, tw_mpi_vec_int(NULL),
                                          tw_mpi_vec_int(NULL), NULL, recvtype, NULL, 0, comm,
                                          request, P);
}

int MPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_alltoallv_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_alltoall("MPI_Neighbor_alltoallv_init_c", sendbuf, 0,
                                          tw_mpi_vec_count(sendcounts), tw_mpi_vec_aint(sdispls),
                                          NULL, sendtype, NULL, recvbuf, 0,
                                          tw_mpi_vec_count(recvcounts), tw_mpi_vec_aint(rdispls),
                                          NULL, recvtype, NULL, 1, comm, request, P);
}

int MPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    int rc = check_init("MPI_Neighbor_alltoallw_init_c", comm, info, request);
    return rc ? rc
              : tw_coll_neighbor_alltoall(
                    "MPI_Neighbor_alltoallw_init_c", sendbuf, 0, tw_mpi_vec_count(sendcounts),
                    tw_mpi_vec_int(NULL), sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0,
                    tw_mpi_vec_count(recvcounts), tw_mpi_vec_int(NULL), rdispls, MPI_DATATYPE_NULL,
                    recvtypes, 2, comm, request, P);
}
