/* The shared heap: blocks of memory tollway allocates for the user, each a segment
 * of its own that peers on the node map on first access and reach with plain loads,
 * stores and CPU atomics. */
#ifndef TW_DEVICE_HEAP_H
#define TW_DEVICE_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include <tollway/atu.h>
#include <tollway/endpoint.h>

#include "link/link.h"

typedef struct tw_heap_block {
    void *base;
    size_t size;
    uint32_t id;
    tw_region_t region;
    char name[TW_LINK_SEGMENT_NAME_MAX];
} tw_heap_block_t;

/* The owner's blocks. */
typedef struct tw_heap {
    tw_heap_block_t *blocks;
    uint32_t count, cap, next_id;
} tw_heap_t;

/* One peer's blocks mapped here so far, by heap id. */
typedef struct tw_heap_map {
    void **base;
    size_t *size;
    uint32_t cap;
} tw_heap_map_t;

void tw_heap_fini(tw_ep_t *ep);

/* The address of byte offset of rank's heap block, mapping it on first use (m is
 * that peer's map). */
void *tw_heap_peer_map(tw_ep_t *ep, int rank, uint32_t heap_id, uint64_t offset, uint64_t length);
static inline void *tw_heap_peer_addr(tw_ep_t *ep, tw_heap_map_t *m, int rank, uint32_t heap_id,
                                      uint64_t offset, uint64_t length) {
    if (__builtin_expect(heap_id < m->cap && m->base[heap_id] && offset <= m->size[heap_id] &&
                             length <= m->size[heap_id] - offset,
                         1))
        return (char *)m->base[heap_id] + offset;
    return tw_heap_peer_map(ep, rank, heap_id, offset, length);
}
void tw_heap_peer_unmap_all(tw_ep_t *ep, tw_heap_map_t *m);

#endif
