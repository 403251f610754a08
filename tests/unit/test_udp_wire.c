/* The udp link's packet codec: CRC32C, the MAC, and every reason a packet is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <endian.h>

#include "link/udp/crc32c.h"
#include "link/udp/udp_wire.h"

enum { SELF = 3 };
/* the job's secret, and another job's */
static const tw_siphash_key_t KEY = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
static const tw_siphash_key_t OTHER = {0x0706050403020100ull, 0x0f0e0d0c0b0a0909ull};
#define PKT_MAX (TW_UDP_HDR_SIZE + 2048)

static void test_crc32c_vectors(void **state) {
    (void)state;
    unsigned char zeros[32] = {0}, ones[32];
    memset(ones, 0xff, sizeof ones);
    assert_int_equal(tw_crc32c(0, "", 0), 0);
    assert_int_equal(tw_crc32c(0, "123456789", 9), 0xe3069283u); /* RFC 3720 check value */
    assert_int_equal(tw_crc32c(0, zeros, 32), 0x8a9136aau);      /* RFC 3720 B.4 */
    assert_int_equal(tw_crc32c(0, ones, 32), 0x62a8ab43u);
    /* continued over pieces, the same as in one go */
    assert_int_equal(tw_crc32c(tw_crc32c(0, "12345", 5), "6789", 4), 0xe3069283u);
    /* long buffers take the folded and interleaved path: the same CRC as bit by bit,
     * at any length and alignment, and again in the other order (1024 and 2112, 1100
     * and 2200 share a slot of kept stream shifts and evict one another) */
    static unsigned char big[65536 + 4];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
    const size_t lens[] = {1023, 1024, 1025, 1100,  2047,  2048,  2112,  2200,
                           2303, 2304, 9300, 16420, 19990, 61440, 65400, 65536};
    const size_t n = sizeof lens / sizeof lens[0];
    for (size_t pass = 0; pass < 2 * n; pass++)
        for (size_t at = 0, k = pass < n ? pass : 2 * n - 1 - pass; at < 4; at++) {
            uint32_t ref = 0xffffffffu;
            for (size_t i = 0; i < lens[k]; i++) {
                ref ^= big[at + i];
                for (int b = 0; b < 8; b++) ref = ref & 1 ? (ref >> 1) ^ 0x82f63b78u : ref >> 1;
            }
            assert_int_equal(tw_crc32c(0, big + at, lens[k]), ~ref);
            /* every way this CPU has, and continued from a CRC so far */
            for (size_t way = 0; way < tw_crc32c_ways(); way++) {
                assert_int_equal(tw_crc32c_by(way, 0, big + at, lens[k]), ~ref);
                uint32_t part = tw_crc32c_by(way, 0, big + at, 7);
                assert_int_equal(tw_crc32c_by(way, part, big + at + 7, lens[k] - 7), ~ref);
            }
        }
    /* the CPU's fastest way is the one taken: a byte table, then crc32 with pclmulqdq,
     * then their 512-bit form */
    size_t want = 1;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul"))
        want = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq") ? 3 : 2;
#endif
    assert_int_equal(tw_crc32c_ways(), want);
}

/* A data packet from peer 1, sequence 5, of len bytes of a whole message. */
static size_t data_packet(unsigned char *pkt, tw_udp_hdr_t *h, const void *payload, uint16_t len) {
    *h = (tw_udp_hdr_t){.src = 1,
                        .dst = SELF,
                        .seq = 5,
                        .ack = 1,
                        .flags = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST,
                        .len = len,
                        .msg_len = len};
    tw_udp_encode(pkt, h, payload, &KEY);
    return TW_UDP_HDR_SIZE + len;
}

/* The same with len bytes of payload (i * step) written first. */
static size_t patterned_packet(unsigned char *pkt, tw_udp_hdr_t *h, unsigned char *payload,
                               uint16_t len, unsigned step) {
    for (size_t i = 0; i < len; i++) payload[i] = (unsigned char)(i * step);
    return data_packet(pkt, h, payload, len);
}

