/* Fuzz target of the udp link's receive state machine (src/link/udp/udp.c): sequence
 * numbers, acknowledgements, selective retransmission, reassembly of messages over
 * several packets, packets kept ahead of a gap, messages the receiver refused (parked),
 * FIN, RST, and receiving in place (the lander).
 *
 * Each input opens a link L (endpoint 0 of 2, on 127.0.0.1, liveness off) and plays
 * endpoint 1 from a plain UDP socket S, whose address L is told. A second socket S2,
 * at another port, stands for anyone else who holds a packet of the job. Byte 0 picks
 * the mode:
 *
 *  0 honest peer, hostile network (small MTU: messages span many packets), and
 *  2 the same with an MTU large enough for receiving in place, a lander set and messages
 *    of TW_UDP_IN_PLACE_MIN bytes and more among the others. The input lists messages
 *    (their lengths; their bytes come from a generator seeded by the input) which the
 *    harness cuts into packets as a correct sender does, then a schedule: send the next
 *    packet, any packet again, skip one, swap two, a damaged copy, a copy under a
 *    forged MAC or another job's secret, a valid copy from S2, and polls whose deliver
 *    refuses as a full mailbox does, as the input's bits say. At the end every packet
 *    is sent again in order (again, as a sender whose timer fires) until all arrived.
 *    Checked: L delivers exactly the messages, in order, byte for byte, from peer 1,
 *    none twice, all of them by the end, then is idle; a lander is asked only for the
 *    message next in order, with its own prefix, and what it landed is that message;
 *    every packet L sends back is valid, a bare acknowledgement that never
 *    acknowledges a packet not yet sent, never goes backwards, reports held packets
 *    only up to one that was sent, and at the end acknowledges all; damaged and forged
 *    copies are counted dropped, copies from S2 counted from the wrong source, none
 *    breaks the framing.
 *  1 a buggy peer: packets sealed with the job's secret but with fields from the input
 *    (data with any flags, sequence numbers near the expected one or anywhere, lengths,
 *    acknowledgements of what L sent or of what it never did, held counts; bare acks,
 *    FIN, RST, probes, echoes; from S2, from endpoint 0 or a stranger, to another
 *    addressee), while L sends messages of its own to peer 1. Checked: nothing breaks
 *    (the sanitizers watch); a delivered message comes from peer 1 and holds at most
 *    TW_UDP_MSG_MAX bytes; a send returns what the window allows (TW_RETRY exactly when
 *    it is full), and the packets in flight never exceed it, nor hold what S has
 *    acknowledged; a packet L sends again is the very packet it sent first; L's
 *    acknowledgements never go backwards nor acknowledge a sequence number S did not
 *    send; a RST makes peer 1 lost with TW_ERR_RESET, after which sends fail with
 *    TW_ERR_LOST, and nothing else makes it lost. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <tollway/status.h>

#include "fuzz.h"
#include "link/udp/udp.h"
#include "link/udp/udp_wire.h"

enum {
    SELF = 0,
    PEER = 1,
    PEERS = 2,
    IP_UDP = 28,
    MODE_HONEST = 0,
    MODE_BUGGY = 1,
    MODE_IN_PLACE = 2,
    MODES = 3,
    /* honest, small: 64 bytes a packet, so a window of 1024 holds a longest message */
    SMALL_PAYLOAD = 64,
    SMALL_WINDOW = 1024,
    /* honest, in place: datagrams up to 20000 bytes */
    BIG_PAYLOAD = 20000 - IP_UDP - TW_UDP_HDR_SIZE,
    BIG_WINDOW = 8,
    IN_PLACE_LEN = TW_UDP_IN_PLACE_MIN - TW_UDP_HDR_SIZE, /* the shortest received in place */
    /* buggy: 1024 bytes a packet, a window of 64 that sends fill */
    BUGGY_PAYLOAD = 1024,
    BUGGY_WINDOW = 64,
    MSGS_MAX = 24,
    PKTS_MAX = 640,
    BYTES_MAX = 256 * 1024, /* of all the messages of one input */
    OPS_MAX = 600,
    PASSES = 20, /* of the final resend, before it is clear that L lost something */
    SEQ_MAP = 1 << 14,
};

static const unsigned char SECRET[TW_UDP_SECRET_SIZE] = {
    0x74, 0x77, 0x2d, 0x66, 0x75, 0x7a, 0x7a, 0x2d, 0x6c, 0x69, 0x6e, 0x6b, 0x2d, 0x6b, 0x65, 0x79};
