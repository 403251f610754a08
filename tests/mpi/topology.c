/* Process topologies: MPI_Dims_create against a table, Cartesian grids (2-D and 3-D,
 * periodic and not, fewer ranks than the communicator, zero dimensions) with
 * coordinates and shifts computed here from row-major order, MPI_Cart_sub, graphs
 * and distributed graphs (both creation calls, weights, a rank with no
 * neighbours) against neighbour lists computed here, what duplicates and splits
 * keep, and invalid arguments under MPI_ERRORS_RETURN. Runs on any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_check.h"

#define OK(call) CHECK((call) == MPI_SUCCESS)
#define FAILS(call, cls)                                                                           \
    do {                                                                                           \
        int rc_ = (call), cls_ = -1;                                                               \
        MPI_Error_class(rc_, &cls_);                                                               \
        if (cls_ != (cls)) fprintf(stderr, "got class %d, want %d\n", cls_, (cls));                \
        CHECK(cls_ == (cls));                                                                      \
    } while (0)

static void dims_case(int nnodes, int ndims, const int *given, const int *want) {
    int d[8];
    for (int i = 0; i < ndims; i++) d[i] = given[i];
    OK(MPI_Dims_create(nnodes, ndims, d));
    for (int i = 0; i < ndims; i++) {
        if (d[i] != want[i])
            fprintf(stderr, "Dims_create(%d, %d): dim %d is %d\n", nnodes, ndims, i, d[i]);
        CHECK(d[i] == want[i]);
    }
}

static void dims_create(void) {
    dims_case(6, 2, (int[]){0, 0}, (int[]){3, 2});
    dims_case(7, 2, (int[]){0, 0}, (int[]){7, 1});
    dims_case(12, 3, (int[]){0, 0, 0}, (int[]){3, 2, 2});
    dims_case(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
    dims_case(72, 2, (int[]){0, 0}, (int[]){9, 8});
    dims_case(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
    dims_case(16, 4, (int[]){0, 0, 0, 0}, (int[]){2, 2, 2, 2});
    dims_case(30, 3, (int[]){0, 0, 0}, (int[]){5, 3, 2});
    dims_case(64, 3, (int[]){0, 0, 0}, (int[]){4, 4, 4});
    dims_case(1024 * 1024 * 1024, 2, (int[]){0, 0}, (int[]){32768, 32768});
    dims_case(2147483647, 2, (int[]){0, 0}, (int[]){2147483647, 1}); /* a prime */
    /* fixed dimensions stay; the free ones share what is left */
    dims_case(12, 3, (int[]){0, 3, 0}, (int[]){2, 3, 2});
    dims_case(24, 3, (int[]){2, 0, 0}, (int[]){2, 4, 3});
    dims_case(6, 2, (int[]){2, 3}, (int[]){2, 3});
    dims_case(8, 3, (int[]){0, 8, 0}, (int[]){1, 8, 1});
    dims_case(1, 0, NULL, NULL);
    dims_case(5, 0, NULL, NULL);
    /* errors: not divisible by the fixed dimensions, negative, no nodes */
    int d[3] = {2, 0, 0};
    FAILS(MPI_Dims_create(7, 2, d), MPI_ERR_DIMS);
    d[0] = 2, d[1] = 2;
    FAILS(MPI_Dims_create(6, 2, d), MPI_ERR_DIMS);
    d[0] = -1, d[1] = 0;
    FAILS(MPI_Dims_create(6, 2, d), MPI_ERR_DIMS);
    d[0] = d[1] = 0;
    FAILS(MPI_Dims_create(0, 2, d), MPI_ERR_ARG);
    FAILS(MPI_Dims_create(6, -1, d), MPI_ERR_ARG);
    FAILS(MPI_Dims_create(6, 2, NULL), MPI_ERR_ARG);
}

/* The world ranks of comm's members, checked against want[0..n). */
static void members(MPI_Comm comm, int n, const int *want) {
    MPI_Group g, w;
    int s, *ranks = malloc((size_t)n * sizeof *ranks), *got = malloc((size_t)n * sizeof *got);
    OK(MPI_Comm_size(comm, &s));
    CHECK(s == n);
    OK(MPI_Comm_group(comm, &g));
    OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    for (int k = 0; k < n; k++) ranks[k] = k;
    OK(MPI_Group_translate_ranks(g, n, ranks, w, got));
    for (int k = 0; k < n; k++) CHECK(got[k] == want[k]);
    OK(MPI_Group_free(&g));
    OK(MPI_Group_free(&w));
    free(ranks);
    free(got);
}

