/* Neighbourhood collectives (MPI-3.1 section 7.6), blocking and non-blocking, on
 * the three kinds of topology (topology.c).
 *
 * A call is one round of a schedule (schedule.c): a receive from each in-neighbour
 * into its block of recvbuf, then a send to each out-neighbour from its block of
 * sendbuf, in the topology's neighbour order, none to or from MPI_PROC_NULL (whose
 * blocks are left as they are). Each block moves where it is: contiguous as bytes,
 * otherwise as a typed message staged by the point-to-point engine.
 *
 * Where one process is several neighbours of another (a Cartesian dimension of
 * size 1 or 2 that is periodic, a graph with repeated edges), the messages between
 * the two match in the order they were posted: the k-th block sent to a rank lands
 * in the k-th block received from it. In a graph that is the order of the edges. A
 * Cartesian process sends each dimension's pair of blocks positive direction first:
 * the block a process sends to its positive neighbour is what that neighbour
 * receives from its negative one, and where one process is both, that block must
 * land in the receiver's negative-direction block (posted first), and the block
 * sent to the negative direction in the positive one (the Forum's erratum to
 * MPI-3.1, MPI-4.0 section 8.6; MPICH 4 does so). Neighbours of different
 * dimensions are different processes unless both are the process itself, so the
 * order holds across dimensions too. The schedule is always allocated, even for a
 * blocking call, so every receive is posted at once and in order. */
#include <stdint.h>

#include "mpi/coll/persistent.h"
#include "mpi/coll/vec.h"
#include "mpi/coll/neighbor.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/coll/schedule.h"
#include "mpi/env/state.h"

/* The blocks of one side of a call: slot i is counts[i] (or count) items of
 * types[i] (or type) at buf plus bdispls[i] bytes, displs[i] extents, or (neither)
 * i * count extents — 0 when every slot is the same block (allgather's send). */
typedef struct side {
    const char *buf;
    MPI_Count count;
    tw_mpi_vec_t counts, displs; /* int[] or, in the _c calls, MPI_Count[] and MPI_Aint[] */
    const MPI_Aint *bdispls;
    MPI_Datatype type;
    const MPI_Datatype *types;
    int same;
} side_t;

static MPI_Count slot_count(const side_t *d, int i) {
    return d->counts.at ? tw_mpi_vec_get(d->counts, i) : d->count;
}

static MPI_Datatype slot_type(const side_t *d, int i) {
    return d->types ? d->types[i] : d->type;
}

/* Checks the n slots of a side (all of them: an unused one is still an argument). */
static int check_side(tw_mpi_comm_t *c, const char *call, const side_t *d, int n) {
    if (d->buf == MPI_IN_PLACE)
        return tw_mpi_error(c, call, MPI_ERR_BUFFER, "MPI_IN_PLACE in a neighbourhood collective");
    for (int i = 0; i < n; i++) {
        tw_mpi_type_layout_t l;
        MPI_Count count = slot_count(d, i);
        if (count < 0) return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
        if (tw_mpi_type_layout(slot_type(d, i), &l))
            return tw_mpi_error(c, call, MPI_ERR_TYPE, NULL);
        /* MPI_BOTTOM is a buffer when the places are absolute: byte displacements
         * (the w calls) or a derived type's addresses */
        if (!d->buf && !d->bdispls && count > 0 && l.size > 0 &&
            tw_mpi_type_extent(slot_type(d, i)) >= 0)
            return tw_mpi_error(c, call, MPI_ERR_BUFFER, "NULL buffer");
    }
    return MPI_SUCCESS;
}

/* Checks that the arrays of a v or w side are there for its n slots. */
static int check_arrays(tw_mpi_comm_t *c, const char *call, int n, const void *counts,
                        const void *displs, const void *types, int typed) {
    if (n > 0 && (!counts || !displs || (typed && !types)))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "counts, displacements or types are NULL");
    return MPI_SUCCESS;
}