static tw_siphash_key_t key, other_key; /* the job's, and another job's */

/* S (endpoint 1) and S2 (elsewhere): opened once, drained for every input. */
static int s_fd = -1, s2_fd = -1;
static struct sockaddr_in s_addr, s2_addr;

static volatile unsigned delivered_sum; /* read from each message delivered by a buggy peer */
static long inputs[MODES], delivered_total, in_place_total, dropped_total, wrong_source_total,
    resets_total, retries_total;

/* ---- the input and a generator ---- */

typedef struct reader {
    const uint8_t *data;
    size_t size, at;
} reader_t;

static unsigned take8(reader_t *r) {
    return r->at < r->size ? r->data[r->at++] : 0;
}
static unsigned take16(reader_t *r) {
    unsigned lo = take8(r);
    return lo | take8(r) << 8;
}
static uint32_t take32(reader_t *r) {
    uint32_t lo = take16(r);
    return lo | (uint32_t)take16(r) << 16;
}
static int more(const reader_t *r) {
    return r->at < r->size;
}

static uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void fill(uint8_t *buf, size_t len, uint64_t seed) {
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = mix(seed + i);
        size_t n = len - i < 8 ? len - i : 8;
        memcpy(buf + i, &v, n);
    }
}

/* ---- sockets ---- */

static int udp_socket(struct sockaddr_in *addr) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) abort();
    *addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof *addr;
    if (bind(fd, (struct sockaddr *)addr, sizeof *addr) ||
        getsockname(fd, (struct sockaddr *)addr, &len))
        abort();
    int size = 4 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size))
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    return fd;
}

static void drain(int fd) {
    uint8_t buf[64];
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC) >= 0) {
    }
}

static void send_to(int fd, const void *pkt, size_t len, const struct sockaddr_in *to) {
    /* loopback with room in both buffers: a failure here is the harness's, not L's */
    if (sendto(fd, pkt, len, 0, (const struct sockaddr *)to, sizeof *to) != (ssize_t)len) abort();
}

static long pauses;

