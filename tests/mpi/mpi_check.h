/* Checks for the MPI test programs: a failed check names the rank, the line and the
 * expression, and ends the job with MPI_Abort. */
#ifndef TW_MPI_CHECK_H
#define TW_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int rank, size;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: rank %d: check failed: %s\n", __FILE__, __LINE__, rank,        \
                    #cond);                                                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

#endif