static tw_sched_block_t block_of(const side_t *d, int i) {
    tw_mpi_type_layout_t l;
    MPI_Datatype type = slot_type(d, i);
    MPI_Count count = slot_count(d, i);
    tw_mpi_type_layout_held(type, &l); /* checked */
    MPI_Aint at = d->bdispls     ? d->bdispls[i]
                  : d->displs.at ? (MPI_Aint)tw_mpi_vec_get(d->displs, i) * l.extent
                  : d->same      ? 0
                                 : (MPI_Aint)i * count * l.extent;
    size_t bytes = (size_t)count * (size_t)l.size;
    char *buf = (char *)(uintptr_t)d->buf + at;
    if (l.contiguous || !bytes) return (tw_sched_block_t){.at = buf + l.lb, .bytes = bytes};
    return (tw_sched_block_t){NULL, buf, count, type, bytes};
}

/* The call: checks, then the schedule; req NULL: blocking. */
static int neighbor(const char *call, const side_t *send, const side_t *recv, MPI_Comm comm,
                    MPI_Request *req, int nb) {
    NEED_INIT(call);
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    if (!c->topo)
        return tw_mpi_error(c, call, MPI_ERR_TOPOLOGY, "the communicator has no topology");
    if (nb && !req) return tw_mpi_error(c, call, MPI_ERR_REQUEST, "request is NULL");
    const tw_topo_t *t = c->topo;
    int rc = check_side(c, call, send, send->same ? 1 : t->nout);
    if (!rc) rc = check_side(c, call, recv, t->nin);
    if (rc) return rc;
    tw_sched_t *s = tw_sched_new(c);
    if (!s) {
        tw_mpi_nbc_tag(c); /* the members still agree on the tags that follow */
        return tw_mpi_error(c, call, MPI_ERR_NO_MEM, NULL);
    }
    s->keep = nb == TW_COLL_PERSISTENT;
    for (int i = 0; i < t->nin; i++) {
        if (t->in[i] == MPI_PROC_NULL) continue;
        tw_sched_block_t b = block_of(recv, i);
        tw_sched_recv_block(s, &b, t->in[i]);
    }
    int cart = t->kind == MPI_CART;
    for (int k = 0; k < t->nout; k++) {
        int j = cart ? k ^ 1 : k; /* a dimension's +1 block, then its -1 block */
        if (t->out[j] == MPI_PROC_NULL) continue;
        tw_sched_block_t b = block_of(send, j);
        tw_sched_send_block(s, &b, t->out[j]);
    }
    rc = nb == TW_COLL_PERSISTENT ? tw_coll_persistent_make(s, req)
         : req                    ? tw_sched_start(s, req)
                                  : tw_sched_run(s);
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

/* The v calls' arrays, checked against the topology's degrees first. */
static int degrees(MPI_Comm comm, int *nin, int *nout) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    *nin = *nout = 0;
    if (!c || !c->topo || tw_mpi.users <= 0) return 0;
    *nin = c->topo->nin;
    *nout = c->topo->nout;
    return 1;
}

int tw_coll_neighbor_allgather(const char *call, const void *sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                               tw_mpi_vec_t recvcounts, tw_mpi_vec_t displs, MPI_Datatype recvtype,
                               int vform, MPI_Comm comm, MPI_Request *req, int nb) {
    int nin, nout;
    if (vform && degrees(comm, &nin, &nout)) {
        int rc = check_arrays(tw_mpi_comm_get(comm), call, nin, recvcounts.at, displs.at, NULL, 0);
        if (rc) return rc;
    }
    tw_mpi_vec_t none = tw_mpi_vec_int(NULL);
    side_t send = {sendbuf, sendcount, none, none, NULL, sendtype, NULL, 1};
    side_t recv = {
        recvbuf, recvcount, vform ? recvcounts : none, vform ? displs : none, NULL, recvtype,
        NULL,    0};
    return neighbor(call, &send, &recv, comm, req, nb);
}

