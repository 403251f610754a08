/* Intercommunicators (intercomm.c): those made from others, by duplication and split. */
#ifndef TW_MPI_INTERCOMM_H
#define TW_MPI_INTERCOMM_H

#include <mpi.h>

#include "mpi/comm/comm.h"

#pragma GCC visibility push(hidden)

/* Duplicates intercommunicator p (no attributes yet). Collective over both groups. */
int tw_mpi_intercomm_dup(tw_mpi_comm_t *p, MPI_Comm *out);
/* Splits intercommunicator c: each color's members in both groups, ordered by key,
 * form a new intercommunicator; a color missing from either group gets MPI_COMM_NULL. */
int tw_mpi_intercomm_split(tw_mpi_comm_t *c, int color, int key, MPI_Comm *out);

#pragma GCC visibility pop

#endif
