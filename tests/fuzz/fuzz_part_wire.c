/* Fuzz target of what partitioned communication takes from a peer
 * (src/mpi/pt2pt/partitioned_wire.h, run by src/mpi/pt2pt/partitioned.c): its set-up
 * messages (SEND, CLEAR, EMPTY) and the put notifications that say a partition of the
 * sender's landed, mapped onto the receiver's own partitions.
 *
 * Byte 0 picks the mode. Message: the rest is one message; the verdict agrees with a
 * plain reading of the rules, and an accepted one reads back as sent. Arrivals: bytes 1-6
 * set up a receive (the sender's partitions, the receiver's, the unit of their sizes,
 * the sender's rank), the rest is a session of notifications of 12 bytes each (op,
 * class, status, peer, offset from the buffer, length), taken as partitioned.c takes
 * them: each verdict agrees with the rules, an accepted one names a partition of the
 * sender's inside the buffer, its span of the receiver's partitions holds exactly its
 * bytes, no own partition ever counts more bytes than it has, and the round is whole
 * exactly when every partition of the sender's landed. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/pt2pt/partitioned_wire.h"

enum { MODE_MSG, MODE_ARRIVALS, MODES };
enum { PARTS_MAX = 64, SETUP = 7, NOTE = 12 };

static long tried[MODES], accepted[MODES];

static uint32_t get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void message(const uint8_t *msg, size_t len) {
    tw_part_msg_t m;
    memset(&m, 0xa5, sizeof m);
    int op = tw_part_msg_take(msg, len, &m);
    tw_part_msg_t raw = {0};
    if (len == sizeof raw) memcpy(&raw, msg, len);
    int want = len == 48 && raw.op >= TW_PART_SEND && raw.op <= TW_PART_EMPTY && raw.tag >= 0 &&
               raw.partitions >= 1 && raw.partitions <= TW_PART_MAX &&
               raw.bytes % raw.partitions == 0 && (raw.op != TW_PART_SEND || raw.order != 0);
    FUZZ_CHECK(!!op == want);
    tried[MODE_MSG]++;
    if (!op) return;
    accepted[MODE_MSG]++;
    FUZZ_CHECK(op == (int)raw.op && !memcmp(&m, &raw, sizeof m));
    FUZZ_CHECK(m.partitions >= 1 && m.bytes / m.partitions * m.partitions == m.bytes);
}

static uint64_t gcd(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void arrivals(const uint8_t *data, size_t size) {
    uint64_t senders = 1 + data[1] % PARTS_MAX, owns = 1 + data[2] % PARTS_MAX;
    uint64_t unit = 1 + (get32(data + 3) & 0xfff) % 4096;
    int peer = data[3] & 7; /* overlaps unit's low byte: any rank 0..7 */
    uint64_t bytes = senders / gcd(senders, owns) * owns * unit;
    uint64_t sender_part = bytes / senders, own = bytes / owns;
    const uint64_t base = 0x10000000 + (uint64_t)data[SETUP - 1] * 4096;
    tw_part_recv_view_t v = {peer, base, bytes, sender_part};
    uint64_t landed = 0, landed_bytes = 0, arrived[PARTS_MAX] = {0};
    for (size_t at = SETUP; at + NOTE <= size; at += NOTE) {
        const uint8_t *d = data + at;
        tw_notification_t n = {0};
        n.op = d[0] % 8;
        n.cls = (uint8_t)(1u << (d[1] % 4));
        n.status = d[2] & 1 ? -(int32_t)(d[2] >> 1) : 0;
        n.peer = d[3] % 9;
        int32_t off = (int32_t)get32(d + 4);
        n.nla = base + (uint64_t)(int64_t)off;
        n.length = get32(d + 8) & 0xffffff;
        int64_t q = tw_part_arrival(&v, &n);
        /* the model */
        int64_t rel = off;
        int want = n.op == TW_OP_PUT && n.cls == TW_NOTIFY_COMPLETER && n.status == TW_OK &&
                   n.peer == peer && rel >= 0 && (uint64_t)rel < bytes &&
                   (uint64_t)rel % sender_part == 0 && n.length == sender_part;
        FUZZ_CHECK((q >= 0) == want);
        tried[MODE_ARRIVALS]++;
        if (q < 0) continue;
        accepted[MODE_ARRIVALS]++;
        FUZZ_CHECK((uint64_t)q < senders && (uint64_t)q * sender_part == (uint64_t)rel);
        FUZZ_CHECK(n.nla + n.length <= base + bytes);
        uint64_t first, last, sum = 0;
        tw_part_span((uint64_t)q, sender_part, own, &first, &last);
        FUZZ_CHECK(first <= last && last < owns);
        for (uint64_t k = first; k <= last; k++) {
            uint64_t o = tw_part_overlap((uint64_t)q, sender_part, k, own);
            FUZZ_CHECK(o > 0 && o <= own && o <= sender_part);
            sum += o;
        }
        FUZZ_CHECK(sum == sender_part);
        if (first > 0) FUZZ_CHECK(tw_part_overlap((uint64_t)q, sender_part, first - 1, own) == 0);
        if (last + 1 < owns)
            FUZZ_CHECK(tw_part_overlap((uint64_t)q, sender_part, last + 1, own) == 0);
        /* as partitioned.c takes it: counted once */
        uint64_t bit = (uint64_t)1 << q;
        if (landed & bit) continue;
        landed |= bit;
        for (uint64_t k = first; k <= last; k++) {
            arrived[k] += tw_part_overlap((uint64_t)q, sender_part, k, own);
            FUZZ_CHECK(arrived[k] <= own);
        }
        landed_bytes += sender_part;
        FUZZ_CHECK((landed_bytes == bytes) ==
                   (landed == (senders == 64 ? ~0ull : (1ull << senders) - 1)));
    }
    uint64_t total = 0;
    for (uint64_t k = 0; k < owns; k++) total += arrived[k];
    FUZZ_CHECK(total == landed_bytes && total <= bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    if (data[0] % MODES == MODE_MSG)
        message(data + 1, size - 1);
    else if (size >= SETUP)
        arrivals(data, size);
    return 0;
}

