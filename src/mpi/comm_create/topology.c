/* Process topologies (MPI-3.1 chapter 7): Cartesian grids, graphs and distributed
 * graphs, kept with the communicator they describe (tw_mpi_comm_t.topo).
 *
 * Each creation call is a communicator split of the old communicator (rank order
 * kept: `reorder` is accepted and ignored, so rank r of the new communicator is rank
 * r of the old one), followed by attaching the topology. The new communicator has
 * no attributes; a duplicate of it (MPI_Comm_dup, _idup, _dup_with_info) has a copy
 * of its topology, a split or a creation from a group has none.
 *
 * Every topology also records the ranks its neighbourhood collectives receive from
 * and send to, in the standard's order: for a Cartesian grid, for each dimension
 * the -1 then the +1 neighbour (MPI_PROC_NULL off a non-periodic edge), both ways;
 * for a graph, a node's neighbours as listed, both ways; for a distributed graph,
 * its sources and its destinations. */
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/env/state.h"
#include "mpi/comm_create/topology.h"

/* the sentinels of mpi.h */
static int unweighted, weights_empty;
int *const MPI_UNWEIGHTED = &unweighted;
int *const MPI_WEIGHTS_EMPTY = &weights_empty;

/* ---- the topology object ---- */

/* Sets the arrays' pointers into t->data (the sizes in t are set). */
static void lay_out(tw_topo_t *t) {
    int *at = t->data;
    t->dims = at, at += t->ndims;
    t->periods = at, at += t->ndims;
    t->coords = at, at += t->ndims;
    t->index = at, at += t->nnodes;
    t->edges = at, at += t->nedges;
    t->in = at, at += t->nin;
    t->out = at, at += t->nout;
    t->sweights = t->weighted ? at : NULL, at += t->weighted ? t->nin : 0;
    t->dweights = t->weighted ? at : NULL;
}

/* A topology of kind with arrays of these sizes (the graph's edges: nedges). */
static tw_topo_t *topo_new(int kind, int ndims, int nnodes, int nedges, int nin, int nout,
                           int weighted) {
    size_t n = 3 * (size_t)ndims + (size_t)nnodes + (size_t)nedges + (size_t)nin + (size_t)nout +
               (weighted ? (size_t)nin + (size_t)nout : 0);
    tw_topo_t *t = calloc(1, sizeof *t + n * sizeof(int));
    if (!t) return NULL;
    *t = (tw_topo_t){.kind = kind,
                     .ndims = ndims,
                     .nnodes = nnodes,
                     .nedges = nedges,
                     .weighted = weighted,
                     .nin = nin,
                     .nout = nout,
                     .nints = n};
    lay_out(t);
    return t;
}

int tw_topo_copy(const tw_mpi_comm_t *from, tw_mpi_comm_t *to) {
    const tw_topo_t *f = from->topo;
    if (!f) return MPI_SUCCESS;
    tw_topo_t *t = malloc(sizeof *t + f->nints * sizeof(int));
    if (!t) return MPI_ERR_NO_MEM;
    memcpy(t, f, sizeof *t + f->nints * sizeof(int));
    lay_out(t);
    free(to->topo);
    to->topo = t;
    return MPI_SUCCESS;
}

/* ---- argument checks ---- */

static tw_mpi_comm_t *any_comm(MPI_Comm comm, const char *call, int *rc) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) *rc = tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    return c;
}

/* The old communicator of a creation call: an intracommunicator. */
static tw_mpi_comm_t *intra(MPI_Comm comm, const char *call, int *rc) {
    tw_mpi_comm_t *c = any_comm(comm, call, rc);
    if (c && c->inter) {
        *rc = tw_mpi_error(c, call, MPI_ERR_COMM, "an intercommunicator");
        return NULL;
    }
    return c;
}

/* A communicator with a topology of kind (0: any kind). */
static tw_mpi_comm_t *with_topo(MPI_Comm comm, const char *call, int kind, int *rc) {
    tw_mpi_comm_t *c = any_comm(comm, call, rc);
    if (!c) return NULL;
    if (!c->topo || (kind && c->topo->kind != kind)) {
        *rc = tw_mpi_error(c, call, MPI_ERR_TOPOLOGY,
                           !c->topo            ? "the communicator has no topology"
                           : kind == MPI_CART  ? "not a Cartesian topology"
                           : kind == MPI_GRAPH ? "not a graph topology"
                                               : "not a distributed graph topology");
        return NULL;
    }
    return c;
}

