/* Fuzz target of the ofi link's received messages as it hands them to the device
 * (src/link/ofi/link.c: tw_link_ofi_deliver): the sender's rank and sequence number,
 * then a device message (src/link/message.h).
 *
 * The input is byte 0: the verdict the fake device gives (taken, no room, malformed);
 * then the message as received, whose bytes 8-11 (or 0) also name the sequence number due
 * from its sender, for tw_link_ofi_order. The fake device checks what it is handed: one callback,
 * the one of the message's kind, once, only for a sender of the job and the one the
 * header names, with the body right after both headers and within the message. The
 * same bytes after the link's header are also decoded as a translation (tw_ofi_xlate_t)
 * and as the records that ask for one and withdraw it (tw_ofi_ask_t). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/status.h>

#include "fuzz.h"
#include "link/message.h"
#include "link/ofi/link.h"

enum { PEERS = 5, HDR = sizeof(tw_ofi_hdr_t) + sizeof(tw_link_msg_hdr_t) };

static struct {
    const uint8_t *msg;
    size_t len;
    uint32_t source; /* as the header names it */
    int verdict, calls, called;
} seen;

static long counted[4];

static int check(void *dev, uint32_t source, const void *body, size_t len, int kind) {
    FUZZ_CHECK(dev == &seen);
    FUZZ_CHECK(source < PEERS && source == seen.source);
    FUZZ_CHECK((const uint8_t *)body == seen.msg + HDR && len == seen.len - HDR);
    seen.calls++;
    seen.called = kind;
    return seen.verdict;
}

static int fake_velo(void *dev, uint32_t source, unsigned tag, const void *data, size_t len) {
    uint16_t sent;
    memcpy(&sent, seen.msg + sizeof(tw_ofi_hdr_t) + 2, 2);
    FUZZ_CHECK(tag == sent);
    return check(dev, source, data, len, TW_LINK_MSG_VELO);
}

static int fake_request(void *dev, uint32_t source, const void *msg, size_t len) {
    return check(dev, source, msg, len, TW_LINK_MSG_RMA_REQ);
}

static int fake_answer(void *dev, uint32_t source, const void *msg, size_t len) {
    return check(dev, source, msg, len, TW_LINK_MSG_RMA_ANSWER);
}

static void *fake_land(void *dev, uint32_t source, const void *msg, size_t len, size_t *skip) {
    (void)dev, (void)source, (void)msg, (void)len, (void)skip;
    FUZZ_CHECK(0); /* the ofi link never receives in place */
    return NULL;
}

static void fake_landed(void *dev, uint32_t source, size_t len, int ok) {
    (void)dev, (void)source, (void)len, (void)ok;
    FUZZ_CHECK(0);
}

static void fake_peer_lost(void *dev, uint32_t source, int cause) {
    (void)dev, (void)source, (void)cause;
    FUZZ_CHECK(0); /* the link's, not the decoder's, to call */
}

static int fake_region(void *dev, uint64_t nla, uint64_t key, tw_link_region_t *out) {
    (void)dev, (void)nla, (void)key, (void)out;
    FUZZ_CHECK(0); /* asked by the link's own messages, never by the decoder */
    return TW_ERR_STALE;
}

static const tw_link_device_t fake = {fake_velo, fake_request, fake_answer,    fake_land,
                                      fake_land, fake_landed,  fake_peer_lost, fake_region};

static long xlates_taken, asks_taken;

