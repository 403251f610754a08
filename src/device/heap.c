/* The shared heap: each block is a segment of its own (the mapped link's), registered
 * read-write on allocation, which peers on the node map on first access and then
 * reach with plain loads, stores and CPU atomics. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <tollway/atu.h>
#include <tollway/status.h>

#include "device/heap.h"

#include "device/atu.h"
#include "device/endpoint.h"

/* A lazy block's bytes faulted in when it is made and when a peer maps it; the rest
 * come at their first touch. A whole block is faulted in at both (tw_heap_alloc: a
 * put into a fresh 4 MiB window took 0.5 ms so, 4.4-5.9 ms on first-touch faults). A
 * peer tells which by the block's last page: present only when the owner populated
 * it all (or wrote there already). */
enum { HEAP_LAZY_POPULATE = 64 * 1024 };

static void *heap_alloc(tw_ep_t *ep, size_t length, size_t populate, tw_region_t *region) {
    if (!ep || !region || length == 0) return NULL;
    if (ep->heap.count == ep->heap.cap) {
        uint32_t cap = ep->heap.cap ? 2 * ep->heap.cap : 16;
        tw_heap_block_t *h = realloc(ep->heap.blocks, cap * sizeof *h);
        if (!h) return NULL;
        ep->heap.blocks = h;
        ep->heap.cap = cap;
    }
    tw_heap_block_t *b = &ep->heap.blocks[ep->heap.count];
    b->id = ++ep->heap.next_id; /* ids start at 1: 0 means "not heap" */
    b->size = (length + 4095) & ~(size_t)4095;
    const tw_link_t *mapped = ep->mapped->link;
    mapped->segment_name(ep->job, ep->rank, ep->index, b->id, b->name, sizeof b->name);
    b->base = mapped->segment_create(b->name, b->size, populate);
    if (!b->base && errno == EEXIST) { /* our endpoint's own name proved the job's ours */
        mapped->segment_unlink(b->name);
        b->base = mapped->segment_create(b->name, b->size, populate);
    }
    if (!b->base) return NULL;
    if (tw_atu_register(ep, b->base, length, TW_PERM_READ | TW_PERM_WRITE, b->id, &b->region)) {
        mapped->segment_unmap(b->base, b->size);
        mapped->segment_unlink(b->name);
        return NULL;
    }
    ep->heap.count++;
    *region = b->region;
    return b->base;
}

void *tw_heap_alloc(tw_ep_t *ep, size_t length, tw_region_t *region) {
    return heap_alloc(ep, length, TW_LINK_POPULATE_ALL, region);
}

void *tw_heap_alloc_lazy(tw_ep_t *ep, size_t length, tw_region_t *region) {
    return heap_alloc(ep, length, HEAP_LAZY_POPULATE, region);
}

/* How much of a peer's block to fault in at its mapping: all of it when its owner
 * did (its last page is there), else a lazy block's first bytes. */
static size_t peer_populate(void *base, size_t size) {
    unsigned char present = 0;
    size_t last = (size - 1) & ~(size_t)4095;
    if (mincore((char *)base + last, 1, &present) == 0 && (present & 1))
        return TW_LINK_POPULATE_ALL;
    return HEAP_LAZY_POPULATE;
}

static void heap_release(tw_ep_t *ep, uint32_t i) {
    tw_heap_block_t *b = &ep->heap.blocks[i];
    tw_atu_deregister(ep, &b->region, 1);
    ep->mapped->link->segment_unmap(b->base, b->size);
    ep->mapped->link->segment_unlink(b->name);
    ep->heap.blocks[i] = ep->heap.blocks[--ep->heap.count];
}

int tw_heap_free(tw_ep_t *ep, void *ptr) {
    if (!ep || !ptr) return TW_ERR_ARG;
    for (uint32_t i = 0; i < ep->heap.count; i++)
        if (ep->heap.blocks[i].base == ptr) {
            heap_release(ep, i);
            return TW_OK;
        }
    return TW_ERR_ARG;
}