static void test_round_trip(void **state) {
    (void)state;
    unsigned char pkt[PKT_MAX], payload[1000];
    tw_udp_hdr_t h, got;
    size_t n = patterned_packet(pkt, &h, payload, sizeof payload, 7);
    assert_int_equal(tw_udp_decode(pkt, n, &KEY, SELF, &got), TW_UDP_OK);
    assert_memory_equal(&got, &h, sizeof h);
    assert_memory_equal(pkt + TW_UDP_HDR_SIZE, payload, sizeof payload);
    /* a bare acknowledgement */
    tw_udp_hdr_t a = {.src = 0, .dst = SELF, .ack = 9, .held = 300, .flags = TW_UDP_ACK};
    tw_udp_encode(pkt, &a, NULL, &KEY);
    assert_int_equal(tw_udp_decode(pkt, TW_UDP_HDR_SIZE, &KEY, SELF, &got), TW_UDP_OK);
    assert_int_equal(got.ack, 9);
    assert_int_equal(got.held, 300);
}

static void test_every_damaged_bit_is_caught(void **state) {
    (void)state;
    unsigned char pkt[PKT_MAX], payload[64] = "payload";
    tw_udp_hdr_t h, got;
    size_t n = data_packet(pkt, &h, payload, sizeof payload);
    for (size_t byte = 0; byte < n; byte++)
        for (int bit = 0; bit < 8; bit++) {
            pkt[byte] ^= (unsigned char)(1u << bit);
            tw_udp_verdict_t v = tw_udp_decode(pkt, n, &KEY, SELF, &got);
            size_t mac_at = offsetof(tw_udp_hdr_t, mac); /* under no CRC: the MAC covers them */
            int in_mac = byte >= mac_at && byte < mac_at + 8;
            assert_true(v == TW_UDP_BAD_CRC || (byte < 4 && v == TW_UDP_BAD_MAGIC) ||
                        (in_mac && v == TW_UDP_BAD_MAC));
            pkt[byte] ^= (unsigned char)(1u << bit);
        }
    for (size_t cut = 0; cut < n; cut++) { /* truncated anywhere */
        tw_udp_verdict_t v = tw_udp_decode(pkt, cut, &KEY, SELF, &got);
        assert_int_equal(v, cut < TW_UDP_HDR_SIZE ? TW_UDP_SHORT : TW_UDP_BAD_CRC);
    }
}

/* The header and prefix are believed on their own CRC (hcrc), the rest of the packet
 * only through the whole packet's, however it is split. */
static void test_prefix_decoded_alone(void **state) {
    (void)state;
    unsigned char pkt[PKT_MAX], payload[1000];
    tw_udp_hdr_t h, got;
    size_t n = patterned_packet(pkt, &h, payload, sizeof payload, 13);
    size_t head = TW_UDP_HDR_SIZE + TW_UDP_PREFIX;
    assert_int_equal(tw_udp_decode_prefix(pkt, head, n, &KEY, SELF, &got), TW_UDP_OK);
    assert_memory_equal(&got, &h, sizeof h);
    assert_int_equal(tw_udp_decode_prefix(pkt, head - 1, n, &KEY, SELF, &got), TW_UDP_SHORT);
    for (size_t split = TW_UDP_HDR_SIZE; split <= n; split += 37)
        assert_true(tw_udp_crc_split_ok(pkt, split, pkt + split, n - split, &got));
    for (size_t byte = 0; byte < n; byte += 7) { /* one bit anywhere */
        pkt[byte] ^= 4;
        tw_udp_verdict_t v = tw_udp_decode_prefix(pkt, head, n, &KEY, SELF, &got);
        size_t crc_at = offsetof(tw_udp_hdr_t, crc), mac_at = offsetof(tw_udp_hdr_t, mac);
        int in_crc = byte >= crc_at && byte < crc_at + 4; /* the whole packet's CRC */
        int in_mac = byte >= mac_at && byte < mac_at + 8;
        if (in_crc || in_mac) /* under the MAC alone */
            assert_int_equal(v, TW_UDP_BAD_MAC);
        else if (byte < head)
            assert_true(v == TW_UDP_BAD_CRC || (byte < 4 && v == TW_UDP_BAD_MAGIC));
        else /* the prefix is fine, the packet is not */
            assert_true(v == TW_UDP_OK &&
                        !tw_udp_crc_split_ok(pkt, head, pkt + head, n - head, &got));
        pkt[byte] ^= 4;
    }
    /* a claimed length that is not the datagram's */
    assert_int_equal(tw_udp_decode_prefix(pkt, head, n + 1, &KEY, SELF, &got), TW_UDP_BAD_LEN);
}

