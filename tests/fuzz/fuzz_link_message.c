/* Fuzz target of the device messages as the links that carry them hand them to the
 * device (src/link/message.c: tw_link_msg_deliver for a message that arrived, and
 * tw_link_msg_land for one the udp link receives in place).
 *
 * The input is byte 0: the sender (peers 0..PEERS-1, beyond that a stranger); byte 1:
 * the verdict the fake device gives (taken, no room, malformed) and whether the message
 * is received in place; bytes 2-3: for in place, how much longer the message is than
 * its prefix; then the message: the link's 4-byte header (kind, unused, tag) and the
 * record. The fake device checks what it is handed: one callback, the one of the
 * message's kind, once, only from a peer; the body right after the header and inside
 * the message; the tag as sent; and in place, a record read only from the prefix the
 * link holds, and a *skip within that prefix and within the message. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/status.h>

#include "fuzz.h"
#include "link/rma_wire.h"
#include "link/message.h"
#include "link/udp/udp_wire.h"

enum { PEERS = 5, HDR = 4, KIND_VELO = 1, KIND_REQ = 2, KIND_ANSWER = 3 };

/* What the fake device saw of one message. */
static struct {
    const uint8_t *msg, *end; /* the message (or, in place, the prefix held) */
    size_t len;               /* the message's length */
    int verdict;
    int calls, called; /* callbacks made; the kind of the last */
    uint8_t land_buf[16];
} seen;

static long counted[4], strangers, in_place;

/* The body of a message of seen.len bytes: right after the header, the rest of it. */
static void check_body(uint32_t source, const void *body, size_t len) {
    FUZZ_CHECK(source < PEERS);
    FUZZ_CHECK((const uint8_t *)body == seen.msg + HDR);
    FUZZ_CHECK(len == seen.len - HDR);
    seen.calls++;
}

static int fake_velo(void *dev, uint32_t source, unsigned tag, const void *data, size_t len) {
    FUZZ_CHECK(dev == &seen);
    check_body(source, data, len);
    uint16_t sent;
    memcpy(&sent, seen.msg + 2, 2);
    FUZZ_CHECK(tag == sent);
    seen.called = KIND_VELO;
    return seen.verdict;
}

static int fake_request(void *dev, uint32_t source, const void *msg, size_t len) {
    FUZZ_CHECK(dev == &seen);
    check_body(source, msg, len);
    seen.called = KIND_REQ;
    return seen.verdict;
}

static int fake_answer(void *dev, uint32_t source, const void *msg, size_t len) {
    FUZZ_CHECK(dev == &seen);
    check_body(source, msg, len);
    seen.called = KIND_ANSWER;
    return seen.verdict;
}

/* As the device does: the record read from the prefix when the message holds one whole,
 * the data after it landing elsewhere. */
static void *fake_land(uint32_t source, const void *msg, size_t len, size_t *skip, size_t record,
                       int kind) {
    FUZZ_CHECK((const uint8_t *)msg == seen.msg + HDR && len == seen.len - HDR);
    FUZZ_CHECK(source < PEERS);
    seen.calls++;
    seen.called = kind;
    if (len < record || seen.verdict != TW_OK) return NULL;
    FUZZ_CHECK((const uint8_t *)msg + record <= seen.end); /* the record is in the prefix */
    *skip = record;
    return seen.land_buf;
}

static void *fake_land_request(void *dev, uint32_t source, const void *msg, size_t len,
                               size_t *skip) {
    FUZZ_CHECK(dev == &seen);
    return fake_land(source, msg, len, skip, sizeof(rma_req_t), KIND_REQ);
}

static void *fake_land_answer(void *dev, uint32_t source, const void *msg, size_t len,
                              size_t *skip) {
    FUZZ_CHECK(dev == &seen);
    return fake_land(source, msg, len, skip, sizeof(rma_answer_t), KIND_ANSWER);
}

static void fake_landed(void *dev, uint32_t source, size_t len, int ok) {
    (void)dev, (void)source, (void)len, (void)ok;
    FUZZ_CHECK(0); /* the link's, not the decoder's, to call */
}

static void fake_peer_lost(void *dev, uint32_t source, int cause) {
    (void)dev, (void)source, (void)cause;
    FUZZ_CHECK(0); /* the link's, not the decoder's, to call */
}