/* Valid messages, and sessions of the sender's partitions landing in any order with a
 * few that are not. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (index % 2 == 0) {
        tw_part_msg_t m = {0};
        m.op = 1 + rand32() % 3;
        m.tag = (int32_t)(rand32() % 100);
        m.context = rand32() % 64;
        m.sreq = 0x2c000000 | (rand32() & 0xffffff);
        m.rreq = m.op == TW_PART_SEND ? 0 : 0x2c000000 | (rand32() & 0xffffff);
        m.partitions = 1 + rand32() % 16;
        m.bytes = (uint64_t)m.partitions * (rand32() % 5000);
        m.nla = m.op == TW_PART_CLEAR ? 0x10000000 + rand32() : 0;
        if (m.op == TW_PART_SEND) m.order = 1 + rand32() % 4;
        m.key = m.op == TW_PART_CLEAR ? ((uint64_t)rand32() << 32 | rand32()) : 0;
        buf[0] = MODE_MSG;
        memcpy(buf + 1, &m, sizeof m);
        return 1 + sizeof m;
    }
    uint8_t senders = (uint8_t)(rand32() % PARTS_MAX), owns = (uint8_t)(rand32() % PARTS_MAX);
    uint32_t u = rand32() % 64;
    uint8_t setup[SETUP] = {MODE_ARRIVALS, senders, owns};
    memcpy(setup + 3, &u, 3);
    setup[SETUP - 1] = (uint8_t)rand32();
    memcpy(buf, setup, SETUP);
    size_t at = SETUP;
    /* the same sums arrivals() makes */
    uint64_t s = 1u + senders, o = 1u + owns, unit = 1 + (u & 0xfff) % 4096;
    uint64_t bytes = s / gcd(s, o) * o * unit, part = bytes / s;
    for (uint64_t q = 0; q < s && at + NOTE <= cap; q++) {
        uint64_t k = (q * 7 + index) % s; /* in a scrambled order */
        uint8_t note[NOTE] = {TW_OP_PUT, 1, 0, (uint8_t)(u & 7)};
        uint32_t off = (uint32_t)(k * part), len = (uint32_t)part;
        if (rand32() % 8 == 0) off += 1; /* now and then one that is not a partition */
        memcpy(note + 4, &off, 4);
        memcpy(note + 8, &len, 4);
        memcpy(buf + at, note, NOTE);
        at += NOTE;
    }
    return at;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; messages %ld/%ld accepted, arrivals %ld/%ld", accepted[MODE_MSG],
            tried[MODE_MSG], accepted[MODE_ARRIVALS], tried[MODE_ARRIVALS]);
}