static int check_info(tw_mpi_comm_t *c, const char *call, MPI_Info info) {
    /* hints are accepted and ignored */
    return tw_mpi_info_ok(info) ? MPI_SUCCESS : tw_mpi_error(c, call, MPI_ERR_INFO, NULL);
}

/* The processes a Cartesian grid of ndims dims[] needs, or -1 beyond limit. */
static long long grid_size(int ndims, const int *dims, long long limit) {
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        n *= dims[i];
        if (n > limit) return -1;
    }
    return n;
}

/* Checks the grid of Cart_create and Cart_map against c; too_large: the class of a
 * grid larger than c (MPICH's: MPI_ERR_ARG for Cart_create, MPI_ERR_DIMS for
 * Cart_map). */
static int check_grid(tw_mpi_comm_t *c, const char *call, int ndims, const int *dims,
                      const int *periods, int too_large) {
    if (ndims < 0) return tw_mpi_error(c, call, MPI_ERR_ARG, "negative ndims");
    if (ndims > 0 && (!dims || !periods))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "dims or periods is NULL");
    for (int i = 0; i < ndims; i++)
        if (dims[i] <= 0) return tw_mpi_error(c, call, MPI_ERR_DIMS, "a dimension is not positive");
    if (grid_size(ndims, dims, c->size) < 0)
        return tw_mpi_error(c, call, too_large, "more grid points than processes");
    return MPI_SUCCESS;
}

/* ---- Cartesian grids ---- */

static int cart_rank(const tw_topo_t *t, const int *coords) {
    int r = 0;
    for (int i = 0; i < t->ndims; i++) r = r * t->dims[i] + coords[i];
    return r;
}

