/* Fuzz target of the ring records a receiver decodes from shared memory that peers
 * write (src/device/ring.h: tw_ring_peek and tw_ring_release, as VELO mailboxes,
 * notification queues and the pipelined RMA rings use them; VELO status words as
 * velo.c reads them), and of a sender's reservation against control words a peer
 * writes (tw_ring_reserve).
 *
 * Byte 0 picks the ring's size (8 to 256 slots) and the mode; byte 1 the longest record
 * the consumer takes (a VELO mailbox's, a notification queue's, an RMA ring's, cut to
 * what the ring holds); bytes 2-3 where the consumer's head starts. Consumer mode: the
 * rest is the ring's slots as peers left them. Every record handed out lies inside the
 * ring, at the head, no longer than allowed; the consumer stops within two turns of
 * the ring (slots it consumed read as empty) and stops on a status word that cannot be valid.
 * Producer mode: bytes 4-19 are the shared tail and head, then up to 64 records (length, tag,
 * source) are pushed and read back: a reserved record lies inside the ring and is never
 * handed out over unconsumed ones, and what the consumer reads is what was pushed. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/velo.h>

#include "device/ring.h"
#include "device/velo.h"
#include "fuzz.h"

static long records, pads_or_corrupt, pushed, refused;

static tw_slot_t ring[256];
static tw_ring_ctrl_t ctrl;

static uint32_t max_len_of(uint8_t sel, uint64_t size) {
    static const uint32_t kinds[] = {TW_VELO_MAX_SIZE, TW_VELO_INLINE_SIZE, TW_RING_LEN_MASK, 0};
    uint32_t m = kinds[sel % 4];
    uint32_t fits = (uint32_t)((size / 2) * TW_CACHELINE - 8); /* ring.h's bound */
    return m < fits ? m : fits;
}

/* Consumes what the ring holds, checking every record it hands out. */
static void consume_all(tw_ring_consumer_t *c, uint64_t start) {
    for (unsigned steps = 0;; steps++) {
        FUZZ_CHECK(steps <= c->size + 1);
        uint64_t before = c->head, st = 0;
        void *payload = NULL;
        int rc = tw_ring_peek(c, &st, &payload);
        /* PAD and NOP records passed on the way, and never round the ring again: the
         * slots consumed are handed back zeroed, so the consumer stops there. (A NOP
         * that claims more slots than were written may take the head past the
         * producers' tail: the ring then refuses them, the peer's own doing, as
         * checking the tail here would cost every poll a shared cache line.) */
        FUZZ_CHECK(c->head - before <= 2 * c->size && c->head - start <= 2 * c->size);
        if (rc != TW_RING_OK) {
            FUZZ_CHECK(rc == TW_RING_EMPTY || rc == TW_RING_CORRUPT);
            if (rc == TW_RING_CORRUPT) {
                uint64_t bad = tw_ring_load_status(&c->slots[c->head & c->mask]);
                uint64_t to_end = c->size - (c->head & c->mask);
                /* refused only what cannot be a record here */
                FUZZ_CHECK(
                    !(bad & TW_RING_VALID) ||
                    ((bad & TW_RING_PAD) && (bad & TW_RING_LEN_MASK) != to_end) ||
                    (!(bad & TW_RING_PAD) && ((bad & TW_RING_LEN_MASK) > c->max_len ||
                                              tw_ring_slots_for(bad & TW_RING_LEN_MASK) > to_end)));
                pads_or_corrupt++;
            }
            return;
        }
        records++;
        uint64_t idx = c->head & c->mask, len = st & TW_RING_LEN_MASK;
        FUZZ_CHECK(st & TW_RING_VALID && !(st & (TW_RING_PAD | TW_RING_NOP)));
        FUZZ_CHECK(payload == &c->slots[idx].word[1]);
        FUZZ_CHECK(len <= c->max_len);
        FUZZ_CHECK(tw_ring_slots_for(len) <= c->size - idx); /* never past the ring's end */
        FUZZ_CHECK((const char *)payload + len <= (const char *)(c->slots + c->size));
        /* a VELO status word: tag and source read from their fields, within them */
        unsigned tag = (unsigned)(st >> TW_VELO_TAG_SHIFT) & TW_VELO_TAG_MASK;
        uint64_t source = (st >> TW_VELO_SOURCE_SHIFT) & 0xffffffffull;
        FUZZ_CHECK(tag <= TW_VELO_TAG_MASK && source <= 0xffffffffull);
        tw_ring_release(c, st);
    }
}

