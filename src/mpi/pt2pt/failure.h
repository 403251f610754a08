/* Peer failure (failure.c): the peers the device declared lost, the error code of
 * each (class MPIX_ERR_PROC_FAILED), and the failing of every operation that waits
 * on one of them, so that nothing waits for a peer that will not answer. */
#ifndef TW_MPI_FAILURE_H
#define TW_MPI_FAILURE_H

#include <stdatomic.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_comm tw_mpi_comm_t;

/* Peers lost so far (0 in a healthy job: the one test the rest of MPI makes). */
extern _Atomic int tw_mpi_lost_count; /* read unlocked by calls on a channel's traffic */

/* Whether world rank world was found lost (here or by another rank). */
int tw_mpi_is_lost(int world);

/* Registers the handlers of the device's notices and of the peers' (MPI_Init). */
void tw_mpi_failure_init(void);
/* Room for world ranks up to n - 1 (peers a connection adds, dynamic.c). */
int tw_mpi_failure_grow(int n);

/* The error code of lost world rank world: of class MPIX_ERR_PROC_FAILED, its
 * MPI_Error_string names the peer and the cause. */
int tw_mpi_lost_code(int world);
/* The error of an operation toward world rank peer that the native API refused with
 * rc: the peer's code when rc says the peer is lost (recorded now, if its notice is
 * still in the mailbox), else MPI_ERR_OTHER. */
int tw_mpi_peer_error(int peer, int rc);
/* A lost member of c (either group of an intercommunicator) as a world rank; -1:
 * none. */
int tw_mpi_comm_lost_member(const tw_mpi_comm_t *c);

/* MPI_Error_class and MPI_Error_string of a lost peer's code: 1 when code is one. */
int tw_mpi_lost_class(int code, int *errclass);
int tw_mpi_lost_string(int code, char *string, int *resultlen);

/* The error code of a collective that world rank world, alive, could not take part
 * in (no memory for a copy of its buffer, coll_shm.c): of class MPI_ERR_OTHER, its
 * MPI_Error_string names the rank. The same pair for these codes. */
int tw_mpi_gave_up_code(int world);
int tw_mpi_gave_up_class(int code, int *errclass);
int tw_mpi_gave_up_string(int code, char *string, int *resultlen);

#pragma GCC visibility pop

#endif
