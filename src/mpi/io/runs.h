/* The file runs of a stretch of a view's stream: its pieces in stream order, adjacent
 * ones merged. What collective buffering (two_phase.c) and data sieving (sieve.c)
 * plan with. */
#ifndef TW_MPI_IO_RUNS_H
#define TW_MPI_IO_RUNS_H

#include "mpi/io/file.h"

#pragma GCC visibility push(hidden)

/* Called with each run [at, at + len) of the file; nonzero stops the walk. */
typedef int tw_io_run_fn(void *arg, MPI_Offset at, MPI_Offset len);

/* Walks the runs of stream bytes [first, first + len); 0, or what fn stopped with. */
int tw_io_runs(const tw_io_view_t *v, MPI_Offset first, MPI_Offset len, tw_io_run_fn *fn,
               void *arg);

/* Moves file bytes [at, at + len) to or from mem; *done: bytes moved (a read stops short
 * at the end of the file). 0 or an errno. */
int tw_io_move(int fd, int write, char *mem, MPI_Offset at, MPI_Offset len, MPI_Offset *done);

/* tw_io_move's read through a buffer of its own, placed half a page from the file's
 * page offsets, then copied into mem: what it does for a long read into memory a few
 * bytes past the file's page offset, on a CPU whose copies slow down there
 * (common/aliased_copy.h). ENOMEM when no buffer can be had (nothing read). */
int tw_io_read_bounced(int fd, char *mem, MPI_Offset at, MPI_Offset len, MPI_Offset *done);

#pragma GCC visibility pop

#endif
