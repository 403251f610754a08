/* The address translation unit: registration of memory for remote access.
 *
 * Registering a range gives a network logical address (NLA) and a random 64-bit
 * key. A peer names the memory as NLA + offset together with the key; every access
 * is checked at the owner's table — key, bounds, permission, that the registration
 * still exists — and a failed check touches no memory. Registration writes one table
 * entry in the endpoint's shared segment: no system call, the same cost for 4 KiB as
 * for 1 GiB. Overlapping and repeated registrations are independent entries.
 * Deregistration waits until no operation in flight uses the entry; afterwards the
 * NLA faults with TW_ERR_STALE. */
#ifndef TOLLWAY_ATU_H
#define TOLLWAY_ATU_H

#include <stddef.h>
#include <stdint.h>

#include <tollway/endpoint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TW_PERM_READ  1u /* peers may get from it */
#define TW_PERM_WRITE 2u /* peers may put to it; atomics need both (they read the old value) */

#define TW_LOCKS 8192 /* 64-bit lock words in every endpoint's lock region */

typedef struct tw_region {
    uint64_t nla; /* the NLA of the first byte; NLA + k names byte k; never 0 */
    uint64_t key; /* give it to the peers that may access the region */
    void *addr;
    size_t length;
    unsigned perms;
} tw_region_t;

/* Registers [addr, addr + length) (length 1 byte .. 1 TiB) with TW_PERM_READ and/or
 * TW_PERM_WRITE. TW_OK, TW_ERR_ARG, or TW_ERR_NOMEM when the table (TW_ATU_ENTRIES)
 * is full. */
int tw_reg(tw_ep_t *ep, void *addr, size_t length, unsigned perms, tw_region_t *region);

/* Deregisters; returns once no operation in flight uses the region. A shared-heap
 * block's registration goes with tw_heap_free, not here (TW_ERR_ARG). */
int tw_dereg(tw_ep_t *ep, tw_region_t *region);

/* The shared heap: memory that peers on this node map and copy with plain loads
 * and stores. The block is registered read-write on allocation (region filled in)
 * and deregistered when freed. The home of MPI_Alloc_mem and MPI_Win_allocate. */
void *tw_heap_alloc(tw_ep_t *ep, size_t length, tw_region_t *region);
/* As tw_heap_alloc, for a block most of which may never be touched: only its first
 * 64 KiB are faulted in now and at a peer's mapping, the rest at their first touch
 * (every page of a tw_heap_alloc block is there before its first use). */
void *tw_heap_alloc_lazy(tw_ep_t *ep, size_t length, tw_region_t *region);
int tw_heap_free(tw_ep_t *ep, void *ptr);

/* The address in this process of [nla, nla + length) of rank's memory, when that
 * memory is a shared-heap block or lock words (tw_lock_nla, key 0) on this node
 * (mapped here on first use); NULL when
 * it is not reachable with plain loads and stores: another node (or TW_LINK=udp),
 * not heap memory, or a translation the ATU refuses (key, bounds, read-write
 * permission). The block stays mapped until its owner frees it; use the address
 * only while the registration lives. The home of MPI_Win_allocate_shared. */
void *tw_heap_local_addr(tw_ep_t *ep, int rank, uint64_t nla, uint64_t key, size_t length);

/* The NLA of lock word `lock` (0..TW_LOCKS-1) of any endpoint's lock region. Atomics
 * on it need no key: every rank of the job may use every lock region. */
uint64_t tw_lock_nla(unsigned lock);

#ifdef __cplusplus
}
#endif
#endif