/* Row-major coordinates of r in a grid of dims. */
static void coords_of(int ndims, const int *dims, int r, int *c) {
    for (int i = ndims - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static int rank_of(int ndims, const int *dims, const int *c) {
    int r = 0;
    for (int i = 0; i < ndims; i++) r = r * dims[i] + c[i];
    return r;
}

/* The rank disp along dim from c, or MPI_PROC_NULL. */
static int moved(int ndims, const int *dims, const int *periods, const int *c, int dim, int disp) {
    int m[8];
    for (int i = 0; i < ndims; i++) m[i] = c[i];
    m[dim] += disp;
    if (periods[dim])
        m[dim] = ((m[dim] % dims[dim]) + dims[dim]) % dims[dim];
    else if (m[dim] < 0 || m[dim] >= dims[dim])
        return MPI_PROC_NULL;
    return rank_of(ndims, dims, m);
}

/* Everything a member of a Cartesian communicator can ask, against the grid. */
static void check_cart(MPI_Comm cart, int ndims, const int *dims, const int *periods) {
    int n = 1, status, nd, me, d[8], p[8], c[8], want[8];
    for (int i = 0; i < ndims; i++) n *= dims[i];
    OK(MPI_Comm_rank(cart, &me));
    CHECK(me == rank); /* ranks are not reordered */
    OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART);
    OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == ndims);
    OK(MPI_Cart_get(cart, 8, d, p, c));
    coords_of(ndims, dims, me, want);
    for (int i = 0; i < ndims; i++)
        CHECK(d[i] == dims[i] && !!p[i] == !!periods[i] && c[i] == want[i]);
    for (int r = 0; r < n; r++) {
        int got;
        coords_of(ndims, dims, r, want);
        OK(MPI_Cart_coords(cart, r, ndims, c));
        for (int i = 0; i < ndims; i++) CHECK(c[i] == want[i]);
        OK(MPI_Cart_rank(cart, want, &got));
        CHECK(got == r);
        /* a periodic coordinate wraps; a non-periodic one off the grid is an error */
        for (int i = 0; i < ndims; i++) {
            int keep = want[i];
            want[i] += 3 * dims[i];
            if (periods[i]) {
                OK(MPI_Cart_rank(cart, want, &got));
                CHECK(got == r);
                want[i] = keep - dims[i];
                OK(MPI_Cart_rank(cart, want, &got));
                CHECK(got == r);
            } else {
                FAILS(MPI_Cart_rank(cart, want, &got), MPI_ERR_ARG);
            }
            want[i] = keep;
        }
    }
    coords_of(ndims, dims, me, c);
    for (int dim = 0; dim < ndims; dim++)
        for (int disp = -5; disp <= 5; disp++) {
            int src, dst;
            OK(MPI_Cart_shift(cart, dim, disp, &src, &dst));
            CHECK(src == moved(ndims, dims, periods, c, dim, -disp));
            CHECK(dst == moved(ndims, dims, periods, c, dim, disp));
        }
    int src, dst, shift_error = ndims ? MPI_ERR_ARG : MPI_ERR_TOPOLOGY;
    FAILS(MPI_Cart_shift(cart, ndims, 1, &src, &dst), shift_error);
    FAILS(MPI_Cart_shift(cart, -1, 1, &src, &dst), shift_error);
    FAILS(MPI_Cart_coords(cart, n, ndims, c), MPI_ERR_RANK);
    FAILS(MPI_Cart_coords(cart, -1, ndims, c), MPI_ERR_RANK);
    if (ndims > 0) {
        FAILS(MPI_Cart_coords(cart, 0, ndims - 1, c), MPI_ERR_ARG);
        FAILS(MPI_Cart_get(cart, ndims - 1, d, p, c), MPI_ERR_ARG);
    }
    FAILS(MPI_Graphdims_get(cart, &src, &dst), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Dist_graph_neighbors_count(cart, &src, &dst, &nd), MPI_ERR_TOPOLOGY);
}

