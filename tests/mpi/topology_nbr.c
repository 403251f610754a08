/* Neighbourhood collectives: every one of them, blocking and non-blocking, on
 * Cartesian grids (2-D, 3-D, 1-D periodic and not, with ranks left out, periodic
 * dimensions of size 1 and 2 where one rank is both neighbours), a graph with a
 * double edge and a loop, and distributed graphs from both creation calls with a
 * rank that has no neighbours. Every int of every receive buffer is checked: the
 * value names its sender, the sender's block and the item, and gaps and the blocks
 * of MPI_PROC_NULL neighbours keep their fill.
 *
 * The neighbour lists are computed here (row-major coordinates, the graph as
 * given), a distributed graph's read back; every rank's out-list is gathered, and
 * the block a receive slot gets is the one its sender sent to this rank with the
 * same occurrence number (the k-th message between two ranks lands in the k-th
 * block between them), which for a grid is the standard's rule, checked directly:
 * block 2d+1 of the -1 neighbour lands in slot 2d, block 2d of the +1 neighbour in
 * slot 2d+1 (where one rank is both neighbours too: the erratum of MPI-4.0 8.6). The non-blocking
 * calls run all at once, overlapped with point-to-point traffic and a blocking collective on the
 * same communicator. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

#define OK(call) CHECK((call) == MPI_SUCCESS)
#define FAILS(call, cls)                                                                           \
    do {                                                                                           \
        int rc_ = (call), cls_ = -1;                                                               \
        MPI_Error_class(rc_, &cls_);                                                               \
        CHECK(cls_ == (cls));                                                                      \
    } while (0)

enum { MAXN = 16, MAXDEG = 8 };

typedef struct topo {
    const char *name;
    MPI_Comm comm;
    int me, p;
    int nin, nout, in[MAXDEG], out[MAXDEG];
    int nouts[MAXN], outs[MAXN][MAXDEG]; /* every rank's out-list */
    int from_slot[MAXDEG];               /* the sender's block each receive slot gets */
} topo_t;

static MPI_Datatype strided; /* one int, extent two ints */

/* The v and w calls' blocks have this many times more items in the large rounds:
 * long messages, and non-contiguous ones staged in pieces. */
static int scale = 1;

/* The value of item e of block j sent by rank s. */
static int val(int s, int j, int e) {
    return (s + 1) * 10000000 + j * 100000 + e;
}

static int *ints(size_t n, int fill) {
    int *a = malloc((n ? n : 1) * sizeof *a);
    CHECK(a);
    for (size_t i = 0; i < n; i++) a[i] = fill;
    return a;
}

static void same_ints(const char *what, const topo_t *t, const int *got, const int *want,
                      size_t n) {
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "%s on %s: rank %d: int %zu is %d, want %d\n", what, t->name, rank, i,
                    got[i], want[i]);
            CHECK(got[i] == want[i]);
        }
}

/* Gathers every out-list and works out from_slot[]. */
static void prepare(topo_t *t) {
    int nouts[MAXN], all[MAXN * MAXDEG], displs[MAXN];
    OK(MPI_Comm_rank(t->comm, &t->me));
    OK(MPI_Comm_size(t->comm, &t->p));
    OK(MPI_Allgather(&t->nout, 1, MPI_INT, nouts, 1, MPI_INT, t->comm));
    for (int q = 0, at = 0; q < t->p; q++) displs[q] = at, at += nouts[q];
    OK(MPI_Allgatherv(t->out, t->nout, MPI_INT, all, nouts, displs, MPI_INT, t->comm));
    for (int q = 0; q < t->p; q++) {
        t->nouts[q] = nouts[q];
        memcpy(t->outs[q], all + displs[q], (size_t)nouts[q] * sizeof(int));
    }
    for (int i = 0; i < t->nin; i++) {
        int q = t->in[i], k = 0;
        t->from_slot[i] = -1;
        if (q == MPI_PROC_NULL) continue;
        for (int i2 = 0; i2 < i; i2++) k += t->in[i2] == q;
        for (int j = 0; j < t->nouts[q]; j++)
            if (t->outs[q][j] == t->me && k-- == 0) {
                t->from_slot[i] = j;
                break;
            }
        CHECK(t->from_slot[i] >= 0); /* the topology is consistent */
    }
}

/* ---- the five calls: set up, run (blocking or started), check ---- */

