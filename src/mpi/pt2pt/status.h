/* Filling an MPI_Status. */
#ifndef TW_MPI_STATUS_H
#define TW_MPI_STATUS_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Fills a status. Its MPI_ERROR field is left alone: MPI sets it only where a call
 * returns MPI_ERR_IN_STATUS (MPI-3.1 section 3.2.5). */
static inline void tw_mpi_status_fill(MPI_Status *s, int source, int tag, size_t bytes,
                                      int cancelled) {
    s->MPI_SOURCE = source;
    s->MPI_TAG = tag;
    s->tw_count_lo = (int)(uint32_t)bytes;
    s->tw_count_hi = (int)(bytes >> 32);
    s->tw_cancelled = cancelled;
}

/* The status of a null or inactive request: the empty status, whose error field
 * is MPI_SUCCESS (MPI-4.1, communication completion). */
static inline void tw_mpi_status_empty(MPI_Status *s, int source) {
    if (!s) return;
    tw_mpi_status_fill(s, source, MPI_ANY_TAG, 0, 0);
    s->MPI_ERROR = MPI_SUCCESS;
}

/* The status of a receive or probe from MPI_PROC_NULL: source, tag and count only
 * (MPI-4.1, null processes), its error field left alone. */
static inline void tw_mpi_status_proc_null(MPI_Status *s) {
    if (s) tw_mpi_status_fill(s, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
}

#pragma GCC visibility pop

#endif
