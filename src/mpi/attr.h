/* Attribute caching on communicators (attr.c). */
#ifndef TW_MPI_ATTR_H
#define TW_MPI_ATTR_H

#include "mpi/comm.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Runs the copy callbacks of from's attributes for its duplicate to. */
int tw_mpi_attr_copy_all(tw_mpi_comm_t *from, tw_mpi_comm_t *to);
/* Runs the delete callbacks of c's attributes and removes them; stops at the first
 * that fails, and returns its error. */
int tw_mpi_attr_delete_all(tw_mpi_comm_t *c);
/* Removes c's attributes without callbacks (at finalize). */
void tw_mpi_attr_drop_all(tw_mpi_comm_t *c);

#pragma GCC visibility pop

#endif
