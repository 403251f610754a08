/* Intercommunicators (intercomm.c): those made from others, by duplication and split. */
#ifndef TW_MPI_INTERCOMM_H
#define TW_MPI_INTERCOMM_H

#include <stddef.h>

#include <mpi.h>

#include "mpi/comm/comm.h"

#pragma GCC visibility push(hidden)

/* Checks the answer a member of MPI_Intercomm_create gets from its leader — len bytes
 * of: table entry, remote size n, n world ranks — before any of it is used. 1 when
 * the entry exists, n is 1..world_size, the ranks are in range, none repeats and
 * none is in the local group (local_n world ranks; NULL: 0..local_n-1). */
static inline int tw_mpi_intercomm_answer_ok(const int *a, size_t len, int world_size, int local_n,
                                             const int *local) {
    if (len < 2 * sizeof *a) return 0;
    int entry = a[0], n = a[1];
    if (entry < 0 || entry >= TW_MPI_COMMS) return 0;
    if (n < 1 || n > world_size || len != ((size_t)n + 2) * sizeof *a) return 0;
    for (int k = 0; k < n; k++) {
        int w = a[2 + k];
        if (w < 0 || w >= world_size) return 0;
        for (int j = 0; j < k; j++)
            if (a[2 + j] == w) return 0;
        for (int j = 0; j < local_n; j++)
            if ((local ? local[j] : j) == w) return 0; /* the groups must be disjoint */
    }
    return 1;
}

/* Duplicates intercommunicator p (no attributes yet). Collective over both groups. */
int tw_mpi_intercomm_dup(tw_mpi_comm_t *p, MPI_Comm *out);
/* Splits intercommunicator c: each color's members in both groups, ordered by key,
 * form a new intercommunicator; a color missing from either group gets MPI_COMM_NULL. */
int tw_mpi_intercomm_split(tw_mpi_comm_t *c, int color, int key, MPI_Comm *out);

#pragma GCC visibility pop

#endif
