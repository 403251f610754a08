/* Derived datatypes (MPI-3.1 chapter 4), black box through mpi.h. Every type built
 * here is checked against a layout computed by hand from the standard's
 * definitions: a list of the (offset, length) pieces one item's data occupies, in
 * type order. Pack must produce exactly those bytes in that order; Unpack must
 * write exactly those bytes and nothing else. Then ranks exchange them, in eager
 * and rendezvous sizes, through every kind of send and receive, typed on one side
 * and contiguous on the other, and back; counts of partial messages; envelopes and
 * contents; invalid arguments. Needs 2 or more ranks. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

/* ---- hand-computed layouts ---- */

typedef struct piece {
    long off, len;
} piece_t;

typedef struct layout {
    piece_t p[4096];
    int n;
} layout_t;

static void add(layout_t *l, long off, long len) {
    CHECK(l->n < (int)(sizeof l->p / sizeof *l->p));
    if (l->n < (int)(sizeof l->p / sizeof *l->p)) l->p[l->n++] = (piece_t){off, len};
}

/* The pattern byte of buffer offset i: no zero, so untouched bytes show. */
static unsigned char pat(long i) {
    return (unsigned char)(i * 7 + 13) | 1;
}

/* Checks Pack and Unpack of count items of t (extent ext) against one item's
 * pieces l; buffers are addressed from base, which lies `front` bytes into them. */