typedef struct call {
    int *send, *recv, *want;
    size_t nsend, nrecv;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint *sbytes, *rbytes;
    MPI_Datatype *stypes, *rtypes;
    int count;
} call_t;

static void call_free(call_t *c) {
    free(c->send), free(c->recv), free(c->want);
    free(c->scounts), free(c->sdispls), free(c->rcounts), free(c->rdispls);
    free(c->sbytes), free(c->rbytes), free(c->stypes), free(c->rtypes);
    memset(c, 0, sizeof *c);
}

/* allgather: count items of block 0 to every neighbour */
static void allgather_setup(const topo_t *t, call_t *c, int count) {
    memset(c, 0, sizeof *c);
    c->count = count;
    c->nsend = (size_t)count;
    c->nrecv = (size_t)t->nin * (size_t)count;
    c->send = ints(c->nsend, 0);
    c->recv = ints(c->nrecv, -1);
    c->want = ints(c->nrecv, -1);
    for (int e = 0; e < count; e++) c->send[e] = val(t->me, 0, e);
    for (int i = 0; i < t->nin; i++)
        if (t->in[i] != MPI_PROC_NULL)
            for (int e = 0; e < count; e++) c->want[(size_t)i * count + e] = val(t->in[i], 0, e);
}

/* allgatherv: rank s sends 1 + s % 3 items; blocks one int apart, the first at 1 */
static void allgatherv_setup(const topo_t *t, call_t *c) {
    memset(c, 0, sizeof *c);
    c->rcounts = ints((size_t)t->nin, 0);
    c->rdispls = ints((size_t)t->nin, 0);
    int at = 1;
    for (int i = 0; i < t->nin; i++) {
        c->rcounts[i] = (t->in[i] == MPI_PROC_NULL ? 2 : 1 + t->in[i] % 3) * scale;
        c->rdispls[i] = at;
        at += c->rcounts[i] + 1;
    }
    c->count = (1 + t->me % 3) * scale;
    c->nsend = (size_t)c->count;
    c->nrecv = (size_t)at;
    c->send = ints(c->nsend, 0);
    c->recv = ints(c->nrecv, -1);
    c->want = ints(c->nrecv, -1);
    for (int e = 0; e < c->count; e++) c->send[e] = val(t->me, 0, e);
    for (int i = 0; i < t->nin; i++)
        if (t->in[i] != MPI_PROC_NULL)
            for (int e = 0; e < c->rcounts[i]; e++)
                c->want[c->rdispls[i] + e] = val(t->in[i], 0, e);
}

/* alltoall: count items of block j to out-neighbour j */
static void alltoall_setup(const topo_t *t, call_t *c, int count) {
    memset(c, 0, sizeof *c);
    c->count = count;
    c->nsend = (size_t)t->nout * (size_t)count;
    c->nrecv = (size_t)t->nin * (size_t)count;
    c->send = ints(c->nsend, 0);
    c->recv = ints(c->nrecv, -1);
    c->want = ints(c->nrecv, -1);
    for (int j = 0; j < t->nout; j++)
        for (int e = 0; e < count; e++) c->send[(size_t)j * count + e] = val(t->me, j, e);
    for (int i = 0; i < t->nin; i++)
        if (t->in[i] != MPI_PROC_NULL)
            for (int e = 0; e < count; e++)
                c->want[(size_t)i * count + e] = val(t->in[i], t->from_slot[i], e);
}

/* The items of block j of rank s in the v and w calls (some blocks are empty). */
static int vcount(int s, int j) {
    return (s + 2 * j + 1) % 5 * scale;
}

/* alltoallv: blocks of vcount items, sent from the end of sendbuf backwards, received
 * two ints apart */
static void alltoallv_setup(const topo_t *t, call_t *c) {
    memset(c, 0, sizeof *c);
    c->scounts = ints((size_t)t->nout, 0);
    c->sdispls = ints((size_t)t->nout, 0);
    c->rcounts = ints((size_t)t->nin, 0);
    c->rdispls = ints((size_t)t->nin, 0);
    int total = 0;
    for (int j = 0; j < t->nout; j++) total += c->scounts[j] = vcount(t->me, j);
    for (int j = 0, at = total; j < t->nout; j++) c->sdispls[j] = at -= c->scounts[j];
    int at = 2;
    for (int i = 0; i < t->nin; i++) {
        c->rcounts[i] = t->in[i] == MPI_PROC_NULL ? 3 : vcount(t->in[i], t->from_slot[i]);
        c->rdispls[i] = at;
        at += c->rcounts[i] + 2;
    }
    c->nsend = (size_t)total;
    c->nrecv = (size_t)at;
    c->send = ints(c->nsend, 0);
    c->recv = ints(c->nrecv, -1);
    c->want = ints(c->nrecv, -1);
    for (int j = 0; j < t->nout; j++)
        for (int e = 0; e < c->scounts[j]; e++) c->send[c->sdispls[j] + e] = val(t->me, j, e);
    for (int i = 0; i < t->nin; i++)
        if (t->in[i] != MPI_PROC_NULL)
            for (int e = 0; e < c->rcounts[i]; e++)
                c->want[c->rdispls[i] + e] = val(t->in[i], t->from_slot[i], e);
}

