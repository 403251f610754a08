/* Attribute caching on communicators (attr.c). */
#ifndef TW_MPI_ATTR_H
#define TW_MPI_ATTR_H

#include "mpi/comm/comm.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Runs the copy callbacks of from's attributes for its duplicate to. */
int tw_mpi_attr_copy_all(tw_mpi_comm_t *from, tw_mpi_comm_t *to);
/* Runs the delete callbacks of c's attributes and removes them; stops at the first
 * that fails, and returns its error. */
int tw_mpi_attr_delete_all(tw_mpi_comm_t *c);
/* Removes c's attributes without callbacks (at finalize). */
void tw_mpi_attr_drop_all(tw_mpi_comm_t *c);
/* MPI_Finalize's first step: MPI_COMM_SELF's attributes are deleted, the last set
 * first, each callback run (one that fails does not stop the others). */
void tw_mpi_attr_finalize_self(void);

/* Datatypes and windows, by handle: the delete callbacks of a freed object's
 * attributes (the first error stops them), and the copy callbacks for a duplicate
 * (MPI_Type_dup; on an error the copies made are deleted again). */
int tw_mpi_attr_object_free(int handle);
int tw_mpi_attr_object_copy(int from, int to);
/* MPI_Win_get_attr of a key of the program's: MPI_ERR_KEYVAL when it is none. */
int tw_mpi_win_attr_get(MPI_Win win, int win_keyval, void *attribute_val, int *flag);

#pragma GCC visibility pop

#endif