static const int verdicts[] = {TW_OK, TW_RETRY, TW_ERR_CORRUPT};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    seen.verdict = verdicts[data[0] % 3];
    seen.msg = data + 1;
    seen.len = size - 1;
    seen.calls = seen.called = 0;
    seen.source = UINT32_MAX;
    if (seen.len >= sizeof(tw_ofi_hdr_t)) memcpy(&seen.source, seen.msg, sizeof seen.source);
    uint8_t kind = seen.len >= HDR ? seen.msg[sizeof(tw_ofi_hdr_t)] : 0;
    int known = seen.len >= HDR && seen.source < PEERS && kind >= TW_LINK_MSG_VELO &&
                kind <= TW_LINK_MSG_RMA_ANSWER;
    int rc = tw_link_ofi_deliver(&fake, &seen, PEERS, seen.msg, seen.len);
    FUZZ_CHECK(seen.calls == known);
    FUZZ_CHECK(!known || seen.called == kind);
    FUZZ_CHECK(rc == (known ? seen.verdict : TW_ERR_CORRUPT));
    counted[known ? kind : 0]++;

    /* where the message stands in its sender's stream, the one due named by the bytes
     * after the header (or 0): due only itself, kept only within the window ahead, never
     * anything else (a message behind, or too far ahead, would hold a receive for good) */
    uint32_t expected = 0, seq = 0;
    if (seen.len >= sizeof(tw_ofi_hdr_t)) memcpy(&seq, seen.msg + 4, sizeof seq);
    if (seen.len >= sizeof(tw_ofi_hdr_t) + 4) memcpy(&expected, seen.msg + 8, sizeof expected);
    int order = tw_link_ofi_order(expected, seq), within = 0;
    for (uint32_t k = 1; k < TW_OFI_WINDOW; k++) within |= expected + k == seq;
    FUZZ_CHECK(order == (seq == expected ? TW_OFI_DUE : within ? TW_OFI_LATER : TW_OFI_NEVER));
    FUZZ_CHECK(tw_link_ofi_order(seq, seq) == TW_OFI_DUE);
    FUZZ_CHECK(tw_link_ofi_order(seq + 1, seq) == TW_OFI_NEVER); /* behind: never again */

    /* the same bytes after the link's header as a translation (the link's own message
     * TW_OFI_XLATE, or TW_OFI_XLATE_ONCE offered for a put): taken only whole, of one of
     * those kinds, with permissions, a length of 1 byte to
     * 1 TiB and no range that wraps; what is taken is what was sent */
    if (seen.len >= sizeof(tw_ofi_hdr_t)) {
        const uint8_t *body = seen.msg + sizeof(tw_ofi_hdr_t);
        size_t blen = seen.len - sizeof(tw_ofi_hdr_t);
        tw_ofi_xlate_t x, sent;
        memset(&x, 0xa5, sizeof x);
        int ok = blen == sizeof sent;
        if (ok) {
            memcpy(&sent, body, sizeof sent);
            ok = (sent.kind == TW_OFI_XLATE || sent.kind == TW_OFI_XLATE_ONCE) && sent.perms >= 1 &&
                 sent.perms <= 3 && sent.length && sent.length <= 1ull << 40 &&
                 sent.nla <= UINT64_MAX - sent.length && sent.addr <= UINT64_MAX - sent.length;
        }
        int took = tw_link_ofi_xlate_take(body, blen, &x);
        FUZZ_CHECK(took == (ok ? TW_OK : TW_ERR_CORRUPT));
        FUZZ_CHECK(!ok || !memcmp(&x, &sent, sizeof x));
        xlates_taken += ok;
        /* and as a translation asked for, withdrawn, or answered withdrawn: taken only
         * whole and of the kind expected, as sent */
        static const unsigned kinds[] = {TW_OFI_XLATE_ASK, TW_OFI_REVOKE, TW_OFI_REVOKED};
        for (int k = 0; k < 3; k++) {
            tw_ofi_ask_t a;
            memset(&a, 0xa5, sizeof a);
            int whole = blen == sizeof a && body[0] == kinds[k];
            FUZZ_CHECK(tw_link_ofi_ask_take(body, blen, kinds[k], &a) ==
                       (whole ? TW_OK : TW_ERR_CORRUPT));
            FUZZ_CHECK(!whole || !memcmp(&a, body, sizeof a));
            asks_taken += whole;
        }
    }
    return 0;
}

/* A message of each kind from a peer of the job, with a record's worth of bytes. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (index % 8 == 7 && cap >= 1 + sizeof(tw_ofi_hdr_t) + sizeof(tw_ofi_ask_t)) {
        static const uint8_t kinds[] = {TW_OFI_XLATE_ASK, TW_OFI_REVOKE, TW_OFI_REVOKED};
        tw_ofi_hdr_t h = {rand32() % PEERS, rand32()};
        tw_ofi_ask_t a = {.kind = kinds[rand32() % 3],
                          .nla = (uint64_t)rand32() << 40,
                          .key = (uint64_t)rand32() << 32 | rand32()};
        buf[0] = 0;
        memcpy(buf + 1, &h, sizeof h);
        memcpy(buf + 1 + sizeof h, &a, sizeof a);
        return 1 + sizeof h + sizeof a;
    }
    if (index % 4 == 3 && cap >= 1 + sizeof(tw_ofi_hdr_t) + sizeof(tw_ofi_xlate_t)) {
        tw_ofi_hdr_t h = {rand32() % PEERS, rand32()};
        tw_ofi_xlate_t x = {.kind = rand32() % 2 ? TW_OFI_XLATE : TW_OFI_XLATE_ONCE,
                            .perms = 1 + rand32() % 3,
                            .nla = (uint64_t)rand32() << 48,
                            .key = (uint64_t)rand32() << 32 | rand32(),
                            .addr = (uint64_t)rand32() << 12,
                            .length = 1 + rand32() % 65536,
                            .rkey = rand32()};
        buf[0] = 0;
        memcpy(buf + 1, &h, sizeof h);
        memcpy(buf + 1 + sizeof h, &x, sizeof x);
        return 1 + sizeof h + sizeof x;
    }
    size_t body = sizeof(rma_req_t) + rand32() % 64;
    if (cap < 1 + HDR + body) return 0;
    buf[0] = (uint8_t)(index / 3 % 3);
    tw_ofi_hdr_t h = {rand32() % PEERS, rand32()};
    memcpy(buf + 1, &h, sizeof h);
    tw_link_msg_hdr_t m = {(uint8_t)(TW_LINK_MSG_VELO + index % 3), 0, (uint16_t)rand32()};
    memcpy(buf + 1 + sizeof h, &m, sizeof m);
    for (size_t i = 0; i < body; i++) buf[1 + HDR + i] = (uint8_t)rand32();
    return 1 + HDR + body;
}

void fuzz_report(FILE *out) {
    fprintf(
        out,
        "; delivered: %ld velo, %ld requests, %ld answers, %ld refused; %ld translations, %ld asks",
        counted[TW_LINK_MSG_VELO], counted[TW_LINK_MSG_RMA_REQ], counted[TW_LINK_MSG_RMA_ANSWER],
        counted[0], xlates_taken, asks_taken);
}
