/* The address translation unit: its table (in the owner's segment, read by every
 * initiator), the owner's private state, and the translation, used by the initiator
 * against a target's table and by a target serving a request against its own. */
#ifndef TW_DEVICE_ATU_H
#define TW_DEVICE_ATU_H

#include <stdint.h>

#include <tollway/atu.h>
#include <tollway/endpoint.h>
#include <tollway/status.h>

#include "device/ring.h"
#include "link/link.h"
#include "device/segment.h"

/* One registration in the ATU table (in the owner's segment, read by initiators).
 * state = generation << 8 | perms << 1 | valid, published last (release). An
 * initiator counts itself in `inflight` before it checks `state` and out after the
 * access; deregistration clears valid and waits for inflight to drain. */
typedef struct tw_atu_entry {
    _Alignas(TW_CACHELINE) _Atomic uint64_t state;
    _Atomic uint64_t inflight;
    uint64_t base;
    uint64_t length;
    uint64_t key;
    uint32_t heap_id; /* 0: ordinary memory; else the shared-heap block holding it */
    uint32_t unused;
} tw_atu_entry_t;

/* The owner's side: the table lives in the segment; the free list is private.
 * The table grows on demand: entries are handed out from the free list, and when it
 * is empty the next never-used one (fresh), so only the pages up to the high-water
 * mark are ever touched; `entries` (TW_ATU_ENTRIES) is the bound, not the cost. */
typedef struct tw_atu {
    tw_atu_entry_t *table;
    uint32_t entries;
    uint32_t *free; /* room for every entry; its pages too are touched as used */
    uint32_t free_count;
    uint32_t fresh;         /* entries ever handed out: the high-water mark */
    _Atomic uint32_t *used; /* where peers read it (the segment header), or NULL */
    uint64_t key_state;
    _Atomic uint64_t *locks; /* the lock region, in the segment */
} tw_atu_t;

int tw_atu_init(tw_ep_t *ep);
void tw_atu_fini(tw_ep_t *ep);
int tw_atu_register(tw_ep_t *ep, void *addr, size_t length, unsigned perms, uint32_t heap_id,
                    tw_region_t *region);

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
    tw_atu_entry_t *held;  /* counted in its in-flight total until released */
    uint64_t addr;         /* the owner's virtual address */
    uint32_t heap_id;
    uint64_t offset; /* from the start of the registration */
} tw_xlate_t;

/* Checks an access of len bytes at nla with key against a table (entries, count)
 * or the lock region (locks): valid registration of that generation, key, bounds,
 * permission (TW_PERM_*), alignment (align: 1, 4 or 8). TW_OK with x filled and
 * the entry held, or the fault code; a fault is counted in faults[] by the caller
 * once its error notification is out (see tw_atu_count_fault). */
static inline uint64_t tw_atu_field(const uint64_t *f) {
    return __atomic_load_n(f, __ATOMIC_RELAXED);
}

static inline int tw_atu_translate(tw_atu_entry_t *table, uint32_t entries, _Atomic uint64_t *locks,
                                   uint64_t nla, uint64_t key, uint64_t len, unsigned perm,
                                   unsigned align, tw_xlate_t *x) {
    uint32_t idx = tw_nla_index(nla);
    uint64_t off = tw_nla_offset(nla);
    x->entry = x->held = NULL;
    x->heap_id = 0;
    x->offset = off;
    if (idx == TW_NLA_LOCK_INDEX) { /* open to every rank of the job: no key */
        if (tw_nla_gen(nla) != 0 || off > TW_LOCKS * sizeof(uint64_t) ||
            len > TW_LOCKS * sizeof(uint64_t) - off)
            return TW_ERR_BOUNDS;
        if (off & (align - 1)) return TW_ERR_ALIGN;
        x->addr = (uint64_t)(uintptr_t)locks + off;
        return TW_OK;
    }
    if (idx >= entries) return TW_ERR_STALE;
    tw_atu_entry_t *e = &table[idx];
    /* Read the entry as a seqlock: its fields change only while state is invalid,
     * and state changes on every registration, so an unchanged state vouches for
     * the fields read in between. */
    uint64_t st = atomic_load_explicit(&e->state, memory_order_acquire);
    uint64_t ekey = tw_atu_field(&e->key), elen = tw_atu_field(&e->length);
    uint64_t ebase = tw_atu_field(&e->base);
    uint32_t heap = __atomic_load_n(&e->heap_id, __ATOMIC_RELAXED);
    atomic_thread_fence(memory_order_acquire);
    if (!(st & TW_ATU_VALID) || ((st >> 8) & 0xff) != tw_nla_gen(nla) ||
        atomic_load_explicit(&e->state, memory_order_relaxed) != st)
        return TW_ERR_STALE;
    if (ekey != key) return TW_ERR_KEY;
    if (off > elen || len > elen - off) return TW_ERR_BOUNDS;
    if ((((unsigned)(st >> 1)) & perm) != perm) return TW_ERR_PERM;
    if ((ebase + off) & (align - 1)) return TW_ERR_ALIGN;
    if (!heap) {
        /* Ordinary memory: its owner may reuse it as soon as tw_dereg returns, so
         * count this access in (deregistration waits for the count to drain) and
         * make sure the registration did not go meanwhile. A shared-heap block goes
         * only through tw_heap_free, which unmaps it: a late access lands in memory
         * nobody sees, so it needs no count. */
        atomic_fetch_add_explicit(&e->inflight, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&e->state, memory_order_seq_cst) != st) {
            atomic_fetch_sub_explicit(&e->inflight, 1, memory_order_release);
            return TW_ERR_STALE;
        }
        x->held = e;
    }
    x->entry = e;
    x->addr = ebase + off;
    x->heap_id = heap;
    return TW_OK;
}

static inline void tw_atu_release(tw_xlate_t *x) {
    if (x->held) atomic_fetch_sub_explicit(&x->held->inflight, 1, memory_order_release);
}

void tw_atu_count_fault(tw_segment_header_t *owner, int status);

/* The owner's own registration that nla with key names (tw_link_device_t.region):
 * TW_OK with it in *out, TW_ERR_STALE or TW_ERR_KEY. */
int tw_atu_describe(tw_ep_t *ep, uint64_t nla, uint64_t key, tw_link_region_t *out);

/* Deregisters; heap blocks only through tw_heap_free (allow_heap). */
int tw_atu_deregister(tw_ep_t *ep, tw_region_t *region, int allow_heap);

#endif
