/* Fuzz target of the notification queue as its consumer reads it (tw_nq_poll,
 * src/device/nq.c, and the record decoder tw_nq_decode, src/device/nq.h): the slots a
 * peer's process (a put's completer, a get's responder) or the device left in an
 * endpoint's queue.
 *
 * Byte 0 gives the job's size (1 to 64 ranks), byte 1 where the consumer's head starts;
 * the rest is the queue's 16 slots from the head on, as they were written. The consumer
 * polls until the queue is empty or refuses a record. A notification handed out is the
 * record at the head, decoded as its status word and payload say, with an op that is a
 * tw_op_t, one class bit, a status of 0 or a negative code, and a rank of the job; it
 * reads back the same when written again (tw_nq_write). A record refused stays: the
 * next poll refuses it again and nothing was counted; a record refused with a sound
 * ring record around it is one the decoder's rules reject. The consumer stops within
 * the ring's length. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/status.h>
#include <tollway/velo.h>

#include "device/endpoint.h"
#include "device/nq.h"
#include "fuzz.h"

enum { SLOTS = 16, EMPTY_SLOTS = 8 };

static tw_slot_t ring[SLOTS], pristine[SLOTS], empty[EMPTY_SLOTS], scratch[SLOTS];
static tw_ring_ctrl_t ctrl, empty_ctrl, scratch_ctrl;
static tw_ep_t ep;
static long handed, refused_ring, refused_decode, empty_polls;

static uint64_t word(const tw_slot_t *s, int k) {
    return s->word[k];
}

/* What the rules say of a sound record of the right length: 1 when it is a notification. */
static int model_accepts(uint64_t st, const tw_slot_t *s, int size) {
    unsigned op = (unsigned)(st >> TW_NQ_OP_SHIFT) & 0xff, cls = (unsigned)(st >> 24) & 7;
    int32_t peer = (int32_t)(uint32_t)word(s, 1);
    return (st & TW_RING_LEN_MASK) == 40 && op >= 1 && op <= 5 &&
           (cls == 1 || cls == 2 || cls == 4) && peer >= 0 && peer < size;
}