/* alltoallw: odd blocks strided (every other int) on both sides, even ones MPI_INT;
 * byte displacements, receive blocks one int apart */
static void alltoallw_setup(const topo_t *t, call_t *c) {
    memset(c, 0, sizeof *c);
    c->scounts = ints((size_t)t->nout, 0);
    c->rcounts = ints((size_t)t->nin, 0);
    c->sbytes = calloc((size_t)t->nout + 1, sizeof *c->sbytes);
    c->rbytes = calloc((size_t)t->nin + 1, sizeof *c->rbytes);
    c->stypes = calloc((size_t)t->nout + 1, sizeof *c->stypes);
    c->rtypes = calloc((size_t)t->nin + 1, sizeof *c->rtypes);
    int at = 0;
    for (int j = 0; j < t->nout; j++) {
        c->scounts[j] = vcount(t->me, j);
        c->stypes[j] = j % 2 ? strided : MPI_INT;
        c->sbytes[j] = (MPI_Aint)at * 4;
        at += c->scounts[j] * (j % 2 ? 2 : 1);
    }
    c->nsend = (size_t)at;
    at = 1;
    for (int i = 0; i < t->nin; i++) {
        c->rcounts[i] = t->in[i] == MPI_PROC_NULL ? 2 : vcount(t->in[i], t->from_slot[i]);
        c->rtypes[i] = i % 2 ? strided : MPI_INT;
        c->rbytes[i] = (MPI_Aint)at * 4;
        at += c->rcounts[i] * (i % 2 ? 2 : 1) + 1;
    }
    c->nrecv = (size_t)at;
    c->send = ints(c->nsend, 0);
    c->recv = ints(c->nrecv, -1);
    c->want = ints(c->nrecv, -1);
    for (int j = 0; j < t->nout; j++)
        for (int e = 0; e < c->scounts[j]; e++)
            c->send[c->sbytes[j] / 4 + e * (j % 2 ? 2 : 1)] = val(t->me, j, e);
    for (int i = 0; i < t->nin; i++)
        if (t->in[i] != MPI_PROC_NULL)
            for (int e = 0; e < c->rcounts[i]; e++)
                c->want[c->rbytes[i] / 4 + e * (i % 2 ? 2 : 1)] = val(t->in[i], t->from_slot[i], e);
}

enum { AG, AGV, A2A, A2AV, A2AW, CALLS };
static const char *names[CALLS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

static void setup(const topo_t *t, call_t *c, int k, int big) {
    switch (k) {
    case AG:
        allgather_setup(t, c, big ? 50000 : 3);
        break;
    case AGV:
        allgatherv_setup(t, c);
        break;
    case A2A:
        alltoall_setup(t, c, big ? 50000 : 2);
        break;
    case A2AV:
        alltoallv_setup(t, c);
        break;
    default:
        alltoallw_setup(t, c);
        break;
    }
}

/* Runs call k; req NULL: blocking. */
static void run(const topo_t *t, call_t *c, int k, MPI_Request *req) {
    MPI_Comm comm = t->comm;
    switch (k) {
    case AG:
        OK(req ? MPI_Ineighbor_allgather(c->send, c->count, MPI_INT, c->recv, c->count, MPI_INT,
                                         comm, req)
               : MPI_Neighbor_allgather(c->send, c->count, MPI_INT, c->recv, c->count, MPI_INT,
                                        comm));
        break;
    case AGV:
        OK(req ? MPI_Ineighbor_allgatherv(c->send, c->count, MPI_INT, c->recv, c->rcounts,
                                          c->rdispls, MPI_INT, comm, req)
               : MPI_Neighbor_allgatherv(c->send, c->count, MPI_INT, c->recv, c->rcounts,
                                         c->rdispls, MPI_INT, comm));
        break;
    case A2A:
        OK(req ? MPI_Ineighbor_alltoall(c->send, c->count, MPI_INT, c->recv, c->count, MPI_INT,
                                        comm, req)
               : MPI_Neighbor_alltoall(c->send, c->count, MPI_INT, c->recv, c->count, MPI_INT,
                                       comm));
        break;
    case A2AV:
        OK(req ? MPI_Ineighbor_alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, c->recv,
                                         c->rcounts, c->rdispls, MPI_INT, comm, req)
               : MPI_Neighbor_alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, c->recv,
                                        c->rcounts, c->rdispls, MPI_INT, comm));
        break;
    default:
        OK(req ? MPI_Ineighbor_alltoallw(c->send, c->scounts, c->sbytes, c->stypes, c->recv,
                                         c->rcounts, c->rbytes, c->rtypes, comm, req)
               : MPI_Neighbor_alltoallw(c->send, c->scounts, c->sbytes, c->stypes, c->recv,
                                        c->rcounts, c->rbytes, c->rtypes, comm));
        break;
    }
}

