/* Checks for the MPI test programs: a failed check names the rank, the line and the
 * expression, and ends the job with MPI_Abort. */
#ifndef TW_MPI_CHECK_H
#define TW_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: rank %d: check failed: %s\n", __FILE__, __LINE__, rank,        \
                    #cond);                                                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* n zeroed ints (at least one), or the job ends. */
static inline int *zeroed_ints(size_t n) {
    int *a = calloc(n ? n : 1, sizeof *a);
    CHECK(a);
    return a;
}

/* The status of a null or inactive request: empty (MPI-3.1 section 3.7.3). */
static inline void check_status_empty(const MPI_Status *st) {
    int count = -1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG);
    CHECK(MPI_Get_count(st, MPI_INT, &count) == MPI_SUCCESS && count == 0);
}

/* 1 when every rank is on this node and reached over shared memory (not so over
 * the udp link, TW_LINK=udp, or across hosts). */
static inline int all_on_one_node(void) {
    MPI_Comm node;
    int n;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
          MPI_SUCCESS);
    CHECK(MPI_Comm_size(node, &n) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&node) == MPI_SUCCESS);
    /* a link named for every peer (TW_LINK=udp, ofi) makes each rank a node of its own */
    return n == size;
}

#endif
