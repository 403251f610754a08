/* Fuzz target of the checks on a peer's segment header, made when the segment is
 * mapped (src/device/segment.c: tw_segment_valid, called by endpoint.c's connect).
 *
 * The input is the header as the peer wrote it, then 8 bytes: the size of the mapping.
 * What is accepted is a header of this job, this rank and this endpoint index, whose
 * rings have power-of-two sizes within the settings' bounds, each big enough for the
 * longest record it carries, and whose regions (from tw_segment_layout) lie one after
 * the other after the header and inside the mapping, so that a peer that maps it never
 * reads or writes outside. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/atu.h>
#include <tollway/velo.h>

#include "device/atu.h"
#include "device/segment.h"
#include "fuzz.h"
#include "link/rma_wire.h"
#include "runtime/settings.h"

enum { RANK = 3, INDEX = 1 };
#define JOB_KEY 0x0123456789abcdefull

static long accepted, refused;

static int power_of_two_within(uint32_t n, uint32_t min) {
    return n >= min && n <= TW_VELO_SLOTS_MAX && (n & (n - 1)) == 0;
}

/* [at, at + len) lies inside [from, to). */
static int inside(size_t at, size_t len, size_t from, size_t to) {
    return at >= from && at <= to && len <= to - at;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static tw_segment_header_t seg;
    memset(&seg, 0, sizeof seg);
    size_t n = size < sizeof seg ? size : sizeof seg;
    memcpy(&seg, data, n);
    uint64_t mapped = 0;
    if (size > sizeof seg)
        memcpy(&mapped, data + sizeof seg, size - sizeof seg < 8 ? size - sizeof seg : 8);
    mapped %= 1ull << 40; /* what a mapping can be */
    if (!tw_segment_valid(&seg, (size_t)mapped, JOB_KEY, RANK, INDEX)) {
        refused++;
        return 0;
    }
    accepted++;
    FUZZ_CHECK(seg.magic == TW_SEGMENT_MAGIC && seg.version == TW_SEGMENT_VERSION);
    FUZZ_CHECK(seg.job_key == JOB_KEY && seg.rank == RANK && seg.index == INDEX);
    FUZZ_CHECK(power_of_two_within(seg.velo_slots, TW_VELO_SLOTS_MIN));
    FUZZ_CHECK(power_of_two_within(seg.nq_slots, TW_NQ_SLOTS_MIN));
    FUZZ_CHECK(power_of_two_within(seg.rma_slots, TW_RMA_SLOTS_MIN));
    FUZZ_CHECK(seg.atu_entries >= TW_ATU_ENTRIES_MIN && seg.atu_entries <= TW_ATU_ENTRIES_MAX);
    /* NLAs name entries with 16 bits, and 0xffff is the lock region */
    FUZZ_CHECK(seg.atu_entries <= TW_NLA_LOCK_INDEX);
    /* the longest record of each ring fits in it */
    FUZZ_CHECK(tw_ring_slots_for(TW_VELO_MAX_SIZE) <= seg.velo_slots);
    FUZZ_CHECK(tw_ring_slots_for(TW_VELO_INLINE_SIZE) <= seg.nq_slots);
    FUZZ_CHECK(tw_ring_slots_for(sizeof(rma_req_t) + RMA_CHUNK) <= seg.rma_slots);
    FUZZ_CHECK(tw_ring_slots_for(sizeof(rma_answer_t) + RMA_CHUNK) <= seg.rma_slots);

    tw_segment_layout_t l;
    tw_segment_layout(seg.velo_slots, seg.nq_slots, seg.rma_slots, seg.atu_entries, &l);
    size_t end = (size_t)mapped, slot = sizeof(tw_slot_t);
    FUZZ_CHECK(sizeof seg <= TW_SEGMENT_HEADER_SIZE && l.velo >= TW_SEGMENT_HEADER_SIZE);
    FUZZ_CHECK(l.total <= end);
    FUZZ_CHECK(inside(l.velo, seg.velo_slots * slot, TW_SEGMENT_HEADER_SIZE, l.nq));
    FUZZ_CHECK(inside(l.nq, seg.nq_slots * slot, l.velo, l.req));
    FUZZ_CHECK(inside(l.req, seg.rma_slots * slot, l.nq, l.resp));
    FUZZ_CHECK(inside(l.resp, seg.rma_slots * slot, l.req, l.locks));
    FUZZ_CHECK(inside(l.locks, TW_LOCKS * sizeof(uint64_t), l.resp, l.atu));
    FUZZ_CHECK(inside(l.atu, seg.atu_entries * sizeof(tw_atu_entry_t), l.locks, l.total));
    /* every region is where the slots' and entries' alignment wants it */
    FUZZ_CHECK(l.velo % 64 == 0 && l.nq % 64 == 0 && l.req % 64 == 0 && l.resp % 64 == 0 &&
               l.locks % 8 == 0 && l.atu % _Alignof(tw_atu_entry_t) == 0);
    return 0;
}

/* Make the fields a mutation rarely gets right right again, so that the ring sizes and
 * the mapping's size are what is tried. */
void fuzz_fixup(uint8_t *data, size_t size) {
    if (size < offsetof(tw_segment_header_t, velo_slots)) return;
    tw_segment_header_t h;
    memcpy(&h, data, offsetof(tw_segment_header_t, velo_slots));
    h.magic = TW_SEGMENT_MAGIC;
    h.version = TW_SEGMENT_VERSION;
    h.job_key = JOB_KEY;
    h.rank = RANK;
    h.index = INDEX;
    memcpy(data, &h, offsetof(tw_segment_header_t, velo_slots));
}

/* A header as an endpoint writes it, with ring sizes a job may set, mapped whole. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < sizeof(tw_segment_header_t) + 8) return 0;
    tw_segment_header_t h;
    memset(&h, 0, sizeof h);
    h.magic = TW_SEGMENT_MAGIC;
    h.version = TW_SEGMENT_VERSION;
    h.job_key = JOB_KEY;
    h.rank = RANK;
    h.index = INDEX;
    h.owner_pid = (int32_t)(rand32() % 100000);
    h.velo_slots = TW_VELO_SLOTS_MIN << (rand32() % 6);
    h.nq_slots = TW_NQ_SLOTS_MIN << (rand32() % 6);
    h.rma_slots = TW_RMA_SLOTS_MIN << (rand32() % 4);
    h.atu_entries = index % 3 == 0 ? TW_ATU_ENTRIES_MAX : TW_ATU_ENTRIES_MIN + rand32() % 4096;
    tw_segment_layout_t l;
    tw_segment_layout(h.velo_slots, h.nq_slots, h.rma_slots, h.atu_entries, &l);
    uint64_t mapped = l.total + (index % 2 ? 0 : 4096 * (rand32() % 4));
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, &mapped, 8);
    return sizeof h + 8;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; %ld headers accepted, %ld refused", accepted, refused);
}