static void cart_coords(const tw_topo_t *t, int rank, int *coords) {
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* The rank disp steps from coords along dimension dir (MPI_PROC_NULL: off the grid). */
static int cart_step(const tw_topo_t *t, const int *coords, int dir, long long disp, int *scratch) {
    long long at = coords[dir] + disp, n = t->dims[dir];
    if (t->periods[dir])
        at = (at % n + n) % n;
    else if (at < 0 || at >= n)
        return MPI_PROC_NULL;
    memcpy(scratch, coords, (size_t)t->ndims * sizeof *scratch);
    scratch[dir] = (int)at;
    return cart_rank(t, scratch);
}

/* A Cartesian topology for rank of a grid of ndims dims[] (periods[] nonzero:
 * periodic). */
static tw_topo_t *cart_new(int ndims, const int *dims, const int *periods, int rank) {
    tw_topo_t *t = topo_new(MPI_CART, ndims, 0, 0, 2 * ndims, 2 * ndims, 0);
    int *scratch = malloc(((size_t)ndims + 1) * sizeof *scratch);
    if (!t || !scratch) {
        free(t);
        free(scratch);
        return NULL;
    }
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    cart_coords(t, rank, t->coords);
    for (int i = 0; i < ndims; i++) {
        t->in[2 * i] = t->out[2 * i] = cart_step(t, t->coords, i, -1, scratch);
        t->in[2 * i + 1] = t->out[2 * i + 1] = cart_step(t, t->coords, i, 1, scratch);
    }
    free(scratch);
    return t;
}

/* Splits c by color and key and gives the new communicator (if any) topology t,
 * which it then owns; t is freed otherwise. */
static int split_with(tw_mpi_comm_t *c, const char *call, int color, int key, tw_topo_t *t,
                      MPI_Comm *newcomm) {
    MPI_Comm made = MPI_COMM_NULL;
    int rc = MPI_Comm_split(c->handle, color, key, &made);
    *newcomm = MPI_COMM_NULL;
    if (rc) { /* reported by the split already */
        free(t);
        return rc;
    }
    if (made == MPI_COMM_NULL) {
        free(t);
        return MPI_SUCCESS;
    }
    if (!t) {
        MPI_Comm_free(&made);
        return tw_mpi_error(c, call, MPI_ERR_NO_MEM, NULL);
    }
    tw_mpi_comm_get(made)->topo = t;
    *newcomm = made;
    return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart) {
    static const char call[] = "MPI_Cart_create";
    NEED_INIT(call);
    (void)reorder; /* ranks stay as they are */
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm_old, call, &rc);
    if (!c) return rc;
    if (!comm_cart) return tw_mpi_error(c, call, MPI_ERR_ARG, "comm_cart is NULL");
    *comm_cart = MPI_COMM_NULL; /* what a refused call leaves, as MPICH does */
    if ((rc = check_grid(c, call, ndims, dims, periods, MPI_ERR_ARG))) return rc;
    int n = (int)grid_size(ndims, dims, c->size), in = c->rank < n;
    tw_topo_t *t = in ? cart_new(ndims, dims, periods, c->rank) : NULL;
    return split_with(c, call, in ? 0 : MPI_UNDEFINED, c->rank, t, comm_cart);
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank) {
    static const char call[] = "MPI_Cart_map";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm, call, &rc);
    if (!c) return rc;
    if (!newrank) return tw_mpi_error(c, call, MPI_ERR_ARG, "newrank is NULL");
    if ((rc = check_grid(c, call, ndims, dims, periods, MPI_ERR_DIMS))) return rc;
    *newrank = c->rank < grid_size(ndims, dims, c->size) ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims) {
    NEED_INIT("MPI_Cartdim_get");
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, "MPI_Cartdim_get", MPI_CART, &rc);
    if (!c) return rc;
    if (!ndims) return tw_mpi_error(c, "MPI_Cartdim_get", MPI_ERR_ARG, "ndims is NULL");
    *ndims = c->topo->ndims;
    return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
    static const char call[] = "MPI_Cart_get";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_CART, &rc);
    if (!c) return rc;
    const tw_topo_t *t = c->topo;
    if (maxdims < t->ndims) return tw_mpi_error(c, call, MPI_ERR_ARG, "maxdims below ndims");
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "an array is NULL");
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank) {
    static const char call[] = "MPI_Cart_rank";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_CART, &rc);
    if (!c) return rc;
    const tw_topo_t *t = c->topo;
    if (!rank || (t->ndims > 0 && !coords))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "coords or rank is NULL");
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        long long at = coords[i], n = t->dims[i];
        if (t->periods[i])
            at = (at % n + n) % n;
        else if (at < 0 || at >= n)
            return tw_mpi_error(c, call, MPI_ERR_ARG, "a coordinate is off the grid");
        r = r * t->dims[i] + (int)at;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
    static const char call[] = "MPI_Cart_coords";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_CART, &rc);
    if (!c) return rc;
    const tw_topo_t *t = c->topo;
    if (rank < 0 || rank >= c->size) return tw_mpi_error(c, call, MPI_ERR_RANK, NULL);
    if (maxdims < t->ndims) return tw_mpi_error(c, call, MPI_ERR_ARG, "maxdims below ndims");
    if (t->ndims > 0 && !coords) return tw_mpi_error(c, call, MPI_ERR_ARG, "coords is NULL");
    cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest) {
    static const char call[] = "MPI_Cart_shift";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_CART, &rc);
    if (!c) return rc;
    const tw_topo_t *t = c->topo;
    if (t->ndims == 0)
        return tw_mpi_error(c, call, MPI_ERR_TOPOLOGY, "a zero-dimensional topology");
    if (direction < 0 || direction >= t->ndims)
        return tw_mpi_error(c, call, MPI_ERR_ARG, "no such direction");
    if (!rank_source || !rank_dest)
        return tw_mpi_error(c, call, MPI_ERR_ARG, "rank_source or rank_dest is NULL");
    int *scratch = malloc((size_t)t->ndims * sizeof *scratch);
    if (!scratch) return tw_mpi_error(c, call, MPI_ERR_NO_MEM, NULL);
    *rank_source = cart_step(t, t->coords, direction, -(long long)disp, scratch);
    *rank_dest = cart_step(t, t->coords, direction, disp, scratch);
    free(scratch);
    return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
    static const char call[] = "MPI_Cart_sub";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_CART, &rc);
    if (!c) return rc;
    const tw_topo_t *t = c->topo;
    if (!newcomm || (t->ndims > 0 && !remain_dims))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "remain_dims or newcomm is NULL");
    /* color: the position in the dimensions dropped; key: in those kept (row-major) */
    int color = 0, key = 0, n = 0;
    int *dims = malloc(((size_t)t->ndims + 1) * sizeof *dims);
    int *periods = malloc(((size_t)t->ndims + 1) * sizeof *periods);
    tw_topo_t *sub = NULL;
    if (dims && periods) {
        for (int i = 0; i < t->ndims; i++) {
            if (remain_dims[i]) {
                key = key * t->dims[i] + t->coords[i];
                dims[n] = t->dims[i];
                periods[n++] = t->periods[i];
            } else {
                color = color * t->dims[i] + t->coords[i];
            }
        }
        sub = cart_new(n, dims, periods, key);
    }
    free(dims);
    free(periods);
    if (!sub) {
        /* the others still split: take part, then report */
        MPI_Comm dummy;
        split_with(c, call, MPI_UNDEFINED, 0, NULL, &dummy);
        return tw_mpi_error(c, call, MPI_ERR_NO_MEM, NULL);
    }
    return split_with(c, call, color, key, sub, newcomm);
}

