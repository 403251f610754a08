/* Endpoints of processes in other jobs (a spawned job, one met through a port), which
 * the processes that met them pass on to the others (peers.c): their addresses as the
 * wire carries them (dynamic_wire.h), and making them reachable. */
#ifndef TW_MPI_COMM_CREATE_PEERS_H
#define TW_MPI_COMM_CREATE_PEERS_H

#include <stddef.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The most bytes the addresses of n processes take. */
size_t tw_mpi_peers_addresses_cap(int n);
/* The addresses of the n processes ids[] (one per channel, separated by spaces, a
 * process's ended by '\0'), in a new buffer of *len bytes. MPI_SUCCESS, MPI_ERR_NO_MEM,
 * or MPI_ERR_INTERN for an id whose address this process does not have. */
int tw_mpi_peers_addresses(int n, const int *ids, char **addrs, size_t *len);
/* Makes the n processes ids[] reachable, ids[k] at the k-th addresses of addrs (len
 * bytes, as tw_mpi_peers_addresses writes them), and the library's tables big enough
 * for their ids, after checking them all: MPI_SUCCESS, MPI_ERR_NO_MEM, or
 * MPI_ERR_INTERN for ids out of range, addresses malformed or not n, or an id that
 * has another address already. */
int tw_mpi_peers_learn(int n, const int *ids, const char *addrs, size_t len);

#pragma GCC visibility pop

#endif
