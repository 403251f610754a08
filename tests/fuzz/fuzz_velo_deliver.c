/* Fuzz target of VELO messages as a link hands them to the device
 * (tw_velo_link_deliver, src/device/velo.c), read back as the receiver reads its
 * mailbox (tw_velo_poll, tw_velo_peek / tw_velo_release). The udp_deliver target checks
 * what the udp link hands over; this one, what the device then takes, from any link.
 *
 * Byte 0 gives the job's size (1 to 64 ranks) and the mailbox's (256 or 512 slots). The
 * rest is a session of steps. A delivery (first byte even): the source (4 bytes), the
 * tag (2 bytes), the length (2 bytes, up to 8 KB) and the message's bytes, which follow
 * in the input as far as it goes. A receive (first byte odd): a poll into a buffer of a
 * capacity the byte picks, or a peek and a release. A delivery is taken exactly when
 * its source is a rank of the job, its tag at most TW_VELO_TAG_MAX and its length at
 * most TW_VELO_MAX_SIZE, unless the mailbox has no room (TW_RETRY, refused only when it
 * holds something); every message taken is received once, in order, with its source,
 * tag, length and bytes, and the mailbox never refuses what it holds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/status.h>
#include <tollway/velo.h>

#include "device/endpoint.h"
#include "device/velo.h"
#include "fuzz.h"

enum { SLOTS_MAX = 512, EMPTY_SLOTS = 8, QUEUE = 1024 };

static tw_slot_t ring[SLOTS_MAX], empty[EMPTY_SLOTS];
static tw_ring_ctrl_t ctrl, empty_ctrl;
static tw_ep_t ep;
static tw_ep_link_t via;

/* The model: the messages taken and not yet received, in order, by where their bytes
 * are in the input (or the fill pattern past its end). */
static struct {
    uint32_t source;
    unsigned tag;
    size_t len;
    const uint8_t *bytes;
    size_t have; /* bytes of the input; the rest is fill */
} queue[QUEUE];
static unsigned q_head, q_len;
static uint8_t message[TW_VELO_MAX_SIZE + 1], received[TW_VELO_MAX_SIZE];
static long taken, refused, full, got;

static uint8_t fill(size_t k) {
    return (uint8_t)(k * 7 + 1);
}

/* The message as the model has it, in message[]. */
static void model_bytes(unsigned q, size_t len) {
    size_t have = queue[q].have < len ? queue[q].have : len;
    memcpy(message, queue[q].bytes, have);
    for (size_t k = have; k < len; k++) message[k] = fill(k);
}

static void check_received(const tw_velo_msg_t *m, const void *data) {
    FUZZ_CHECK(q_len > 0);
    unsigned q = q_head % QUEUE;
    FUZZ_CHECK((uint32_t)m->source == queue[q].source && m->tag == queue[q].tag &&
               m->length == queue[q].len);
    model_bytes(q, m->length);
    FUZZ_CHECK(!memcmp(data, message, m->length));
    q_head++;
    q_len--;
    got++;
}

/* One receive step: 1 when the mailbox gave what the model expects (or nothing when it
 * holds nothing), 0 to stop. */