/* A wait for what the kernel has not passed on yet, longer each time (a loaded machine). */
static void pause_for(unsigned ms) {
    pauses++;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static tw_udp_link_t *open_link(unsigned payload, unsigned window, struct sockaddr_in *addr) {
    drain(s_fd);
    drain(s2_fd);
    tw_udp_config_t cfg;
    tw_udp_config_default(&cfg);
    memcpy(cfg.secret, SECRET, sizeof SECRET);
    cfg.self = SELF;
    cfg.peers = PEERS;
    cfg.mtu = payload + IP_UDP + TW_UDP_HDR_SIZE;
    cfg.window = window;
    cfg.peer_timeout_ms = 3600 * 1000; /* only a RST makes peer 1 lost here */
    *addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    tw_udp_link_t *l = tw_udp_open(&cfg, addr);
    if (!l) abort();
    FUZZ_CHECK(tw_udp_set_peer(l, PEER, &s_addr) == TW_OK);
    FUZZ_CHECK(tw_udp_payload_max(l) == payload);
    return l;
}

static int from_link(const struct sockaddr_in *from, const struct sockaddr_in *link) {
    return from->sin_addr.s_addr == link->sin_addr.s_addr && from->sin_port == link->sin_port;
}

/* ---- an honest peer over a hostile network ---- */

typedef struct packet {
    tw_udp_hdr_t h;
    size_t off; /* in arena: the sealed packet */
} packet_t;

static uint8_t arena[BYTES_MAX + PKTS_MAX * TW_UDP_HDR_SIZE];
static uint8_t message_bytes[BYTES_MAX];
static uint8_t scratch[TW_UDP_HDR_SIZE + BIG_PAYLOAD];
static uint8_t landing_zone[TW_UDP_MSG_MAX];

typedef struct honest {
    unsigned nmsgs, npkts;
    size_t msg_off[MSGS_MAX], msg_len[MSGS_MAX];
    packet_t pkt[PKTS_MAX];
    unsigned delivered;  /* messages taken so far, in order */
    unsigned refuse;     /* deliver refuses while the low bit is set, one bit a call */
    unsigned skip_seed;  /* how much of the prefix the lander keeps */
    int lander_lands;    /* 0: the lander leaves every message to deliver */
    int landing;         /* land returned a destination; landed comes next */
    size_t landing_skip; /* what land asked to skip */
    unsigned landed_ok;
    uint8_t sent[PKTS_MAX + 2]; /* sequence numbers sent intact from S */
    uint32_t contiguous;        /* every one of 1 .. this sent intact */
    uint32_t last_ack;
    struct sockaddr_in link_addr;
} honest_t;

static honest_t hs;

static int honest_deliver(void *ctx, uint32_t peer, const void *msg, size_t len) {
    honest_t *r = ctx;
    FUZZ_CHECK(r == &hs);
    FUZZ_CHECK(peer == PEER);
    FUZZ_CHECK(!r->landing);
    FUZZ_CHECK(r->delivered < r->nmsgs); /* none twice, none made up */
    FUZZ_CHECK(len == r->msg_len[r->delivered]);
    FUZZ_CHECK(len == 0 || memcmp(msg, message_bytes + r->msg_off[r->delivered], len) == 0);
    int no = r->refuse & 1;
    r->refuse >>= 1;
    if (no) return 1;
    r->delivered++;
    return 0;
}

static void *honest_land(void *ctx, uint32_t peer, const void *prefix, size_t len, size_t *skip) {
    honest_t *r = ctx;
    FUZZ_CHECK(r == &hs);
    FUZZ_CHECK(peer == PEER);
    FUZZ_CHECK(!r->landing);
    FUZZ_CHECK(r->delivered < r->nmsgs);
    FUZZ_CHECK(len == r->msg_len[r->delivered]); /* only the message next in order */
    FUZZ_CHECK(len >= IN_PLACE_LEN && len <= BIG_PAYLOAD);
    const uint8_t *want = message_bytes + r->msg_off[r->delivered];
    FUZZ_CHECK(memcmp(prefix, want, TW_UDP_PREFIX) == 0); /* its own prefix, proven */
    if (!r->lander_lands) return NULL;
    size_t s = (r->skip_seed++ * 37u) % (TW_UDP_PREFIX + 1);
    *skip = s;
    r->landing = 1;
    r->landing_skip = s;
    memset(landing_zone, 0xa5, len); /* the kernel writes what counts again */
    return landing_zone;
}

static void honest_landed(void *ctx, uint32_t peer, const void *prefix, size_t len, int ok) {
    honest_t *r = ctx;
    FUZZ_CHECK(r == &hs);
    FUZZ_CHECK(peer == PEER);
    FUZZ_CHECK(r->landing); /* right after land gave a destination */
    r->landing = 0;
    FUZZ_CHECK(len == r->msg_len[r->delivered]);
    if (!ok) return; /* nothing taken: it comes again */
    const uint8_t *want = message_bytes + r->msg_off[r->delivered];
    size_t s = r->landing_skip;
    FUZZ_CHECK(memcmp(prefix, want, s) == 0);
    FUZZ_CHECK(memcmp(landing_zone, want + s, len - s) == 0); /* the rest, at dest */
    r->delivered++;
    r->landed_ok++;
}

/* The packets L sent back since the last look: bare acknowledgements, each valid. */
static void check_acks(honest_t *r) {
    uint8_t buf[256];
    for (;;) {
        struct sockaddr_in from;
        socklen_t flen = sizeof from;
        ssize_t n = recvfrom(s_fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC,
                             (struct sockaddr *)&from, &flen);
        if (n < 0) break;
        FUZZ_CHECK(from_link(&from, &r->link_addr));
        FUZZ_CHECK((size_t)n <= sizeof buf);
        tw_udp_hdr_t h;
        FUZZ_CHECK(tw_udp_decode(buf, (size_t)n, &key, PEER, &h) == TW_UDP_OK);
        FUZZ_CHECK(h.src == SELF && h.flags == TW_UDP_ACK); /* L sends no data here */
        FUZZ_CHECK(h.ack >= r->last_ack);                   /* never backwards */
        FUZZ_CHECK(h.ack <= r->contiguous + 1);             /* nothing not sent yet */
        if (h.held) {
            uint32_t furthest = h.ack + h.held - 1;
            FUZZ_CHECK(furthest <= r->npkts && r->sent[furthest]);
        }
        r->last_ack = h.ack;
    }
}

static void honest_poll(tw_udp_link_t *l, honest_t *r) {
    tw_udp_poll(l, honest_deliver, r);
    FUZZ_CHECK(!r->landing);
    check_acks(r);
}

static void send_intact(honest_t *r, unsigned k) {
    const packet_t *p = &r->pkt[k];
    send_to(s_fd, arena + p->off, TW_UDP_HDR_SIZE + p->h.len, &r->link_addr);
    r->sent[p->h.seq] = 1;
    while (r->contiguous < r->npkts && r->sent[r->contiguous + 1]) r->contiguous++;
}

/* Cuts the messages the input lists into packets, as tw_udp_send does. */
static void cut(honest_t *r, reader_t *in, int big, uint64_t seed) {
    size_t payload = big ? BIG_PAYLOAD : SMALL_PAYLOAD;
    unsigned want = 1 + take8(in) % (big ? 8 : MSGS_MAX);
    size_t bytes = 0, at = 0;
    uint32_t seq = 1;
    for (unsigned m = 0; m < want; m++) {
        unsigned kind = take8(in), raw = take16(in);
        size_t len;
        if (!big)
            len = raw % (kind & 1 ? 2048 : 200);
        else if (kind % 4 == 0) /* one datagram, received in place */
            len = IN_PLACE_LEN + raw % (BIG_PAYLOAD - IN_PLACE_LEN + 1);
        else if (kind % 4 == 1) /* the bounds of that */
            len = kind & 4 ? BIG_PAYLOAD : IN_PLACE_LEN;
        else if (kind % 4 == 2) /* several datagrams, long ones among them */
            len = BIG_PAYLOAD + 1 + (raw * 7u) % (TW_UDP_MSG_MAX - BIG_PAYLOAD);
        else
            len = raw % 300;
        size_t segments = len ? (len + payload - 1) / payload : 1;
        if (bytes + len > BYTES_MAX || r->npkts + segments > PKTS_MAX) break;
        r->msg_off[m] = bytes;
        r->msg_len[m] = len;
        fill(message_bytes + bytes, len, seed ^ mix(m));
        for (size_t off = 0, s = 0; s < segments; s++) {
            size_t n = len - off < payload ? len - off : payload;
            packet_t *p = &r->pkt[r->npkts++];
            p->h = (tw_udp_hdr_t){.src = PEER,
                                  .dst = SELF,
                                  .seq = seq++,
                                  .ack = 1, /* L sends nothing: nothing to acknowledge */
                                  .flags = TW_UDP_DATA | TW_UDP_ACK | (s == 0 ? TW_UDP_FIRST : 0) |
                                           (s == segments - 1 ? TW_UDP_LAST : 0),
                                  .len = (uint16_t)n,
                                  .msg_len = s == 0 ? (uint32_t)len : 0};
            p->off = at;
            tw_udp_encode(arena + at, &p->h, message_bytes + bytes + off, &key);
            at += TW_UDP_HDR_SIZE + n;
            off += n;
        }
        bytes += len;
        r->nmsgs++;
    }
}

static void run_honest(reader_t *in, int big) {
    honest_t *r = &hs;
    memset(r, 0, sizeof *r);
    unsigned setup = take8(in);
    r->lander_lands = (setup & 3) != 0;
    uint64_t seed = mix(setup ^ (uint64_t)take16(in) << 8);
    cut(r, in, big, seed);
    tw_udp_link_t *l = open_link(big ? BIG_PAYLOAD : SMALL_PAYLOAD, big ? BIG_WINDOW : SMALL_WINDOW,
                                 &r->link_addr);
    if (big) {
        static const tw_udp_lander_t lander = {honest_land, honest_landed};
        tw_udp_set_lander(l, &lander);
    }
    uint64_t damaged = 0, forged = 0, elsewhere = 0;
    unsigned next = 0;
    for (unsigned op = 0; op < OPS_MAX && more(in) && r->npkts; op++) {
        unsigned what = take8(in), arg = take8(in);
        unsigned any = arg % r->npkts;
        const packet_t *p = &r->pkt[any];
        size_t plen = TW_UDP_HDR_SIZE + p->h.len;
        switch (what % 9) {
        case 0: /* the next packet */
        case 1:
            if (next < r->npkts) send_intact(r, next++);
            break;
        case 2: /* any packet, again or early */
            send_intact(r, any);
            break;
        case 3: /* lost on the way */
            next += next < r->npkts;
            break;
        case 4: /* two swapped */
            if (next + 1 < r->npkts) {
                send_intact(r, next + 1);
                send_intact(r, next);
                next += 2;
            }
            break;
        case 5: { /* a damaged copy: one byte changed */
            memcpy(scratch, arena + p->off, plen);
            size_t at = mix(arg ^ (uint64_t)op << 8) % plen;
            scratch[at] ^= (uint8_t)(1 + mix(op) % 255);
            send_to(s_fd, scratch, plen, &r->link_addr);
            damaged++;
            break;
        }
        case 6: { /* forged: a MAC changed, or sealed under another job's secret */
            memcpy(scratch, arena + p->off, plen);
            if (arg & 0x80) {
                tw_udp_hdr_t h = p->h;
                tw_udp_encode(scratch, &h, arena + p->off + TW_UDP_HDR_SIZE, &other_key);
            } else {
                scratch[offsetof(tw_udp_hdr_t, mac) + arg % 8] ^= (uint8_t)(1 + op % 255);
            }
            send_to(s_fd, scratch, plen, &r->link_addr);
            forged++;
            break;
        }
        case 7: /* a valid copy, from elsewhere */
            send_to(s2_fd, arena + p->off, plen, &r->link_addr);
            elsewhere++;
            break;
        case 8: /* the mailbox fills and empties as these bits say */
            r->refuse = arg;
            break;
        }
        honest_poll(l, r);
    }
    /* the sender's timers fire: everything again, in order, until all has come */
    r->refuse = 0;
    for (unsigned pass = 0; r->delivered < r->nmsgs || r->last_ack != r->npkts + 1; pass++) {
        if (pass >= PASSES) {
            const tw_udp_stats_t *st = tw_udp_stats(l);
            fprintf(stderr, "delivered %u of %u, acknowledged %u of %u packets, %lu received\n",
                    r->delivered, r->nmsgs, r->last_ack - 1, r->npkts,
                    (unsigned long)st->packets_received);
        }
        FUZZ_CHECK(pass < PASSES); /* L dropped a packet that came whole: it never completes */
        if (pass) pause_for(pass);
        honest_poll(l, r);
        for (unsigned k = 0; k < r->npkts; k++) {
            send_intact(r, k);
            if (k % 8 == 7) honest_poll(l, r);
        }
        honest_poll(l, r);
        honest_poll(l, r);
    }
    FUZZ_CHECK(r->delivered == r->nmsgs);
    FUZZ_CHECK(tw_udp_idle(l));
    const tw_udp_stats_t *st = tw_udp_stats(l);
    uint64_t dropped = 0;
    for (int v = 0; v < TW_UDP_VERDICTS; v++) dropped += st->dropped[v];
    FUZZ_CHECK(st->dropped[TW_UDP_OK] == 0);
    FUZZ_CHECK(dropped == damaged + forged);
    FUZZ_CHECK(st->dropped[TW_UDP_BAD_MAC] >= forged);
    FUZZ_CHECK(st->wrong_source == elsewhere);
    FUZZ_CHECK(st->unknown_peer == 0 && st->protocol == 0);
    FUZZ_CHECK(st->msgs_received == r->nmsgs);
    FUZZ_CHECK(st->in_place == r->landed_ok);
    FUZZ_CHECK(tw_udp_peer_lost(l, PEER) == 0);
    FUZZ_CHECK(st->msgs_sent == 0 && tw_udp_in_flight(l, PEER) == 0);
    delivered_total += r->delivered;
    in_place_total += r->landed_ok;
    dropped_total += (long)dropped;
    wrong_source_total += (long)elsewhere;
    tw_udp_close(l);
    drain(s_fd);
}

/* ---- a buggy peer that holds the secret ---- */

typedef struct buggy {
    struct sockaddr_in link_addr;
    uint32_t l_next;   /* L's next sequence number to peer 1 */
    uint32_t s_next;   /* S's next sequence number, as far as it keeps count */
    uint32_t last_ack; /* L's last bare acknowledgement */
    unsigned refuse;
    uint32_t acked; /* the furthest valid bare acknowledgement S sent of what L sent */
    int reset;      /* a RST went from S */
    tw_udp_link_t *link;
    uint8_t sent[SEQ_MAP];
    uint64_t first_sent[SEQ_MAP]; /* a digest of each data packet L sent, as first sent */
} buggy_t;

static buggy_t bs;
static uint8_t big_buf[TW_UDP_HDR_SIZE + TW_UDP_MSG_MAX + 1];

static int buggy_deliver(void *ctx, uint32_t peer, const void *msg, size_t len) {
    buggy_t *r = ctx;
    FUZZ_CHECK(r == &bs);
    FUZZ_CHECK(peer == PEER);
    FUZZ_CHECK(len <= TW_UDP_MSG_MAX);
    for (size_t i = 0; i < len; i++) /* every byte readable (the sanitizers watch) */
        delivered_sum += ((const uint8_t *)msg)[i];
    int no = r->refuse & 1;
    r->refuse >>= 1;
    if (!no) delivered_total++;
    /* nothing is taken from a peer once it is lost, not even a message parked before */
    FUZZ_CHECK(!tw_udp_peer_lost(r->link, PEER));
    return no;
}

/* What L sent back: valid packets; its bare acknowledgements never go backwards and
 * acknowledge only sequence numbers S sent. */
static void check_buggy_replies(buggy_t *r) {
    for (;;) {
        struct sockaddr_in from;
        socklen_t flen = sizeof from;
        ssize_t n = recvfrom(s_fd, big_buf, sizeof big_buf, MSG_DONTWAIT | MSG_TRUNC,
                             (struct sockaddr *)&from, &flen);
        if (n < 0) break;
        FUZZ_CHECK(from_link(&from, &r->link_addr));
        FUZZ_CHECK((size_t)n <= TW_UDP_HDR_SIZE + BUGGY_PAYLOAD);
        tw_udp_hdr_t h;
        FUZZ_CHECK(tw_udp_decode(big_buf, (size_t)n, &key, PEER, &h) == TW_UDP_OK);
        FUZZ_CHECK(h.src == SELF);
        if (h.flags & TW_UDP_CONTROL) {
            FUZZ_CHECK(h.flags == TW_UDP_RST && r->reset); /* only once it had one */
            continue;
        }
        FUZZ_CHECK(h.ack == 1 || (h.ack - 1 < SEQ_MAP && r->sent[h.ack - 1]));
        if (h.flags & TW_UDP_DATA) { /* a resend carries the ack of its first sending */
            FUZZ_CHECK(h.seq < r->l_next);
            if (h.seq < SEQ_MAP) { /* a resend is the very packet sent first */
                uint64_t digest = tw_siphash24(&other_key, big_buf, (size_t)n) | 1;
                if (!r->first_sent[h.seq]) r->first_sent[h.seq] = digest;
                FUZZ_CHECK(r->first_sent[h.seq] == digest);
            }
            continue;
        }
        FUZZ_CHECK(h.ack >= r->last_ack);
        r->last_ack = h.ack;
    }
}

static void buggy_poll(tw_udp_link_t *l, buggy_t *r) {
    tw_udp_poll(l, buggy_deliver, r);
    check_buggy_replies(r);
    FUZZ_CHECK(tw_udp_in_flight(l, PEER) <= BUGGY_WINDOW);
    int lost = tw_udp_peer_lost(l, PEER);
    FUZZ_CHECK(lost == 0 || (lost == TW_ERR_RESET && r->reset));
}

/* A packet with these fields, sealed with the secret, from fd; noted when L should
 * take its sequence number. */
static void send_sealed(buggy_t *r, int fd, tw_udp_hdr_t *h, uint64_t seed) {
    uint8_t *pkt = big_buf;
    if (h->len > BUGGY_PAYLOAD + 1) h->len = BUGGY_PAYLOAD + 1; /* one too long: refused */
    fill(pkt + TW_UDP_HDR_SIZE, h->len, seed);
    tw_udp_seal(pkt, h, &key);
    size_t n = TW_UDP_HDR_SIZE + h->len;
    tw_udp_hdr_t d;
    if (fd == s_fd && tw_udp_decode(pkt, n, &key, SELF, &d) == TW_UDP_OK && d.src == PEER &&
        (d.flags & TW_UDP_DATA) && d.seq < SEQ_MAP)
        r->sent[d.seq] = 1;
    if (fd == s_fd && tw_udp_decode(pkt, n, &key, SELF, &d) == TW_UDP_OK && d.src == PEER &&
        d.flags == (d.flags & (TW_UDP_ACK | TW_UDP_FIN)) && d.ack <= r->l_next && d.ack > r->acked)
        r->acked = d.ack;
    send_to(fd, pkt, n, &r->link_addr);
}

/* seq is at or just past next (a sender that counts forward). */
static int seq_near(uint32_t seq, uint32_t next) {
    uint32_t d = seq - next;
    return d < 8;
}

static uint32_t ack_of(reader_t *in, const buggy_t *r) {
    unsigned a = take8(in);
    if (a >= 0xf0) return take32(in); /* anything */
    uint32_t back = a % 8;
    return r->l_next > back ? r->l_next - back : 1;
}

static void run_buggy(reader_t *in) {
    buggy_t *r = &bs;
    memset(r, 0, sizeof *r);
    r->l_next = r->s_next = 1;
    r->last_ack = 1;
    tw_udp_link_t *l = open_link(BUGGY_PAYLOAD, BUGGY_WINDOW, &r->link_addr);
    r->link = l;
    static uint8_t msg[TW_UDP_MSG_MAX + 1];
    for (unsigned op = 0; op < OPS_MAX && more(in); op++) {
        unsigned what = take8(in);
        tw_udp_hdr_t h = {.src = PEER, .dst = SELF};
        switch (what % 8) {
        case 0: /* data */
        case 1: {
            unsigned f = take8(in);
            int d = (int8_t)take8(in);
            h.seq = d == -128 ? take32(in) : r->s_next + (uint32_t)(d % 8);
            h.flags = TW_UDP_DATA | TW_UDP_ACK | (f & 1 ? TW_UDP_FIRST : 0) |
                      (f & 2 ? TW_UDP_LAST : 0) | (f & 4 ? TW_UDP_MAC_PAYLOAD : 0);
            h.len = (uint16_t)(take16(in) % (BUGGY_PAYLOAD + 2));
            if (f & 1) {
                unsigned m = take8(in);
                h.msg_len = f & 2 ? h.len : h.len + take16(in) % 4096;
                if (m >= 0xf0) h.msg_len = take32(in) % (2 * TW_UDP_MSG_MAX);
            }
            h.ack = ack_of(in, r);
            unsigned held = take8(in);
            h.held = held < 192 ? 0 : held - 190;
            if (seq_near(h.seq, r->s_next)) r->s_next = h.seq + 1;
            send_sealed(r, s_fd, &h, op);
            break;
        }
        case 2: { /* a bare acknowledgement, the last one with FIN */
            unsigned f = take8(in);
            h.flags = TW_UDP_ACK | (f & 1 ? TW_UDP_FIN : 0);
            h.ack = ack_of(in, r);
            unsigned held = take8(in);
            h.held = held < 128 ? 0 : held - 126;
            send_sealed(r, s_fd, &h, op);
            /* taken (unless peer 1 is lost): nothing acknowledged is in flight */
            for (int k = 0; k < 10000 && !tw_udp_peer_lost(l, PEER) &&
                            tw_udp_in_flight(l, PEER) > r->l_next - r->acked;
                 k++) {
                if (k) pause_for(1);
                buggy_poll(l, r);
            }
            FUZZ_CHECK(tw_udp_peer_lost(l, PEER) ||
                       tw_udp_in_flight(l, PEER) <= r->l_next - r->acked);
            break;
        }
        case 3: {                   /* control: a probe, an echo (a liveness socket's), a reset */
            unsigned c = take8(in); /* a reset ends the input's interest: one in 16 */
            h.flags = c % 16 == 0 ? TW_UDP_RST : c % 2 ? TW_UDP_PROBE : TW_UDP_ECHO;
            send_sealed(r, s_fd, &h, op);
            if (h.flags == TW_UDP_RST) {
                r->reset = 1;
                resets_total++;
                for (int k = 0; k < 10000 && !tw_udp_peer_lost(l, PEER); k++) {
                    if (k) pause_for(1);
                    buggy_poll(l, r);
                }
                FUZZ_CHECK(tw_udp_peer_lost(l, PEER) == TW_ERR_RESET);
            }
            break;
        }
        case 4: { /* L sends a message of its own */
            unsigned a = take16(in);
            size_t len = take8(in) & 1 ? a : a % 4096;
            if (a == 0xffff) len = TW_UDP_MSG_MAX + 1;
            size_t segments = len ? (len + BUGGY_PAYLOAD - 1) / BUGGY_PAYLOAD : 1;
            fill(msg, len, op);
            unsigned flight = tw_udp_in_flight(l, PEER);
            int rc = tw_udp_send(l, PEER, msg, len);
            if (len > TW_UDP_MSG_MAX)
                FUZZ_CHECK(rc == TW_ERR_SIZE);
            else if (tw_udp_peer_lost(l, PEER))
                FUZZ_CHECK(rc == TW_ERR_LOST);
            else if (flight + segments > BUGGY_WINDOW)
                FUZZ_CHECK(rc == TW_RETRY);
            else
                FUZZ_CHECK(rc == TW_OK);
            if (rc == TW_OK) r->l_next += (uint32_t)segments;
            retries_total += rc == TW_RETRY;
            break;
        }
        case 5: { /* from somewhere else, or not for L */
            unsigned v = take8(in) % 4;
            h.flags = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST;
            h.seq = r->s_next;
            h.ack = 1;
            h.len = h.msg_len = (uint16_t)(take8(in) % 64);
            if (v == 1) h.src = SELF;
            if (v == 2) h.src = PEERS + take8(in);
            if (v == 3) h.dst = PEER;
            send_sealed(r, v == 0 ? s2_fd : s_fd, &h, op);
            break;
        }
        case 6: /* the mailbox fills and empties as these bits say */
            r->refuse = take8(in);
            break;
        case 7: /* every field as the input says */
            h.flags = (uint16_t)take16(in);
            h.seq = take32(in);
            h.ack = take32(in);
            h.msg_len = take32(in);
            h.held = take32(in);
            h.len = (uint16_t)(take16(in) % (BUGGY_PAYLOAD + 2));
            send_sealed(r, s_fd, &h, op);
            break;
        }
        buggy_poll(l, r);
    }
    buggy_poll(l, r);
    if (r->reset) FUZZ_CHECK(tw_udp_send(l, PEER, "x", 1) == TW_ERR_LOST);
    tw_udp_close(l);
    drain(s_fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    if (s_fd < 0) {
        key = tw_siphash_key(SECRET);
        other_key = key;
        other_key.k1 ^= 1;
        s_fd = udp_socket(&s_addr);
        s2_fd = udp_socket(&s2_addr);
    }
    reader_t in = {data, size, 1};
    unsigned mode = data[0] % MODES;
    inputs[mode]++;
    if (mode == MODE_BUGGY)
        run_buggy(&in);
    else
        run_honest(&in, mode == MODE_IN_PLACE);
    return 0;
}

/* Well-formed inputs: messages and a schedule that sends most packets in order with
 * some faults, or a buggy peer's packets near the sequence numbers expected. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    unsigned mode = index % MODES;
    size_t n = 0;
#define PUT(v)                                                                                     \
    do {                                                                                           \
        if (n < cap) buf[n++] = (uint8_t)(v);                                                      \
    } while (0)
    PUT(mode + MODES * (rand32() % 8));
    if (mode != MODE_BUGGY) {
        PUT(rand32());
        PUT(rand32());
        PUT(rand32());
        unsigned nmsgs = 1 + rand32() % (mode == MODE_IN_PLACE ? 5 : 12);
        PUT(nmsgs - 1);
        for (unsigned m = 0; m < nmsgs; m++) {
            PUT(rand32());
            PUT(rand32());
            PUT(rand32());
        }
        /* mostly the next packet; now and then each fault */
        static const uint8_t schedule[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                           0, 0, 2, 3, 4, 5, 6, 7, 8, 8};
        unsigned ops = 8 + rand32() % 120;
        for (unsigned k = 0; k < ops; k++) {
            PUT(schedule[rand32() % sizeof schedule]);
            PUT(rand32());
        }
        return n;
    }
    unsigned ops = 8 + rand32() % 80;
    for (unsigned k = 0; k < ops; k++) {
        unsigned what = rand32() % 8;
        PUT(what);
        unsigned extra = what <= 1 ? 9 : what == 7 ? 20 : 4;
        for (unsigned i = 0; i < extra; i++) {
            uint32_t v = rand32();
            /* sequence deltas and acks mostly near what is expected */
            PUT(what <= 1 && i == 1 ? v % 3 : what <= 2 && i >= 3 ? v % 0xf0 : v);
        }
    }
#undef PUT
    return n;
}

void fuzz_report(FILE *out) {
    fprintf(out,
            "; honest %ld, buggy %ld, in place %ld inputs; %ld messages delivered, %ld in "
            "place; %ld damaged or forged dropped, %ld from the wrong source; %ld resets; %ld "
            "sends refused for the window; %ld pauses for the network",
            inputs[MODE_HONEST], inputs[MODE_BUGGY], inputs[MODE_IN_PLACE], delivered_total,
            in_place_total, dropped_total, wrong_source_total, resets_total, retries_total, pauses);
}