static void test_wrong_key_and_addressee(void **state) {
    (void)state;
    unsigned char pkt[PKT_MAX];
    tw_udp_hdr_t h, got;
    size_t n = data_packet(pkt, &h, "x", 1);
    assert_int_equal(tw_udp_decode(pkt, n, &OTHER, SELF, &got), TW_UDP_BAD_MAC);
    assert_int_equal(tw_udp_decode(pkt, n, &KEY, SELF + 1, &got), TW_UDP_BAD_FIELD);
    memset(pkt, 0, sizeof pkt);
    assert_int_equal(tw_udp_decode(pkt, TW_UDP_HDR_SIZE, &KEY, SELF, &got), TW_UDP_BAD_MAGIC);
}

/* The CRCs of a packet of n bytes recomputed over what it holds (its mac counted as 0),
 * as anyone can; with key, its MAC too, as only the job's processes can. */
static void reseal_by_hand(unsigned char *pkt, size_t n, const tw_siphash_key_t *key) {
    uint64_t mac = 0;
    memset(pkt + offsetof(tw_udp_hdr_t, crc), 0, 4);
    memset(pkt + offsetof(tw_udp_hdr_t, hcrc), 0, 4);
    memcpy(&mac, pkt + offsetof(tw_udp_hdr_t, mac), 8);
    memset(pkt + offsetof(tw_udp_hdr_t, mac), 0, 8);
    /* hcrc: the header and the prefix; crc: on from there over the rest */
    size_t payload_bytes = n - TW_UDP_HDR_SIZE;
    size_t prefix = payload_bytes < TW_UDP_PREFIX ? payload_bytes : TW_UDP_PREFIX;
    uint32_t hcrc = tw_crc32c(0, pkt, TW_UDP_HDR_SIZE + prefix);
    uint32_t crc = tw_crc32c(hcrc, pkt + TW_UDP_HDR_SIZE + prefix, n - TW_UDP_HDR_SIZE - prefix);
    memcpy(pkt + offsetof(tw_udp_hdr_t, crc), &crc, 4);
    memcpy(pkt + offsetof(tw_udp_hdr_t, hcrc), &hcrc, 4);
    if (key) mac = htole64(tw_siphash24(key, pkt, TW_UDP_HDR_SIZE));
    memcpy(pkt + offsetof(tw_udp_hdr_t, mac), &mac, 8);
}

/* Packets with valid CRCs and MAC whose fields cannot go together. */
static tw_udp_verdict_t forged(tw_udp_hdr_t h, size_t payload_bytes) {
    unsigned char pkt[PKT_MAX] = {0};
    unsigned char payload[PKT_MAX] = {0};
    uint16_t claimed = h.len;
    h.len = (uint16_t)payload_bytes; /* encode what is really there ... */
    tw_udp_encode(pkt, &h, payload, &KEY);
    h.len = claimed; /* ... then claim another length, CRC made to match */
    uint16_t le = claimed;
    memcpy(pkt + offsetof(tw_udp_hdr_t, len), &le, 2);
    size_t n = TW_UDP_HDR_SIZE + payload_bytes;
    reseal_by_hand(pkt, n, &KEY);
    tw_udp_hdr_t got;
    return tw_udp_decode(pkt, n, &KEY, SELF, &got);
}

