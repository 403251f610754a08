/* Collectives with derived datatypes: strided (vector), resized struct and
 * contiguous-of-double types in Bcast, Allreduce, Reduce, Gather, Allgather, Alltoall
 * and Scan, results checked against values computed locally, on every rank count. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { N = 1000 };

/* A vector of n doubles at every other place: element i of item k is at
 * base[k * 2 * n + 2 * i]; the places in between must stay untouched. */
static MPI_Datatype strided(int n) {
    MPI_Datatype v, r;
    CHECK(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * n * sizeof(double)), &r) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&v) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&r) == MPI_SUCCESS);
    return r;
}

static double value(int r, int i) {
    return r * 1000.0 + i;
}

static void test_bcast_and_reduce(void) {
    MPI_Datatype t = strided(N);
    double *buf = malloc(2 * N * sizeof *buf), *out = malloc(2 * N * sizeof *out);
    CHECK(buf && out);
    for (int root = 0; root<size; root += size> 2 ? size - 1 : 1) {
        for (int i = 0; i < 2 * N; i++) buf[i] = rank == root ? value(root, i) : -1.0;
        CHECK(MPI_Bcast(buf, 1, t, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < N; i++) {
            CHECK(buf[2 * i] == value(root, 2 * i));
            CHECK(buf[2 * i + 1] == (rank == root ? value(root, 2 * i + 1) : -1.0)); /* gaps */
        }
    }
    for (int i = 0; i < 2 * N; i++) {
        buf[i] = value(rank, i);
        out[i] = -7.0;
    }
    CHECK(MPI_Allreduce(buf, out, 1, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    double ranks = size * (size - 1) / 2.0;
    for (int i = 0; i < N; i++) {
        CHECK(out[2 * i] == ranks * 1000.0 + size * (2.0 * i));
        CHECK(out[2 * i + 1] == -7.0);
    }
    CHECK(MPI_Reduce(buf, out, 1, t, MPI_MAX, size - 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == size - 1)
        for (int i = 0; i < N; i++) CHECK(out[2 * i] == value(size - 1, 2 * i));
    for (int i = 0; i < 2 * N; i++) out[i] = buf[i];
    CHECK(MPI_Scan(MPI_IN_PLACE, out, 1, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(out[2 * i] == rank * (rank + 1) / 2.0 * 1000.0 + (rank + 1) * (2.0 * i));
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    free(buf);
    free(out);
}

/* struct { int id; double x; char pad[20]; } moved as {id, x} only */
typedef struct rec {
    int id;
    double x;
    char pad[20];
} rec_t;

static MPI_Datatype rec_type(void) {
    int len[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(rec_t, id), offsetof(rec_t, x)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, s, r;
    CHECK(MPI_Type_create_struct(2, len, disp, types, &s) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(s, 0, sizeof(rec_t), &r) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&s) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&r) == MPI_SUCCESS);
    return r;
}

static void test_gather_allgather_alltoall(void) {
    MPI_Datatype t = rec_type();
    enum { K = 3 };
    rec_t mine[K], *all = malloc((size_t)size * K * sizeof *all);
    rec_t *a2a_in = malloc((size_t)size * K * sizeof *a2a_in);
    CHECK(all && a2a_in);
    for (int k = 0; k < K; k++) {
        mine[k] = (rec_t){rank * 10 + k, rank + k / 8.0, {0}};
        memset(mine[k].pad, 'm', sizeof mine[k].pad);
    }
    memset(all, 'z', (size_t)size * K * sizeof *all);
    CHECK(MPI_Gather(mine, K, t, all, K, t, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int k = 0; k < K; k++) {
                rec_t *e = &all[r * K + k];
                CHECK(e->id == r * 10 + k && e->x == r + k / 8.0);
                CHECK(e->pad[0] == 'z' && e->pad[19] == 'z'); /* not part of the type */
            }
    memset(all, 'z', (size_t)size * K * sizeof *all);
    CHECK(MPI_Allgather(mine, K, t, all, K, t, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < K; k++) {
            CHECK(all[r * K + k].id == r * 10 + k && all[r * K + k].pad[5] == 'z');
        }
    for (int r = 0; r < size; r++)
        for (int k = 0; k < K; k++) a2a_in[r * K + k] = (rec_t){rank * 100 + r, k, {0}};
    memset(all, 'z', (size_t)size * K * sizeof *all);
    CHECK(MPI_Alltoall(a2a_in, K, t, all, K, t, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < K; k++)
            CHECK(all[r * K + k].id == r * 100 + rank && all[r * K + k].x == k);
    /* received as plain ints and doubles: the packed form is the type signature */
    struct {
        int id;
        double x;
    } flat[K];
    if (size > 1) {
        if (rank == 0) CHECK(MPI_Send(mine, K, t, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        if (rank == 1) {
            MPI_Datatype pair;
            int len[2] = {1, 1};
            MPI_Aint disp[2] = {0, offsetof(__typeof__(flat[0]), x)};
            MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
            CHECK(MPI_Type_create_struct(2, len, disp, types, &pair) == MPI_SUCCESS);
            CHECK(MPI_Type_commit(&pair) == MPI_SUCCESS);
            CHECK(MPI_Recv(flat, K, pair, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            for (int k = 0; k < K; k++) CHECK(flat[k].id == k && flat[k].x == k / 8.0);
            CHECK(MPI_Type_free(&pair) == MPI_SUCCESS);
        }
    }
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    free(all);
    free(a2a_in);
}

/* A contiguous type of 4 doubles reduces as 4 doubles. */
static void test_contiguous_reduction(void) {
    MPI_Datatype four;
    CHECK(MPI_Type_contiguous(4, MPI_DOUBLE, &four) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&four) == MPI_SUCCESS);
    double in[8], out[8];
    for (int i = 0; i < 8; i++) in[i] = rank + i;
    CHECK(MPI_Allreduce(in, out, 2, four, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int i = 0; i < 8; i++) CHECK(out[i] == i);
    CHECK(MPI_Type_free(&four) == MPI_SUCCESS);
}

/* A broadcast whose ranks describe the same 20 bytes differently: the root as 5
 * contiguous ints, the others as 5 ints at every other place. Every rank must take
 * the same path (small calls may go through shared memory), whatever its type. */
static void test_bcast_mixed_types(void) {
    MPI_Datatype every_other;
    CHECK(MPI_Type_vector(5, 1, 2, MPI_INT, &every_other) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&every_other) == MPI_SUCCESS);
    for (int root = 0; root < size; root++) {
        int b[10];
        for (int i = 0; i < 10; i++) b[i] = rank == root ? 100 * root + i : -1;
        if (rank == root)
            CHECK(MPI_Bcast(b, 5, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        else
            CHECK(MPI_Bcast(b, 1, every_other, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < 5 && rank != root; i++) {
            CHECK(b[2 * i] == 100 * root + i);
            CHECK(b[2 * i + 1] == -1);
        }
    }
    CHECK(MPI_Type_free(&every_other) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_bcast_and_reduce();
    test_gather_allgather_alltoall();
    test_contiguous_reduction();
    test_bcast_mixed_types();
    MPI_Finalize();
    return 0;
}
