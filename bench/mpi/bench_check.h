/* What the MPI benchmarks share beyond their command line: a failed call says
 * which, on which rank, and ends the job; buffers are allocated alike. Define
 * BENCH_NAME (the program's name) before including it; the rank is this file's
 * `rank`, which the benchmark sets. */
#ifndef BENCH_CHECK_H
#define BENCH_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static _Noreturn void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: rank %d: ", BENCH_NAME, rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3); /* in case Abort returns */
}

/* A young MPI may return an error instead of aborting: treat it as fatal too. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) die("%s failed with error %d", #call, rc_);                        \
    } while (0)

/* Page-aligned memory, its pages faulted in before anything is timed. */
static void *alloc(size_t bytes) {
    bytes = (bytes + 4095) / 4096 * 4096; /* aligned_alloc wants a multiple */
    unsigned char *p = aligned_alloc(4096, bytes ? bytes : 4096);
    if (!p) die("cannot allocate %zu bytes", bytes);
    memset(p, 0, bytes);
    return p;
}

#endif