void *tw_heap_local_addr(tw_ep_t *ep, int rank, uint64_t nla, uint64_t key, size_t length) {
    if (!ep || rank < 0 || rank >= ep->size) return NULL;
    tw_peer_t *peer;
    if (tw_ep_peer(ep, rank, &peer) || !peer->mapped) return NULL;
    tw_xlate_t x;
    if (tw_atu_translate(peer->atu, peer->atu_entries, peer->locks, nla, key, length ? length : 1,
                         TW_PERM_READ | TW_PERM_WRITE, 1, &x))
        return NULL;
    void *p = x.entry && x.heap_id ? tw_heap_peer_addr(ep, &peer->heap, rank, x.heap_id, x.offset,
                                                       length ? length : 1)
              : !x.entry           ? (void *)(uintptr_t)x.addr /* its lock region, mapped */
                                   : NULL;
    tw_atu_release(&x);
    return p;
}

void tw_heap_fini(tw_ep_t *ep) {
    while (ep->heap.count) heap_release(ep, ep->heap.count - 1);
    free(ep->heap.blocks);
    ep->heap.blocks = NULL;
    ep->heap.cap = 0;
}

/* Unmaps the peer's blocks that no live registration refers to any more: the owner
 * freed them, and our mapping is all that keeps their memory. Run before mapping a
 * new block, so mapped memory follows what the peer has, not all it ever had. */
static void sweep_freed_blocks(tw_ep_t *ep, tw_peer_t *peer) {
    tw_heap_map_t *m = &peer->heap;
    /* only the entries the peer ever used: the pages past them were never touched */
    uint32_t used = atomic_load_explicit(&peer->segment->atu_used, memory_order_acquire);
    if (used > peer->atu_entries) used = peer->atu_entries; /* the peer's word, bounded */
    for (uint32_t id = 1; id < m->cap; id++) {
        if (!m->base[id]) continue;
        int live = 0;
        for (uint32_t i = 0; i < used && !live; i++) {
            uint64_t st = atomic_load_explicit(&peer->atu[i].state, memory_order_acquire);
            live = (st & 1) && peer->atu[i].heap_id == id;
        }
        if (!live) {
            ep->mapped->link->segment_unmap(m->base[id], m->size[id]);
            m->base[id] = NULL;
        }
    }
}

void *tw_heap_peer_map(tw_ep_t *ep, int rank, uint32_t heap_id, uint64_t offset, uint64_t length) {
    tw_peer_t *peer = ep->peers[rank];
    tw_heap_map_t *m = &peer->heap;
    if (heap_id >= m->cap) {
        uint32_t cap = m->cap ? m->cap : 16;
        while (cap <= heap_id) cap *= 2;
        void **b = realloc(m->base, cap * sizeof *b);
        if (!b) return NULL;
        m->base = b;
        size_t *sz = realloc(m->size, cap * sizeof *sz);
        if (!sz) return NULL;
        m->size = sz;
        memset(b + m->cap, 0, (cap - m->cap) * sizeof *b);
        memset(sz + m->cap, 0, (cap - m->cap) * sizeof *sz);
        m->cap = cap;
    }
    if (!m->base[heap_id]) {
        sweep_freed_blocks(ep, peer);
        const tw_link_t *mapped = ep->mapped->link;
        char name[TW_LINK_SEGMENT_NAME_MAX];
        mapped->segment_name(ep->job, rank, ep->index, heap_id, name, sizeof name);
        size_t size;
        void *base = mapped->segment_map(name, 1, 0, &size);
        if (!base) return NULL;
        mapped->segment_populate(base, size, peer_populate(base, size));
        m->base[heap_id] = base;
        m->size[heap_id] = size;
    }
    /* the ATU checked the access against the registration; check the mapping too */
    if (offset > m->size[heap_id] || length > m->size[heap_id] - offset) return NULL;
    return (char *)m->base[heap_id] + offset;
}

void tw_heap_peer_unmap_all(tw_ep_t *ep, tw_heap_map_t *m) {
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->base[i]) ep->mapped->link->segment_unmap(m->base[i], m->size[i]);
    free(m->base);
    free(m->size);
    m->base = NULL;
    m->size = NULL;
    m->cap = 0;
}
