/* Fuzz target of the udp link's packet decoder.
 *
 * LLVMFuzzerTestOneInput is the libFuzzer entry point (build with clang
 * -fsanitize=fuzzer,address -DTW_LIBFUZZER). Without libFuzzer, main() is a small
 * mutation fuzzer of its own: it starts from valid packets and applies bit flips,
 * truncations, extensions and field rewrites, half of them with the CRC made right
 * again so that the checks behind the CRC are reached. Either way every input must
 * be decoded without touching memory outside it (the sanitizers watch), and an
 * accepted packet must satisfy what the link relies on. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link/udp/crc32c.h"
#include "link/udp/udp_wire.h"

enum { KEY = 0x5eed, SELF = 2, MAX_INPUT = TW_UDP_HDR_SIZE + 1600 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* a copy of exactly size bytes, so a read past the input is caught */
    uint8_t *pkt = malloc(size ? size : 1);
    if (!pkt) return 0;
    memcpy(pkt, data, size);
    tw_udp_hdr_t h;
    tw_udp_verdict_t v = tw_udp_decode(pkt, size, KEY, SELF, &h);
    /* the prefix alone (receiving in place) takes every packet the whole decoder takes */
    size_t head = size < TW_UDP_HDR_SIZE + TW_UDP_PREFIX ? size : TW_UDP_HDR_SIZE + TW_UDP_PREFIX;
    tw_udp_hdr_t ph;
    tw_udp_verdict_t pv = tw_udp_decode_prefix(pkt, head, size, KEY, SELF, &ph);
    if (pv >= TW_UDP_VERDICTS || (v == TW_UDP_OK && pv != TW_UDP_OK)) abort();
    /* and, split there, the rest proves the packet whole exactly when the decoder did */
    if (pv == TW_UDP_OK &&
        tw_udp_crc_split_ok(pkt, head, pkt + head, size - head, &ph) != (v == TW_UDP_OK))
        abort();
    if (v == TW_UDP_OK) {
        int data_flag = (h.flags & TW_UDP_DATA) != 0;
        if (h.len != size - TW_UDP_HDR_SIZE || h.dst != SELF || h.job_key != KEY ||
            h.msg_len > TW_UDP_MSG_MAX || (data_flag && (h.seq == 0 || h.ack == 0)) ||
            (!data_flag && h.len != 0) || ((h.flags & TW_UDP_FIRST) && h.len > h.msg_len)) {
            fprintf(stderr, "fuzz_udp_decode: accepted a packet the link cannot trust\n");
            abort();
        }
    } else if (v >= TW_UDP_VERDICTS) {
        abort();
    }
    free(pkt);
    return 0;
}

#ifndef TW_LIBFUZZER
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* A valid packet to start from: data (whole, first, middle or last) or a bare ack. */
static size_t seed(uint8_t *pkt) {
    uint8_t payload[1500];
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)next();
    uint16_t len = (uint16_t)(next() % 1500);
    uint16_t kinds[] = {TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST,
                        TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST, TW_UDP_DATA | TW_UDP_ACK,
                        TW_UDP_DATA | TW_UDP_ACK | TW_UDP_LAST, TW_UDP_ACK};
    uint16_t flags = kinds[next() % 5];
    tw_udp_hdr_t h = {.job_key = KEY,
                      .src = next() % 8,
                      .dst = SELF,
                      .seq = next() | 1,
                      .ack = next() | 1,
                      .flags = flags,
                      .len = len};
    if (!(flags & TW_UDP_DATA)) h.seq = h.len = 0;
    if (flags & TW_UDP_FIRST) h.msg_len = flags & TW_UDP_LAST ? len : len + next() % 60000;
    tw_udp_encode(pkt, &h, payload);
    return TW_UDP_HDR_SIZE + h.len;
}

/* Makes both CRCs right again: hcrc over the header and prefix, crc on from it. */
static void fix_crc(uint8_t *pkt, size_t n) {
    if (n < TW_UDP_HDR_SIZE) return;
    size_t crc_at = offsetof(tw_udp_hdr_t, crc), hcrc_at = offsetof(tw_udp_hdr_t, hcrc);
    memset(pkt + crc_at, 0, 4);
    memset(pkt + hcrc_at, 0, 4);
    size_t prefix = n - TW_UDP_HDR_SIZE < TW_UDP_PREFIX ? n - TW_UDP_HDR_SIZE : TW_UDP_PREFIX;
    uint32_t hcrc = tw_crc32c(0, pkt, TW_UDP_HDR_SIZE + prefix);
    uint32_t crc = tw_crc32c(hcrc, pkt + TW_UDP_HDR_SIZE + prefix, n - TW_UDP_HDR_SIZE - prefix);
    memcpy(pkt + crc_at, &crc, 4);
    memcpy(pkt + hcrc_at, &hcrc, 4);
}

int main(int argc, char **argv) {
    long runs = argc > 1 ? atol(argv[1]) : 200000;
    uint8_t pkt[MAX_INPUT];
    long accepted = 0;
    for (long r = 0; r < runs; r++) {
        size_t n = seed(pkt);
        int mutations = 1 + (int)(next() % 4);
        for (int m = 0; m < mutations; m++) {
            switch (next() % 4) {
            case 0: /* flip bits */
                if (n) pkt[next() % n] ^= (uint8_t)(1u << (next() % 8));
                break;
            case 1: /* cut */
                n = n ? next() % n : 0;
                break;
            case 2: { /* grow */
                size_t more = next() % 64;
                if (n + more > sizeof pkt) more = sizeof pkt - n;
                for (size_t i = 0; i < more; i++) pkt[n + i] = (uint8_t)next();
                n += more;
                break;
            }
            default: { /* overwrite a header field with an extreme or random value */
                static const uint32_t values[] = {0, 1, 0xffff, 0x10000, 0x7fffffff, 0xffffffff};
                size_t at = (next() % (TW_UDP_HDR_SIZE / 2)) * 2;
                uint32_t v = next() % 2 ? values[next() % 6] : next();
                if (at + 2 <= n) memcpy(pkt + at, &v, next() % 2 && at + 4 <= n ? 4 : 2);
            }
            }
        }
        if (next() % 2) fix_crc(pkt, n);
        accepted += LLVMFuzzerTestOneInput(pkt, n) == 0 &&
                    tw_udp_decode(pkt, n, KEY, SELF, &(tw_udp_hdr_t){0}) == TW_UDP_OK;
    }
    printf("fuzz_udp_decode: %ld inputs, %ld accepted, none trusted wrongly\n", runs, accepted);
    return 0;
}
#endif
