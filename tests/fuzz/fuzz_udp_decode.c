/* Fuzz target of the udp link's packet decoder.
 *
 * Every input must be decoded without touching memory outside it (the sanitizers
 * watch), the decoder of the prefix alone (receiving in place) must agree with the
 * whole decoder, and an accepted packet must satisfy what the link relies on: among
 * it, a MAC that is SipHash-2-4 of its header under the job's secret, and refused
 * under another job's. The seed hook makes valid packets (data: whole, first, middle
 * or last segment, half of them with the MAC over the payload too; a bare ack; or a
 * control packet: a RST, a PROBE or an ECHO announcing an una or none) sealed with the
 * secret; the fixup hook makes both
 * CRCs right again after a mutation and, mostly, the MAC too (as a process of the
 * job would: the checks behind it are reached), else leaves the MAC as the mutation
 * left it (as a forger would: the MAC check is reached with every header). */
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "link/udp/crc32c.h"
#include "link/siphash.h"
#include "link/udp/udp_wire.h"

enum { SELF = 2, PAYLOAD_MAX = 1500 };
/* the job's secret, and another job's */
static const tw_siphash_key_t KEY = {0x5eed5eed5eed5eedull, 0x0123456789abcdefull};
static const tw_siphash_key_t OTHER = {0x5eed5eed5eed5eedull, 0x0123456789abcdeeull};

static long verdicts[TW_UDP_VERDICTS];
static long controls, announced; /* control packets accepted, and of them with an una */

int LLVMFuzzerTestOneInput(const uint8_t *pkt, size_t size) {
    tw_udp_hdr_t h;
    tw_udp_verdict_t v = tw_udp_decode(pkt, size, &KEY, SELF, &h);
    FUZZ_CHECK(v < TW_UDP_VERDICTS);
    verdicts[v]++;
    /* the prefix alone (receiving in place) takes every packet the whole decoder takes,
     * but one whose MAC covers payload past the prefix (never received in place) */
    size_t head = size < TW_UDP_HDR_SIZE + TW_UDP_PREFIX ? size : TW_UDP_HDR_SIZE + TW_UDP_PREFIX;
    tw_udp_hdr_t ph;
    tw_udp_verdict_t pv = tw_udp_decode_prefix(pkt, head, size, &KEY, SELF, &ph);
    FUZZ_CHECK(pv < TW_UDP_VERDICTS);
    int payload_mac = v == TW_UDP_OK && (h.flags & TW_UDP_MAC_PAYLOAD) && size > head;
    FUZZ_CHECK(v != TW_UDP_OK || pv == (payload_mac ? TW_UDP_BAD_MAC : TW_UDP_OK));
    /* and, split there, the rest proves the packet whole exactly when the decoder did */
    if (pv == TW_UDP_OK)
        FUZZ_CHECK(tw_udp_crc_split_ok(pkt, head, pkt + head, size - head, &ph) ==
                   (v == TW_UDP_OK));
    if (v == TW_UDP_OK) { /* an accepted packet is one the link can trust */
        int data = (h.flags & TW_UDP_DATA) != 0;
        FUZZ_CHECK(h.len == size - TW_UDP_HDR_SIZE);
        FUZZ_CHECK(h.dst == SELF);
        uint8_t header[TW_UDP_HDR_SIZE];
        memcpy(header, pkt, sizeof header);
        memset(header + offsetof(tw_udp_hdr_t, mac), 0, 8);
        tw_siphash_t mac;
        tw_siphash24_begin(&mac, &KEY);
        tw_siphash24_add(&mac, header, sizeof header);
        if (h.flags & TW_UDP_MAC_PAYLOAD) tw_siphash24_add(&mac, pkt + TW_UDP_HDR_SIZE, h.len);
        FUZZ_CHECK(h.mac == tw_siphash24_end(&mac));
        tw_udp_hdr_t other;
        FUZZ_CHECK(tw_udp_decode(pkt, size, &OTHER, SELF, &other) == TW_UDP_BAD_MAC);
        FUZZ_CHECK(h.msg_len <= TW_UDP_MSG_MAX);
        FUZZ_CHECK(!data || (h.seq != 0 && h.ack != 0));
        FUZZ_CHECK(data || h.len == 0);
        FUZZ_CHECK(!(h.flags & TW_UDP_FIRST) || h.len <= h.msg_len);
        if (h.flags & TW_UDP_CONTROL) { /* one of them alone; an una on a probe or echo only */
            FUZZ_CHECK(h.flags == TW_UDP_RST || h.flags == TW_UDP_PROBE || h.flags == TW_UDP_ECHO);
            FUZZ_CHECK(h.ack == 0 && h.held == 0 && h.msg_len == 0);
            FUZZ_CHECK(h.flags != TW_UDP_RST || h.seq == 0);
            controls++;
            announced += h.seq != 0;
        }
    }
    return 0;
}