/* Cart_sub of cart (a grid of dims) keeping remain[]: its members and grid. */
static void check_sub(MPI_Comm cart, int ndims, const int *dims, const int *periods,
                      const int *remain) {
    MPI_Comm sub;
    int c[8], m[8], sdims[8], speriods[8], sn = 0, n = 1, want[64], k = 0;
    OK(MPI_Cart_sub(cart, remain, &sub));
    for (int i = 0; i < ndims; i++) {
        n *= dims[i];
        if (remain[i]) sdims[sn] = dims[i], speriods[sn++] = periods[i];
    }
    coords_of(ndims, dims, rank, c);
    /* the members: the ranks agreeing with me on every dimension dropped, in order */
    for (int r = 0; r < n; r++) {
        coords_of(ndims, dims, r, m);
        int same = 1;
        for (int i = 0; i < ndims; i++)
            if (!remain[i] && m[i] != c[i]) same = 0;
        if (same) want[k++] = r;
    }
    members(sub, k, want);
    int status, nd, d[8], p[8], sc[8], me;
    OK(MPI_Topo_test(sub, &status));
    CHECK(status == MPI_CART);
    OK(MPI_Cartdim_get(sub, &nd));
    CHECK(nd == sn);
    OK(MPI_Cart_get(sub, 8, d, p, sc));
    OK(MPI_Comm_rank(sub, &me));
    for (int i = 0, j = 0; i < ndims; i++)
        if (remain[i]) {
            CHECK(d[j] == sdims[j] && !!p[j] == !!speriods[j] && sc[j] == c[i]);
            j++;
        }
    CHECK(rank_of(sn, sdims, sc) == me);
    OK(MPI_Comm_free(&sub));
}