static void check_pack(MPI_Datatype t, int count, const layout_t *l, long ext, long front,
                       long span) {
    unsigned char *src = malloc((size_t)span), *dst = malloc((size_t)span);
    for (long i = 0; i < span; i++) src[i] = pat(i);
    memset(dst, 0, (size_t)span);
    long bytes = 0;
    for (int k = 0; k < l->n; k++) bytes += l->p[k].len;
    bytes *= count;
    int psize = -1;
    CHECK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize) == MPI_SUCCESS);
    CHECK(psize == bytes);
    unsigned char *packed = malloc((size_t)bytes + 8), *want = malloc((size_t)bytes + 1);
    long at = 0;
    for (int c = 0; c < count; c++)
        for (int k = 0; k < l->n; k++)
            for (long b = 0; b < l->p[k].len; b++)
                want[at++] = pat(front + c * ext + l->p[k].off + b);
    int pos = 3; /* packing after something else */
    CHECK(MPI_Pack(src + front, count, t, packed, (int)bytes + 8, &pos, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(pos == 3 + bytes);
    CHECK(memcmp(packed + 3, want, (size_t)bytes) == 0);
    pos = 3;
    CHECK(MPI_Unpack(packed, (int)bytes + 8, &pos, dst + front, count, t, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(pos == 3 + bytes);
    unsigned char *mask = calloc((size_t)span, 1);
    for (int c = 0; c < count; c++)
        for (int k = 0; k < l->n; k++)
            memset(mask + front + c * ext + l->p[k].off, 1, (size_t)l->p[k].len);
    for (long i = 0; i < span; i++) CHECK(dst[i] == (mask[i] ? src[i] : 0));
    free(mask);
    free(packed);
    free(want);
    free(src);
    free(dst);
}

static void check_bounds(MPI_Datatype t, long bytes, long lb, long extent, long tlb, long textent) {
    int s = -1;
    MPI_Count sx = -1, lbx = -1, ex = -1;
    MPI_Aint l = -1, e = -1;
    CHECK(MPI_Type_size(t, &s) == MPI_SUCCESS && s == bytes);
    CHECK(MPI_Type_size_x(t, &sx) == MPI_SUCCESS && sx == bytes);
    CHECK(MPI_Type_get_extent(t, &l, &e) == MPI_SUCCESS);
    if (l != lb || e != extent)
        fprintf(stderr, "lb %ld extent %ld, want %ld %ld\n", (long)l, (long)e, lb, extent);
    CHECK(l == lb && e == extent);
    CHECK(MPI_Type_get_extent_x(t, &lbx, &ex) == MPI_SUCCESS && lbx == lb && ex == extent);
    CHECK(MPI_Type_get_true_extent(t, &l, &e) == MPI_SUCCESS);
    if (l != tlb || e != textent)
        fprintf(stderr, "true lb %ld extent %ld, want %ld %ld\n", (long)l, (long)e, tlb, textent);
    CHECK(l == tlb && e == textent);
    CHECK(MPI_Type_get_true_extent_x(t, &lbx, &ex) == MPI_SUCCESS && lbx == tlb && ex == textent);
}

/* ---- the types ---- */

struct pair {
    int a;
    double b;
};

static MPI_Datatype pair_type(void) {
    int lens[] = {1, 1};
    MPI_Aint disps[] = {offsetof(struct pair, a), offsetof(struct pair, b)};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE}, t;
    CHECK(MPI_Type_create_struct(2, lens, disps, types, &t) == MPI_SUCCESS);
    return t;
}

static void basic_types(void) {
    MPI_Datatype t, u;
    layout_t l = {.n = 0};

    /* vector(3, 2, 4) of double: 2 doubles every 4 */
    CHECK(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 48, 0, 80, 0, 80);
    add(&l, 0, 16), add(&l, 32, 16), add(&l, 64, 16);
    check_pack(t, 1, &l, 80, 0, 200);
    check_pack(t, 3, &l, 80, 0, 260);
    MPI_Type_free(&t);
    CHECK(t == MPI_DATATYPE_NULL);

    /* a negative stride: ints at 0, -8, -16; lb -16 */
    CHECK(MPI_Type_vector(3, 1, -2, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 12, -16, 20, -16, 20);
    l.n = 0;
    add(&l, 0, 4), add(&l, -8, 4), add(&l, -16, 4);
    check_pack(t, 2, &l, 20, 16, 64);
    MPI_Type_free(&t);

    /* a struct with its C padding: extent 16, true extent 9 */
    int lens[] = {1, 1};
    MPI_Aint disps[] = {0, 8};
    MPI_Datatype types[] = {MPI_DOUBLE, MPI_CHAR};
    CHECK(MPI_Type_create_struct(2, lens, disps, types, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 9, 0, 16, 0, 9);
    l.n = 0;
    add(&l, 0, 9);
    check_pack(t, 4, &l, 16, 0, 80);
    MPI_Type_free(&t);

    /* resized int: lb -4, extent 16 */
    CHECK(MPI_Type_create_resized(MPI_INT, -4, 16, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 4, -4, 16, 0, 4);
    l.n = 0;
    add(&l, 0, 4);
    check_pack(t, 3, &l, 16, 4, 64);
    MPI_Type_free(&t);

    /* empty types */
    CHECK(MPI_Type_contiguous(0, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 0, 0, 0, 0, 0);
    int ps = -1;
    CHECK(MPI_Pack_size(5, t, MPI_COMM_WORLD, &ps) == MPI_SUCCESS && ps == 0);
    MPI_Type_free(&t);

    /* hindexed out of order: ints at 16, then 0..8 */
    int hl[] = {1, 2};
    MPI_Aint hd[] = {16, 0};
    CHECK(MPI_Type_create_hindexed(2, hl, hd, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 12, 0, 20, 0, 20);
    l.n = 0;
    add(&l, 16, 4), add(&l, 0, 8);
    check_pack(t, 2, &l, 20, 0, 48);
    MPI_Type_free(&t);

    /* indexed_block and hindexed_block: blocks of 2 shorts */
    int id[] = {3, 0, 7};
    CHECK(MPI_Type_create_indexed_block(3, 2, id, MPI_SHORT, &t) == MPI_SUCCESS);
    MPI_Aint hbd[] = {6, 0, 14};
    CHECK(MPI_Type_create_hindexed_block(3, 2, hbd, MPI_SHORT, &u) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS && MPI_Type_commit(&u) == MPI_SUCCESS);
    check_bounds(t, 12, 0, 18, 0, 18);
    check_bounds(u, 12, 0, 18, 0, 18);
    l.n = 0;
    add(&l, 6, 4), add(&l, 0, 4), add(&l, 14, 4);
    check_pack(t, 2, &l, 18, 0, 40);
    check_pack(u, 2, &l, 18, 0, 40);
    MPI_Type_free(&t);
    MPI_Type_free(&u);

    /* a struct of two strided runs that continue each other: ints 0, 8, 16, 24 */
    CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &u) == MPI_SUCCESS);
    MPI_Aint two_disps[] = {0, 16};
    int two_lens[] = {1, 1};
    MPI_Datatype two_types[] = {u, u};
    CHECK(MPI_Type_create_struct(2, two_lens, two_disps, two_types, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 16, 0, 28, 0, 28);
    l.n = 0;
    add(&l, 0, 4), add(&l, 8, 4), add(&l, 16, 4), add(&l, 24, 4);
    check_pack(t, 2, &l, 28, 0, 64);
    MPI_Type_free(&t);
    MPI_Type_free(&u);

    /* a dup is committed as its original, and has its layout */
    CHECK(MPI_Type_vector(2, 1, 3, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    CHECK(MPI_Type_dup(t, &u) == MPI_SUCCESS);
    MPI_Type_free(&t);
    check_bounds(u, 8, 0, 16, 0, 16);
    l.n = 0;
    add(&l, 0, 4), add(&l, 12, 4);
    check_pack(u, 2, &l, 16, 0, 40);
    MPI_Type_free(&u);

    /* the MINLOC pairs pack their data only, not their C struct's padding */
    CHECK(MPI_Type_contiguous(2, MPI_SHORT_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    CHECK(MPI_Pack_size(1, t, MPI_COMM_WORLD, &ps) == MPI_SUCCESS && ps == 12);
    check_bounds(t, 12, 0, 16, 0, 16);
    MPI_Type_free(&t);
}

/* vector of struct, indexed of vector, resized struct */
static void nested_types(void) {
    layout_t l = {.n = 0};
    MPI_Datatype s = pair_type(), t, v, r;
    check_bounds(s, 12, 0, 16, 0, 16);
    /* vector(2, 2, 3) of the struct: items 0, 1, 3, 4 */
    CHECK(MPI_Type_vector(2, 2, 3, s, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 48, 0, 80, 0, 80);
    for (int k = 0; k < 5; k++)
        if (k != 2) add(&l, 16 * k, 4), add(&l, 16 * k + 8, 8);
    check_pack(t, 2, &l, 80, 0, 200);
    MPI_Type_free(&t);

    /* indexed({2, 1}, {0, 5}) of vector(2, 1, 2) of int (ints at 0 and 8, extent 12) */
    CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &v) == MPI_SUCCESS);
    int lens[] = {2, 1}, disps[] = {0, 5};
    CHECK(MPI_Type_indexed(2, lens, disps, v, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 24, 0, 72, 0, 72);
    l.n = 0;
    add(&l, 0, 4), add(&l, 8, 4), add(&l, 12, 4), add(&l, 20, 4), add(&l, 60, 4), add(&l, 68, 4);
    check_pack(t, 2, &l, 72, 0, 160);
    MPI_Type_free(&t);
    MPI_Type_free(&v);

    /* struct {char @0, int @4} resized to 12 */
    int sl[] = {1, 1};
    MPI_Aint sd[] = {0, 4};
    MPI_Datatype st[] = {MPI_CHAR, MPI_INT};
    CHECK(MPI_Type_create_struct(2, sl, sd, st, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(t, 0, 12, &r) == MPI_SUCCESS);
    MPI_Type_free(&t); /* r holds it */
    CHECK(MPI_Type_commit(&r) == MPI_SUCCESS);
    check_bounds(r, 5, 0, 12, 0, 8);
    l.n = 0;
    add(&l, 0, 1), add(&l, 4, 4);
    check_pack(r, 3, &l, 12, 0, 48);
    /* a struct of resized members pads nothing more */
    int ol[] = {2};
    MPI_Aint od[] = {0};
    CHECK(MPI_Type_create_struct(1, ol, od, &r, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 10, 0, 24, 0, 20);
    MPI_Type_free(&t);
    MPI_Type_free(&r);
    MPI_Type_free(&s);
}

static void subarrays(void) {
    const int sizes[] = {4, 5, 6}, subs[] = {2, 3, 2}, starts[] = {1, 1, 3};
    MPI_Datatype t;
    layout_t l = {.n = 0};
    /* C order: the last index runs fastest */
    CHECK(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 48, 0, 480, 156, 176);
    for (int i = 1; i < 3; i++)
        for (int j = 1; j < 4; j++) add(&l, ((i * 5 + j) * 6 + 3) * 4, 8);
    check_pack(t, 2, &l, 480, 0, 1000);
    MPI_Type_free(&t);
    /* Fortran order: the first index runs fastest */
    CHECK(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    check_bounds(t, 48, 0, 480, 260, 120);
    l.n = 0;
    for (int k = 3; k < 5; k++)
        for (int j = 1; j < 4; j++) add(&l, (1 + 4 * (j + 5 * k)) * 4, 8);
    check_pack(t, 1, &l, 480, 0, 600);
    MPI_Type_free(&t);
}

/* A 4 x 6 array of ints on a 2 x 2 process grid: block rows and cyclic columns, and
 * every process's share exactly once over the four. */
static void darrays(void) {
    const int gsizes[] = {4, 6}, psizes[] = {2, 2};
    const int block_cyclic[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    const int dflt[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int owner[24];
    memset(owner, 0, sizeof owner);
    for (int p = 0; p < 4; p++) {
        int pr = p / 2, pc = p % 2; /* the grid is row-major */
        MPI_Datatype t;
        CHECK(MPI_Type_create_darray(4, p, 2, gsizes, block_cyclic, dflt, psizes, MPI_ORDER_C,
                                     MPI_INT, &t) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
        layout_t l = {.n = 0};
        for (int i = 2 * pr; i < 2 * pr + 2; i++)
            for (int j = pc; j < 6; j += 2) {
                add(&l, (i * 6 + j) * 4, 4);
                owner[i * 6 + j]++;
            }
        long tlb = l.p[0].off, tub = l.p[l.n - 1].off + 4;
        check_bounds(t, 24, 0, 96, tlb, tub - tlb);
        check_pack(t, 1, &l, 96, 0, 96);
        MPI_Type_free(&t);

        /* cyclic(2) rows, block columns, Fortran order: element (i, j) at i + 4 j */
        const int cyclic_block[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                  dargs[] = {2, MPI_DISTRIBUTE_DFLT_DARG};
        CHECK(MPI_Type_create_darray(4, p, 2, gsizes, cyclic_block, dargs, psizes,
                                     MPI_ORDER_FORTRAN, MPI_INT, &t) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
        l.n = 0;
        for (int j = 3 * pc; j < 3 * pc + 3; j++) add(&l, (2 * pr + 4 * j) * 4, 8);
        check_pack(t, 1, &l, 96, 0, 96);
        MPI_Type_free(&t);
    }
    for (int k = 0; k < 24; k++) CHECK(owner[k] == 1);
}

/* ---- point-to-point ---- */

/* n doubles every other one: 0, 2, 4, ... */
static MPI_Datatype every_other(int n) {
    MPI_Datatype t;
    CHECK(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    return t;
}

static void fill_spread(double *v, int n, double base) {
    for (int k = 0; k < 2 * n; k++) v[k] = k % 2 ? -1.0 : base + k / 2;
}

static void check_spread(const double *v, int n, double base, double gap) {
    for (int k = 0; k < 2 * n; k++) CHECK(v[k] == (k % 2 ? gap : base + k / 2));
}

static void check_dense(const double *v, int n, double base) {
    for (int k = 0; k < n; k++) CHECK(v[k] == base + k);
}

/* Rank 0 and a peer exchange n doubles: strided one side, dense the other, with
 * each kind of send and receive. */
static void exchange(int peer, int n) {
    MPI_Datatype t = every_other(n);
    double *spread = malloc(2 * (size_t)n * sizeof *spread);
    double *dense = malloc((size_t)n * sizeof *dense);
    MPI_Status st;
    int count = -1;
    if (rank == 0) {
        fill_spread(spread, n, 1);
        CHECK(MPI_Send(spread, 1, t, peer, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Ssend(spread, 1, t, peer, 2, MPI_COMM_WORLD) == MPI_SUCCESS);
        MPI_Request r;
        CHECK(MPI_Isend(spread, 1, t, peer, 3, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
        /* persistent: the buffer is packed anew at each start */
        CHECK(MPI_Send_init(spread, 1, t, peer, 4, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        for (int run = 0; run < 2; run++) {
            fill_spread(spread, n, 100 * run);
            CHECK(MPI_Start(&r) == MPI_SUCCESS);
            CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
        }
        CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
        /* buffered */
        int need = 0;
        CHECK(MPI_Pack_size(1, t, MPI_COMM_WORLD, &need) == MPI_SUCCESS);
        void *att = malloc(2 * ((size_t)need + MPI_BSEND_OVERHEAD));
        CHECK(MPI_Buffer_attach(att, 2 * (need + MPI_BSEND_OVERHEAD)) == MPI_SUCCESS);
        fill_spread(spread, n, 7);
        CHECK(MPI_Bsend(spread, 1, t, peer, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Bsend_init(spread, 1, t, peer, 5, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        fill_spread(spread, n, 8); /* packed when it starts */
        CHECK(MPI_Start(&r) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
        CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
        void *back;
        int back_size;
        CHECK(MPI_Buffer_detach(&back, &back_size) == MPI_SUCCESS);
        free(att);
        /* dense out, strided in */
        for (int k = 0; k < n; k++) dense[k] = 50 + k;
        CHECK(MPI_Send(dense, n, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD) == MPI_SUCCESS);
        /* strided both ways, received with a matched probe */
        fill_spread(spread, n, 9);
        CHECK(MPI_Send(spread, 1, t, peer, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
        /* swapped in place */
        fill_spread(spread, n, 11);
        CHECK(MPI_Sendrecv_replace(spread, 1, t, peer, 8, peer, 8, MPI_COMM_WORLD, &st) ==
              MPI_SUCCESS);
        check_spread(spread, n, 12, -1);
    } else {
        memset(dense, 0, (size_t)n * sizeof *dense);
        CHECK(MPI_Recv(dense, n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        check_dense(dense, n, 1);
        CHECK(MPI_Get_count(&st, t, &count) == MPI_SUCCESS && count == 1);
        CHECK(MPI_Get_elements(&st, t, &count) == MPI_SUCCESS && count == n);
        CHECK(MPI_Recv(dense, n, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        check_dense(dense, n, 1);
        /* received as bytes */
        unsigned char *bytes = malloc((size_t)n * 8);
        CHECK(MPI_Recv(bytes, n * 8, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        memcpy(dense, bytes, (size_t)n * 8);
        check_dense(dense, n, 1);
        free(bytes);
        /* persistent receive into the strided type: the gaps stay */
        MPI_Request r;
        CHECK(MPI_Recv_init(spread, 1, t, 0, 4, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        for (int run = 0; run < 2; run++) {
            for (int k = 0; k < 2 * n; k++) spread[k] = -2;
            CHECK(MPI_Start(&r) == MPI_SUCCESS);
            CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
            check_spread(spread, n, 100 * run, -2);
            CHECK(MPI_Get_count(&st, t, &count) == MPI_SUCCESS && count == 1);
        }
        CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
        CHECK(MPI_Recv(dense, n, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        check_dense(dense, n, 7);
        CHECK(MPI_Recv(dense, n, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        check_dense(dense, n, 8);
        /* dense in, strided out; the type is freed while the receive is pending */
        MPI_Datatype mine = every_other(n);
        for (int k = 0; k < 2 * n; k++) spread[k] = -3;
        CHECK(MPI_Irecv(spread, 1, mine, 0, 6, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        CHECK(MPI_Type_free(&mine) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
        check_spread(spread, n, 50, -3);
        MPI_Message m;
        CHECK(MPI_Mprobe(0, 7, MPI_COMM_WORLD, &m, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, t, &count) == MPI_SUCCESS && count == 1);
        for (int k = 0; k < 2 * n; k++) spread[k] = -1;
        CHECK(MPI_Mrecv(spread, 1, t, &m, &st) == MPI_SUCCESS);
        check_spread(spread, n, 9, -1);
        fill_spread(spread, n, 12);
        CHECK(MPI_Sendrecv_replace(spread, 1, t, 0, 8, 0, 8, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        check_spread(spread, n, 11, -1);
    }
    MPI_Type_free(&t);
    free(spread);
    free(dense);
}

/* Messages shorter than the receive: only what arrived is unpacked, and the counts
 * say how much of an item came; a longer one is truncated without overrunning. */
static void partial(int peer) {
    MPI_Datatype three; /* struct of 3 ints at 0, 8, 16 */
    CHECK(MPI_Type_vector(3, 1, 2, MPI_INT, &three) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&three) == MPI_SUCCESS);
    int v[12], c = -1;
    MPI_Count cx = -1;
    MPI_Status st;
    if (rank == 0) {
        for (int k = 0; k < 12; k++) v[k] = k + 1;
        CHECK(MPI_Send(v, 5, MPI_INT, peer, 20, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Send(v, 12, MPI_INT, peer, 21, MPI_COMM_WORLD) == MPI_SUCCESS);
        struct { /* as an MPI_DOUBLE_INT: value and index */
            double d;
            int i;
        } p = {2.5, 3};
        CHECK(MPI_Send(&p, 12, MPI_BYTE, peer, 22, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Send(&p, 4, MPI_BYTE, peer, 23, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        for (int k = 0; k < 12; k++) v[k] = -7;
        CHECK(MPI_Recv(v, 2, three, 0, 20, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        /* item 2 starts at the extent, 20 bytes: ints 5 and 7 of the buffer; its
         * third int (9) did not come */
        CHECK(v[0] == 1 && v[2] == 2 && v[4] == 3 && v[5] == 4 && v[7] == 5);
        CHECK(v[1] == -7 && v[3] == -7 && v[6] == -7 && v[8] == -7 && v[9] == -7);
        CHECK(MPI_Get_count(&st, three, &c) == MPI_SUCCESS && c == MPI_UNDEFINED);
        CHECK(MPI_Get_elements(&st, three, &c) == MPI_SUCCESS && c == 5);
        CHECK(MPI_Get_elements_x(&st, three, &cx) == MPI_SUCCESS && cx == 5);
        CHECK(MPI_Get_count(&st, MPI_INT, &c) == MPI_SUCCESS && c == 5);
        /* 12 ints into room for 6: truncated, the buffer's tail untouched */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        for (int k = 0; k < 12; k++) v[k] = -1;
        CHECK(MPI_Recv(v, 2, three, 0, 21, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
        CHECK(v[10] == -1 && v[11] == -1 && v[1] == -1);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        /* a pair's value and index without the padding: two elements */
        unsigned char b[16];
        CHECK(MPI_Recv(b, 16, MPI_BYTE, 0, 22, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &c) == MPI_SUCCESS && c == 2);
        MPI_Datatype two;
        CHECK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &two) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&two) == MPI_SUCCESS);
        CHECK(MPI_Get_elements(&st, two, &c) == MPI_SUCCESS && c == 2);
        /* part of a pair's value: no element whole */
        CHECK(MPI_Recv(b, 16, MPI_BYTE, 0, 23, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_elements(&st, two, &c) == MPI_SUCCESS && c == 0);
        MPI_Type_free(&two);
    }
    MPI_Type_free(&three);
}

/* Large messages of structs, packed 12 bytes an item, so that the receiver's chunks
 * end inside items; then one truncated by a receive too small for it. */
static void large_structs(int peer) {
    enum { N = 100000 };
    MPI_Datatype s = pair_type(), half;
    CHECK(MPI_Type_commit(&s) == MPI_SUCCESS);
    struct pair *v = malloc(N * sizeof *v);
    MPI_Status st;
    int c = -1;
    if (rank == 0) {
        for (int k = 0; k < N; k++) v[k] = (struct pair){k, k + 0.5};
        CHECK(MPI_Send(v, N, s, peer, 40, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Send(v, N, s, peer, 41, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        memset(v, 0, N * sizeof *v);
        CHECK(MPI_Recv(v, N, s, 0, 40, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        for (int k = 0; k < N; k++) CHECK(v[k].a == k && v[k].b == k + 0.5);
        CHECK(MPI_Get_count(&st, s, &c) == MPI_SUCCESS && c == N);
        CHECK(MPI_Get_elements(&st, s, &c) == MPI_SUCCESS && c == 2 * N);
        /* room for two thirds: what fits arrives, the rest of the buffer stays */
        CHECK(MPI_Type_vector(2 * N / 3, 1, 1, s, &half) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&half) == MPI_SUCCESS);
        memset(v, 0, N * sizeof *v);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        CHECK(MPI_Recv(v, 1, half, 0, 41, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        for (int k = 0; k < N; k++)
            CHECK(k < 2 * N / 3 ? v[k].a == k && v[k].b == k + 0.5 : v[k].a == 0 && v[k].b == 0);
        MPI_Type_free(&half);
    }
    free(v);
    MPI_Type_free(&s);
}

/* The peak resident memory of this process, in MiB. */
static long peak_mib(void) {
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    CHECK(f != NULL);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    fclose(f);
    CHECK(kib >= 0);
    return kib >> 10;
}

/* 24 MiB of strided doubles: staged through chunks, so neither side's
 * peak memory grows by anything like a whole packed copy. */
static void bounded_staging(int peer) {
    enum { N = 3 << 20 }; /* doubles: 24 MiB of data in 48 MiB of buffer */
    MPI_Datatype t = every_other(N);
    double *v = malloc(2 * (size_t)N * sizeof *v);
    CHECK(v != NULL);
    fill_spread(v, N, 3); /* touched: resident from here on */
    long before = peak_mib();
    if (rank == 0) {
        CHECK(MPI_Send(v, 1, t, peer, 50, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        for (int k = 0; k < N; k++) v[2 * k] = 0;
        CHECK(MPI_Recv(v, 1, t, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        check_spread(v, N, 3, -1);
    }
    long grown = peak_mib() - before;
    if (grown >= 12) fprintf(stderr, "rank %d: peak grew by %ld MiB\n", rank, grown);
    CHECK(grown < 12);
    free(v);
    MPI_Type_free(&t);
}

/* Non-contiguous messages packed piece by piece into the mailbox: a vector of 3-byte
 * blocks 5 apart, so that the eager message, the first pipelined piece (4096 bytes)
 * and every later one (4152) end inside a block. Sizes on both sides of the eager
 * limit (4144), of one piece, of two and of the pipeline's limit (8 KiB by default, 256 KiB
 * in the pipelined_all variant, whose mailbox of 128 slots holds one piece at a
 * time). Sent typed one by one, then all at once as non-blocking sends queued behind
 * each other; received as bytes and checked, and sent back into the typed layout,
 * whose gaps must stay. */
static const int odd_counts[] = {1,    16,   1365, 1366,  1381,  1382, 2731,
                                 2749, 2750, 4097, 21846, 87381, 87382};
enum { ODD_N = sizeof odd_counts / sizeof odd_counts[0] };

static unsigned char odd_byte(long at, int c) {
    return (unsigned char)(at * 7 + c);
}

static void piece_boundaries(int peer) {
    unsigned char *spread[ODD_N], *dense[ODD_N];
    MPI_Datatype t[ODD_N];
    MPI_Request req[ODD_N];
    for (int k = 0; k < ODD_N; k++) {
        int c = odd_counts[k];
        CHECK(MPI_Type_vector(c, 3, 5, MPI_BYTE, &t[k]) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&t[k]) == MPI_SUCCESS);
        spread[k] = malloc(5 * (size_t)c);
        dense[k] = malloc(3 * (size_t)c);
        CHECK(spread[k] && dense[k]);
        for (long i = 0; i < 5L * c; i++) spread[k][i] = odd_byte(i, c);
    }
    for (int burst = 0; burst < 2; burst++) {
        if (rank == 0) {
            for (int k = 0; k < ODD_N; k++)
                if (burst)
                    CHECK(MPI_Isend(spread[k], 1, t[k], peer, 60 + k, MPI_COMM_WORLD, &req[k]) ==
                          MPI_SUCCESS);
                else
                    CHECK(MPI_Send(spread[k], 1, t[k], peer, 60 + k, MPI_COMM_WORLD) ==
                          MPI_SUCCESS);
            if (burst) CHECK(MPI_Waitall(ODD_N, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            for (int k = 0; k < ODD_N; k++) {
                int c = odd_counts[k];
                memset(spread[k], 0xee, 5 * (size_t)c);
                CHECK(MPI_Recv(spread[k], 1, t[k], peer, 80 + k, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE) == MPI_SUCCESS);
                for (long i = 0; i < 5L * c; i++)
                    CHECK(spread[k][i] == (i % 5 < 3 ? odd_byte(i, c) : 0xee));
                for (long i = 0; i < 5L * c; i++) spread[k][i] = odd_byte(i, c);
            }
        } else {
            for (int k = 0; k < ODD_N; k++) {
                int c = odd_counts[k], got = -1;
                MPI_Status st;
                memset(dense[k], 0, 3 * (size_t)c);
                CHECK(MPI_Recv(dense[k], 3 * c, MPI_BYTE, 0, 60 + k, MPI_COMM_WORLD, &st) ==
                      MPI_SUCCESS);
                CHECK(MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS && got == 3 * c);
                for (long i = 0; i < 3L * c; i++)
                    CHECK(dense[k][i] == odd_byte(i / 3 * 5 + i % 3, c));
            }
            for (int k = 0; k < ODD_N; k++)
                CHECK(MPI_Send(dense[k], 3 * odd_counts[k], MPI_BYTE, 0, 80 + k, MPI_COMM_WORLD) ==
                      MPI_SUCCESS);
        }
    }
    for (int k = 0; k < ODD_N; k++) {
        MPI_Type_free(&t[k]);
        free(spread[k]);
        free(dense[k]);
    }
}

/* Typed messages past what is pipelined at once (by pieces after a rendezvous, on one
 * node) among pipelined and eager ones to the same peer: in the first round every
 * receive is posted before the sends start, in an order of its own, so that a long
 * message's go can come while a pipelined one's pieces still wait for room (its pieces
 * must not mix with them); in the second the long ones come before their receives,
 * which are posted last and in reverse. */
static void pieces_among_others(int peer) {
    enum { LONG = 100000, SHORT = 4000, MSGS = 6 }; /* doubles: 800 KB and 32 KB */
    static const int n[MSGS] = {LONG, SHORT, LONG, 3, SHORT, LONG};
    static const int posted[2][MSGS] = {{1, 0, 4, 3, 5, 2}, {1, 3, 4, 5, 2, 0}};
    MPI_Datatype t[MSGS];
    double *v[MSGS];
    MPI_Request req[MSGS];
    for (int k = 0; k < MSGS; k++) {
        t[k] = every_other(n[k]);
        v[k] = malloc(2 * (size_t)n[k] * sizeof *v[k]);
        CHECK(v[k] != NULL);
    }
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            CHECK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS); /* the receives are posted (first round) */
            for (int k = 0; k < MSGS; k++) {
                fill_spread(v[k], n[k], 1000 * k + round);
                CHECK(MPI_Isend(v[k], 1, t[k], peer, 91 + k, MPI_COMM_WORLD, &req[k]) ==
                      MPI_SUCCESS);
            }
            CHECK(MPI_Waitall(MSGS, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        } else {
            for (int k = 0; k < MSGS; k++) {
                for (int i = 0; i < 2 * n[k]; i++) v[k][i] = -4;
                if (!round) {
                    int j = posted[0][k];
                    CHECK(MPI_Irecv(v[j], 1, t[j], 0, 91 + j, MPI_COMM_WORLD, &req[j]) ==
                          MPI_SUCCESS);
                }
            }
            CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 90, MPI_COMM_WORLD) == MPI_SUCCESS);
            if (round) { /* the short ones first, so the long ones wait unexpected */
                for (int k = 0; k < MSGS; k++) {
                    int j = posted[1][k];
                    CHECK(MPI_Irecv(v[j], 1, t[j], 0, 91 + j, MPI_COMM_WORLD, &req[j]) ==
                          MPI_SUCCESS);
                    if (n[j] != LONG) CHECK(MPI_Wait(&req[j], MPI_STATUS_IGNORE) == MPI_SUCCESS);
                }
            }
            MPI_Status st[MSGS];
            CHECK(MPI_Waitall(MSGS, req, st) == MPI_SUCCESS);
            for (int k = 0; k < MSGS; k++) {
                int got = -1;
                check_spread(v[k], n[k], 1000 * k + round, -4);
                CHECK(MPI_Get_elements(&st[k], t[k], &got) == MPI_SUCCESS);
                if (!round || n[k] == LONG) /* (the others were waited on before) */
                    CHECK(got == n[k]);
            }
        }
    }
    for (int k = 0; k < MSGS; k++) {
        MPI_Type_free(&t[k]);
        free(v[k]);
    }
}

/* Absolute addresses: a struct of two separate variables, sent from MPI_BOTTOM. */
static void absolute(int peer) {
    int a = 0;
    double b = 0;
    MPI_Aint addr[2];
    CHECK(MPI_Get_address(&a, &addr[0]) == MPI_SUCCESS);
    CHECK(MPI_Get_address(&b, &addr[1]) == MPI_SUCCESS);
    CHECK(MPI_Aint_diff(addr[1], addr[0]) == (MPI_Aint)((char *)&b - (char *)&a));
    CHECK(MPI_Aint_add(addr[0], MPI_Aint_diff(addr[1], addr[0])) == addr[1]);
    int lens[] = {1, 1};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE}, t;
    CHECK(MPI_Type_create_struct(2, lens, addr, types, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    if (rank == 0) {
        a = 42, b = 4.25;
        CHECK(MPI_Send(MPI_BOTTOM, 1, t, peer, 30, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Recv(MPI_BOTTOM, 1, t, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(a == 42 && b == 4.25);
    }
    MPI_Type_free(&t);
}

/* ---- envelopes and contents ---- */

static void contents(void) {
    int ni, na, nt, comb;
    CHECK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nt == 0);
    MPI_Datatype v, h, s;
    CHECK(MPI_Type_vector(3, 2, 5, MPI_FLOAT, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(v, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nt == 1);
    int ints[8];
    MPI_Aint aints[4];
    MPI_Datatype types[4];
    CHECK(MPI_Type_get_contents(v, 8, 4, 4, ints, aints, types) == MPI_SUCCESS);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && types[0] == MPI_FLOAT);
    CHECK(MPI_Type_create_hvector(2, 1, 100, v, &h) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(h, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_HVECTOR && ni == 2 && na == 1 && nt == 1);
    CHECK(MPI_Type_get_contents(h, 8, 4, 4, ints, aints, types) == MPI_SUCCESS);
    CHECK(ints[0] == 2 && ints[1] == 1 && aints[0] == 100);
    /* the derived old type comes back as a handle of its own, layout and all */
    MPI_Type_free(&v);
    CHECK(MPI_Type_get_envelope(types[0], &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_VECTOR);
    int bytes = 0;
    CHECK(MPI_Type_size(types[0], &bytes) == MPI_SUCCESS && bytes == 24);
    CHECK(MPI_Type_free(&types[0]) == MPI_SUCCESS);
    int bl[] = {1, 2};
    MPI_Aint d[] = {0, 8};
    MPI_Datatype ty[] = {MPI_INT, MPI_SHORT};
    CHECK(MPI_Type_create_struct(2, bl, d, ty, &s) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(s, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nt == 2);
    CHECK(MPI_Type_get_contents(s, 8, 4, 4, ints, aints, types) == MPI_SUCCESS);
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && aints[1] == 8);
    CHECK(types[0] == MPI_INT && types[1] == MPI_SHORT);
    /* subarray, darray, resized, dup, indexed */
    MPI_Datatype sub, r, dup, idx;
    int sizes[] = {4, 4}, subs[] = {2, 2}, st[] = {1, 1};
    CHECK(MPI_Type_create_subarray(2, sizes, subs, st, MPI_ORDER_C, MPI_INT, &sub) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(sub, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && na == 0 && nt == 1);
    CHECK(MPI_Type_get_contents(sub, 8, 4, 4, ints, aints, types) == MPI_SUCCESS);
    CHECK(ints[0] == 2 && ints[3] == 2 && ints[5] == 1 && ints[7] == MPI_ORDER_C);
    CHECK(MPI_Type_create_resized(MPI_INT, 0, 8, &r) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(r, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nt == 1);
    CHECK(MPI_Type_dup(MPI_INT, &dup) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(dup, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nt == 1);
    int il[] = {1, 3}, id[] = {4, 0};
    CHECK(MPI_Type_indexed(2, il, id, MPI_INT, &idx) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(idx, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_INDEXED && ni == 5 && na == 0 && nt == 1);
    CHECK(MPI_Type_get_contents(idx, 8, 4, 4, ints, aints, types) == MPI_SUCCESS);
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 3 && ints[3] == 4 && ints[4] == 0);
    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    CHECK(MPI_Type_get_name(MPI_DOUBLE, name, &len) == MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_DOUBLE") == 0 && len == 10);
    CHECK(MPI_Type_set_name(idx, "my indexed") == MPI_SUCCESS);
    CHECK(MPI_Type_get_name(idx, name, &len) == MPI_SUCCESS && strcmp(name, "my indexed") == 0);
    MPI_Type_free(&sub);
    MPI_Type_free(&r);
    MPI_Type_free(&dup);
    MPI_Type_free(&idx);
    MPI_Type_free(&h);
    MPI_Type_free(&s);
}

/* ---- invalid arguments ---- */

#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int got_ = (call);                                                                         \
        if (got_ != (want))                                                                        \
            fprintf(stderr, "%s:%d: %s returned %d, not %d\n", __FILE__, __LINE__, #call, got_,    \
                    want);                                                                         \
        CHECK(got_ == (want));                                                                     \
    } while (0)

static void invalid(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t = MPI_DATATYPE_NULL, u, big;
    int one = 1, zero = 0, v[8] = {0};
    MPI_Aint az = 0;
    EXPECT(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hvector(2, -1, 8, MPI_INT, &t), MPI_ERR_ARG);
    int neg = -1;
    EXPECT(MPI_Type_indexed(1, &neg, &zero, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_indexed(1, NULL, &zero, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_hindexed(1, &one, NULL, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_indexed_block(1, -1, &zero, MPI_INT, &t), MPI_ERR_ARG);
    MPI_Datatype bad = (MPI_Datatype)MPI_COMM_WORLD;
    EXPECT(MPI_Type_create_struct(1, &one, &az, &bad, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_create_struct(-1, &one, &az, &bad, &t), MPI_ERR_COUNT);
    int sizes[] = {4}, subs[] = {3}, starts[] = {2};
    EXPECT(MPI_Type_create_subarray(1, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    starts[0] = 1;
    EXPECT(MPI_Type_create_subarray(1, sizes, subs, starts, 99, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_subarray(0, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    int g[] = {4}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {MPI_DISTRIBUTE_DFLT_DARG}, p[] = {3};
    EXPECT(MPI_Type_create_darray(2, 0, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t),
           MPI_ERR_ARG); /* a grid of 3 for 2 processes */
    p[0] = 2;
    EXPECT(MPI_Type_create_darray(2, 2, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t),
           MPI_ERR_ARG);
    darg[0] = 1; /* blocks of 1 over 2 processes do not cover 4 */
    EXPECT(MPI_Type_create_darray(2, 0, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t),
           MPI_ERR_ARG);
    /* sizes that overflow */
    CHECK(MPI_Type_contiguous(1 << 30, MPI_DOUBLE, &big) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(1 << 20, big, &u) == MPI_SUCCESS); /* 2^53 bytes */
    EXPECT(MPI_Type_contiguous(INT_MAX, u, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_hvector(3, 1, (MPI_Aint)1 << 62, u, &t), MPI_ERR_ARG);
    int bs = 0;
    CHECK(MPI_Type_size(u, &bs) == MPI_SUCCESS && bs == MPI_UNDEFINED);
    MPI_Type_free(&u);
    MPI_Type_free(&big);
    /* freeing what is not a derived type */
    t = MPI_INT;
    EXPECT(MPI_Type_free(&t), MPI_ERR_TYPE);
    t = MPI_DATATYPE_NULL;
    EXPECT(MPI_Type_free(&t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_commit(&t), MPI_ERR_TYPE);
    /* communication with uncommitted and freed types */
    CHECK(MPI_Type_contiguous(2, MPI_INT, &t) == MPI_SUCCESS);
    EXPECT(MPI_Send(v, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Recv(v, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    int pos = 0;
    EXPECT(MPI_Pack(v, 1, t, v + 4, 16, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    CHECK(MPI_Send(v, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    MPI_Datatype stale = t;
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    EXPECT(MPI_Send(v, 1, stale, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Type_free(&stale), MPI_ERR_TYPE);
    int sz;
    EXPECT(MPI_Type_size(stale, &sz), MPI_ERR_TYPE);
    /* packing out of bounds */
    unsigned char pk[16];
    pos = 12;
    EXPECT(MPI_Pack(v, 2, MPI_INT, pk, 16, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(pos == 12);
    pos = 17;
    EXPECT(MPI_Unpack(pk, 16, &pos, v, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = -1;
    EXPECT(MPI_Unpack(pk, 16, &pos, v, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = 14;
    EXPECT(MPI_Unpack(pk, 16, &pos, v, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = 0;
    EXPECT(MPI_Unpack(pk, 16, &pos, v, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Pack_size(1, MPI_INT, MPI_COMM_NULL, &sz), MPI_ERR_COMM);
    /* contents of a predefined type */
    int ints[4];
    MPI_Aint aints[4];
    MPI_Datatype types[4];
    EXPECT(MPI_Type_get_contents(MPI_INT, 4, 4, 4, ints, aints, types), MPI_ERR_TYPE);
    CHECK(MPI_Type_vector(2, 1, 2, MPI_INT, &t) == MPI_SUCCESS);
    EXPECT(MPI_Type_get_contents(t, 2, 0, 1, ints, aints, types), MPI_ERR_ARG);
    MPI_Type_free(&t);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    basic_types();
    nested_types();
    subarrays();
    darrays();
    contents();
    invalid();
    /* rank 0 with every other rank in turn: 10 doubles go eager, 1 MiB by rendezvous */
    for (int peer = 1; peer < size; peer++) {
        if (rank == 0 || rank == peer) {
            exchange(peer, 10);
            exchange(peer, 1 << 17);
            partial(peer);
            piece_boundaries(peer);
            pieces_among_others(peer);
            large_structs(peer);
            bounded_staging(peer);
            absolute(peer);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) printf("dtype: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