/* A valid packet: data (whole, first, middle or last segment), a bare ack, or a
 * control packet (RST; PROBE or ECHO, half of them announcing an una). */
size_t fuzz_seed(uint8_t *pkt, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    static const uint16_t kinds[] = {TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST,
                                     TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST,
                                     TW_UDP_DATA | TW_UDP_ACK,
                                     TW_UDP_DATA | TW_UDP_ACK | TW_UDP_LAST,
                                     TW_UDP_ACK,
                                     TW_UDP_RST,
                                     TW_UDP_PROBE,
                                     TW_UDP_ECHO};
    uint8_t payload[PAYLOAD_MAX];
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)rand32();
    size_t room = cap - TW_UDP_HDR_SIZE < PAYLOAD_MAX ? cap - TW_UDP_HDR_SIZE : PAYLOAD_MAX;
    /* short payloads (within the prefix) as often as long ones */
    uint16_t len = (uint16_t)(rand32() % (rand32() % 2 ? room : TW_UDP_PREFIX + 8));
    uint16_t flags = kinds[index % 8];
    tw_udp_hdr_t h = {.src = rand32() % 8,
                      .dst = SELF,
                      .seq = rand32() | 1,
                      .ack = rand32() | 1,
                      .flags = flags,
                      .len = len};
    if (!(flags & TW_UDP_DATA)) h.seq = h.len = 0;
    if (flags & TW_UDP_CONTROL) {
        h.ack = 0;
        if (flags != TW_UDP_RST && index / 8 % 2) h.seq = rand32(); /* the sender's una */
    }
    if ((flags & TW_UDP_DATA) && index % 2) h.flags |= TW_UDP_MAC_PAYLOAD;
    if (flags & TW_UDP_FIRST)
        h.msg_len = flags & TW_UDP_LAST ? len : len + rand32() % (TW_UDP_MSG_MAX - len);
    tw_udp_encode(pkt, &h, payload, &KEY);
    return TW_UDP_HDR_SIZE + h.len;
}

/* Makes both CRCs right again: hcrc over the header and prefix, crc on from it, both
 * with the MAC taken as 0; then the MAC under the secret, unless the mutated MAC's
 * first byte is a multiple of 8 (one in eight), which leaves it as it is. */
void fuzz_fixup(uint8_t *pkt, size_t n) {
    if (n < TW_UDP_HDR_SIZE) return;
    size_t crc_at = offsetof(tw_udp_hdr_t, crc), hcrc_at = offsetof(tw_udp_hdr_t, hcrc);
    size_t mac_at = offsetof(tw_udp_hdr_t, mac);
    uint8_t mac[8];
    memcpy(mac, pkt + mac_at, 8);
    memset(pkt + crc_at, 0, 4);
    memset(pkt + hcrc_at, 0, 4);
    memset(pkt + mac_at, 0, 8);
    size_t prefix = n - TW_UDP_HDR_SIZE < TW_UDP_PREFIX ? n - TW_UDP_HDR_SIZE : TW_UDP_PREFIX;
    uint32_t hcrc = tw_crc32c(0, pkt, TW_UDP_HDR_SIZE + prefix);
    uint32_t crc = tw_crc32c(hcrc, pkt + TW_UDP_HDR_SIZE + prefix, n - TW_UDP_HDR_SIZE - prefix);
    memcpy(pkt + crc_at, &crc, 4);
    memcpy(pkt + hcrc_at, &hcrc, 4);
    if (mac[0] % 8) { /* over the payload too when the flags say so */
        uint16_t flags;
        memcpy(&flags, pkt + offsetof(tw_udp_hdr_t, flags), 2);
        size_t covered = le16toh(flags) & TW_UDP_MAC_PAYLOAD ? n : TW_UDP_HDR_SIZE;
        uint64_t tag = tw_siphash24(&KEY, pkt, covered);
        for (int i = 0; i < 8; i++) mac[i] = (uint8_t)(tag >> (8 * i)); /* little-endian */
    }
    memcpy(pkt + mac_at, mac, 8);
}

void fuzz_report(FILE *out) {
    fprintf(out,
            "; %ld accepted (%ld control, %ld announcing an una), none trusted wrongly; refused:",
            verdicts[TW_UDP_OK], controls, announced);
    for (int v = TW_UDP_OK + 1; v < TW_UDP_VERDICTS; v++)
        fprintf(out, " %s %ld", tw_udp_verdict_name((tw_udp_verdict_t)v), verdicts[v]);
}