/* An accepted n written again with tw_nq_write and decoded reads back the same. */
static void round_trip(const tw_notification_t *n) {
    tw_ring_format(&scratch_ctrl, scratch, SLOTS);
    tw_ring_producer_t p;
    tw_ring_producer_init(&p, &scratch_ctrl, scratch, SLOTS);
    tw_ring_consumer_t c;
    tw_ring_consumer_init(&c, &scratch_ctrl, scratch, SLOTS, TW_VELO_INLINE_SIZE);
    FUZZ_CHECK(tw_nq_push(&p, n) == TW_RING_OK);
    uint64_t st;
    void *payload;
    FUZZ_CHECK(tw_ring_peek(&c, &st, &payload) == TW_RING_OK);
    tw_notification_t back;
    FUZZ_CHECK(tw_nq_decode(st, payload, ep.size, &back) == TW_OK);
    FUZZ_CHECK(back.op == n->op && back.cls == n->cls && back.success == n->success &&
               back.status == n->status && back.peer == n->peer && back.length == n->length &&
               back.cookie == n->cookie && back.value == n->value && back.nla == n->nla);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    int ranks = 1 + data[0] % 64;
    uint64_t start = data[1];
    memset(ring, 0, sizeof ring);
    size_t n = size - 2 < sizeof ring ? size - 2 : sizeof ring;
    size_t at = (start % SLOTS) * sizeof(tw_slot_t);
    size_t first = n < sizeof ring - at ? n : sizeof ring - at;
    memcpy((char *)ring + at, data + 2, first);
    memcpy(ring, data + 2 + first, n - first);
    memcpy(pristine, ring, sizeof ring);
    atomic_store(&ctrl.head, start);
    atomic_store(&ctrl.tail, start + SLOTS);
    atomic_store(&ctrl.want, 0);

    /* an endpoint that has nothing but its notification queue: no RMA rings pending, no
     * link to poll */
    ep.rank = 0;
    ep.size = ranks;
    ep.polled = NULL;
    ep.stats = (tw_ep_stats_t){0};
    tw_ring_consumer_init(&ep.nq_rx, &ctrl, ring, SLOTS, TW_VELO_INLINE_SIZE);
    memset(empty, 0, sizeof empty);
    tw_ring_consumer_init(&ep.req_rx, &empty_ctrl, empty, EMPTY_SLOTS, TW_RING_LEN_MASK);
    tw_ring_consumer_init(&ep.resp_rx, &empty_ctrl, empty, EMPTY_SLOTS, TW_RING_LEN_MASK);

    for (unsigned steps = 0;; steps++) {
        FUZZ_CHECK(steps <= SLOTS);
        uint64_t counted = ep.stats.notifications;
        tw_notification_t note;
        int rc = tw_nq_poll(&ep, &note);
        FUZZ_CHECK(ep.nq_rx.head - start <= 2 * SLOTS);
        if (rc == TW_EMPTY) {
            empty_polls++;
            return 0;
        }
        if (rc == TW_ERR_CORRUPT) {
            /* it stays, and counts for nothing */
            uint64_t head = ep.nq_rx.head;
            FUZZ_CHECK(ep.stats.notifications == counted);
            FUZZ_CHECK(tw_nq_poll(&ep, &note) == TW_ERR_CORRUPT && ep.nq_rx.head == head);
            uint64_t idx = head & (SLOTS - 1), st = word(&pristine[idx], 0);
            int sound = (st & TW_RING_VALID) && !(st & (TW_RING_PAD | TW_RING_NOP)) &&
                        (st & TW_RING_LEN_MASK) <= TW_VELO_INLINE_SIZE;
            if (sound) {
                refused_decode++;
                FUZZ_CHECK(!model_accepts(st, &pristine[idx], ranks));
            } else {
                refused_ring++;
            }
            return 0;
        }
        FUZZ_CHECK(rc == TW_OK);
        handed++;
        FUZZ_CHECK(ep.stats.notifications == counted + 1);
        /* the record just consumed: one slot before the head */
        const tw_slot_t *rec = &pristine[(ep.nq_rx.head - 1) & (SLOTS - 1)];
        uint64_t st = word(rec, 0);
        FUZZ_CHECK(model_accepts(st, rec, ranks));
        FUZZ_CHECK(note.op == (uint8_t)(st >> TW_NQ_OP_SHIFT) &&
                   note.cls == ((st >> TW_NQ_CLASS_SHIFT) & 7) &&
                   note.success == ((st >> TW_NQ_SUCCESS_SHIFT) & 1) &&
                   note.status == -(int32_t)((st >> TW_NQ_STATUS_SHIFT) & 0xff));
        FUZZ_CHECK(note.status <= 0 && note.status >= -255 && note.success <= 1);
        FUZZ_CHECK(note.peer >= 0 && note.peer < ranks);
        FUZZ_CHECK(note.length == word(rec, 2) && note.cookie == word(rec, 3) &&
                   note.value == word(rec, 4) && note.nla == word(rec, 5));
        round_trip(&note);
    }
}

/* A queue as the device writes it: a few notifications from slot 0, and at times one
 * record of another kind or a cancelled reservation among them. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < 2 + sizeof ring) return 0;
    tw_ring_format(&scratch_ctrl, scratch, SLOTS);
    tw_ring_producer_t p;
    tw_ring_producer_init(&p, &scratch_ctrl, scratch, SLOTS);
    int ranks = 2 + (int)(rand32() % 8);
    unsigned count = 1 + index % 12;
    for (unsigned k = 0; k < count; k++) {
        tw_notification_t n = {.op = (uint8_t)(1 + rand32() % 5),
                               .cls = (uint8_t)(1u << (rand32() % 3)),
                               .success = (uint8_t)(rand32() & 1),
                               .status = rand32() % 4 ? TW_OK : TW_ERR_KEY,
                               .peer = (int32_t)(rand32() % (uint32_t)ranks),
                               .length = rand32() % 65536,
                               .cookie = (uint64_t)rand32() << 32 | rand32(),
                               .value = rand32(),
                               .nla = 0x10000 + rand32() % 4096};
        if (k == 3 && index % 5 == 0) {
            tw_slot_t *s = tw_nq_reserve(&p);
            if (s) tw_nq_cancel(s);
            continue;
        }
        if (tw_nq_push(&p, &n) != TW_RING_OK) break;
    }
    buf[0] = (uint8_t)(ranks - 1);
    buf[1] = 0;
    memcpy(buf + 2, scratch, sizeof scratch);
    return 2 + sizeof scratch;
}

void fuzz_report(FILE *out) {
    fprintf(out,
            "; %ld notifications handed out, %ld records refused by the ring, %ld by the "
            "decoder, %ld queues read to empty",
            handed, refused_ring, refused_decode, empty_polls);
}
