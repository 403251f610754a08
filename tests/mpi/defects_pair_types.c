/* The MINLOC/MAXLOC pair types have the type map of MPI-3.1 section 5.9.4: the value
 * at 0 and the int right after it, so MPI_DOUBLE_INT's size is sizeof(double) +
 * sizeof(int) (12) while its extent is its C struct's (16). A struct type {double,
 * int, double, int} of the same signature matches two of them on the wire, and the
 * padding of a pair is never written, packed, reduced or sent. */
#include <mpi.h>
#include <stddef.h>
#include <string.h>

#include "mpi_check.h"

typedef struct {
    double value;
    int index;
} double_int_t;
typedef struct {
    short value;
    int index;
} short_int_t;
typedef struct {
    long double value;
    int index;
} long_double_int_t;
typedef struct {
    long value;
    int index;
} long_int_t;
typedef struct {
    float value;
    int index;
} float_int_t;

enum { PAD = 0xab };

/* Size, bounds and envelope of a pair whose int lies at index_at in a C struct of
 * struct_size bytes. */
static void expect_pair(MPI_Datatype t, size_t value_size, size_t index_at, size_t struct_size) {
    int s = -1, ni = -1, na = -1, nt = -1, combiner = -1;
    MPI_Count sx = -1;
    MPI_Aint lb = -1, extent = -1;
    CHECK(MPI_Type_size(t, &s) == MPI_SUCCESS && s == (int)(value_size + sizeof(int)));
    CHECK(MPI_Type_size_x(t, &sx) == MPI_SUCCESS && sx == (MPI_Count)(value_size + sizeof(int)));
    CHECK(MPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
          extent == (MPI_Aint)struct_size);
    CHECK(MPI_Type_get_true_extent(t, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
          extent == (MPI_Aint)(index_at + sizeof(int)));
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) == MPI_SUCCESS &&
          combiner == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nt == 0);
    /* packed: the value and the int of each, nothing between */
    int packed_size = -1;
    CHECK(MPI_Pack_size(3, t, MPI_COMM_WORLD, &packed_size) == MPI_SUCCESS && packed_size >= 3 * s);
    unsigned char items[3 * 32], back[3 * 32], packed[3 * 32];
    for (size_t k = 0; k < sizeof items; k++) items[k] = (unsigned char)k;
    int position = 0;
    CHECK(MPI_Pack(items, 3, t, packed, (int)sizeof packed, &position, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(position == 3 * s);
    for (int k = 0; k < 3; k++) {
        CHECK(!memcmp(packed + k * s, items + k * struct_size, value_size));
        CHECK(
            !memcmp(packed + k * s + value_size, items + k * struct_size + index_at, sizeof(int)));
    }
    memset(back, PAD, sizeof back);
    position = 0;
    CHECK(MPI_Unpack(packed, 3 * s, &position, back, 3, t, MPI_COMM_WORLD) == MPI_SUCCESS &&
          position == 3 * s);
    for (size_t k = 0; k < 3 * struct_size; k++) {
        size_t off = k % struct_size;
        int data = off < value_size || (off >= index_at && off < index_at + sizeof(int));
        CHECK(back[k] == (data ? items[k] : PAD)); /* the padding is left alone */
    }
    /* external32: the two members, big-endian, no padding */
    MPI_Aint ext_size = -1;
    CHECK(MPI_Pack_external_size("external32", 1, t, &ext_size) == MPI_SUCCESS);
    CHECK(ext_size == (MPI_Aint)(t == MPI_LONG_DOUBLE_INT ? 16 + 4
                                 : t == MPI_LONG_INT      ? 4 + 4
                                                          : value_size + 4));
}

/* A struct type of two pairs, {value, int, value, int}, at the C struct's places. */
static MPI_Datatype two_pairs(MPI_Datatype value, size_t index_at, size_t struct_size) {
    int lens[4] = {1, 1, 1, 1};
    MPI_Aint disps[4] = {0, (MPI_Aint)index_at, (MPI_Aint)struct_size,
                         (MPI_Aint)(struct_size + index_at)};
    MPI_Datatype types[4] = {value, MPI_INT, value, MPI_INT}, t;
    CHECK(MPI_Type_create_struct(4, lens, disps, types, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    return t;
}

/* Two doubles and their ints sent as the struct type arrive as two MPI_DOUBLE_INT,
 * and back: 2 items, 4 basic elements, every value in its place. */
static void struct_matches_pairs(void) {
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Datatype st = two_pairs(MPI_DOUBLE, offsetof(double_int_t, index), sizeof(double_int_t));
    int s = -1;
    CHECK(MPI_Type_size(st, &s) == MPI_SUCCESS && s == 24);
    double_int_t out[2] = {{1.5 + rank, 10 + rank}, {2.5 + rank, 20 + rank}}, in[2];
    memset(in, PAD, sizeof in);
    MPI_Status status;
    int count = -1;
    CHECK(MPI_Sendrecv(out, 1, st, peer, 5, in, 2, MPI_DOUBLE_INT, from, 5, MPI_COMM_WORLD,
                       &status) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&status, MPI_DOUBLE_INT, &count) == MPI_SUCCESS && count == 2);
    CHECK(MPI_Get_elements(&status, MPI_DOUBLE_INT, &count) == MPI_SUCCESS && count == 4);
    CHECK(in[0].value == 1.5 + from && in[0].index == 10 + from);
    CHECK(in[1].value == 2.5 + from && in[1].index == 20 + from);
    memset(in, PAD, sizeof in);
    CHECK(MPI_Sendrecv(out, 2, MPI_DOUBLE_INT, peer, 6, in, 1, st, from, 6, MPI_COMM_WORLD,
                       &status) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&status, st, &count) == MPI_SUCCESS && count == 1);
    CHECK(MPI_Get_elements(&status, st, &count) == MPI_SUCCESS && count == 4);
    CHECK(in[0].value == 1.5 + from && in[0].index == 10 + from);
    CHECK(in[1].value == 2.5 + from && in[1].index == 20 + from);
    /* {short, int} the same way, through a non-blocking receive */
    MPI_Datatype ss = two_pairs(MPI_SHORT, offsetof(short_int_t, index), sizeof(short_int_t));
    short_int_t sout[2] = {{(short)(3 + rank), 30 + rank}, {(short)(4 + rank), 40 + rank}}, sin[2];
    MPI_Request req;
    CHECK(MPI_Irecv(sin, 2, MPI_SHORT_INT, from, 7, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Send(sout, 1, ss, peer, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &status) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&status, MPI_SHORT_INT, &count) == MPI_SUCCESS && count == 2);
    CHECK(sin[0].value == 3 + from && sin[0].index == 30 + from);
    CHECK(sin[1].value == 4 + from && sin[1].index == 40 + from);
    CHECK(MPI_Type_free(&ss) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&st) == MPI_SUCCESS);
}