/* Every call blocking, one after the other, then all of them at once non-blocking
 * with a ring of messages and a barrier on the same communicator in between. */
static void exercise(topo_t *t, int big) {
    call_t c[CALLS];
    scale = big ? 20000 : 1;
    for (int k = 0; k < CALLS; k++) {
        setup(t, &c[k], k, big);
        run(t, &c[k], k, NULL);
        same_ints(names[k], t, c[k].recv, c[k].want, c[k].nrecv);
        call_free(&c[k]);
    }
    MPI_Request reqs[CALLS + 2];
    int ring_in = -1, ring_out = val(t->me, 77, 0);
    int right = (t->me + 1) % t->p, left = (t->me + t->p - 1) % t->p;
    OK(MPI_Irecv(&ring_in, 1, MPI_INT, left, 77, t->comm, &reqs[CALLS]));
    for (int k = 0; k < CALLS; k++) {
        setup(t, &c[k], k, big);
        run(t, &c[k], k, &reqs[k]);
        if (k == 2) OK(MPI_Barrier(t->comm));
    }
    OK(MPI_Isend(&ring_out, 1, MPI_INT, right, 77, t->comm, &reqs[CALLS + 1]));
    OK(MPI_Waitall(CALLS + 2, reqs, MPI_STATUSES_IGNORE));
    CHECK(ring_in == val(left, 77, 0));
    for (int k = 0; k < CALLS; k++) {
        same_ints(names[k], t, c[k].recv, c[k].want, c[k].nrecv);
        call_free(&c[k]);
    }
}

/* ---- the topologies ---- */

static void coords_of(int ndims, const int *dims, int r, int *c) {
    for (int i = ndims - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static int moved(int ndims, const int *dims, const int *periods, const int *c, int dim, int disp) {
    int m[4], r = 0;
    for (int i = 0; i < ndims; i++) m[i] = c[i];
    m[dim] += disp;
    if (periods[dim])
        m[dim] = ((m[dim] % dims[dim]) + dims[dim]) % dims[dim];
    else if (m[dim] < 0 || m[dim] >= dims[dim])
        return MPI_PROC_NULL;
    for (int i = 0; i < ndims; i++) r = r * dims[i] + m[i];
    return r;
}

/* A grid over the first n ranks (the others get MPI_COMM_NULL and skip it). */
static void cartesian(const char *name, int n, int ndims, const int *dims, const int *periods,
                      int dup) {
    topo_t t = {.name = name};
    MPI_Comm cart;
    OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart));
    if (rank >= n) {
        CHECK(cart == MPI_COMM_NULL);
        return;
    }
    t.comm = cart;
    if (dup) OK(MPI_Comm_dup(cart, &t.comm)); /* the duplicate's topology is used */
    int c[4];
    coords_of(ndims, dims, rank, c);
    t.nin = t.nout = 2 * ndims;
    for (int d = 0; d < ndims; d++) {
        t.in[2 * d] = t.out[2 * d] = moved(ndims, dims, periods, c, d, -1);
        t.in[2 * d + 1] = t.out[2 * d + 1] = moved(ndims, dims, periods, c, d, 1);
    }
    prepare(&t);
    /* the standard's rule: the -1 neighbour's block 2d+1 lands in slot 2d, the +1
     * neighbour's block 2d in slot 2d+1; where one rank is both (a periodic
     * dimension of 1 or 2) too, by the Forum's erratum to MPI-3.1 (MPI-4.0 section
     * 8.6), not in message order */
    for (int d = 0; d < ndims; d++) {
        int both = periods[d] && dims[d] <= 2;
        if (t.in[2 * d] != MPI_PROC_NULL) {
            CHECK(both || t.from_slot[2 * d] == 2 * d + 1);
            t.from_slot[2 * d] = 2 * d + 1;
        }
        if (t.in[2 * d + 1] != MPI_PROC_NULL) {
            CHECK(both || t.from_slot[2 * d + 1] == 2 * d);
            t.from_slot[2 * d + 1] = 2 * d;
        }
    }
    exercise(&t, 0);
    if (dup) exercise(&t, 1); /* long blocks */
    if (dup) OK(MPI_Comm_free(&t.comm));
    OK(MPI_Comm_free(&cart));
}

