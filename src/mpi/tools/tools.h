/* What the tools information interface (tools.c) changes in the rest of the library. */
#ifndef TW_MPI_TOOLS_H
#define TW_MPI_TOOLS_H

#include <tollway/settings.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The choice of a TW_COLL_* algorithm setting in effect: the one a tool wrote through
 * MPI_T_cvar_write, else tw_setting_choice's. */
int tw_mpi_t_choice(tw_setting_id_t id);
/* How many choices tools have written so far: what was read through tw_mpi_t_choice
 * stands while it stays the same. */
extern unsigned tw_mpi_t_choice_writes;

/* For the other files of MPI_T (tools/): takes the interface's lock and answers
 * MPI_SUCCESS, or MPI_T_ERR_NOT_INITIALIZED without the lock when no MPI_T_init_thread
 * is in effect. */
int tw_mpi_t_lock(void);
void tw_mpi_t_unlock(void);
/* A string out, as every MPI_T call hands them out (tools.c). */
void tw_mpi_t_put_string(const char *src, char *dst, int *len);

#pragma GCC visibility pop

#endif