/* MINLOC and MAXLOC over every rank, for n pairs, as one pair type and as a
 * contiguous type of them; rank r offers value (k + r) % size at item k. */
static void reductions(int n) {
    double_int_t *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    short_int_t *sin = malloc((size_t)n * sizeof *sin), *sout = malloc((size_t)n * sizeof *sout);
    long_double_int_t *lin = malloc((size_t)n * sizeof *lin),
                      *lout = malloc((size_t)n * sizeof *lout);
    CHECK(in && out && sin && sout && lin && lout);
    for (int k = 0; k < n; k++) {
        in[k] = (double_int_t){(double)((k + rank) % size), rank};
        sin[k] = (short_int_t){(short)((k + rank) % size), rank};
        lin[k] = (long_double_int_t){(long double)((k + rank) % size), rank};
    }
    CHECK(MPI_Allreduce(in, out, n, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int k = 0; k < n; k++) /* value 0 is offered by the rank r with (k + r) % size == 0 */
        CHECK(out[k].value == 0 && out[k].index == (size - k % size) % size);
    CHECK(MPI_Allreduce(sin, sout, n, MPI_SHORT_INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int k = 0; k < n; k++)
        CHECK(sout[k].value == size - 1 && sout[k].index == (2 * size - 1 - k % size) % size);
    CHECK(MPI_Reduce(lin, lout, n, MPI_LONG_DOUBLE_INT, MPI_MINLOC, 0, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    for (int k = 0; k < n && rank == 0; k++)
        CHECK(lout[k].value == 0 && lout[k].index == (size - k % size) % size);
    if (n % 2 == 0) { /* a derived type of pairs reduces element by element */
        MPI_Datatype two;
        CHECK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &two) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&two) == MPI_SUCCESS);
        memset(out, 0, (size_t)n * sizeof *out);
        CHECK(MPI_Allreduce(in, out, n / 2, two, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int k = 0; k < n; k++)
            CHECK(out[k].value == size - 1 && out[k].index == (2 * size - 1 - k % size) % size);
        CHECK(MPI_Type_free(&two) == MPI_SUCCESS);
    }
    /* locally, in place in the user's buffer: its padding untouched */
    double_int_t a[2] = {{1.0, 7}, {5.0, 1}}, b[2];
    memset(b, PAD, sizeof b);
    b[0].value = 1.0, b[0].index = 9, b[1].value = 2.0, b[1].index = 3;
    CHECK(MPI_Reduce_local(a, b, 2, MPI_DOUBLE_INT, MPI_MINLOC) == MPI_SUCCESS);
    CHECK(b[0].value == 1.0 && b[0].index == 7 && b[1].value == 2.0 && b[1].index == 3);
    const unsigned char *pad = (const unsigned char *)&b[0] + offsetof(double_int_t, index) + 4;
    for (size_t k = 0; k < sizeof(double_int_t) - offsetof(double_int_t, index) - 4; k++)
        CHECK(pad[k] == PAD);
    free(in), free(out), free(sin), free(sout), free(lin), free(lout);
}

/* A broadcast and a gather of pairs, their padding different everywhere. */
static void moves(void) {
    long_int_t v[3];
    memset(v, rank + 1, sizeof v);
    for (int k = 0; k < 3; k++)
        if (rank == 0) v[k] = (long_int_t){100 + k, k};
    CHECK(MPI_Bcast(v, 3, MPI_LONG_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int k = 0; k < 3; k++) CHECK(v[k].value == 100 + k && v[k].index == k);
    short_int_t mine = {(short)(rank * 3), rank * 5}, *all = malloc((size_t)size * sizeof *all);
    CHECK(all);
    CHECK(MPI_Allgather(&mine, 1, MPI_SHORT_INT, all, 1, MPI_SHORT_INT, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    for (int r = 0; r < size; r++) CHECK(all[r].value == r * 3 && all[r].index == r * 5);
    free(all);
}

/* An accumulate of MINLOC pairs to rank 0's window; a put of them leaves the
 * target's padding alone. */
static void rma(void) {
    double_int_t *base, best;
    MPI_Win win;
    CHECK(MPI_Win_allocate(2 * sizeof *base, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) ==
          MPI_SUCCESS);
    memset(base, PAD, 2 * sizeof *base);
    base[0].value = 1e9, base[0].index = -1;
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    best = (double_int_t){(double)(size - rank), rank};
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(&best, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_MINLOC, win) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == size - 1) {
        double_int_t put = {42.0, 42};
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Put(&put, 1, MPI_DOUBLE_INT, 0, sizeof *base, 1, MPI_DOUBLE_INT, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) {
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win) == MPI_SUCCESS);
        CHECK(base[0].value == 1.0 && base[0].index == size - 1);
        CHECK(base[1].value == 42.0 && base[1].index == 42);
        const unsigned char *pad = (const unsigned char *)&base[1] + 12;
        for (size_t k = 0; k < sizeof *base - 12; k++) CHECK(pad[k] == PAD);
        CHECK(MPI_Win_unlock(0, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect_pair(MPI_FLOAT_INT, sizeof(float), offsetof(float_int_t, index), sizeof(float_int_t));
    expect_pair(MPI_DOUBLE_INT, sizeof(double), offsetof(double_int_t, index),
                sizeof(double_int_t));
    expect_pair(MPI_LONG_INT, sizeof(long), offsetof(long_int_t, index), sizeof(long_int_t));
    expect_pair(MPI_2INT, sizeof(int), sizeof(int), 2 * sizeof(int));
    expect_pair(MPI_SHORT_INT, sizeof(short), offsetof(short_int_t, index), sizeof(short_int_t));
    expect_pair(MPI_LONG_DOUBLE_INT, sizeof(long double), offsetof(long_double_int_t, index),
                sizeof(long_double_int_t));
    struct_matches_pairs();
    reductions(1);
    reductions(7);
    reductions(20000); /* past the shared-memory lines, in segments */
    moves();
    rma();
    MPI_Finalize();
    return 0;
}
