/* The address translation unit: registrations in a table in the endpoint's shared
 * segment, translated and checked by whoever accesses them. */
#include "device/atu.h"

#include "device/endpoint.h"
#include "device/progress.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* Keys come from a generator seeded once from the kernel, so registering makes no
 * system call. splitmix64: every 64-bit output once per period. */
static uint64_t next_key(tw_ep_t *ep) {
    uint64_t z = (ep->atu.key_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int tw_atu_init(tw_ep_t *ep) {
    /* not filled: an entry goes on the free list only once it has been used, so a
     * large bound costs address space, not memory */
    ep->atu.free = malloc(ep->atu.entries * sizeof *ep->atu.free);
    if (!ep->atu.free) return -1;
    ep->atu.free_count = 0;
    ep->atu.fresh = 0;
    if (getrandom(&ep->atu.key_state, sizeof ep->atu.key_state, 0) != sizeof ep->atu.key_state)
        ep->atu.key_state = (uint64_t)getpid() * 0x2545f4914f6cdd1dull ^ (uint64_t)(uintptr_t)ep;
    return 0;
}

void tw_atu_fini(tw_ep_t *ep) {
    free(ep->atu.free);
    ep->atu.free = NULL;
}

int tw_atu_register(tw_ep_t *ep, void *addr, size_t length, unsigned perms, uint32_t heap_id,
                    tw_region_t *region) {
    if (!ep || !region || !addr || length == 0 || length > TW_NLA_OFFSET_MASK + 1 || !perms ||
        (perms & ~(TW_PERM_READ | TW_PERM_WRITE)))
        return TW_ERR_ARG;
    uint32_t idx;
    if (ep->atu.free_count)
        idx = ep->atu.free[--ep->atu.free_count];
    else if (ep->atu.fresh < ep->atu.entries) {
        idx = ep->atu.fresh++;
        if (ep->atu.used) atomic_store_explicit(ep->atu.used, ep->atu.fresh, memory_order_release);
    } else
        return TW_ERR_NOMEM; /* TW_ATU_ENTRIES registrations live at once */
    tw_atu_entry_t *e = &ep->atu.table[idx];
    uint64_t gen = (atomic_load_explicit(&e->state, memory_order_relaxed) >> 8) + 1;
    /* generation 0 is skipped: entry 0's NLA would then be 0, which callers take for
     * "not registered" (a rendezvous after 255 reuses of it fetched nothing) */
    if (!(gen & 0xff)) gen++;
    /* the seqlock's writer: fields change only while state says invalid */
    atomic_thread_fence(memory_order_release);
    __atomic_store_n(&e->base, (uint64_t)(uintptr_t)addr, __ATOMIC_RELAXED);
    __atomic_store_n(&e->length, (uint64_t)length, __ATOMIC_RELAXED);
    __atomic_store_n(&e->key, next_key(ep), __ATOMIC_RELAXED);
    __atomic_store_n(&e->heap_id, heap_id, __ATOMIC_RELAXED);
    atomic_store_explicit(&e->state, gen << 8 | (uint64_t)perms << 1 | TW_ATU_VALID,
                          memory_order_release);
    region->nla = (uint64_t)idx << 48 | (gen & 0xff) << TW_NLA_OFFSET_BITS;
    region->key = e->key;
    region->addr = addr;
    region->length = length;
    region->perms = perms;
    ep->stats.registrations++;
    return TW_OK;
}

int tw_reg(tw_ep_t *ep, void *addr, size_t length, unsigned perms, tw_region_t *region) {
    return tw_atu_register(ep, addr, length, perms, 0, region);
}

int tw_dereg(tw_ep_t *ep, tw_region_t *region) {
    return tw_atu_deregister(ep, region, 0);
}

int tw_atu_deregister(tw_ep_t *ep, tw_region_t *region, int allow_heap) {
    if (!ep || !region) return TW_ERR_ARG;
    uint32_t idx = tw_nla_index(region->nla);
    if (idx >= ep->atu.fresh) return TW_ERR_ARG;
    tw_atu_entry_t *e = &ep->atu.table[idx];
    uint64_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
    if (!(st & TW_ATU_VALID) || ((st >> 8) & 0xff) != tw_nla_gen(region->nla) ||
        e->key != region->key || (e->heap_id && !allow_heap))
        return TW_ERR_ARG; /* not a live registration of this endpoint (or a heap block) */
    /* The flush handshake: once valid is clear no new access starts; wait for those
     * that already counted themselves in. */
    atomic_store_explicit(&e->state, st & ~(uint64_t)0xff, memory_order_seq_cst);
    unsigned spins = 0;
    while (atomic_load_explicit(&e->inflight, memory_order_seq_cst) != 0) tw_ep_idle(ep, &spins);
    /* a link that let initiators reach it through the fabric revokes that too */
    for (unsigned i = 0; i < ep->nlinks; i++)
        if (ep->links[i].link->region_gone) {
            tw_dev_lock(ep);
            ep->links[i].link->region_gone(ep->links[i].ctx, region->nla);
            tw_dev_unlock(ep);
        }
    ep->atu.free[ep->atu.free_count++] = idx;
    ep->stats.deregistrations++;
    memset(region, 0, sizeof *region);
    return TW_OK;
}

int tw_atu_describe(tw_ep_t *ep, uint64_t nla, uint64_t key, tw_link_region_t *out) {
    uint32_t idx = tw_nla_index(nla);
    if (idx == TW_NLA_LOCK_INDEX || idx >= ep->atu.fresh) return TW_ERR_STALE;
    tw_atu_entry_t *e = &ep->atu.table[idx]; /* our own table: its writer is this thread */
    uint64_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
    if (!(st & TW_ATU_VALID) || ((st >> 8) & 0xff) != tw_nla_gen(nla)) return TW_ERR_STALE;
    if (e->key != key) return TW_ERR_KEY;
    *out = (tw_link_region_t){nla & ~TW_NLA_OFFSET_MASK, e->base, e->length,
                              (unsigned)(st >> 1) & 0x7f};
    return TW_OK;
}

uint64_t tw_lock_nla(unsigned lock) {
    return (uint64_t)TW_NLA_LOCK_INDEX << 48 | (uint64_t)lock * sizeof(uint64_t);
}

void tw_atu_count_fault(tw_segment_header_t *owner, int status) {
    int cause = status == TW_ERR_KEY      ? TW_FAULT_KEY
                : status == TW_ERR_BOUNDS ? TW_FAULT_BOUNDS
                : status == TW_ERR_STALE  ? TW_FAULT_STALE
                : status == TW_ERR_PERM   ? TW_FAULT_PERM
                                          : TW_FAULT_ALIGN;
    atomic_fetch_add_explicit(&owner->faults[cause], 1, memory_order_relaxed);
}
