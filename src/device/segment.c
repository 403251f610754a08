/* Where each region of an endpoint's shared segment lies: every peer that maps a
 * segment computes the same layout from the sizes in its header. */
#include "device/segment.h"

#include "device/atu.h"

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
