/* Collectives on large non-contiguous buffers: the data is staged in bounded pieces,
 * never packed whole. Each call moves PACKED bytes (four collective segments) of
 * doubles at every other place of the buffers; the results and the untouched gaps
 * are checked, and so is the memory the calls took on top of the buffers: the peak
 * resident size may grow by the staging copies of a few segments, well under one
 * packed copy of the send and the receive data. Blocking and non-blocking calls. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "mpi_check.h"

enum { ITEM = 1000 };                       /* doubles of data per item of the type */
static const size_t PACKED = 32u << 20;     /* bytes of data per call */
static const long GROWTH_LIMIT = 40l << 10; /* KiB: whole copies would take 64 MiB and more */

static long peak_kib(void) {
    struct rusage u;
    CHECK(getrusage(RUSAGE_SELF, &u) == 0);
    return u.ru_maxrss;
}

/* ITEM doubles at every other place; the next item follows the last gap. */
static MPI_Datatype strided(void) {
    MPI_Datatype v, r;
    CHECK(MPI_Type_vector(ITEM, 1, 2, MPI_DOUBLE, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * ITEM * sizeof(double)), &r) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&v) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&r) == MPI_SUCCESS);
    return r;
}

static double value(int r, size_t i) {
    return (double)r * 1e9 + (double)i;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t = strided();
    int count = (int)(PACKED / sizeof(double) / ITEM);
    size_t n = (size_t)count * ITEM; /* data doubles; the buffers hold twice as many */
    double *in = malloc(2 * n * sizeof *in), *out = malloc(2 * n * sizeof *out);
    CHECK(in && out);
    for (size_t i = 0; i < 2 * n; i++) {
        in[i] = value(rank, i);
        out[i] = -1.0;
    }
    long before = peak_kib();

    /* Bcast from the last rank */
    for (size_t i = 0; i < 2 * n; i++) out[i] = rank == size - 1 ? value(size - 1, i) : -1.0;
    CHECK(MPI_Bcast(out, count, t, size - 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (size_t i = 0; i < n; i++) {
        CHECK(out[2 * i] == value(size - 1, 2 * i));
        CHECK(out[2 * i + 1] == (rank == size - 1 ? value(size - 1, 2 * i + 1) : -1.0));
    }

    /* Allreduce (sum) */
    for (size_t i = 0; i < 2 * n; i++) out[i] = -1.0;
    CHECK(MPI_Allreduce(in, out, count, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    double ranks = size * (size - 1) / 2.0;
    for (size_t i = 0; i < n; i++) {
        CHECK(out[2 * i] == ranks * 1e9 + (double)size * (double)(2 * i));
        CHECK(out[2 * i + 1] == -1.0);
    }

    /* Reduce (max) to rank 0, in place there */
    if (rank == 0) memcpy(out, in, 2 * n * sizeof *out);
    CHECK(MPI_Reduce(rank ? in : MPI_IN_PLACE, out, count, t, MPI_MAX, 0, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    if (rank == 0)
        for (size_t i = 0; i < n; i++) {
            CHECK(out[2 * i] == value(size - 1, 2 * i));
            CHECK(out[2 * i + 1] == value(0, 2 * i + 1));
        }

    /* Exscan (sum) */
    for (size_t i = 0; i < 2 * n; i++) out[i] = -1.0;
    CHECK(MPI_Exscan(in, out, count, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank)
        for (size_t i = 0; i < n; i++) {
            CHECK(out[2 * i] == rank * (rank - 1) / 2.0 * 1e9 + (double)rank * (double)(2 * i));
            CHECK(out[2 * i + 1] == -1.0);
        }

    /* Iallreduce (min), overlapped with an Ibcast of contiguous data */
    for (size_t i = 0; i < 2 * n; i++) out[i] = -1.0;
    int word = rank == 0 ? 42 : -1;
    MPI_Request r[2];
    CHECK(MPI_Iallreduce(in, out, count, t, MPI_MIN, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Ibcast(&word, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(word == 42);
    for (size_t i = 0; i < n; i++) {
        CHECK(out[2 * i] == value(0, 2 * i));
        CHECK(out[2 * i + 1] == -1.0);
    }

    long grown = peak_kib() - before;
    if (grown >= GROWTH_LIMIT)
        fprintf(stderr, "rank %d: the collectives took %ld KiB of memory beyond the buffers\n",
                rank, grown);
    CHECK(grown < GROWTH_LIMIT);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