static void cartesian(void) {
    /* 2-D over every rank: periodic in the first dimension only */
    int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    MPI_Comm cart;
    OK(MPI_Dims_create(size, 2, dims));
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
    CHECK(cart != MPI_COMM_NULL);
    check_cart(cart, 2, dims, periods);
    check_sub(cart, 2, dims, periods, (int[]){1, 0});
    check_sub(cart, 2, dims, periods, (int[]){0, 1});
    check_sub(cart, 2, dims, periods, (int[]){1, 1});
    check_sub(cart, 2, dims, periods, (int[]){0, 0});
    int newrank;
    OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank));
    CHECK(newrank == rank);

    /* duplicates keep the topology, splits and creations from groups do not */
    MPI_Comm dup, split, created;
    MPI_Request req;
    int status;
    OK(MPI_Comm_dup(cart, &dup));
    check_cart(dup, 2, dims, periods);
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_dup_with_info(cart, MPI_INFO_NULL, &dup));
    check_cart(dup, 2, dims, periods);
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_idup(cart, &dup, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_cart(dup, 2, dims, periods);
    OK(MPI_Comm_split(cart, 0, rank, &split));
    OK(MPI_Topo_test(split, &status));
    CHECK(status == MPI_UNDEFINED);
    MPI_Group g;
    OK(MPI_Comm_group(cart, &g));
    OK(MPI_Comm_create(cart, g, &created));
    OK(MPI_Group_free(&g));
    OK(MPI_Topo_test(created, &status));
    CHECK(status == MPI_UNDEFINED);
    /* the original is still whole after its duplicate is freed */
    OK(MPI_Comm_free(&dup));
    check_cart(cart, 2, dims, periods);
    OK(MPI_Comm_free(&split));
    OK(MPI_Comm_free(&created));
    OK(MPI_Comm_free(&cart));

    /* 3-D, all periodic, over all ranks but the last: it gets MPI_COMM_NULL */
    int n = size > 1 ? size - 1 : 1;
    int d3[3] = {0, 0, 0}, p3[3] = {1, 1, 0};
    OK(MPI_Dims_create(n, 3, d3));
    OK(MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, 0, &cart));
    if (rank >= n) {
        CHECK(cart == MPI_COMM_NULL);
    } else {
        CHECK(cart != MPI_COMM_NULL);
        int want[64];
        for (int r = 0; r < n; r++) want[r] = r;
        members(cart, n, want);
        check_cart(cart, 3, d3, p3);
        check_sub(cart, 3, d3, p3, (int[]){1, 0, 1});
        check_sub(cart, 3, d3, p3, (int[]){0, 1, 0});
        OK(MPI_Comm_free(&cart));
    }
    OK(MPI_Cart_map(MPI_COMM_WORLD, 3, d3, p3, &newrank));
    CHECK(newrank == (rank < n ? rank : MPI_UNDEFINED));

    /* a 1-D ring of 2 x ... as given by hand: 1 x size, both periodic */
    int d2[2] = {1, size}, p2[2] = {1, 1};
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, d2, p2, 0, &cart));
    check_cart(cart, 2, d2, p2);
    OK(MPI_Comm_free(&cart));

    /* zero dimensions: rank 0 alone */
    OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    if (rank == 0) {
        int nd;
        CHECK(cart != MPI_COMM_NULL);
        members(cart, 1, (int[]){0});
        OK(MPI_Cartdim_get(cart, &nd));
        CHECK(nd == 0);
        check_cart(cart, 0, NULL, NULL);
        OK(MPI_Comm_free(&cart));
    } else {
        CHECK(cart == MPI_COMM_NULL);
    }

    /* errors */
    int bad[2] = {size + 1, 1};
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, 2, bad, periods, 0, &cart), MPI_ERR_ARG);
    bad[0] = 0;
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, 2, bad, periods, 0, &cart), MPI_ERR_DIMS);
    bad[0] = -2;
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, 2, bad, periods, 0, &cart), MPI_ERR_DIMS);
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart), MPI_ERR_ARG);
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, 2, NULL, periods, 0, &cart), MPI_ERR_ARG);
    FAILS(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, NULL), MPI_ERR_ARG);
    FAILS(MPI_Cart_create(MPI_COMM_NULL, 2, dims, periods, 0, &cart), MPI_ERR_COMM);
    if (size >= 2) { /* an intercommunicator between the even and the odd ranks */
        MPI_Comm half, inter;
        OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &inter));
        OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
        int one = 1, zero = 0, k;
        FAILS(MPI_Cart_create(inter, 1, &one, &zero, 0, &cart), MPI_ERR_COMM);
        FAILS(MPI_Graph_create(inter, 1, &one, &zero, 0, &cart), MPI_ERR_COMM);
        FAILS(MPI_Dist_graph_create_adjacent(inter, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &cart),
              MPI_ERR_COMM);
        OK(MPI_Topo_test(inter, &k));
        CHECK(k == MPI_UNDEFINED);
        OK(MPI_Comm_free(&inter));
        OK(MPI_Comm_free(&half));
    }
    bad[0] = size + 1;
    FAILS(MPI_Cart_map(MPI_COMM_WORLD, 2, bad, periods, &newrank), MPI_ERR_DIMS);
    int src, dst, c[4];
    FAILS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Cart_get(MPI_COMM_WORLD, 2, dims, periods, c), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Cartdim_get(MPI_COMM_WORLD, &src), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Cart_rank(MPI_COMM_WORLD, c, &src), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Cart_sub(MPI_COMM_WORLD, periods, &cart), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Cart_shift(MPI_COMM_NULL, 0, 1, &src, &dst), MPI_ERR_COMM);
}