static int receive(uint8_t how) {
    tw_velo_msg_t m;
    int rc;
    if (how & 2) {
        rc = tw_velo_peek(&ep, &m);
        if (rc == TW_OK) {
            check_received(&m, m.data);
            FUZZ_CHECK(tw_velo_release(&ep, &m) == TW_OK);
            return 1;
        }
    } else {
        size_t cap = how & 4 ? TW_VELO_MAX_SIZE : (size_t)(how >> 3) * 8;
        rc = tw_velo_poll(&ep, &m, received, cap);
        if (rc == TW_OK) {
            check_received(&m, received);
            return 1;
        }
        if (rc == TW_ERR_TRUNCATE) { /* too long for this buffer: it stays */
            FUZZ_CHECK(q_len > 0 && queue[q_head % QUEUE].len > cap);
            return 1;
        }
    }
    /* the mailbox holds nothing, or refuses what it holds */
    FUZZ_CHECK(rc == TW_EMPTY);
    FUZZ_CHECK(q_len == 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int ranks = 1 + data[0] % 64;
    uint64_t slots = data[0] & 64 ? SLOTS_MAX : SLOTS_MAX / 2; /* the least that holds 4 KB */
    tw_ring_format(&ctrl, ring, slots);
    ep.rank = 0;
    ep.size = ranks;
    ep.polled = NULL;
    ep.peeked = 0;
    ep.stats = (tw_ep_stats_t){0};
    tw_ring_producer_init(&ep.velo_self, &ctrl, ring, slots);
    tw_ring_consumer_init(&ep.velo_rx, &ctrl, ring, slots, TW_VELO_MAX_SIZE);
    memset(empty, 0, sizeof empty);
    tw_ring_consumer_init(&ep.req_rx, &empty_ctrl, empty, EMPTY_SLOTS, TW_RING_LEN_MASK);
    tw_ring_consumer_init(&ep.resp_rx, &empty_ctrl, empty, EMPTY_SLOTS, TW_RING_LEN_MASK);
    via.ep = &ep;
    q_head = q_len = 0;

    size_t at = 1;
    while (at < size) {
        uint8_t step = data[at++];
        if (step & 1) {
            receive(step);
            continue;
        }
        if (size - at < 8) break;
        uint32_t source;
        uint16_t tag, len16;
        memcpy(&source, data + at, 4);
        memcpy(&tag, data + at + 4, 2);
        memcpy(&len16, data + at + 6, 2);
        at += 8;
        size_t len = len16 & 0x1fff;
        size_t have = size - at < len ? size - at : len;
        /* the message: the input's bytes, then the fill pattern, in a buffer of its
         * length exactly */
        uint8_t *msg = malloc(len ? len : 1);
        if (!msg) abort();
        memcpy(msg, data + at, have);
        for (size_t k = have; k < len; k++) msg[k] = fill(k);
        int was_empty = q_len == 0;
        int rc = tw_velo_link_deliver(&via, source, tag, msg, len);
        free(msg);
        int ok = source < (uint32_t)ranks && tag <= TW_VELO_TAG_MAX && len <= TW_VELO_MAX_SIZE;
        if (!ok) {
            FUZZ_CHECK(rc == TW_ERR_CORRUPT);
            refused++;
        } else if (rc == TW_RETRY) {
            /* no room: only while it holds something */
            FUZZ_CHECK(!was_empty);
            full++;
            if (!receive(1 | 4)) return 0;
        } else {
            FUZZ_CHECK(rc == TW_OK);
            FUZZ_CHECK(q_len < QUEUE);
            unsigned q = (q_head + q_len) % QUEUE;
            queue[q].source = source;
            queue[q].tag = tag;
            queue[q].len = len;
            queue[q].bytes = data + at;
            queue[q].have = have;
            q_len++;
            taken++;
        }
        at += have;
    }
    while (q_len) FUZZ_CHECK(receive(1 | 4));
    FUZZ_CHECK(receive(1 | 4) == 0);
    return 0;
}

/* Valid sessions: deliveries from ranks of the job, with receives among them. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    int ranks = 2 + (int)(rand32() % 30);
    buf[0] = (uint8_t)((ranks - 1) | (index % 2) << 6);
    size_t at = 1;
    for (unsigned k = 0; k < 1 + index % 10; k++) {
        if (rand32() % 3 == 0 && at < cap) buf[at++] = (uint8_t)(1 | (rand32() % 2) << 1 | 4);
        size_t len = rand32() % 3 ? rand32() % 64 : rand32() % 600;
        if (at + 8 + len > cap) break;
        uint32_t source = rand32() % (uint32_t)ranks;
        uint16_t tag = (uint16_t)(rand32() % 256), len16 = (uint16_t)len;
        buf[at++] = 0;
        memcpy(buf + at, &source, 4);
        memcpy(buf + at + 4, &tag, 2);
        memcpy(buf + at + 6, &len16, 2);
        at += 8;
        for (size_t b = 0; b < len; b++) buf[at++] = (uint8_t)rand32();
    }
    return at;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; %ld messages taken, %ld refused, %ld while full, %ld received", taken, refused,
            full, got);
}