static const tw_link_device_t fake = {fake_velo,         fake_request,     fake_answer,
                                      fake_land_request, fake_land_answer, fake_landed,
                                      fake_peer_lost, NULL};

static const int verdicts[] = {TW_OK, TW_RETRY, TW_ERR_CORRUPT};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4) return 0;
    uint32_t source = data[0] % (PEERS + 2);
    seen.verdict = verdicts[(data[1] & 0x7f) % 3];
    int landing = data[1] >> 7;
    size_t longer = (size_t)data[2] | (size_t)data[3] << 8;
    const uint8_t *msg = data + 4;
    size_t len = size - 4;
    seen.calls = seen.called = 0;
    uint8_t kind = len ? msg[0] : 0;
    int known = len >= HDR && source < PEERS && kind >= KIND_VELO && kind <= KIND_ANSWER;
    if (source >= PEERS) strangers++;

    if (!landing) {
        seen.msg = msg, seen.end = msg + len, seen.len = len;
        int rc = tw_link_msg_deliver(&fake, &seen, PEERS, source, msg, len);
        FUZZ_CHECK(seen.calls == known);
        FUZZ_CHECK(!known || seen.called == kind);
        FUZZ_CHECK(rc == (known ? seen.verdict : TW_ERR_CORRUPT));
        counted[known ? kind : 0]++;
        return 0;
    }

    /* in place: the link holds the first TW_UDP_PREFIX bytes (all of a shorter message) */
    in_place++;
    size_t held = len < TW_UDP_PREFIX ? len : TW_UDP_PREFIX;
    size_t whole = len < TW_UDP_PREFIX ? len : len + longer;
    uint8_t *prefix = malloc(held ? held : 1); /* exactly held bytes: a read past is caught */
    if (!prefix) abort();
    memcpy(prefix, msg, held);
    seen.msg = prefix, seen.end = prefix + held, seen.len = whole;
    size_t skip = (size_t)-1;
    void *dest = tw_link_msg_land(&fake, &seen, PEERS, source, prefix, whole, &skip);
    int asked = known && kind != KIND_VELO; /* a VELO message is never received in place */
    FUZZ_CHECK(seen.calls == asked);
    FUZZ_CHECK(!asked || seen.called == kind);
    if (dest) {
        FUZZ_CHECK(asked && dest == seen.land_buf);
        FUZZ_CHECK(skip <= TW_UDP_PREFIX && skip <= whole); /* what udp.c promises the kernel */
        FUZZ_CHECK(skip == HDR + (kind == KIND_REQ ? sizeof(rma_req_t) : sizeof(rma_answer_t)));
    } else {
        FUZZ_CHECK(skip == (size_t)-1); /* untouched when taken the usual way */
    }
    free(prefix);
    return 0;
}

/* A message of each kind from a peer, the fake's verdict and the way it comes varied. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < 4 + HDR + sizeof(rma_req_t) + 64) return 0;
    uint8_t kind = (uint8_t)(KIND_VELO + index % 3);
    size_t record = kind == KIND_REQ      ? sizeof(rma_req_t)
                    : kind == KIND_ANSWER ? sizeof(rma_answer_t)
                                          : 0;
    size_t extra = rand32() % 2 ? rand32() % 64 : 0;
    buf[0] = (uint8_t)(rand32() % PEERS);
    buf[1] = (uint8_t)((index / 3) % 3 | (index % 2 ? 0x80 : 0));
    uint16_t longer = (uint16_t)(rand32() % 2 ? rand32() : 0);
    memcpy(buf + 2, &longer, 2);
    buf[4] = kind;
    buf[5] = 0;
    uint16_t tag = (uint16_t)rand32();
    memcpy(buf + 6, &tag, 2);
    for (size_t i = 0; i < record + extra; i++) buf[4 + HDR + i] = (uint8_t)rand32();
    return 4 + HDR + record + extra;
}

void fuzz_report(FILE *out) {
    fprintf(out,
            "; delivered: %ld velo, %ld requests, %ld answers, %ld refused (%ld strangers); "
            "%ld in place",
            counted[KIND_VELO], counted[KIND_REQ], counted[KIND_ANSWER], counted[0], strangers,
            in_place);
}
