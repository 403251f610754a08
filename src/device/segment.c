/* Where each region of an endpoint's shared segment lies: every peer that maps a
 * segment computes the same layout from the sizes in its header. */
#include "device/segment.h"

#include "device/atu.h"
#include "runtime/settings.h"

static size_t page_align(size_t n) {
    return (n + 4095) & ~(size_t)4095;
}

void tw_segment_layout(uint32_t velo_slots, uint32_t nq_slots, uint32_t rma_slots,
                       uint32_t atu_entries, tw_segment_layout_t *out) {
    size_t at = TW_SEGMENT_HEADER_SIZE;
    out->velo = at;
    at = page_align(at + (size_t)velo_slots * sizeof(tw_slot_t));
    out->nq = at;
    at = page_align(at + (size_t)nq_slots * sizeof(tw_slot_t));
    out->req = at;
    at = page_align(at + (size_t)rma_slots * sizeof(tw_slot_t));
    out->resp = at;
    at = page_align(at + (size_t)rma_slots * sizeof(tw_slot_t));
    out->locks = at;
    at = page_align(at + TW_LOCKS * sizeof(uint64_t));
    out->atu = at;
    at = page_align(at + (size_t)atu_entries * sizeof(tw_atu_entry_t));
    out->total = at;
}

static int ring_size_ok(uint32_t slots, uint32_t min) {
    return slots >= min && slots <= TW_VELO_SLOTS_MAX && !(slots & (slots - 1));
}

int tw_segment_valid(const tw_segment_header_t *seg, size_t size, uint64_t job_key, uint32_t rank,
                     uint32_t index) {
    if (__atomic_load_n(&seg->magic, __ATOMIC_ACQUIRE) != TW_SEGMENT_MAGIC) return 0;
    if (seg->version != TW_SEGMENT_VERSION || seg->job_key != job_key || seg->rank != rank ||
        seg->index != index || !ring_size_ok(seg->velo_slots, TW_VELO_SLOTS_MIN) ||
        !ring_size_ok(seg->nq_slots, TW_NQ_SLOTS_MIN) ||
        !ring_size_ok(seg->rma_slots, TW_RMA_SLOTS_MIN) || seg->atu_entries < TW_ATU_ENTRIES_MIN ||
        seg->atu_entries > TW_ATU_ENTRIES_MAX)
        return 0;
    tw_segment_layout_t l;
    tw_segment_layout(seg->velo_slots, seg->nq_slots, seg->rma_slots, seg->atu_entries, &l);
    return size >= l.total;
}