/* ---- MPI_Dims_create ---- */

typedef struct dims_search {
    int k;                /* factors wanted */
    const long long *div; /* the divisors of the whole product, ascending */
    int ndiv;
    const long long *primes; /* its prime factors, ascending */
    int nprimes;
    long long *cur, *best; /* non-increasing */
    long long spread;      /* best[0] - best[k-1]; -1: none yet */
} dims_search_t;

/* 1 when d^left >= m (d could then be the largest of left factors of m). */
static int big_enough(long long d, int left, long long m) {
    long long p = 1;
    for (int i = 0; i < left && p < m; i++) p *= d;
    return p >= m;
}

/* The largest r with r^left <= m: the most the smallest of left factors of m can be. */
static long long root_of(long long m, int left) {
    long long lo = 1, hi = m;
    while (lo < hi) {
        long long mid = lo + (hi - lo + 1) / 2;
        if (big_enough(mid, left, m + 1)) /* mid^left > m */
            hi = mid - 1;
        else
            lo = mid;
    }
    return lo;
}

/* Chooses factor i onwards of m, each at most most, none making the spread worse
 * than the best found. */
static void dims_search(dims_search_t *s, int i, long long m, long long most) {
    int left = s->k - i;
    for (int j = s->nprimes - 1; j >= 0 && s->primes[j] > most; j--)
        if (m % s->primes[j] == 0) return; /* a prime too large for any factor left */
    if (i > 0 && s->spread >= 0 && s->cur[0] - root_of(m, left) >= s->spread) return;
    if (left == 1) {
        if (m > most) return;
        s->cur[i] = m;
        long long spread = s->cur[0] - m;
        if (s->spread < 0 || spread < s->spread) {
            s->spread = spread;
            memcpy(s->best, s->cur, (size_t)s->k * sizeof *s->best);
        }
        return;
    }
    /* the first factor from the smallest possible up (a good spread is found soon),
     * the others from the largest down (cut once they are too far below the first) */
    for (int n = 0; n < s->ndiv; n++) {
        int j = i == 0 ? n : s->ndiv - 1 - n;
        long long d = s->div[j];
        if (d > most || d > m || m % d) continue;
        if (!big_enough(d, left, m)) {
            if (i == 0) continue;
            break;
        }
        if (i > 0 && s->spread >= 0 && s->cur[0] - d >= s->spread) break;
        if (i == 0 && s->spread >= 0 && d - root_of(m / d, left - 1) >= s->spread) break;
        s->cur[i] = d;
        dims_search(s, i + 1, m / d, d);
    }
}

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
    static const char call[] = "MPI_Dims_create";
    NEED_INIT(call);
    if (ndims == 0) return MPI_SUCCESS; /* nothing to fill in (as MPICH) */
    if (nnodes <= 0) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "nnodes is not positive");
    if (ndims < 0) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative ndims");
    if (ndims > 0 && !dims) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "dims is NULL");
    long long fixed = 1;
    int k = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) return tw_mpi_error(NULL, call, MPI_ERR_DIMS, "a negative dimension");
        if (dims[i] == 0) {
            k++;
            continue;
        }
        fixed *= dims[i];
        if (fixed > nnodes || nnodes % fixed)
            return tw_mpi_error(NULL, call, MPI_ERR_DIMS,
                                "nnodes is not a multiple of the fixed dimensions");
    }
    long long m = nnodes / fixed;
    if (k == 0) {
        if (m != 1)
            return tw_mpi_error(NULL, call, MPI_ERR_DIMS,
                                "the fixed dimensions do not make nnodes");
        return MPI_SUCCESS;
    }
    long long *div = malloc(2 * 1600 * sizeof *div); /* an int has at most 1536 divisors */
    long long *cur = malloc(2 * (size_t)k * sizeof *cur);
    if (!div || !cur) {
        free(div);
        free(cur);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    int low = 0, high = 0; /* divisors up to sqrt(m) ascending, and their partners */
    long long *above = div + 1600;
    for (long long d = 1; d * d <= m; d++)
        if (m % d == 0) {
            div[low++] = d;
            if (d * d != m) above[high++] = m / d;
        }
    for (int j = high - 1; j >= 0; j--) div[low++] = above[j];
    long long primes[16]; /* an int has at most 9 distinct prime factors */
    int nprimes = 0;
    long long rest = m;
    for (long long q = 2; q * q <= rest; q++)
        if (rest % q == 0) {
            primes[nprimes++] = q;
            while (rest % q == 0) rest /= q;
        }
    if (rest > 1) primes[nprimes++] = rest;
    dims_search_t s = {k, div, low, primes, nprimes, cur, cur + k, -1};
    dims_search(&s, 0, m, m);
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0) dims[i] = (int)s.best[j++];
    free(div);
    free(cur);
    return MPI_SUCCESS;
}

