/* Endpoints of processes in other jobs (peers.h). */
#include <stdlib.h>
#include <string.h>

#include <tollway/endpoint.h>
#include <tollway/status.h>

#include "mpi/comm/comm.h"
#include "mpi/comm_create/dynamic_wire.h"
#include "mpi/comm_create/peers.h"
#include "mpi/env/state.h"
#include "mpi/pt2pt/channel.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/failure.h"

size_t tw_mpi_peers_addresses_cap(int n) {
    return (size_t)n * TW_DYNAMIC_ADDRESS_MAX * (size_t)tw_channel_count();
}

int tw_mpi_peers_addresses(int n, const int *ids, char **addrs, size_t *len) {
    char *out = malloc(tw_mpi_peers_addresses_cap(n));
    if (!out) return MPI_ERR_NO_MEM;
    size_t at = 0;
    for (int r = 0; r < n; r++)
        for (int k = 0; k < tw_channel_count(); k++) {
            if (tw_ep_address(tw_channels[k].ep, ids[r], out + at, TW_DYNAMIC_ADDRESS_MAX) !=
                TW_OK) {
                free(out);
                return MPI_ERR_INTERN;
            }
            at += strlen(out + at);
            out[at++] = k + 1 < tw_channel_count() ? ' ' : '\0';
        }
    *addrs = out;
    *len = at;
    return MPI_SUCCESS;
}

int tw_mpi_peers_learn(int n, const int *ids, const char *addrs, size_t len) {
    if (!tw_dynamic_group_ok(n, ids, addrs, len, tw_channel_count())) return MPI_ERR_INTERN;
    const char *a = addrs;
    for (int m = 0; m < n; m++) {
        size_t left = strlen(a);
        for (int k = 0; k < tw_channel_count(); k++) { /* one address per channel */
            char one[TW_DYNAMIC_ADDRESS_MAX];
            size_t len1 = tw_dynamic_address_len(a, left);
            memcpy(one, a, len1);
            one[len1] = '\0';
            if (tw_ep_add_peer(tw_channels[k].ep, ids[m], one) != TW_OK) return MPI_ERR_INTERN;
            a += len1 + (len1 < left); /* past its space, or onto the member's '\0' */
            left -= len1 + (len1 < left);
        }
        a++;
    }
    tw_mpi_node_forget();
    int size = tw_ep_size(tw_mpi.ep);
    if (size > tw_mpi.size) {
        if (tw_mpi_p2p_grow(size) || tw_mpi_failure_grow(size)) return MPI_ERR_NO_MEM;
        tw_mpi.size = size;
    }
    return MPI_SUCCESS;
}
