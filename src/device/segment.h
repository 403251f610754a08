/* The layout of an endpoint's shared segment: the header its owner writes before it
 * announces its address, then its regions (VELO mailbox, notification queue, RMA
 * request and answer rings, lock region, ATU table). Every peer on the node that
 * talks to the owner maps it, and checks the header field by field first. */
#ifndef TW_DEVICE_SEGMENT_H
#define TW_DEVICE_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "device/bell.h"
#include "device/ring.h"

#define TW_SEGMENT_MAGIC       0x3247455357544e45ull /* "ENTWSEG2" */
#define TW_SEGMENT_VERSION     3u
#define TW_SEGMENT_HEADER_SIZE 4096u

/* Translation faults, counted in the owner's segment by whoever faulted. */
enum { TW_FAULT_KEY, TW_FAULT_BOUNDS, TW_FAULT_STALE, TW_FAULT_PERM, TW_FAULT_ALIGN, TW_FAULTS };

typedef struct tw_segment_header {
    uint64_t magic;
    uint64_t job_key;
    uint32_t version;
    uint32_t rank;
    uint32_t index;
    int32_t owner_pid;
    uint32_t velo_slots, nq_slots, rma_slots, atu_entries;
    /* in what was the padding of the first line (a segment of an older build reads
     * 0: its owner never sleeps): */
    uint32_t sleeps; /* 1: the owner may sleep on bell (TW_WAIT): producers ring it */
    tw_bell_t bell;  /* written by the owner only as it falls asleep and wakes */
    _Alignas(TW_CACHELINE) _Atomic uint64_t faults[TW_FAULTS];
    tw_ring_ctrl_t velo_ctrl; /* VELO mailbox */
    tw_ring_ctrl_t nq_ctrl;   /* notification queue */
    tw_ring_ctrl_t req_ctrl;  /* pipelined RMA: requests this endpoint's device serves */
    tw_ring_ctrl_t resp_ctrl; /* pipelined RMA: answers to this endpoint's requests */
    /* ATU entries ever used (tw_atu_t.fresh): those past it were never written, and a
     * peer that scans the table stops there rather than touch their pages */
    _Alignas(TW_CACHELINE) _Atomic uint32_t atu_used;
} tw_segment_header_t;
_Static_assert(sizeof(tw_segment_header_t) <= TW_SEGMENT_HEADER_SIZE, "the header fits its page");
_Static_assert(offsetof(tw_segment_header_t, faults) == TW_CACHELINE,
               "the doorbell stays in the first line, before the counters");

typedef struct tw_segment_layout {
    size_t velo, nq, req, resp, locks, atu; /* byte offsets */
    size_t total;
} tw_segment_layout_t;

void tw_segment_layout(uint32_t velo_slots, uint32_t nq_slots, uint32_t rma_slots,
                       uint32_t atu_entries, tw_segment_layout_t *out);

/* 1 when the header of a peer's segment of size bytes, mapped here, may be trusted:
 * every field checked (job_key, rank and index as expected, ring sizes and ATU
 * entries within the settings' bounds) and the regions it implies inside size. */
int tw_segment_valid(const tw_segment_header_t *seg, size_t size, uint64_t job_key, uint32_t rank,
                     uint32_t index);

static inline tw_slot_t *tw_segment_slots(void *segment, size_t offset) {
    return (tw_slot_t *)((char *)segment + offset);
}

#endif