/* ---- graphs ---- */

/* Checks a graph of nnodes (index[], edges[]) against c. */
static int check_graph(tw_mpi_comm_t *c, const char *call, int nnodes, const int *index,
                       const int *edges) {
    if (nnodes < 0) return tw_mpi_error(c, call, MPI_ERR_ARG, "negative nnodes");
    if (nnodes > c->size) return tw_mpi_error(c, call, MPI_ERR_ARG, "more nodes than processes");
    if (nnodes > 0 && !index) return tw_mpi_error(c, call, MPI_ERR_ARG, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return tw_mpi_error(c, call, MPI_ERR_ARG, "index is not non-decreasing");
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges) return tw_mpi_error(c, call, MPI_ERR_ARG, "edges is NULL");
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return tw_mpi_error(c, call, MPI_ERR_ARG, "an edge to no node");
    return MPI_SUCCESS;
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph) {
    static const char call[] = "MPI_Graph_create";
    NEED_INIT(call);
    (void)reorder; /* ranks stay as they are */
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm_old, call, &rc);
    if (!c) return rc;
    if (!comm_graph) return tw_mpi_error(c, call, MPI_ERR_ARG, "comm_graph is NULL");
    *comm_graph = MPI_COMM_NULL; /* what a refused call leaves */
    if ((rc = check_graph(c, call, nnodes, index, edges))) return rc;
    if (nnodes == 0) { /* every process returns MPI_COMM_NULL, with no communication */
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int in = c->rank < nnodes, nedges = index[nnodes - 1];
    tw_topo_t *t = NULL;
    if (in) {
        int first = c->rank ? index[c->rank - 1] : 0, n = index[c->rank] - first;
        t = topo_new(MPI_GRAPH, 0, nnodes, nedges, n, n, 0);
        if (t) {
            memcpy(t->index, index, (size_t)nnodes * sizeof *index);
            memcpy(t->edges, edges, (size_t)nedges * sizeof *edges);
            memcpy(t->in, edges + first, (size_t)n * sizeof *edges);
            memcpy(t->out, edges + first, (size_t)n * sizeof *edges);
        }
    }
    return split_with(c, call, in ? 0 : MPI_UNDEFINED, c->rank, t, comm_graph);
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank) {
    static const char call[] = "MPI_Graph_map";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm, call, &rc);
    if (!c) return rc;
    if (!newrank) return tw_mpi_error(c, call, MPI_ERR_ARG, "newrank is NULL");
    if ((rc = check_graph(c, call, nnodes, index, edges))) return rc;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges) {
    static const char call[] = "MPI_Graphdims_get";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_GRAPH, &rc);
    if (!c) return rc;
    if (!nnodes || !nedges) return tw_mpi_error(c, call, MPI_ERR_ARG, "nnodes or nedges is NULL");
    *nnodes = c->topo->nnodes;
    *nedges = c->topo->nedges;
    return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
    static const char call[] = "MPI_Graph_get";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_GRAPH, &rc);
    if (!c) return rc;
    const tw_topo_t *t = c->topo;
    if (maxindex < 0 || maxedges < 0)
        return tw_mpi_error(c, call, MPI_ERR_ARG, "negative maxindex or maxedges");
    if ((maxindex > 0 && !index) || (maxedges > 0 && !edges))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "index or edges is NULL");
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < t->nedges ? maxedges : t->nedges;
    if (ni) memcpy(index, t->index, (size_t)ni * sizeof *index);
    if (ne) memcpy(edges, t->edges, (size_t)ne * sizeof *edges);
    return MPI_SUCCESS;
}