int tw_coll_neighbor_alltoall(const char *call, const void *sendbuf, MPI_Count sendcount,
                              tw_mpi_vec_t sendcounts, tw_mpi_vec_t sdispls,
                              const MPI_Aint *sbdispls, MPI_Datatype sendtype,
                              const MPI_Datatype *sendtypes, void *recvbuf, MPI_Count recvcount,
                              tw_mpi_vec_t recvcounts, tw_mpi_vec_t rdispls,
                              const MPI_Aint *rbdispls, MPI_Datatype recvtype,
                              const MPI_Datatype *recvtypes, int form, MPI_Comm comm,
                              MPI_Request *req, int nb) {
    int nin, nout;
    if (form && degrees(comm, &nin, &nout)) { /* 1: v, 2: w */
        tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
        int w = form == 2;
        int rc = check_arrays(c, call, nout, sendcounts.at, w ? (const void *)sbdispls : sdispls.at,
                              sendtypes, w);
        if (!rc)
            rc = check_arrays(c, call, nin, recvcounts.at, w ? (const void *)rbdispls : rdispls.at,
                              recvtypes, w);
        if (rc) return rc;
    }
    side_t send = {sendbuf, sendcount, sendcounts, sdispls, sbdispls, sendtype, sendtypes, 0};
    side_t recv = {recvbuf, recvcount, recvcounts, rdispls, rbdispls, recvtype, recvtypes, 0};
    return neighbor(call, &send, &recv, comm, req, nb);
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_neighbor_allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype,
                                      recvbuf, recvcount, tw_mpi_vec_int(NULL),
                                      tw_mpi_vec_int(NULL), recvtype, 0, comm, NULL, 0);
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request) {
    return tw_coll_neighbor_allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype,
                                      recvbuf, recvcount, tw_mpi_vec_int(NULL),
                                      tw_mpi_vec_int(NULL), recvtype, 0, comm, request, 1);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_neighbor_allgather("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype,
                                      recvbuf, 0, tw_mpi_vec_int(recvcounts),
                                      tw_mpi_vec_int(displs), recvtype, 1, comm, NULL, 0);
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_neighbor_allgather("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype,
                                      recvbuf, 0, tw_mpi_vec_int(recvcounts),
                                      tw_mpi_vec_int(displs), recvtype, 1, comm, request, 1);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_neighbor_alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount,
                                     tw_mpi_vec_int(NULL), tw_mpi_vec_int(NULL), NULL, sendtype,
                                     NULL, recvbuf, recvcount, tw_mpi_vec_int(NULL),
                                     tw_mpi_vec_int(NULL), NULL, recvtype, NULL, 0, comm, NULL, 0);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request) {
    return tw_coll_neighbor_alltoall(
        "MPI_Ineighbor_alltoall", sendbuf, sendcount, tw_mpi_vec_int(NULL), tw_mpi_vec_int(NULL),
        NULL, sendtype, NULL, recvbuf, recvcount, tw_mpi_vec_int(NULL), tw_mpi_vec_int(NULL), NULL,
        recvtype, NULL, 0, comm, request, 1);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_neighbor_alltoall(
        "MPI_Neighbor_alltoallv", sendbuf, 0, tw_mpi_vec_int(sendcounts), tw_mpi_vec_int(sdispls),
        NULL, sendtype, NULL, recvbuf, 0, tw_mpi_vec_int(recvcounts), tw_mpi_vec_int(rdispls), NULL,
        recvtype, NULL, 1, comm, NULL, 0);
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request) {
    return tw_coll_neighbor_alltoall(
        "MPI_Ineighbor_alltoallv", sendbuf, 0, tw_mpi_vec_int(sendcounts), tw_mpi_vec_int(sdispls),
        NULL, sendtype, NULL, recvbuf, 0, tw_mpi_vec_int(recvcounts), tw_mpi_vec_int(rdispls), NULL,
        recvtype, NULL, 1, comm, request, 1);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm) {
    return tw_coll_neighbor_alltoall(
        "MPI_Neighbor_alltoallw", sendbuf, 0, tw_mpi_vec_int(sendcounts), tw_mpi_vec_int(NULL),
        sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, tw_mpi_vec_int(recvcounts),
        tw_mpi_vec_int(NULL), rdispls, MPI_DATATYPE_NULL, recvtypes, 2, comm, NULL, 0);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request) {
    return tw_coll_neighbor_alltoall(
        "MPI_Ineighbor_alltoallw", sendbuf, 0, tw_mpi_vec_int(sendcounts), tw_mpi_vec_int(NULL),
        sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, tw_mpi_vec_int(recvcounts),
        tw_mpi_vec_int(NULL), rdispls, MPI_DATATYPE_NULL, recvtypes, 2, comm, request, 1);
}