static void test_impossible_fields(void **state) {
    (void)state;
    const uint16_t whole = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST;
    tw_udp_hdr_t ok = {
        .src = 1, .dst = SELF, .seq = 2, .ack = 1, .flags = whole, .len = 10, .msg_len = 10};
    assert_int_equal(forged(ok, 10), TW_UDP_OK); /* the forger itself is right */
    tw_udp_hdr_t h = ok;
    assert_int_equal(forged(h, 9), TW_UDP_BAD_LEN); /* len says more than came */
    assert_int_equal(forged(h, 11), TW_UDP_BAD_LEN);
    h.msg_len = 11; /* a whole message in one packet, of another size */
    assert_int_equal(forged(h, 10), TW_UDP_BAD_LEN);
    h = ok;
    h.flags = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST;
    h.msg_len = TW_UDP_MSG_MAX + 1; /* longer than any message */
    assert_int_equal(forged(h, 10), TW_UDP_BAD_LEN);
    h.msg_len = 5; /* first segment longer than its message */
    assert_int_equal(forged(h, 10), TW_UDP_BAD_LEN);
    h = ok;
    h.flags = TW_UDP_DATA | TW_UDP_ACK; /* a middle segment naming a message size */
    assert_int_equal(forged(h, 10), TW_UDP_BAD_LEN);
    h = ok;
    h.flags = whole | 0x100; /* unknown flag */
    assert_int_equal(forged(h, 10), TW_UDP_BAD_FIELD);
    h = ok;
    h.seq = 0; /* data without a sequence number */
    assert_int_equal(forged(h, 10), TW_UDP_BAD_FIELD);
    h = ok;
    h.ack = 0;
    assert_int_equal(forged(h, 10), TW_UDP_BAD_FIELD);
    h = ok;
    h.held = 1; /* a gap that holds nothing past it */
    assert_int_equal(forged(h, 10), TW_UDP_BAD_FIELD);
    h.held = TW_UDP_WINDOW_MAX + 1; /* further than any window reaches */
    assert_int_equal(forged(h, 10), TW_UDP_BAD_FIELD);
    h.held = TW_UDP_WINDOW_MAX;
    assert_int_equal(forged(h, 10), TW_UDP_OK);
    tw_udp_hdr_t a = {.src = 1, .dst = SELF, .ack = 3, .flags = TW_UDP_ACK};
    assert_int_equal(forged(a, 0), TW_UDP_OK);
    a.held = 2;
    assert_int_equal(forged(a, 0), TW_UDP_OK);
    a.held = 0;
    a.len = 4; /* an acknowledgement with a payload */
    assert_int_equal(forged(a, 4), TW_UDP_BAD_LEN);
    a.len = 0;
    a.seq = 7; /* an acknowledgement with a sequence number */
    assert_int_equal(forged(a, 0), TW_UDP_BAD_FIELD);
    a.seq = 0;
    a.flags = 0; /* neither data nor acknowledgement */
    assert_int_equal(forged(a, 0), TW_UDP_BAD_FIELD);
}

/* Whoever lacks the secret cannot make a packet the receiver accepts: any field, or
 * the payload, changed and both CRCs made to match is refused for its MAC; so is a
 * MAC with one bit flipped, and one made under another job's secret. */