/* Rank's neighbours in a graph topology: n of them from t->edges + *first. */
static int graph_node(tw_mpi_comm_t *c, const char *call, int rank, int *first, int *n) {
    const tw_topo_t *t = c->topo;
    if (rank < 0 || rank >= t->nnodes) return tw_mpi_error(c, call, MPI_ERR_RANK, NULL);
    *first = rank ? t->index[rank - 1] : 0;
    *n = t->index[rank] - *first;
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors) {
    static const char call[] = "MPI_Graph_neighbors_count";
    NEED_INIT(call);
    int rc = MPI_SUCCESS, first = 0, n = 0;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_GRAPH, &rc);
    if (!c) return rc;
    if ((rc = graph_node(c, call, rank, &first, &n))) return rc;
    if (!nneighbors) return tw_mpi_error(c, call, MPI_ERR_ARG, "nneighbors is NULL");
    *nneighbors = n;
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
    static const char call[] = "MPI_Graph_neighbors";
    NEED_INIT(call);
    int rc = MPI_SUCCESS, first = 0, n = 0;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_GRAPH, &rc);
    if (!c) return rc;
    if ((rc = graph_node(c, call, rank, &first, &n))) return rc;
    if (maxneighbors < 0) return tw_mpi_error(c, call, MPI_ERR_ARG, "negative maxneighbors");
    if (maxneighbors > 0 && !neighbors)
        return tw_mpi_error(c, call, MPI_ERR_ARG, "neighbors is NULL");
    if (maxneighbors < n) n = maxneighbors;
    if (n) memcpy(neighbors, c->topo->edges + first, (size_t)n * sizeof *neighbors);
    return MPI_SUCCESS;
}

/* ---- distributed graphs ---- */

/* Checks n ranks[] of c (and their weights, unless MPI_UNWEIGHTED). */
static int check_adjacent(tw_mpi_comm_t *c, const char *call, int n, const int *ranks,
                          const int *weights) {
    if (n < 0) return tw_mpi_error(c, call, MPI_ERR_ARG, "negative degree");
    if (n > 0 && !ranks) return tw_mpi_error(c, call, MPI_ERR_ARG, "ranks are NULL");
    if (weights == MPI_UNWEIGHTED)
        weights = NULL;
    else if (n > 0 && (!weights || weights == MPI_WEIGHTS_EMPTY))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "weights are NULL or MPI_WEIGHTS_EMPTY");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return tw_mpi_error(c, call, MPI_ERR_ARG, "a neighbour that is no rank");
        if (weights && weights[i] < 0)
            return tw_mpi_error(c, call, MPI_ERR_ARG, "a negative weight");
    }
    return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph) {
    static const char call[] = "MPI_Dist_graph_create_adjacent";
    NEED_INIT(call);
    (void)reorder; /* ranks stay as they are */
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm_old, call, &rc);
    if (!c) return rc;
    if (!comm_dist_graph) return tw_mpi_error(c, call, MPI_ERR_ARG, "comm_dist_graph is NULL");
    *comm_dist_graph = MPI_COMM_NULL; /* what a refused call leaves */
    if ((rc = check_adjacent(c, call, indegree, sources, sourceweights)) ||
        (rc = check_adjacent(c, call, outdegree, destinations, destweights)) ||
        (rc = check_info(c, call, info)))
        return rc;
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "only one side is MPI_UNWEIGHTED");
    int weighted = sourceweights != MPI_UNWEIGHTED;
    tw_topo_t *t = topo_new(MPI_DIST_GRAPH, 0, 0, 0, indegree, outdegree, weighted);
    if (t) {
        if (indegree) memcpy(t->in, sources, (size_t)indegree * sizeof *sources);
        if (outdegree) memcpy(t->out, destinations, (size_t)outdegree * sizeof *destinations);
        if (weighted && indegree)
            memcpy(t->sweights, sourceweights, (size_t)indegree * sizeof *sourceweights);
        if (weighted && outdegree)
            memcpy(t->dweights, destweights, (size_t)outdegree * sizeof *destweights);
    }
    return split_with(c, call, 0, c->rank, t, comm_dist_graph);
}

