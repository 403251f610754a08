/* Info objects (info.c): what the rest of the library needs of them. */
#ifndef TW_MPI_INFO_H
#define TW_MPI_INFO_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* 1 when info names an info object or is MPI_INFO_NULL: what the calls that take
 * hints accept. */
int tw_mpi_info_ok(MPI_Info info);
/* The value of key in info (a valid object; MPI_INFO_NULL has none), or NULL. */
const char *tw_mpi_info_value(MPI_Info info, const char *key);
/* A new info object for the library to fill and hand out (MPI_Comm_get_info...):
 * MPI_SUCCESS or MPI_ERR_NO_MEM. tw_mpi_info_put adds or replaces a key unchecked. */
int tw_mpi_info_new(MPI_Info *info);
int tw_mpi_info_put(MPI_Info info, const char *key, const char *value);
void tw_mpi_info_drop(MPI_Info info);
/* Fills MPI_INFO_ENV at MPI_Init: the command line (argv, or the process's own when
 * NULL) and the thread level asked for. */
void tw_mpi_info_env_init(int argc, char **argv, int required);

/* A boolean hint's value in info: 1 "true", 0 "false", -1 absent or neither (ignored,
 * as MPI asks of a value a hint cannot take). */
int tw_mpi_info_bool(MPI_Info info, const char *key);

#pragma GCC visibility pop

#endif
