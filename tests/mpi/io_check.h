/* What the MPI-IO tests share: a directory of the test's own under $TMPDIR (or /tmp)
 * that every file lies in, the path of a file there, and the class of a return code. */
#ifndef TW_TEST_IO_CHECK_H
#define TW_TEST_IO_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_check.h"

static char dir[512];

/* The path of the file name in the test's directory. */
static inline const char *path(const char *name) {
    static char p[640];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* The error class of a return code. */
static inline int class_of(int rc) {
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

/* Rank 0 makes the directory (tw_PREFIX_XXXXXX); every rank learns its name.
 * Collective over MPI_COMM_WORLD. */
static inline void io_dir_make(const char *prefix) {
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/tw_%s_XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
        CHECK(mkdtemp(dir));
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Every test removed its files: rank 0 removes the directory, which must be empty.
 * Collective over MPI_COMM_WORLD. */
static inline void io_dir_remove(void) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(rmdir(dir) == 0);
}

#endif