/* The graph of these tests on n nodes: the path 0-1-...-(n-1), the edge 0-1 twice,
 * and a loop at n-1. Node i's neighbours in a fixed order into nb; their number. */
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
    int n = size > 2 ? size - 1 : size, index[64], edges[256], e = 0;
    for (int i = 0; i < n; i++) {
        e += graph_neighbours(n, i, edges + e);
        index[i] = e;
    }
    MPI_Comm gc;
    OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 1, &gc));
    int newrank;
    OK(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &newrank));
    CHECK(newrank == (rank < n ? rank : MPI_UNDEFINED));
    if (rank >= n) {
        CHECK(gc == MPI_COMM_NULL);
    } else {
        int want[64], status, nn, ne, gi[64], ge[256], nb[8], got[8], cnt;
        for (int r = 0; r < n; r++) want[r] = r;
        members(gc, n, want);
        OK(MPI_Topo_test(gc, &status));
        CHECK(status == MPI_GRAPH);
        OK(MPI_Graphdims_get(gc, &nn, &ne));
        CHECK(nn == n && ne == e);
        OK(MPI_Graph_get(gc, 64, 256, gi, ge));
        for (int i = 0; i < n; i++) CHECK(gi[i] == index[i]);
        for (int i = 0; i < e; i++) CHECK(ge[i] == edges[i]);
        for (int r = 0; r < n; r++) {
            int k = graph_neighbours(n, r, nb);
            OK(MPI_Graph_neighbors_count(gc, r, &cnt));
            CHECK(cnt == k);
            OK(MPI_Graph_neighbors(gc, r, 8, got));
            for (int j = 0; j < k; j++) CHECK(got[j] == nb[j]);
        }
        /* a shorter array gets the first ones only */
        got[1] = -7;
        graph_neighbours(n, 0, nb);
        OK(MPI_Graph_neighbors(gc, 0, 1, got));
        CHECK(got[0] == nb[0] && got[1] == -7);
        FAILS(MPI_Graph_neighbors_count(gc, n, &cnt), MPI_ERR_RANK);
        FAILS(MPI_Graph_neighbors(gc, -1, 8, got), MPI_ERR_RANK);
        FAILS(MPI_Cart_shift(gc, 0, 1, &cnt, &nn), MPI_ERR_TOPOLOGY);
        FAILS(MPI_Dist_graph_neighbors(gc, 1, got, MPI_UNWEIGHTED, 1, got, MPI_UNWEIGHTED),
              MPI_ERR_TOPOLOGY);
        MPI_Comm dup;
        OK(MPI_Comm_dup(gc, &dup));
        OK(MPI_Topo_test(dup, &status));
        CHECK(status == MPI_GRAPH);
        OK(MPI_Graph_neighbors_count(dup, n - 1, &cnt));
        CHECK(cnt == graph_neighbours(n, n - 1, nb));
        OK(MPI_Comm_free(&dup));
        OK(MPI_Comm_free(&gc));
    }
    /* no nodes: MPI_COMM_NULL everywhere */
    OK(MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &gc));
    CHECK(gc == MPI_COMM_NULL);
    /* errors: an edge to no node, index decreasing, more nodes than ranks */
    int bad_edges[2] = {0, n};
    int bad_index[2] = {2, 2};
    FAILS(MPI_Graph_create(MPI_COMM_WORLD, 1, bad_index, bad_edges, 0, &gc), MPI_ERR_ARG);
    bad_index[0] = 1, bad_index[1] = 0;
    bad_edges[1] = 0;
    if (size >= 2)
        FAILS(MPI_Graph_create(MPI_COMM_WORLD, 2, bad_index, bad_edges, 0, &gc), MPI_ERR_ARG);
    FAILS(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &gc), MPI_ERR_ARG);
    FAILS(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &gc), MPI_ERR_ARG);
    int cnt;
    FAILS(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &cnt), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Graphdims_get(MPI_COMM_WORLD, &cnt, &cnt), MPI_ERR_TOPOLOGY);
}

/* Sorts n (rank, weight) pairs, to compare neighbour lists as multisets. */
static void sort_pairs(int n, int *r, int *w) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (r[j - 1] > r[j] || (r[j - 1] == r[j] && w[j - 1] > w[j])); j--) {
            int t = r[j];
            r[j] = r[j - 1], r[j - 1] = t;
            t = w[j];
            w[j] = w[j - 1], w[j - 1] = t;
        }
}

/* comm's distributed graph has exactly these in- and out-edges (as multisets). */
static void check_dist(MPI_Comm comm, int nin, int *in, int *inw, int nout, int *out, int *outw,
                       int weighted) {
    int status, gi, go, gw, src[16], sw[16], dst[16], dw[16];
    OK(MPI_Topo_test(comm, &status));
    CHECK(status == MPI_DIST_GRAPH);
    OK(MPI_Dist_graph_neighbors_count(comm, &gi, &go, &gw));
    CHECK(gi == nin && go == nout && !!gw == weighted);
    OK(MPI_Dist_graph_neighbors(comm, 16, src, weighted ? sw : MPI_UNWEIGHTED, 16, dst,
                                weighted ? dw : MPI_UNWEIGHTED));
    if (!weighted) {
        for (int i = 0; i < nin; i++) sw[i] = inw[i] = 0;
        for (int i = 0; i < nout; i++) dw[i] = outw[i] = 0;
    }
    sort_pairs(nin, src, sw);
    sort_pairs(nin, in, inw);
    sort_pairs(nout, dst, dw);
    sort_pairs(nout, out, outw);
    for (int i = 0; i < nin; i++) CHECK(src[i] == in[i] && sw[i] == inw[i]);
    for (int i = 0; i < nout; i++) CHECK(dst[i] == out[i] && dw[i] == outw[i]);
}