static void consumer_mode(const uint8_t *data, size_t size, uint64_t slots, uint32_t max_len) {
    uint64_t start = (uint64_t)data[2] | (uint64_t)data[3] << 8;
    memset(ring, 0, slots * sizeof(tw_slot_t));
    size_t n = size - 4 < slots * sizeof(tw_slot_t) ? size - 4 : slots * sizeof(tw_slot_t);
    /* the slots from the head on, as a peer wrote them (the input starts at the head) */
    uint64_t at = (start & (slots - 1)) * sizeof(tw_slot_t);
    size_t first = n < slots * sizeof(tw_slot_t) - at ? n : slots * sizeof(tw_slot_t) - at;
    memcpy((char *)ring + at, data + 4, first);
    memcpy(ring, data + 4 + first, n - first);
    atomic_store(&ctrl.head, start);
    atomic_store(&ctrl.tail, start + slots);
    atomic_store(&ctrl.want, 0);
    tw_ring_consumer_t c;
    tw_ring_consumer_init(&c, &ctrl, ring, slots, max_len);
    consume_all(&c, start);
}

static void producer_mode(const uint8_t *data, size_t size, uint64_t slots, uint32_t max_len) {
    if (size < 20) return;
    uint64_t tail, head;
    memcpy(&tail, data + 4, 8);
    memcpy(&head, data + 12, 8);
    tw_ring_format(&ctrl, ring, slots);
    atomic_store(&ctrl.tail, tail);
    atomic_store(&ctrl.head, head);
    tw_ring_producer_t p;
    tw_ring_producer_init(&p, &ctrl, ring, slots);
    tw_ring_consumer_t c;
    tw_ring_consumer_init(&c, &ctrl, ring, slots, max_len);
    c.head = c.published = tail; /* the records pushed from here on are the ones read */
    static uint8_t payload[TW_RING_LEN_MASK + 1];
    if (!payload[1])
        for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)i;
    for (size_t at = 20; at + 6 <= size && at < 20 + 6 * 64; at += 6) { /* 64 records at most */
        uint16_t len16;
        memcpy(&len16, data + at, 2);
        size_t len = len16 % (max_len + 1);
        unsigned tag = data[at + 2];
        uint32_t source =
            (uint32_t)data[at + 3] | (uint32_t)data[at + 4] << 8 | (uint32_t)data[at + 5] << 24;
        uint64_t was = atomic_load(&ctrl.tail), seen_head = atomic_load(&ctrl.head);
        tw_slot_t *s = tw_ring_reserve(&p, len);
        uint64_t now = atomic_load(&ctrl.tail);
        if (!s) {
            refused++;
            /* refused: the shared tail moved only by padding */
            FUZZ_CHECK(now - was < slots);
            if (now - seen_head > slots) return; /* full for good: a hostile head */
            continue;
        }
        pushed++;
        uint64_t idx = (uint64_t)(s - ring);
        FUZZ_CHECK(s >= ring && idx < slots);
        FUZZ_CHECK(tw_ring_slots_for(len) <= slots - idx);
        /* only within what the head frees: at most the ring ahead of the head */
        FUZZ_CHECK(now - seen_head <= slots &&
                   (now & p.mask) == ((idx + tw_ring_slots_for(len)) & p.mask));
        tw_copy(&s->word[1], payload, len);
        tw_ring_commit(
            s, (uint64_t)tag << TW_VELO_TAG_SHIFT | (uint64_t)source << TW_VELO_SOURCE_SHIFT, len);
        uint64_t st;
        void *got;
        int rc = tw_ring_peek(&c, &st, &got);
        FUZZ_CHECK(rc == TW_RING_OK && got == &s->word[1]); /* what was pushed, read back */
        FUZZ_CHECK((st & TW_RING_LEN_MASK) == len &&
                   ((st >> TW_VELO_TAG_SHIFT) & TW_VELO_TAG_MASK) == tag &&
                   ((st >> TW_VELO_SOURCE_SHIFT) & 0xffffffffull) == source);
        FUZZ_CHECK(memcmp(got, payload, len) == 0);
        tw_ring_release(&c, st);
        tw_ring_publish(&c); /* a consumer that keeps up */
        p.cached_head = atomic_load(&ctrl.head);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4) return 0;
    uint64_t slots = 8ull << (data[0] % 6);
    uint32_t max_len = max_len_of(data[1], slots);
    if (data[0] & 0x80)
        producer_mode(data, size, slots, max_len);
    else
        consumer_mode(data, size, slots, max_len);
    return 0;
}