/* An edge as MPI_Dist_graph_create passes it to one of its ends: whether it leaves
 * (1) or enters (0) the receiver, the other end, the weight. */
typedef struct edge_msg {
    int out, peer, weight;
} edge_msg_t;

/* The edges given here, sent to their ends over nc; t gets those that end here. */
static int spread_edges(MPI_Comm nc, int p, int n, const int *sources, const int *degrees,
                        const int *destinations, const int *weights, tw_topo_t **made,
                        int weighted) {
    int rc = MPI_ERR_NO_MEM;
    int *scount = calloc((size_t)p, sizeof *scount), *rcount = calloc((size_t)p, sizeof *rcount);
    int *sdispl = calloc((size_t)p, sizeof *sdispl), *rdispl = calloc((size_t)p, sizeof *rdispl);
    edge_msg_t *sendb = NULL, *recvb = NULL;
    size_t nedges = 0;
    if (!scount || !rcount || !sdispl || !rdispl) goto out;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < degrees[i]; j++) {
            int d = destinations[nedges++];
            scount[sources[i]]++;
            scount[d]++;
        }
    }
    sendb = malloc((2 * nedges + 1) * sizeof *sendb);
    if (!sendb) goto out;
    /* counts in edge messages for now: displacements in them */
    for (int q = 1; q < p; q++) sdispl[q] = sdispl[q - 1] + scount[q - 1];
    memset(scount, 0, (size_t)p * sizeof *scount);
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < degrees[i]; j++, k++) {
            int s = sources[i], d = destinations[k], w = weighted ? weights[k] : 1;
            sendb[sdispl[s] + scount[s]++] = (edge_msg_t){1, d, w};
            sendb[sdispl[d] + scount[d]++] = (edge_msg_t){0, s, w};
        }
    }
    rc = MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, nc);
    if (rc) goto out;
    long long total = 0;
    for (int q = 0; q < p; q++) {
        if (rcount[q] < 0 || total + rcount[q] > 0x3fffffff / 3) {
            rc = MPI_ERR_INTERN;
            goto out;
        }
        rdispl[q] = (int)total * 3;
        total += rcount[q];
    }
    for (int q = 0; q < p; q++) { /* in ints */
        scount[q] *= 3;
        sdispl[q] *= 3;
        rcount[q] *= 3;
    }
    recvb = malloc(((size_t)total + 1) * sizeof *recvb);
    rc = MPI_ERR_NO_MEM;
    if (!recvb) goto out;
    rc = MPI_Alltoallv(sendb, scount, sdispl, MPI_INT, recvb, rcount, rdispl, MPI_INT, nc);
    if (rc) goto out;
    int nin = 0, nout = 0;
    for (long long e = 0; e < total; e++) {
        if (recvb[e].peer < 0 || recvb[e].peer >= p) {
            rc = MPI_ERR_INTERN;
            goto out;
        }
        if (recvb[e].out)
            nout++;
        else
            nin++;
    }
    tw_topo_t *t = topo_new(MPI_DIST_GRAPH, 0, 0, 0, nin, nout, weighted);
    rc = MPI_ERR_NO_MEM;
    if (!t) goto out;
    nin = nout = 0;
    for (long long e = 0; e < total; e++) {
        if (recvb[e].out) {
            if (weighted) t->dweights[nout] = recvb[e].weight;
            t->out[nout++] = recvb[e].peer;
        } else {
            if (weighted) t->sweights[nin] = recvb[e].weight;
            t->in[nin++] = recvb[e].peer;
        }
    }
    *made = t;
    rc = MPI_SUCCESS;
