/* What an aggregator of collective buffering takes from another rank: the runs of the
 * rank's access in the aggregator's file domain, pairs of MPI_Offset (offset, length).
 * Taken only when they lie inside the domain, in file order, none over another, each
 * of at least one byte; then the aggregator copies each piece of a window into its
 * buffer at (offset - window start), which stays inside it (two_phase.c). */
#ifndef TW_MPI_IO_TWO_PHASE_WIRE_H
#define TW_MPI_IO_TWO_PHASE_WIRE_H

#include <mpi.h>

/* Whether n values (pairs) are runs of domain [from, to) as above. */
static inline int tw_io_runs_take(const MPI_Offset *pairs, MPI_Count n, MPI_Offset from,
                                  MPI_Offset to) {
    if (n < 0 || n % 2 || from < 0 || to < from) return 0;
    MPI_Offset last = from;
    for (MPI_Count k = 0; k < n; k += 2) {
        MPI_Offset at = pairs[k], len = pairs[k + 1];
        /* at >= last >= from, len >= 1, and at + len <= to without overflow */
        if (at < last || len < 1 || at > to || len > to - at) return 0;
        last = at + len;
    }
    return 1;
}

#endif
