/* What the roots of a connection (session/dynamic.c) and the leaders of an intercommunicator
 * across jobs (peers.c) swap about each member of their groups:
 * its addresses, one per channel (TW_CHANNELS), separated by spaces, and the checks of
 * what the other side sent. */
#ifndef TW_MPI_COMM_CREATE_DYNAMIC_WIRE_H
#define TW_MPI_COMM_CREATE_DYNAMIC_WIRE_H

#include <stddef.h>
#include <string.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

enum { TW_DYNAMIC_ADDRESS_MAX = 1024 }; /* an endpoint address (TW_PMI_VALUE_MAX) */

/* The length of the first address of n bytes at a: up to its space, or all of them. */
static inline size_t tw_dynamic_address_len(const char *a, size_t n) {
    const char *sep = memchr(a, ' ', n);
    return sep ? (size_t)(sep - a) : n;
}

/* Whether n bytes at a are a member's addresses for a side running channels channels:
 * exactly that many, each printable, shorter than TW_DYNAMIC_ADDRESS_MAX and starting
 * with "shm:" (every endpoint's address names its segment first). */
static inline int tw_dynamic_addresses_ok(const char *a, size_t n, int channels) {
    int parts = 0;
    for (;;) {
        size_t len = tw_dynamic_address_len(a, n);
        if (len < 4 || len >= TW_DYNAMIC_ADDRESS_MAX || strncmp(a, "shm:", 4) != 0) return 0;
        for (size_t i = 0; i < len; i++)
            if (a[i] <= ' ' || a[i] > '~') return 0;
        parts++;
        if (len == n) return parts == channels;
        a += len + 1; /* past the space */
        n -= len + 1;
    }
}

/* Whether ids[] are n endpoint ids in range and len bytes at addrs are n members'
 * addresses, each member's sound (tw_dynamic_addresses_ok) and ended by '\0', with
 * nothing after the last: a group as a connection's root or an intercommunicator's
 * leader sends it. */
static inline int tw_dynamic_group_ok(int n, const int *ids, const char *addrs, size_t len,
                                      int channels) {
    if (n < 1) return 0;
    const char *a = addrs, *end = addrs + len;
    for (int k = 0; k < n; k++) {
        if (ids[k] < 0 || ids[k] >= (1 << 30)) return 0;
        const char *nul = memchr(a, '\0', (size_t)(end - a));
        if (!nul || !tw_dynamic_addresses_ok(a, (size_t)(nul - a), channels)) return 0;
        a = nul + 1;
    }
    return a == end;
}

#pragma GCC visibility pop

#endif