/* The graph of the creation tests: a path, the edge 0-1 twice, a loop at n-1. */
static int graph_neighbours(int n, int i, int *nb) {
    int k = 0;
    if (i > 0) nb[k++] = i - 1;
    if (i < n - 1) nb[k++] = i + 1;
    if (n >= 2 && i == 0) nb[k++] = 1;
    if (n >= 2 && i == 1) nb[k++] = 0;
    if (i == n - 1) nb[k++] = i;
    return k;
}

static void graph(void) {
    int n = size > 2 ? size - 1 : size, index[MAXN], edges[MAXN * 4], e = 0;
    for (int i = 0; i < n; i++) {
        e += graph_neighbours(n, i, edges + e);
        index[i] = e;
    }
    topo_t t = {.name = "graph"};
    OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &t.comm));
    if (rank >= n) {
        CHECK(t.comm == MPI_COMM_NULL);
        return;
    }
    t.nin = t.nout = graph_neighbours(n, rank, t.in);
    memcpy(t.out, t.in, sizeof t.in);
    prepare(&t);
    exercise(&t, 0);
    OK(MPI_Comm_free(&t.comm));
}

/* A distributed graph: each of the first m ranks sends to the next two (mod m) and
 * receives from the two before; with 3 or more ranks the last rank has no edges. */
static void dist_graph(int general) {
    int m = size >= 3 ? size - 1 : size, in[2], out[2], w[2], nin = 0, nout = 0;
    if (rank < m)
        for (int k = 1; k <= 2; k++) {
            out[nout] = (rank + k) % m, w[nout++] = k;
            in[nin++] = ((rank - k) % m + m) % m;
        }
    topo_t t = {.name = general ? "dist_graph_create" : "dist_graph_create_adjacent"};
    if (general) { /* rank r gives the edges of node r + 1 */
        int s = (rank + 1) % size, n = s < m ? 1 : 0, deg = 2, dst[2];
        for (int k = 0; k < 2; k++) dst[k] = (s + k + 1) % m;
        OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, &s, &deg, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &t.comm));
    } else {
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, nin ? w : MPI_WEIGHTS_EMPTY,
                                          nout, out, nout ? w : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0,
                                          &t.comm));
    }
    int weighted, sw[MAXDEG], dw[MAXDEG];
    OK(MPI_Dist_graph_neighbors_count(t.comm, &t.nin, &t.nout, &weighted));
    CHECK(t.nin == nin && t.nout == nout && weighted == !general);
    OK(MPI_Dist_graph_neighbors(t.comm, MAXDEG, t.in, sw, MAXDEG, t.out, dw));
    prepare(&t);
    exercise(&t, 0);
    if (!general) exercise(&t, 1); /* long blocks */
    OK(MPI_Comm_free(&t.comm));
}

