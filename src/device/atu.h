/* The ATU's translation, used by the initiator against a target's table and by a
 * target serving a pipelined request against its own. */
#ifndef TW_DEVICE_ATU_H
#define TW_DEVICE_ATU_H

#include <stdint.h>

#include <tollway/atu.h>
#include <tollway/status.h>

#include "device/endpoint.h"

/* NLA = entry index (16 bits) | generation (8 bits) | offset (40 bits). Index 0xffff
 * is every endpoint's lock region. */
#define TW_NLA_OFFSET_BITS 40
#define TW_NLA_OFFSET_MASK ((1ull << TW_NLA_OFFSET_BITS) - 1)
#define TW_NLA_LOCK_INDEX  0xffffu
#define TW_ATU_VALID       1ull

static inline uint32_t tw_nla_index(uint64_t nla) {
    return (uint32_t)(nla >> 48);
}
static inline uint32_t tw_nla_gen(uint64_t nla) {
    return (uint32_t)(nla >> 40) & 0xff;
}
static inline uint64_t tw_nla_offset(uint64_t nla) {
    return nla & TW_NLA_OFFSET_MASK;
}

/* A translated access. Release it with tw_atu_release once the data has moved. */
typedef struct tw_xlate {
    tw_atu_entry_t *entry; /* NULL for the lock region */
    uint64_t addr;         /* the owner's virtual address */
    uint32_t heap_id;
    uint64_t offset; /* from the start of the registration */
} tw_xlate_t;

/* Checks an access of len bytes at nla with key against a table (entries, count)
 * or the lock region (locks): valid registration of that generation, key, bounds,
 * permission (TW_PERM_*), alignment (align: 1, 4 or 8). TW_OK with x filled and
 * the entry held, or the fault code; a fault is counted in faults[] by the caller
 * once its error notification is out (see tw_atu_count_fault). */
int tw_atu_translate(tw_atu_entry_t *table, uint32_t entries, _Atomic uint64_t *locks, uint64_t nla,
                     uint64_t key, uint64_t len, unsigned perm, unsigned align, tw_xlate_t *x);

static inline void tw_atu_release(tw_xlate_t *x) {
    if (x->entry) atomic_fetch_sub_explicit(&x->entry->inflight, 1, memory_order_release);
}

void tw_atu_count_fault(tw_segment_header_t *owner, int status);

#endif