/* A ring as producers fill it: records of varied lengths, some cancelled, a PAD where
 * one would wrap; or, for the producer mode, control words and records to push. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    uint8_t sel = (uint8_t)(index % 6), kind = (uint8_t)(rand32() % 4);
    uint64_t slots = 8ull << sel;
    uint32_t max_len = max_len_of(kind, slots);
    if (index % 2) { /* producer mode */
        uint64_t tail = rand32() % 2 ? rand32() : (uint64_t) - (int64_t)(rand32() % 64);
        uint64_t head = tail - rand32() % (slots / 2);
        buf[0] = sel | 0x80;
        buf[1] = kind;
        buf[2] = buf[3] = 0;
        memcpy(buf + 4, &tail, 8);
        memcpy(buf + 12, &head, 8);
        size_t n = 20;
        for (unsigned i = 0; i < 16 && n + 6 <= cap; i++, n += 6) {
            uint16_t len = (uint16_t)(rand32() % (max_len + 1));
            memcpy(buf + n, &len, 2);
            for (int k = 2; k < 6; k++) buf[n + k] = (uint8_t)rand32();
        }
        return n;
    }
    memset(ring, 0, sizeof ring);
    tw_ring_format(&ctrl, ring, slots);
    uint64_t start = rand32() % (slots * 4);
    atomic_store(&ctrl.tail, start);
    atomic_store(&ctrl.head, start);
    tw_ring_producer_t p;
    tw_ring_producer_init(&p, &ctrl, ring, slots);
    for (unsigned i = 0; i < 12; i++) {
        size_t len = rand32() % 3 ? rand32() % 64 : rand32() % (max_len + 1);
        tw_slot_t *s = tw_ring_reserve(&p, len);
        if (!s) break;
        memset(&s->word[1], (int)i, len);
        if (rand32() % 5 == 0)
            tw_ring_cancel(s, len);
        else
            tw_ring_commit(s,
                           (uint64_t)(rand32() % 256) << TW_VELO_TAG_SHIFT |
                               (uint64_t)(rand32() % 64) << TW_VELO_SOURCE_SHIFT,
                           len);
    }
    buf[0] = sel;
    buf[1] = kind;
    buf[2] = (uint8_t)start;
    buf[3] = (uint8_t)(start >> 8);
    /* the slots from the head on, as many as an input holds (the rest read as zero) */
    uint64_t at = start & (slots - 1), held = (cap - 4) / sizeof(tw_slot_t);
    if (held > slots) held = slots;
    for (uint64_t i = 0; i < held; i++)
        memcpy(buf + 4 + i * sizeof(tw_slot_t), &ring[(at + i) & (slots - 1)], sizeof(tw_slot_t));
    return 4 + held * sizeof(tw_slot_t);
}

void fuzz_report(FILE *out) {
    fprintf(out, "; %ld records read, %ld corrupt rings refused; %ld records pushed, %ld refused",
            records, pads_or_corrupt, pushed, refused);
}