static void errors(void) {
    int dims[1] = {size}, periods[1] = {1}, buf[4] = {0}, counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Comm ring;
    MPI_Request req;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    FAILS(MPI_Neighbor_allgather(buf, 1, MPI_INT, buf + 2, 1, MPI_INT, MPI_COMM_WORLD),
          MPI_ERR_TOPOLOGY);
    FAILS(MPI_Ineighbor_alltoall(buf, 1, MPI_INT, buf + 2, 1, MPI_INT, MPI_COMM_SELF, &req),
          MPI_ERR_TOPOLOGY);
    FAILS(MPI_Neighbor_alltoall(buf, 1, MPI_INT, buf + 2, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);
    FAILS(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, buf + 2, 1, MPI_INT, ring),
          MPI_ERR_BUFFER);
    FAILS(MPI_Neighbor_alltoall(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    FAILS(MPI_Neighbor_alltoall(buf, -1, MPI_INT, buf + 2, 1, MPI_INT, ring), MPI_ERR_COUNT);
    FAILS(MPI_Neighbor_allgather(buf, 1, MPI_DATATYPE_NULL, buf + 2, 1, MPI_INT, ring),
          MPI_ERR_TYPE);
    FAILS(MPI_Neighbor_alltoall(NULL, 1, MPI_INT, buf + 2, 1, MPI_INT, ring), MPI_ERR_BUFFER);
    FAILS(MPI_Ineighbor_allgather(buf, 1, MPI_INT, buf + 2, 1, MPI_INT, ring, NULL),
          MPI_ERR_REQUEST);
    FAILS(MPI_Neighbor_allgatherv(buf, 1, MPI_INT, buf + 2, NULL, displs, MPI_INT, ring),
          MPI_ERR_ARG);
    FAILS(
        MPI_Neighbor_alltoallv(buf, counts, NULL, MPI_INT, buf + 2, counts, displs, MPI_INT, ring),
        MPI_ERR_ARG);
    counts[1] = -1;
    FAILS(MPI_Neighbor_alltoallv(buf, counts, displs, MPI_INT, buf + 2, counts, displs, MPI_INT,
                                 ring),
          MPI_ERR_COUNT);
    MPI_Aint bytes[2] = {0, 4};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    counts[1] = 1;
    FAILS(MPI_Neighbor_alltoallw(buf, counts, bytes, NULL, buf + 2, counts, bytes, types, ring),
          MPI_ERR_ARG);
    types[1] = MPI_DATATYPE_NULL;
    FAILS(MPI_Neighbor_alltoallw(buf, counts, bytes, types, buf + 2, counts, bytes, types, ring),
          MPI_ERR_TYPE);
    /* MPI_BOTTOM with absolute byte displacements of a predefined type (mpi4py does
     * so): the ring's left and right neighbours' ints land at their addresses */
    int out[2] = {rank * 10 + 1, rank * 10 + 2}, in[2] = {-1, -1};
    MPI_Aint sat[2], rat[2];
    for (int k = 0; k < 2; k++) {
        OK(MPI_Get_address(&out[k], &sat[k]));
        OK(MPI_Get_address(&in[k], &rat[k]));
    }
    types[1] = MPI_INT;
    OK(MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, sat, types, MPI_BOTTOM, counts, rat, types,
                              ring));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    /* from the left neighbour its block for +1 (its second), from the right its first;
     * on rings of 1 and 2 too, where one rank is both neighbours (MPI-4.0 8.6) */
    CHECK(in[0] == left * 10 + 2 && in[1] == right * 10 + 1);
    OK(MPI_Comm_free(&ring));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= MAXN);
    OK(MPI_Type_create_resized(MPI_INT, 0, 8, &strided));
    OK(MPI_Type_commit(&strided));

    int d2[2] = {0, 0}, p2[2] = {1, 0};
    OK(MPI_Dims_create(size, 2, d2));
    cartesian("2-D, periodic in the first dimension", size, 2, d2, p2, 0);
    int t2[2] = {1, 1};
    cartesian("2-D torus, duplicated", size, 2, d2, t2, 1);
    int d3[3] = {0, 0, 0}, p3[3] = {1, 1, 1};
    OK(MPI_Dims_create(size, 3, d3));
    cartesian("3-D torus", size, 3, d3, p3, 0);
    int d1[1] = {size}, periodic[1] = {1}, open[1] = {0};
    cartesian("ring", size, 1, d1, periodic, 0);
    cartesian("line", size, 1, d1, open, 0);
    int two[1] = {2};
    if (size >= 2) cartesian("ring of 2", 2, 1, two, periodic, 0);
    if (size > 1) { /* all ranks but the last */
        int d[3] = {0, 0, 0}, p[3] = {0, 1, 0};
        OK(MPI_Dims_create(size - 1, 3, d));
        cartesian("3-D over all ranks but the last", size - 1, 3, d, p, 0);
    }
    int one[2] = {1, size}, mixed[2] = {1, 0}; /* a periodic dimension of 1: self twice */
    cartesian("1 x size", size, 2, one, mixed, 0);
    graph();
    dist_graph(0);
    dist_graph(1);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    errors();
    OK(MPI_Type_free(&strided));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
