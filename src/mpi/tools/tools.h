/* What the tools information interface (tools.c) changes in the rest of the library. */
#ifndef TW_MPI_TOOLS_H
#define TW_MPI_TOOLS_H

#include <stddef.h>
#include <stdint.h>

#include <tollway/settings.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The choice of a TW_COLL_* algorithm setting in effect: the one a tool wrote through
 * MPI_T_cvar_write, else tw_setting_choice's. */
int tw_mpi_t_choice(tw_setting_id_t id);
/* How many choices tools have written so far: what was read through tw_mpi_t_choice
 * stands while it stays the same. */
extern unsigned tw_mpi_t_choice_writes;

/* The settings the point-to-point engine holds while MPI runs (TW_SETTING_EAGER_LIMIT,
 * TW_SETTING_RNDV_SPLIT), which an MPI_T write changes from then on: the engine names
 * where it holds each, and the largest value it takes, when it starts. */
void tw_mpi_t_hold_setting(tw_setting_id_t id, size_t *held, size_t max);
/* The engine's queues as performance variables, read by the function it names when
 * it starts: the length of the queue of posted receives, of unexpected messages, and
 * the bytes those hold. */
enum { TW_MPI_T_POSTED, TW_MPI_T_UNEXPECTED, TW_MPI_T_UNEXPECTED_BYTES };
typedef uint64_t tw_mpi_t_queue_fn(int queue);
void tw_mpi_t_read_queues(tw_mpi_t_queue_fn *fn);

/* For the other files of MPI_T (tools/): takes the interface's lock and answers
 * MPI_SUCCESS, or MPI_T_ERR_NOT_INITIALIZED without the lock when no MPI_T_init_thread
 * is in effect. */
int tw_mpi_t_lock(void);
void tw_mpi_t_unlock(void);
/* A string out, as every MPI_T call hands them out (tools.c). */
void tw_mpi_t_put_string(const char *src, char *dst, int *len);

#pragma GCC visibility pop

#endif