out:
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(sendb);
    free(recvb);
    return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph) {
    static const char call[] = "MPI_Dist_graph_create";
    NEED_INIT(call);
    (void)reorder; /* ranks stay as they are */
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm_old, call, &rc);
    if (!c) return rc;
    if (!comm_dist_graph) return tw_mpi_error(c, call, MPI_ERR_ARG, "comm_dist_graph is NULL");
    *comm_dist_graph = MPI_COMM_NULL; /* what a refused call leaves */
    if (n < 0) return tw_mpi_error(c, call, MPI_ERR_ARG, "negative n");
    if (n > 0 && (!sources || !degrees))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "sources or degrees is NULL");
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0) return tw_mpi_error(c, call, MPI_ERR_ARG, "a negative degree");
        if (sources[i] < 0 || sources[i] >= c->size)
            return tw_mpi_error(c, call, MPI_ERR_ARG, "a source that is no rank");
        nedges += degrees[i];
        if (nedges > 0x3fffffff / 6) return tw_mpi_error(c, call, MPI_ERR_ARG, "too many edges");
    }
    if ((rc = check_adjacent(c, call, (int)nedges, destinations, weights)) ||
        (rc = check_info(c, call, info)))
        return rc;
    int weighted = weights != MPI_UNWEIGHTED;
    MPI_Comm made = MPI_COMM_NULL;
    if ((rc = MPI_Comm_split(comm_old, 0, c->rank, &made))) return rc;
    tw_mpi_comm_t *nc = tw_mpi_comm_get(made);
    tw_topo_t *t = NULL;
    rc = spread_edges(made, c->size, n, sources, degrees, destinations, weights, &t, weighted);
    if (rc) {
        MPI_Comm_free(&made);
        return tw_mpi_error(c, call, rc, NULL);
    }
    nc->topo = t;
    *comm_dist_graph = made;
    return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted) {
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_DIST_GRAPH, &rc);
    if (!c) return rc;
    if (!indegree || !outdegree || !weighted)
        return tw_mpi_error(c, call, MPI_ERR_ARG, "an argument is NULL");
    *indegree = c->topo->nin;
    *outdegree = c->topo->nout;
    *weighted = c->topo->weighted;
    return MPI_SUCCESS;
}

/* Copies up to max of n ranks, and their weights unless unweighted or not asked. */
static void copy_adjacent(int max, int n, const int *ranks, const int *weights, int *to_ranks,
                          int *to_weights) {
    if (max < n) n = max;
    if (n) memcpy(to_ranks, ranks, (size_t)n * sizeof *ranks);
    if (n && weights && to_weights && to_weights != MPI_UNWEIGHTED)
        memcpy(to_weights, weights, (size_t)n * sizeof *weights);
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]) {
    static const char call[] = "MPI_Dist_graph_neighbors";
    NEED_INIT(call);
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = with_topo(comm, call, MPI_DIST_GRAPH, &rc);
    if (!c) return rc;
    const tw_topo_t *t = c->topo;
    if (maxindegree < 0 || maxoutdegree < 0)
        return tw_mpi_error(c, call, MPI_ERR_ARG, "a negative maximum");
    int nin = maxindegree < t->nin ? maxindegree : t->nin;
    int nout = maxoutdegree < t->nout ? maxoutdegree : t->nout;
    if ((nin && !sources) || (nout && !destinations))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "sources or destinations is NULL");
    if (t->weighted && ((nin && (!sourceweights || sourceweights == MPI_WEIGHTS_EMPTY)) ||
                        (nout && (!destweights || destweights == MPI_WEIGHTS_EMPTY))))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "weights are NULL");
    copy_adjacent(nin, t->nin, t->in, t->sweights, sources, sourceweights);
    copy_adjacent(nout, t->nout, t->out, t->dweights, destinations, destweights);
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status) {
    NEED_INIT("MPI_Topo_test");
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = any_comm(comm, "MPI_Topo_test", &rc);
    if (!c) return rc;
    if (!status) return tw_mpi_error(c, "MPI_Topo_test", MPI_ERR_ARG, "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
