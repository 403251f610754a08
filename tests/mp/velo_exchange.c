/* All-to-all exchange (self included) and a many-to-one flood, both with sizes
 * spread over the whole range. Every message carries (source, sequence) and bytes
 * derived from them; each receiver checks every message arrives exactly once, in
 * order per sender, intact. Run with a tiny mailbox (TW_VELO_SLOTS=128) the mailboxes
 * fill constantly: nothing may be lost and nothing may deadlock.
 * usage: velo_exchange alltoall|flood [messages per sender] [full]
 * With "full", senders check that the receiver's mailbox really did fill. */
#include <stdint.h>
#include <string.h>

#include "mp_check.h"

typedef struct tally {
    int size;
    uint32_t *next; /* next sequence expected from each source */
    long received;
} tally_t;

static size_t length_of(uint32_t seq, int source) {
    static const size_t sizes[] = {0, 8, 56, 57, 100, 512, 1000, 4096, 2000, 120, 64, 8};
    size_t n = sizes[(seq + (uint32_t)source) % (sizeof sizes / sizeof sizes[0])];
    return n < 8 ? 8 : n; /* room for the header */
}

static void fill(unsigned char *buf, int source, uint32_t seq, size_t len) {
    memcpy(buf, &source, 4);
    memcpy(buf + 4, &seq, 4);
    for (size_t i = 8; i < len; i++) buf[i] = (unsigned char)(source * 13 + seq * 7 + i);
}

static void check_msg(const tw_velo_msg_t *msg, void *arg) {
    tally_t *t = arg;
    const unsigned char *p = msg->data;
    if (msg->tag == TW_VELO_TAG_LOST) { /* the device's notice, not data */
        int32_t cause = 0;
        if (msg->length >= 4) memcpy(&cause, p, 4);
        fprintf(stderr, "velo_exchange: rank %d: rank %d lost: %s\n", mp_rank, msg->source,
                tw_strerror(cause));
        exit(1);
    }
    CHECK(msg->length >= 8);
    int source;
    uint32_t seq;
    memcpy(&source, p, 4);
    memcpy(&seq, p + 4, 4);
    CHECK(source == msg->source);
    CHECK(source >= 0 && source < t->size);
    CHECK(msg->tag == (unsigned)(seq % 200));
    CHECK(seq == t->next[source]); /* exactly once, in order per sender */
    CHECK(msg->length == length_of(seq, source));
    for (size_t i = 8; i < msg->length; i++)
        CHECK(p[i] == (unsigned char)(source * 13 + seq * 7 + i));
    t->next[source]++;
    t->received++;
}

static void drain(tw_ep_t *ep, tally_t *t, long until) {
    tw_velo_msg_t msg;
    while (t->received < until) {
        int rc = tw_velo_peek(ep, &msg);
        if (rc == TW_EMPTY) continue;
        CHECK_RC(rc, TW_OK);
        check_msg(&msg, t);
        CHECK_RC(tw_velo_release(ep, &msg), TW_OK);
    }
}

int main(int argc, char **argv) {
    CHECK(argc >= 2);
    int flood = strcmp(argv[1], "flood") == 0;
    uint32_t count = argc > 2 ? (uint32_t)atoi(argv[2]) : 2000;
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep), size = tw_ep_size(ep);
    tally_t t = {size, calloc((size_t)size, sizeof(uint32_t)), 0};
    CHECK(t.next);
    unsigned char buf[TW_VELO_MAX_SIZE];
    long expect;
    if (flood) { /* everyone but rank 0 floods rank 0, which starts late */
        expect = rank == 0 ? (long)(size - 1) * count : 0;
        if (rank == 0) {
            for (volatile long spin = 0; spin < 20000000; spin++) {
            }
            drain(ep, &t, expect);
        } else {
            for (uint32_t seq = 0; seq < count; seq++) {
                size_t len = length_of(seq, rank);
                fill(buf, rank, seq, len);
                mp_send(ep, 0, seq % 200, buf, len, NULL, NULL);
            }
        }
    } else { /* everyone sends to everyone, interleaved, draining while blocked */
        expect = (long)size * count;
        for (uint32_t seq = 0; seq < count; seq++)
            for (int d = 0; d < size; d++) {
                int dest = (rank + d) % size;
                size_t len = length_of(seq, rank);
                fill(buf, rank, seq, len);
                mp_send(ep, dest, seq % 200, buf, len, check_msg, &t);
            }
        drain(ep, &t, expect);
    }
    for (int s = 0; s < size; s++)
        CHECK(t.next[s] == (flood ? (rank == 0 && s != 0 ? count : 0) : count));
    tw_velo_msg_t msg;
    CHECK_RC(tw_velo_probe(ep, &msg), TW_EMPTY); /* nothing extra arrived */
    const tw_ep_stats_t *st = tw_ep_stats(ep);
    CHECK(st->msgs_received == (uint64_t)expect);
    if (argc > 3 && strcmp(argv[3], "full") == 0 && (!flood || rank != 0))
        CHECK(st->send_retries > 0);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    free(t.next);
    return 0;
}