static int weight(int s, int d) {
    return 100 * s + d;
}

static void dist_graph(void) {
    /* the nodes 0..m-1 each with edges to the next two (mod m); with 3 or more ranks
     * the last one has no edges at all */
    int m = size >= 3 ? size - 1 : size, in[4], inw[4], out[4], outw[4], nin = 0, nout = 0;
    if (rank < m)
        for (int k = 1; k <= 2; k++) {
            int d = (rank + k) % m, s = ((rank - k) % m + m) % m;
            out[nout] = d, outw[nout++] = weight(rank, d);
            in[nin] = s, inw[nin++] = weight(s, rank);
        }
    MPI_Comm dg;
    int in2[4], inw2[4], out2[4], outw2[4];
    for (int weighted = 0; weighted < 2; weighted++) {
        for (int i = 0; i < 4; i++)
            in2[i] = in[i], inw2[i] = inw[i], out2[i] = out[i], outw2[i] = outw[i];
        const int *sw = weighted ? (nin ? inw : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
        const int *dw = weighted ? (nout ? outw : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
        OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, sw, nout, out, dw, MPI_INFO_NULL,
                                          1, &dg));
        members(dg, size, (int[]){0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
        check_dist(dg, nin, in2, inw2, nout, out2, outw2, weighted);
        MPI_Comm dup;
        OK(MPI_Comm_dup(dg, &dup));
        for (int i = 0; i < 4; i++)
            in2[i] = in[i], inw2[i] = inw[i], out2[i] = out[i], outw2[i] = outw[i];
        check_dist(dup, nin, in2, inw2, nout, out2, outw2, weighted);
        OK(MPI_Comm_free(&dup));
        OK(MPI_Comm_free(&dg));

        /* the same graph given by other ranks: rank r gives the edges of node r + 1 */
        int s = (rank + 1) % size, n = s < m ? 1 : 0, deg = 2, dst[2], w[2];
        for (int k = 0; k < 2; k++) dst[k] = (s + k + 1) % m, w[k] = weight(s, dst[k]);
        OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, &s, &deg, dst,
                                 weighted ? (n ? w : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &dg));
        for (int i = 0; i < 4; i++)
            in2[i] = in[i], inw2[i] = inw[i], out2[i] = out[i], outw2[i] = outw[i];
        check_dist(dg, nin, in2, inw2, nout, out2, outw2, weighted);
        OK(MPI_Comm_free(&dg));
    }
    /* errors */
    int r = size, wneg = -1, one = 1, zero = 0;
    FAILS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &r, MPI_UNWEIGHTED, 0, NULL,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
          MPI_ERR_ARG);
    FAILS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, &wneg, 0, NULL,
                                         MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg),
          MPI_ERR_ARG);
    FAILS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, NULL, MPI_UNWEIGHTED, 0, NULL,
                                         MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
          MPI_ERR_ARG);
    FAILS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, NULL, 0, NULL, MPI_WEIGHTS_EMPTY,
                                         MPI_INFO_NULL, 0, &dg),
          MPI_ERR_ARG);
    FAILS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &one, &r, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                0, &dg),
          MPI_ERR_ARG);
    FAILS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &r, &one, &zero, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                0, &dg),
          MPI_ERR_ARG);
    FAILS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &wneg, &zero, MPI_UNWEIGHTED,
                                MPI_INFO_NULL, 0, &dg),
          MPI_ERR_ARG);
    FAILS(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, &zero, &one, &zero, MPI_UNWEIGHTED,
                                MPI_INFO_NULL, 0, &dg),
          MPI_ERR_ARG);
    int a, b, c;
    FAILS(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &a, &b, &c), MPI_ERR_TOPOLOGY);
    FAILS(MPI_Dist_graph_neighbors_count(MPI_COMM_NULL, &a, &b, &c), MPI_ERR_COMM);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 16);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_UNWEIGHTED && MPI_WEIGHTS_EMPTY && MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY);
    int status;
    OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK(status == MPI_UNDEFINED);
    OK(MPI_Topo_test(MPI_COMM_SELF, &status));
    CHECK(status == MPI_UNDEFINED);
    FAILS(MPI_Topo_test(MPI_COMM_NULL, &status), MPI_ERR_COMM);
    FAILS(MPI_Topo_test(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    dims_create();
    cartesian();
    graph();
    dist_graph();
    OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