static void test_mac_proves_header_and_payload(void **state) {
    (void)state;
    unsigned char pkt[PKT_MAX], payload[300];
    tw_udp_hdr_t h, got;
    size_t n = patterned_packet(pkt, &h, payload, sizeof payload, 3);
    assert_int_equal(tw_udp_decode(pkt, n, &KEY, SELF, &got), TW_UDP_OK);
    /* the MAC is SipHash-2-4 of the header as sent, its own field taken as 0 */
    unsigned char header[TW_UDP_HDR_SIZE];
    memcpy(header, pkt, sizeof header);
    memset(header + offsetof(tw_udp_hdr_t, mac), 0, 8);
    assert_true(got.mac == tw_siphash24(&KEY, header, sizeof header));
    size_t fields[] = {offsetof(tw_udp_hdr_t, src),  offsetof(tw_udp_hdr_t, seq),
                       offsetof(tw_udp_hdr_t, ack),  offsetof(tw_udp_hdr_t, flags),
                       offsetof(tw_udp_hdr_t, held), TW_UDP_HDR_SIZE,
                       TW_UDP_HDR_SIZE + 200};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        unsigned char copy[PKT_MAX];
        memcpy(copy, pkt, n);
        copy[fields[i]] ^= 1;
        reseal_by_hand(copy, n, NULL); /* the CRCs right again, the MAC as it was */
        assert_int_equal(tw_udp_decode(copy, n, &KEY, SELF, &got), TW_UDP_BAD_MAC);
        reseal_by_hand(copy, n, &KEY); /* with the secret it would pass the MAC */
        assert_int_not_equal(tw_udp_decode(copy, n, &KEY, SELF, &got), TW_UDP_BAD_MAC);
    }
    for (int bit = 0; bit < 64; bit++) {
        pkt[offsetof(tw_udp_hdr_t, mac) + bit / 8] ^= (unsigned char)(1u << (bit % 8));
        assert_int_equal(tw_udp_decode(pkt, n, &KEY, SELF, &got), TW_UDP_BAD_MAC);
        assert_int_equal(
            tw_udp_decode_prefix(pkt, TW_UDP_HDR_SIZE + TW_UDP_PREFIX, n, &KEY, SELF, &got),
            TW_UDP_BAD_MAC);
        pkt[offsetof(tw_udp_hdr_t, mac) + bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
    tw_udp_encode(pkt, &h, payload, &OTHER); /* another job's, sealed right */
    assert_int_equal(tw_udp_decode(pkt, n, &KEY, SELF, &got), TW_UDP_BAD_MAC);
    assert_int_equal(tw_udp_decode(pkt, n, &OTHER, SELF, &got), TW_UDP_OK);
}

/* A change to n bytes (a few bits from byte `from` on) that leaves their CRC32C as it
 * was, into delta: CRC32C is linear, crc(x ^ d) = crc(x) ^ crc(d) ^ crc(0), so 33 bits
 * whose effects on the CRC (32 bits) are dependent give one (Gaussian elimination). */
static void crc_keeping_delta(unsigned char *delta, size_t n, size_t from) {
    static unsigned char zeros[PKT_MAX], one[PKT_MAX];
    uint32_t base = tw_crc32c(0, zeros, n), effect[33];
    uint64_t uses[33]; /* which of the 33 bits each row combines */
    for (int i = 0; i < 33; i++) {
        memset(one, 0, n);
        one[from + (size_t)i / 8] = (unsigned char)(1u << (i % 8));
        effect[i] = tw_crc32c(0, one, n) ^ base;
        uses[i] = 1ull << i;
    }
    for (int bit = 0, row = 0; bit < 32 && row < 33; bit++) {
        int pivot = -1;
        for (int r = row; r < 33 && pivot < 0; r++)
            if (effect[r] >> bit & 1) pivot = r;
        if (pivot < 0) continue;
        uint32_t e = effect[pivot];
        uint64_t u = uses[pivot];
        effect[pivot] = effect[row], uses[pivot] = uses[row];
        effect[row] = e, uses[row] = u;
        for (int r = 0; r < 33; r++)
            if (r != row && effect[r] >> bit & 1) effect[r] ^= e, uses[r] ^= u;
        row++;
    }
    int zero = -1;
    for (int r = 0; r < 33 && zero < 0; r++)
        if (!effect[r] && uses[r]) zero = r;
    assert_true(zero >= 0);
    memset(delta, 0, n);
    for (int i = 0; i < 33; i++)
        if (uses[zero] >> i & 1) delta[from + (size_t)i / 8] ^= (unsigned char)(1u << (i % 8));
}

/* TW_UDP_MAC_PAYLOAD: the MAC covers the payload too. Without it the payload is
 * authenticated through its CRC32C only: a change that keeps the CRC (anyone can make
 * one, CRC32C being linear) passes; with it, it is refused, as is any other. */
static void test_mac_over_payload(void **state) {
    (void)state;
    unsigned char pkt[PKT_MAX], payload[700], copy[PKT_MAX];
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (unsigned char)(i * 5);
    tw_udp_hdr_t h = {.src = 1,
                      .dst = SELF,
                      .seq = 5,
                      .ack = 1,
                      .flags = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST,
                      .len = sizeof payload,
                      .msg_len = sizeof payload},
                 got;
    size_t n = TW_UDP_HDR_SIZE + sizeof payload, head = TW_UDP_HDR_SIZE + TW_UDP_PREFIX;
    for (int flag = 0; flag < 2; flag++) {
        h.flags = (uint16_t)(flag ? h.flags | TW_UDP_MAC_PAYLOAD : h.flags & ~TW_UDP_MAC_PAYLOAD);
        tw_udp_encode(pkt, &h, payload, &KEY);
        assert_int_equal(tw_udp_decode(pkt, n, &KEY, SELF, &got), TW_UDP_OK);
        if (flag) { /* the MAC is SipHash-2-4 of the header (mac as 0), then the payload */
            memcpy(copy, pkt, n);
            memset(copy + offsetof(tw_udp_hdr_t, mac), 0, 8);
            assert_true(got.mac == tw_siphash24(&KEY, copy, n));
        }
        /* the prefix alone proves such a packet only when it is the whole packet */
        assert_int_equal(tw_udp_decode_prefix(pkt, head, n, &KEY, SELF, &got),
                         flag ? TW_UDP_BAD_MAC : TW_UDP_OK);
        /* past the prefix, so that hcrc does not change either */
        unsigned char delta[PKT_MAX];
        crc_keeping_delta(delta, n, TW_UDP_HDR_SIZE + TW_UDP_PREFIX + 300);
        memcpy(copy, pkt, n);
        for (size_t i = 0; i < n; i++) copy[i] ^= delta[i];
        assert_memory_not_equal(copy, pkt, n);
        assert_int_equal(tw_udp_decode(copy, n, &KEY, SELF, &got),
                         flag ? TW_UDP_BAD_MAC : TW_UDP_OK);
        /* any payload change with both CRCs made right again, the MAC as sent */
        for (size_t at = 0; at < sizeof payload; at += 99) {
            memcpy(copy, pkt, n);
            copy[TW_UDP_HDR_SIZE + at] ^= 0x40;
            reseal_by_hand(copy, n, NULL);
            assert_int_equal(tw_udp_decode(copy, n, &KEY, SELF, &got), TW_UDP_BAD_MAC);
        }
    }
    /* a short one, whole within the prefix, is proven there */
    h.len = h.msg_len = 20;
    tw_udp_encode(pkt, &h, payload, &KEY);
    assert_int_equal(
        tw_udp_decode_prefix(pkt, TW_UDP_HDR_SIZE + 20, TW_UDP_HDR_SIZE + 20, &KEY, SELF, &got),
        TW_UDP_OK);
    /* on a bare acknowledgement the flag is an impossible field */
    tw_udp_hdr_t a = {.src = 1, .dst = SELF, .ack = 3, .flags = TW_UDP_ACK | TW_UDP_MAC_PAYLOAD};
    tw_udp_encode(pkt, &a, NULL, &KEY);
    assert_int_equal(tw_udp_decode(pkt, TW_UDP_HDR_SIZE, &KEY, SELF, &got), TW_UDP_BAD_FIELD);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_vectors),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_every_damaged_bit_is_caught),
        cmocka_unit_test(test_prefix_decoded_alone),
        cmocka_unit_test(test_wrong_key_and_addressee),
        cmocka_unit_test(test_impossible_fields),
        cmocka_unit_test(test_mac_proves_header_and_payload),
        cmocka_unit_test(test_mac_over_payload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
