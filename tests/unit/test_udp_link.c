/* The udp link between two endpoints of this process over the loopback interface:
 * in-order, exactly-once delivery with and without injected faults, back pressure
 * from a receiver that refuses, the send window, a peer declared lost, and forged
 * datagrams dropped and counted. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "link/udp/crc32c.h"
#include "link/udp/udp.h"
#include "tollway/status.h"

/* The job's secret, and as SipHash takes it. */
static const unsigned char SECRET[TW_UDP_SECRET_SIZE] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                         8, 9, 10, 11, 12, 13, 14, 15};
static const tw_siphash_key_t KEY = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};

typedef struct pair {
    tw_udp_link_t *l[2];
    struct sockaddr_in addr[2];
} pair_t;

/* Links opened from now on authenticate their payloads too (TW_UDP_AUTH=payload). */
static int pair_mac_payload;
/* Links opened from now on send runs of packets without the kernel's segmentation. */
static int pair_no_gso;

/* mtu, window: 0 for the link's defaults */
static void open_pair_sized(pair_t *p, const tw_udp_faults_t *faults, unsigned timeout_ms,
                            unsigned mtu, unsigned window) {
    for (int k = 0; k < 2; k++) {
        tw_udp_config_t cfg;
        tw_udp_config_default(&cfg);
        if (mtu) cfg.mtu = mtu;
        if (window) cfg.window = window;
        memcpy(cfg.secret, SECRET, sizeof cfg.secret);
        cfg.mac_payload = pair_mac_payload;
        cfg.offload = !pair_no_gso;
        cfg.self = (uint32_t)k;
        cfg.peers = 2;
        cfg.rto_us = 1000;
        if (timeout_ms) cfg.peer_timeout_ms = timeout_ms;
        if (faults) {
            cfg.faults = *faults;
            cfg.faults.seed = faults->seed + (uint64_t)k;
        }
        p->addr[k] = (struct sockaddr_in){.sin_family = AF_INET};
        p->addr[k].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        p->l[k] = tw_udp_open(&cfg, &p->addr[k]);
        assert_non_null(p->l[k]);
        assert_int_not_equal(p->addr[k].sin_port, 0);
    }
    assert_int_equal(tw_udp_set_peer(p->l[0], 1, &p->addr[1]), TW_OK);
    assert_int_equal(tw_udp_set_peer(p->l[1], 0, &p->addr[0]), TW_OK);
}

static void open_pair(pair_t *p, const tw_udp_faults_t *faults, unsigned timeout_ms) {
    open_pair_sized(p, faults, timeout_ms, 0, 0);
}

static void close_pair(pair_t *p) {
    tw_udp_close(p->l[0]);
    tw_udp_close(p->l[1]);
}

/* What one side has received: message n carries n, then bytes (n * 31 + i). */
typedef struct inbox {
    uint32_t next;  /* number of the message expected next */
    int refuse_odd; /* refuse every other delivery attempt */
    unsigned attempts;
} inbox_t;

static size_t msg_size(uint32_t n) {
    static const size_t sizes[] = {0, 1, 4, 56, 1431, 1432, 1433, 4096, 9000, TW_UDP_MSG_MAX};
    return n < 10 ? sizes[n] : (n * 2654435761u) % 9000;
}

static void fill(unsigned char *buf, uint32_t n, size_t len) {
    for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)(n * 31 + i);
    if (len >= 4) memcpy(buf, &n, 4);
}

static int check_delivery(void *ctx, uint32_t peer, const void *msg, size_t len) {
    inbox_t *in = ctx;
    if (in->refuse_odd && in->attempts++ % 2) return 1;
    static unsigned char want[TW_UDP_MSG_MAX];
    assert_true(peer <= 1);
    assert_int_equal(len, msg_size(in->next));
    fill(want, in->next, len);
    assert_memory_equal(msg, want, len);
    in->next++;
    return 0;
}

/* Sends count messages each way, polling both sides, until every one has arrived. */
static void exchange(pair_t *p, uint32_t count, inbox_t in[2]) {
    static unsigned char buf[TW_UDP_MSG_MAX];
    uint32_t sent[2] = {0, 0};
    long rounds = 0;
    while (in[0].next < count || in[1].next < count) {
        for (int k = 0; k < 2; k++) {
            while (sent[k] < count) {
                size_t len = msg_size(sent[k]);
                fill(buf, sent[k], len);
                int rc = tw_udp_send(p->l[k], (uint32_t)(1 - k), buf, len);
                assert_true(rc == TW_OK || rc == TW_RETRY);
                if (rc == TW_RETRY) break;
                sent[k]++;
            }
            tw_udp_poll(p->l[k], check_delivery, &in[k]);
        }
        assert_true(++rounds < 50000000); /* a stuck link fails instead of hanging */
    }
}

static void test_in_order_exactly_once(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    inbox_t in[2] = {{0}, {0}};
    exchange(&p, 2000, in);
    const tw_udp_stats_t *s = tw_udp_stats(p.l[1]);
    assert_int_equal(s->msgs_received, 2000);
    assert_int_equal(s->msgs_sent, 2000);
    for (int v = 1; v < TW_UDP_VERDICTS; v++) assert_int_equal(s->dropped[v], 0);
    close_pair(&p);
}

/* 1 when this kernel lets a UDP socket take joined datagrams (UDP_GRO, Linux 5.0). */
static int kernel_joins(void) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;
    assert_true(fd >= 0);
    int ok = setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof one) == 0;
    close(fd);
    return ok;
}

/* Messages over several packets (MTU 1500) leave in runs the kernel cuts (UDP_SEGMENT)
 * and come joined (UDP_GRO: loopback hands a run to the socket whole), and arrive as they
 * do packet by packet; with the offload off neither happens. */
static void test_runs_go_segmented(void **state) {
    (void)state;
    for (int off = 0; off < 2; off++) {
        pair_no_gso = off;
        pair_t p;
        open_pair(&p, NULL, 0);
        inbox_t in[2] = {{0}, {0}};
        exchange(&p, 300, in);
        for (int k = 0; k < 2; k++) {
            const tw_udp_stats_t *s = tw_udp_stats(p.l[k]);
            assert_int_equal(s->msgs_received, 300);
            if (off) {
                assert_int_equal(s->segmented, 0);
                assert_int_equal(s->joined, 0);
            } else { /* the 64 KiB message alone is a run of 45 packets */
                assert_true(s->segmented >= 45 && s->segmented <= s->packets_sent);
                if (kernel_joins())
                    assert_true(s->joined >= 45 && s->joined <= s->packets_received);
                else /* before Linux 5.0 the link does without */
                    assert_int_equal(s->joined, 0);
            }
        }
        close_pair(&p);
    }
    pair_no_gso = 0;
}

/* A socket whose checksums are off (SO_NO_CHECK) has the kernel refuse segmentation
 * (EINVAL): the link turns it off and sends what was refused packet by packet at once.
 * The receiver gets a 64 KiB message (45 packets) whole while the sender is never polled
 * (nothing of it could be sent again), and later messages go as well. */
static void test_refused_segmentation_falls_back(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    int one = 1;
    assert_int_equal(setsockopt(tw_udp_fd(p.l[0]), SOL_SOCKET, SO_NO_CHECK, &one, sizeof one), 0);
    static unsigned char buf[TW_UDP_MSG_MAX];
    fill(buf, 9, msg_size(9));
    assert_int_equal(tw_udp_send(p.l[0], 1, buf, msg_size(9)), TW_OK);
    inbox_t got = {.next = 9};
    for (int tries = 0; got.next == 9 && tries < 10000; tries++) { /* loopback: at once */
        tw_udp_poll(p.l[1], check_delivery, &got);
        if (got.next == 9) usleep(1000);
    }
    assert_int_equal(got.next, 10);
    const tw_udp_stats_t *s = tw_udp_stats(p.l[0]);
    assert_int_equal(s->retransmits, 0);
    assert_int_equal(s->segmented, 0);
    close_pair(&p);
    /* and a whole exchange over such sockets */
    open_pair(&p, NULL, 0);
    for (int k = 0; k < 2; k++)
        assert_int_equal(setsockopt(tw_udp_fd(p.l[k]), SOL_SOCKET, SO_NO_CHECK, &one, sizeof one),
                         0);
    inbox_t in[2] = {{0}, {0}};
    exchange(&p, 300, in);
    for (int k = 0; k < 2; k++) assert_int_equal(tw_udp_stats(p.l[k])->segmented, 0);
    close_pair(&p);
}

static void test_faults_are_repaired(void **state) {
    (void)state;
    tw_udp_faults_t f = {.drop = 0.01,
                         .duplicate = 0.01,
                         .reorder = 0.01,
                         .corrupt = 0.001,
                         .delay = 0.01,
                         .delay_us = 300,
                         .seed = 42};
    pair_t p;
    open_pair(&p, &f, 0);
    inbox_t in[2] = {{0}, {0}};
    exchange(&p, 4000, in);
    uint64_t corrupt = 0, caught = 0, retransmits = 0, duplicates = 0;
    for (int k = 0; k < 2; k++) {
        const tw_udp_stats_t *s = tw_udp_stats(p.l[k]);
        assert_int_equal(s->msgs_received, 4000);
        corrupt += s->injected_corrupt;
        caught += s->dropped[TW_UDP_BAD_CRC] + s->dropped[TW_UDP_BAD_MAGIC];
        retransmits += s->retransmits;
        duplicates += s->duplicates;
        assert_true(s->injected_drop > 0 && s->injected_duplicate > 0 && s->injected_reorder > 0);
    }
    assert_true(corrupt > 0);
    assert_true(caught >= corrupt - corrupt / 10); /* each damaged packet caught (a few may
                                                      be lost to a later injected fault) */
    assert_true(retransmits > 0 && duplicates > 0);
    close_pair(&p);
}

/* Receiving in place: large messages whole in one datagram land straight in the
 * lander's area for them (message n to area n, named by its first 4 bytes, which the
 * link reads first); the rest are delivered. With packets damaged, dropped and out of
 * order, every message still arrives once, in order, and each area holds exactly its
 * message or, when its message was never landed, nothing. */
enum { LAND_MSGS = 600, LAND_AREA = TW_UDP_MSG_MAX };

typedef struct lander_state {
    inbox_t in;
    unsigned char *area;      /* LAND_MSGS areas of LAND_AREA bytes */
    unsigned char *landed_ok; /* per message: landed */
    uint32_t landing;         /* the message land was asked about */
    unsigned ok, damaged;
} lander_state_t;

static size_t land_size(uint32_t n) {
    return n % 4 == 3 ? TW_UDP_MSG_MAX : 16384 + (n * 7919u) % 40000;
}

static int land_delivery(void *ctx, uint32_t peer, const void *msg, size_t len) {
    lander_state_t *st = ctx;
    static unsigned char want[TW_UDP_MSG_MAX];
    assert_int_equal(peer, 0);
    assert_int_equal(len, land_size(st->in.next));
    fill(want, st->in.next, len);
    assert_memory_equal(msg, want, len);
    st->in.next++;
    return 0;
}

static void *land_at(void *ctx, uint32_t peer, const void *prefix, size_t len, size_t *skip) {
    lander_state_t *st = ctx;
    uint32_t n;
    assert_int_equal(peer, 0);
    assert_true(len >= TW_UDP_IN_PLACE_MIN);
    memcpy(&n, prefix, 4);
    assert_int_equal(n, st->in.next); /* only the message expected next */
    assert_int_equal(len, land_size(n));
    st->landing = n;
    *skip = 4;
    return st->area + (size_t)n * LAND_AREA + 4;
}

static void landed_at(void *ctx, uint32_t peer, const void *prefix, size_t len, int ok) {
    lander_state_t *st = ctx;
    uint32_t n;
    memcpy(&n, prefix, 4);
    assert_int_equal(n, st->landing);
    if (!ok) {
        st->damaged++;
        return;
    }
    static unsigned char want[TW_UDP_MSG_MAX];
    fill(want, n, len);
    assert_memory_equal(st->area + (size_t)n * LAND_AREA + 4, want + 4, len - 4);
    st->landed_ok[n] = 1;
    st->ok++;
    st->in.next++;
}

static void test_in_place_receive(void **state) {
    (void)state;
    tw_udp_faults_t f = {
        .drop = 0.02, .duplicate = 0.02, .reorder = 0.02, .corrupt = 0.03, .seed = 7};
    pair_t p;
    open_pair_sized(&p, &f, 0, 65535, 0);
    static const tw_udp_lander_t lander = {land_at, landed_at};
    tw_udp_set_lander(p.l[1], &lander);
    lander_state_t st = {0};
    st.area = malloc((size_t)LAND_MSGS * LAND_AREA);
    st.landed_ok = calloc(LAND_MSGS, 1);
    assert_non_null(st.area);
    assert_non_null(st.landed_ok);
    memset(st.area, 0xee, (size_t)LAND_MSGS * LAND_AREA);
    /* every other message's body is sent from where it lies (tw_udp_sendv_kept), and
     * from there again when it is lost: each stays untouched until all arrived */
    unsigned char *kept = malloc((size_t)LAND_MSGS * LAND_AREA);
    assert_non_null(kept);
    inbox_t back = {0};
    uint32_t sent = 0;
    long rounds = 0;
    while (st.in.next < LAND_MSGS) {
        /* a few at a time: a whole window of 64 KiB datagrams at once would overflow
         * the receiving socket, and the gaps would take most of them the usual way */
        for (int burst = 0; burst < 4 && sent < LAND_MSGS; burst++) {
            size_t len = land_size(sent);
            unsigned char *buf = kept + (size_t)sent * LAND_AREA;
            fill(buf, sent, len);
            struct iovec v[2] = {{buf, 100}, {buf + 100, len - 100}};
            int rc =
                sent % 2 ? tw_udp_send(p.l[0], 1, buf, len) : tw_udp_sendv_kept(p.l[0], 1, v, 2);
            assert_true(rc == TW_OK || rc == TW_RETRY);
            if (rc == TW_RETRY) break;
            sent++;
        }
        tw_udp_poll(p.l[0], check_delivery, &back);
        tw_udp_poll(p.l[1], land_delivery, &st);
        assert_true(++rounds < 50000000);
    }
    const tw_udp_stats_t *s = tw_udp_stats(p.l[1]);
    assert_int_equal(s->msgs_received, LAND_MSGS);
    assert_int_equal(s->in_place, st.ok);
    /* every fault leaves a gap: what comes behind it until it is filled is kept the
     * usual way, so a share of the messages lands, not all */
    assert_true(st.ok >= LAND_MSGS / 8);
    assert_true(st.damaged > 0); /* and damaged ones were caught after landing */
    static unsigned char want[TW_UDP_MSG_MAX];
    for (uint32_t n = 0; n < LAND_MSGS; n++) {
        const unsigned char *a = st.area + (size_t)n * LAND_AREA;
        size_t len = land_size(n);
        if (st.landed_ok[n]) {
            fill(want, n, len);
            assert_memory_equal(a + 4, want + 4, len - 4);
        } else if (n % 4 == 3) { /* two datagrams: never landed, never touched */
            for (size_t i = 0; i < LAND_AREA; i++) assert_int_equal(a[i], 0xee);
        }
    }
    free(kept);
    free(st.area);
    free(st.landed_ok);
    close_pair(&p);
}

/* A stream of large datagrams, once the receiver has seen the first: every one lands,
 * however many wait in the socket (none is read into the link's buffer in a batch). */
enum { STREAM_MSGS = 150, STREAM_SIZE = 20000 };

typedef struct stream_state {
    unsigned char *area;
    uint32_t next, landing;
} stream_state_t;

static void *stream_land(void *ctx, uint32_t peer, const void *prefix, size_t len, size_t *skip) {
    stream_state_t *st = ctx;
    (void)peer;
    memcpy(&st->landing, prefix, 4);
    assert_int_equal(st->landing, st->next);
    assert_int_equal(len, STREAM_SIZE);
    *skip = 4;
    return st->area + (size_t)st->landing * STREAM_SIZE + 4;
}

static void stream_landed(void *ctx, uint32_t peer, const void *prefix, size_t len, int ok) {
    stream_state_t *st = ctx;
    (void)peer, (void)len;
    assert_true(ok);
    memcpy(st->area + (size_t)st->landing * STREAM_SIZE, prefix, 4); /* what land skipped */
    st->next++;
}

static int stream_delivery(void *ctx, uint32_t peer, const void *msg, size_t len) {
    stream_state_t *st = ctx;
    (void)peer;
    assert_int_equal(len, STREAM_SIZE);
    memcpy(st->area + (size_t)st->next * STREAM_SIZE, msg, len);
    st->next++;
    return 0;
}

static void test_in_place_stream(void **state) {
    (void)state;
    pair_t p;
    open_pair_sized(&p, NULL, 0, 65535, 2 * STREAM_MSGS); /* more than a receive batch */
    int rcvbuf = 0;
    socklen_t optlen = sizeof rcvbuf;
    getsockopt(tw_udp_fd(p.l[1]), SOL_SOCKET, SO_RCVBUF, &rcvbuf, &optlen);
    if ((size_t)rcvbuf < 2 * (size_t)STREAM_MSGS * STREAM_SIZE) { /* it would drop some */
        close_pair(&p);
        skip();
    }
    static const tw_udp_lander_t lander = {stream_land, stream_landed};
    tw_udp_set_lander(p.l[1], &lander);
    stream_state_t st = {malloc((size_t)STREAM_MSGS * STREAM_SIZE), 0, 0};
    unsigned char *out = malloc((size_t)STREAM_MSGS * STREAM_SIZE);
    assert_non_null(st.area);
    assert_non_null(out);
    inbox_t back = {0};
    uint32_t sent = 0;
    long rounds = 0;
    while (st.next < STREAM_MSGS) {
        /* the first alone; then all the others before the receiver looks again */
        while (sent < STREAM_MSGS && (sent == 0 || st.next > 0)) {
            unsigned char *m = out + (size_t)sent * STREAM_SIZE;
            fill(m, sent, STREAM_SIZE);
            int rc = tw_udp_send(p.l[0], 1, m, STREAM_SIZE);
            assert_true(rc == TW_OK || rc == TW_RETRY);
            if (rc == TW_RETRY) break;
            if (sent++ == 0) break;
        }
        tw_udp_poll(p.l[1], stream_delivery, &st);
        tw_udp_poll(p.l[0], check_delivery, &back);
        assert_true(++rounds < 50000000);
    }
    assert_memory_equal(st.area, out, (size_t)STREAM_MSGS * STREAM_SIZE);
    assert_int_equal(tw_udp_stats(p.l[1])->retransmits + tw_udp_stats(p.l[0])->retransmits, 0);
    assert_int_equal(tw_udp_stats(p.l[1])->in_place, STREAM_MSGS - 1);
    free(st.area);
    free(out);
    close_pair(&p);
}

/* A sender that changes a kept piece before it is acknowledged (an error of its own)
 * loses nothing else: each lost packet goes again with what the piece holds then,
 * sealed anew, and arrives; it is not refused for its CRC until the peer is lost.
 * The head (40 bytes) is shorter than the prefix under hcrc: the piece's first 56
 * bytes are copied with it, the rest is sent from where it lies. */
enum { KEPT_HEAD = 40, KEPT_BODY = 160 };
typedef struct kept_seen {
    unsigned got, changed;
} kept_seen_t;

static int count_delivery(void *ctx, uint32_t peer, const void *msg, size_t len) {
    (void)peer;
    const unsigned char *m = msg;
    kept_seen_t *seen = ctx;
    assert_int_equal(len, KEPT_HEAD + KEPT_BODY);
    for (size_t i = KEPT_HEAD; i < TW_UDP_PREFIX; i++) assert_int_equal(m[i], 2); /* copied */
    seen->changed += m[len - 1] == 3; /* sent again from the changed piece */
    seen->got++;
    return 0;
}

static void test_kept_piece_changed_early(void **state) {
    (void)state;
    tw_udp_faults_t f = {.drop = 0.2, .seed = 11};
    pair_t p;
    open_pair(&p, &f, 2000); /* a peer declared lost fails the test */
    enum { MSGS = 200 };
    static unsigned char head[MSGS][KEPT_HEAD], body[MSGS][KEPT_BODY];
    kept_seen_t seen = {0}, back = {0};
    uint32_t sent = 0;
    long rounds = 0;
    while (seen.got < MSGS) {
        if (sent < MSGS) {
            memset(head[sent], 1, sizeof head[sent]);
            memset(body[sent], 2, sizeof body[sent]);
            struct iovec v[2] = {{head[sent], KEPT_HEAD}, {body[sent], KEPT_BODY}};
            int rc = tw_udp_sendv_kept(p.l[0], 1, v, 2);
            assert_true(rc == TW_OK || rc == TW_RETRY);
            if (rc == TW_OK) memset(body[sent++], 3, KEPT_BODY); /* changed at once */
        }
        tw_udp_poll(p.l[0], count_delivery, &back);
        tw_udp_poll(p.l[1], count_delivery, &seen);
        assert_false(tw_udp_peer_lost(p.l[0], 1));
        assert_true(++rounds < 50000000);
    }
    assert_true(tw_udp_stats(p.l[0])->retransmits > 0);
    assert_true(seen.changed > 0); /* not copied: retransmissions read the piece again */
    assert_int_equal(tw_udp_stats(p.l[1])->dropped[TW_UDP_BAD_CRC], 0);
    close_pair(&p);
}

static void test_refused_messages_come_again(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    inbox_t in[2] = {{.refuse_odd = 1}, {.refuse_odd = 1}};
    exchange(&p, 300, in);
    assert_true(tw_udp_stats(p.l[0])->refused > 0);
    assert_true(tw_udp_stats(p.l[1])->refused > 0);
    close_pair(&p);
}

static void test_window_bounds_what_is_in_flight(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    unsigned char small[8] = {0};
    int k = 0;
    while (tw_udp_send(p.l[0], 1, small, sizeof small) == TW_OK) k++;
    assert_int_equal(k, 64); /* one packet each: the default window */
    assert_int_equal(tw_udp_in_flight(p.l[0], 1), 64);
    static unsigned char big[TW_UDP_MSG_MAX + 1];
    assert_int_equal(tw_udp_send(p.l[0], 1, big, sizeof big), TW_ERR_SIZE);
    assert_int_equal(tw_udp_send(p.l[0], 2, small, 1), TW_ERR_RANK);
    close_pair(&p);
}

static int count_only(void *ctx, uint32_t peer, const void *msg, size_t len) {
    (void)peer, (void)msg, (void)len;
    ++*(int *)ctx;
    return 0;
}

static void test_lost_peer(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 200);
    tw_udp_close(p.l[1]); /* the peer dies */
    assert_int_equal(tw_udp_send(p.l[0], 1, "hello", 5), TW_OK);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int n = 0;
    do {
        tw_udp_poll(p.l[0], count_only, &n);
        usleep(1000);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (!tw_udp_peer_lost(p.l[0], 1) && t.tv_sec - t0.tv_sec < 30);
    assert_true(tw_udp_peer_lost(p.l[0], 1));
    assert_int_equal(tw_udp_send(p.l[0], 1, "again", 5), TW_ERR_LOST);
    assert_true(tw_udp_stats(p.l[0])->retransmits > 0);
    tw_udp_close(p.l[0]);
}

/* Datagrams from a stranger: each refused for its reason, the link unharmed. */
static void test_forged_datagrams_are_dropped(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    unsigned char pkt[TW_UDP_HDR_SIZE + 16] = {0};
    const struct sockaddr *to = (const struct sockaddr *)&p.addr[0];
    tw_udp_hdr_t h = {.src = 1,
                      .dst = 0,
                      .seq = 1,
                      .ack = 1,
                      .flags = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST,
                      .len = 16,
                      .msg_len = 16};
    const tw_siphash_key_t other = {KEY.k0, KEY.k1 ^ 1};
    tw_udp_encode(pkt, &h, "0123456789abcdef", &other);
    sendto(fd, pkt, sizeof pkt, 0, to, sizeof p.addr[0]); /* another secret */
    tw_udp_encode(pkt, &h, "0123456789abcdef", &KEY);
    pkt[TW_UDP_HDR_SIZE + 3] ^= 1;
    sendto(fd, pkt, sizeof pkt, 0, to, sizeof p.addr[0]); /* bad CRC */
    tw_udp_encode(pkt, &h, "0123456789abcdef", &KEY);
    sendto(fd, pkt, 20, 0, to, sizeof p.addr[0]);             /* truncated below a header */
    sendto(fd, pkt, sizeof pkt - 1, 0, to, sizeof p.addr[0]); /* truncated payload */
    h.src = 7;
    tw_udp_encode(pkt, &h, "0123456789abcdef", &KEY);
    sendto(fd, pkt, sizeof pkt, 0, to, sizeof p.addr[0]); /* no such peer */
    static unsigned char huge[3000];
    sendto(fd, huge, sizeof huge, 0, to, sizeof p.addr[0]); /* longer than the MTU */
    close(fd);
    const tw_udp_stats_t *s = tw_udp_stats(p.l[0]);
    int n = 0;
    for (long k = 0; k < 1000000 && s->packets_received < 6; k++)
        tw_udp_poll(p.l[0], count_only, &n);
    assert_int_equal(n, 0);
    assert_int_equal(s->dropped[TW_UDP_BAD_MAC], 1);
    assert_int_equal(s->dropped[TW_UDP_BAD_CRC], 2); /* the payload cut short fails it too */
    assert_int_equal(s->dropped[TW_UDP_SHORT], 1);
    assert_int_equal(s->dropped[TW_UDP_BAD_LEN], 1);
    assert_int_equal(s->unknown_peer, 1);
    inbox_t in[2] = {{0}, {0}}; /* and real traffic still flows */
    exchange(&p, 50, in);
    close_pair(&p);
}

/* A peer with the key that breaks the framing of its own messages: a middle segment
 * with no message begun, a message longer than it said. Nothing is delivered. */
static void test_broken_framing_is_refused(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    int fd = tw_udp_fd(p.l[1]); /* from where endpoint 1 lives */
    const struct sockaddr *to = (const struct sockaddr *)&p.addr[0];
    unsigned char pkt[TW_UDP_HDR_SIZE + 16];
    tw_udp_hdr_t middle = {
        .src = 1, .dst = 0, .seq = 1, .ack = 1, .flags = TW_UDP_DATA | TW_UDP_ACK, .len = 16};
    tw_udp_encode(pkt, &middle, "0123456789abcdef", &KEY);
    sendto(fd, pkt, sizeof pkt, 0, to, sizeof p.addr[0]);
    tw_udp_hdr_t first = {.src = 1,
                          .dst = 0,
                          .seq = 1,
                          .ack = 1,
                          .flags = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST,
                          .len = 16,
                          .msg_len = 20};
    tw_udp_encode(pkt, &first, "0123456789abcdef", &KEY);
    sendto(fd, pkt, sizeof pkt, 0, to, sizeof p.addr[0]);
    middle.seq = 2; /* 16 + 16 bytes of a message of 20 */
    middle.flags |= TW_UDP_LAST;
    tw_udp_encode(pkt, &middle, "0123456789abcdef", &KEY);
    sendto(fd, pkt, sizeof pkt, 0, to, sizeof p.addr[0]);
    const tw_udp_stats_t *s = tw_udp_stats(p.l[0]);
    int n = 0;
    for (long k = 0; k < 1000000 && s->packets_received < 3; k++)
        tw_udp_poll(p.l[0], count_only, &n);
    assert_int_equal(s->packets_received, 3);
    assert_int_equal(n, 0);
    assert_int_equal(s->protocol, 2);
    close_pair(&p);
}

/* ---- a link facing a peer played by hand: a plain socket that reads the link's
 * packets and answers with packets made here ---- */

typedef struct played {
    tw_udp_link_t *l; /* endpoint 0 of the job */
    int fd;           /* endpoint 1 */
    struct sockaddr_in link_addr, fd_addr;
} played_t;

/* A retransmission timeout far past any test: only acknowledgements make it resend. */
static void open_played_mtu(played_t *p, unsigned mtu) {
    tw_udp_config_t cfg;
    tw_udp_config_default(&cfg);
    memcpy(cfg.secret, SECRET, sizeof cfg.secret);
    cfg.self = 0;
    cfg.peers = 2;
    cfg.mtu = mtu;
    cfg.rto_us = 10000000;
    p->link_addr = (struct sockaddr_in){.sin_family = AF_INET};
    p->link_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    p->l = tw_udp_open(&cfg, &p->link_addr);
    assert_non_null(p->l);
    p->fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(p->fd >= 0);
    struct timeval wait = {.tv_sec = 5}; /* a packet that never comes fails the test */
    assert_int_equal(setsockopt(p->fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait), 0);
    p->fd_addr = (struct sockaddr_in){.sin_family = AF_INET};
    p->fd_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof p->fd_addr;
    assert_int_equal(bind(p->fd, (struct sockaddr *)&p->fd_addr, sizeof p->fd_addr), 0);
    assert_int_equal(getsockname(p->fd, (struct sockaddr *)&p->fd_addr, &alen), 0);
    assert_int_equal(tw_udp_set_peer(p->l, 1, &p->fd_addr), TW_OK);
}

static void open_played(played_t *p) {
    open_played_mtu(p, 1500);
}

static void close_played(played_t *p) {
    tw_udp_close(p->l);
    close(p->fd);
}

/* The next packet the link sent, decoded. */
static tw_udp_hdr_t played_read(played_t *p) {
    unsigned char pkt[2048];
    ssize_t n = recv(p->fd, pkt, sizeof pkt, 0);
    assert_true(n > 0);
    tw_udp_hdr_t h;
    assert_int_equal(tw_udp_decode(pkt, (size_t)n, &KEY, 1, &h), TW_UDP_OK);
    return h;
}

/* 1 when the link sent nothing more: over loopback, what a poll sent has arrived by
 * the time the poll returns. */
static int played_quiet(played_t *p) {
    unsigned char pkt[2048];
    return recv(p->fd, pkt, sizeof pkt, MSG_DONTWAIT) < 0;
}

/* The last of the packets the link sent (at least one), decoded. */
static tw_udp_hdr_t played_latest(played_t *p) {
    tw_udp_hdr_t h = played_read(p);
    unsigned char pkt[2048];
    ssize_t n;
    while ((n = recv(p->fd, pkt, sizeof pkt, MSG_DONTWAIT)) > 0)
        assert_int_equal(tw_udp_decode(pkt, (size_t)n, &KEY, 1, &h), TW_UDP_OK);
    return h;
}

/* The next data packet the link sent, past any bare acknowledgements. */
static tw_udp_hdr_t played_read_data(played_t *p) {
    tw_udp_hdr_t h;
    do h = played_read(p);
    while (!(h.flags & TW_UDP_DATA));
    return h;
}

/* Sends the link a packet from endpoint 1, data (message seq: len bytes at msg, the
 * byte at damage flipped after sealing when damage < len) or with seq 0 a bare
 * acknowledgement, and polls the link until it has taken it. */
static void played_send_msg(played_t *p, uint32_t seq, uint32_t ack, uint32_t held, const void *msg,
                            size_t len, size_t damage, tw_udp_deliver_fn deliver, void *ctx) {
    tw_udp_hdr_t h = {.src = 1, .dst = 0, .ack = ack, .held = held};
    h.flags = TW_UDP_ACK | (seq ? TW_UDP_DATA | TW_UDP_FIRST | TW_UDP_LAST : 0);
    h.seq = seq;
    h.len = h.msg_len = seq ? (uint32_t)len : 0;
    static unsigned char pkt[TW_UDP_HDR_SIZE + TW_UDP_MSG_MAX];
    tw_udp_encode(pkt, &h, msg, &KEY);
    if (damage < h.len) pkt[TW_UDP_HDR_SIZE + damage] ^= 1;
    len = TW_UDP_HDR_SIZE + h.len;
    const tw_udp_stats_t *s = tw_udp_stats(p->l);
    uint64_t before = s->packets_received;
    assert_int_equal(
        sendto(p->fd, pkt, len, 0, (struct sockaddr *)&p->link_addr, sizeof p->link_addr),
        (ssize_t)len);
    for (long k = 0; k < 1000000 && s->packets_received == before; k++)
        tw_udp_poll(p->l, deliver, ctx);
    assert_int_equal(s->packets_received, before + 1);
}

static void played_send(played_t *p, uint32_t seq, uint32_t ack, uint32_t held,
                        tw_udp_deliver_fn deliver, void *ctx) {
    played_send_msg(p, seq, ack, held, "12345678", 8, SIZE_MAX, deliver, ctx);
}

/* The sender resends a packet when the receiver reports packets held past it, and
 * only then: an ack that repeats una without a gap (a receiver that was only late),
 * one that moves una partway after a resend with nothing held past (the rest is on its
 * way), and one whose held reaches past what was ever sent (forged) resend nothing. */
static void test_resends_only_what_a_gap_shows(void **state) {
    (void)state;
    played_t p;
    open_played(&p);
    for (uint32_t k = 1; k <= 10; k++) {
        assert_int_equal(tw_udp_send(p.l, 1, "message", 8), TW_OK);
        assert_int_equal(played_read(&p).seq, k);
    }
    const tw_udp_stats_t *s = tw_udp_stats(p.l);
    int n = 0;
    for (int k = 0; k < 4; k++) played_send(&p, 0, 1, 0, count_only, &n); /* no gap */
    played_send(&p, 0, 1, 11, count_only, &n); /* held past the 10 sent: forged */
    assert_int_equal(s->retransmits, 0);
    assert_true(played_quiet(&p));
    played_send(&p, 0, 1, 10, count_only, &n); /* 2 .. 10 held, 1 missing */
    tw_udp_hdr_t h = played_read(&p);
    assert_int_equal(h.seq, 1);
    assert_int_equal(s->retransmits, 1);
    played_send(&p, 0, 4, 0, count_only, &n); /* 1 .. 3 came; 4 .. 10 late, no gap */
    assert_int_equal(s->retransmits, 1);
    assert_true(played_quiet(&p));
    played_send(&p, 0, 5, 6, count_only, &n); /* 5 missing, 6 .. 10 held */
    h = played_read(&p);
    assert_int_equal(h.seq, 5);
    assert_int_equal(s->retransmits, 2);
    played_send(&p, 0, 11, 0, count_only, &n);
    assert_int_equal(tw_udp_in_flight(p.l, 1), 0);
    assert_int_equal(s->timeouts, 0);
    assert_int_equal(n, 0);
    close_played(&p);
}

/* Answers every message delivered with one of its own, which carries the link's
 * acknowledgement: the acknowledgements sent while kept packets are taken. */
static int answer_each(void *ctx, uint32_t peer, const void *msg, size_t len) {
    (void)msg;
    (void)len;
    played_t *p = ctx;
    assert_int_equal(tw_udp_send(p->l, peer, "answer!", 8), TW_OK);
    return 0;
}

/* The receiver's acknowledgements report a gap, and how far past it packets came,
 * while the packet expected next is missing; not while it is kept and being taken. */
static void test_acks_report_gaps(void **state) {
    (void)state;
    played_t p;
    open_played(&p);
    played_send(&p, 1, 1, 0, answer_each, &p);
    tw_udp_hdr_t h = played_read_data(&p); /* the answer to 1 */
    assert_int_equal(h.ack, 2);
    assert_int_equal(h.held, 0);
    played_send(&p, 3, 1, 0, answer_each, &p); /* 2 missing */
    h = played_latest(&p);
    assert_int_equal(h.ack, 2);
    assert_int_equal(h.held, 2); /* 2 and 3 */
    played_send(&p, 5, 1, 0, answer_each, &p);
    played_send(&p, 4, 1, 0, answer_each, &p);
    h = played_latest(&p);
    assert_int_equal(h.ack, 2);
    assert_int_equal(h.held, 4);               /* 2 .. 5 */
    played_send(&p, 2, 1, 0, answer_each, &p); /* the gap filled: 2 .. 5 taken */
    for (uint32_t k = 2; k <= 5; k++) {
        h = played_read_data(&p); /* the answers, each sent while the rest was kept */
        assert_int_equal(h.ack, k + 1);
        assert_int_equal(h.held, 0);
    }
    close_played(&p);
}

/* Seconds since the monotonic clock's origin. */
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Polls the link for secs seconds, or until it has resent `until` packets. */
static void poll_for(played_t *p, double secs, uint64_t until) {
    const tw_udp_stats_t *s = tw_udp_stats(p->l);
    int n = 0;
    for (double end = now_s() + secs; now_s() < end && s->retransmits < until;)
        tw_udp_poll(p->l, count_only, &n);
    assert_int_equal(n, 0);
}

/* The last packet of a burst lost leaves no later one to report its gap: once a round
 * trip is measured, the first timeout is a probe that resends it long before the
 * configured RTO (10 s here, so the probe is what comes within 5 s); the next timeout
 * waits the RTO again. */
static void test_probe_before_the_timeout(void **state) {
    (void)state;
    played_t p;
    open_played(&p);
    const tw_udp_stats_t *s = tw_udp_stats(p.l);
    int n = 0;
    assert_int_equal(tw_udp_send(p.l, 1, "message", 8), TW_OK);
    assert_int_equal(played_read(&p).seq, 1);
    played_send(&p, 0, 2, 0, count_only, &n); /* acknowledged: a round trip measured */
    assert_int_equal(tw_udp_send(p.l, 1, "message", 8), TW_OK);
    assert_int_equal(played_read(&p).seq, 2); /* and its acknowledgement lost */
    poll_for(&p, 5, 1);
    assert_int_equal(s->retransmits, 1);
    assert_int_equal(s->timeouts, 1);
    assert_int_equal(played_read_data(&p).seq, 2);
    poll_for(&p, 0.3, 2); /* the next resend waits the RTO */
    assert_int_equal(s->retransmits, 1);
    assert_true(played_quiet(&p));
    played_send(&p, 0, 3, 0, count_only, &n);
    assert_int_equal(tw_udp_in_flight(p.l, 1), 0);
    assert_int_equal(n, 0);
    close_played(&p);
}

/* A lander that lands nothing: large datagrams are looked at first, and read into the
 * link's buffer or, ahead of their turn, into the slot that keeps them. */
static void *land_nothing(void *ctx, uint32_t peer, const void *prefix, size_t len, size_t *skip) {
    (void)ctx, (void)peer, (void)prefix, (void)len, (void)skip;
    return NULL;
}

static void landed_nothing(void *ctx, uint32_t peer, const void *prefix, size_t len, int ok) {
    (void)ctx, (void)peer, (void)prefix, (void)len, (void)ok;
    fail_msg("nothing was landed");
}

enum { KEPT_LEN = 20000 };

/* Each message delivered must be message next, whole. */
static int kept_delivery(void *ctx, uint32_t peer, const void *msg, size_t len) {
    inbox_t *in = ctx;
    static unsigned char want[KEPT_LEN];
    assert_int_equal(peer, 1);
    assert_int_equal(len, KEPT_LEN);
    fill(want, in->next, len);
    assert_memory_equal(msg, want, len);
    in->next++;
    return 0;
}

/* A large packet ahead of a gap is read straight into the slot that keeps it; a
 * damaged copy of it that comes next is read elsewhere and dropped, so the kept one
 * is taken whole once the gap is filled. */
static void test_kept_packet_survives_a_damaged_copy(void **state) {
    (void)state;
    played_t p;
    open_played_mtu(&p, 65535);
    static const tw_udp_lander_t lander = {land_nothing, landed_nothing};
    tw_udp_set_lander(p.l, &lander);
    const tw_udp_stats_t *s = tw_udp_stats(p.l);
    static unsigned char msg[4][KEPT_LEN];
    for (uint32_t k = 1; k <= 3; k++) fill(msg[k], k, KEPT_LEN);
    inbox_t in = {.next = 1};
    played_send_msg(&p, 1, 1, 0, msg[1], KEPT_LEN, SIZE_MAX, kept_delivery, &in);
    assert_int_equal(in.next, 2);
    played_send_msg(&p, 3, 1, 0, msg[3], KEPT_LEN, SIZE_MAX, kept_delivery, &in);
    assert_int_equal(s->out_of_order, 1);
    played_send_msg(&p, 3, 1, 0, msg[3], KEPT_LEN, KEPT_LEN / 2, kept_delivery, &in);
    assert_int_equal(s->dropped[TW_UDP_BAD_CRC], 1);
    assert_int_equal(in.next, 2);
    played_send_msg(&p, 2, 1, 0, msg[2], KEPT_LEN, SIZE_MAX, kept_delivery, &in);
    assert_int_equal(in.next, 4); /* 2, then 3 as it was kept */
    close_played(&p);
}

/* ---- an attacker on the network: raw sockets that capture the link's packets and
 * send them, or packets made to look like them, again ---- */

/* A socket bound to a port of loopback, its address in *addr. */
static int bound_socket(struct sockaddr_in *addr) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct timeval wait = {.tv_sec = 5}; /* a packet that never comes fails the test */
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait), 0);
    *addr = (struct sockaddr_in){.sin_family = AF_INET};
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof *addr;
    assert_int_equal(bind(fd, (struct sockaddr *)addr, sizeof *addr), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)addr, &alen), 0);
    return fd;
}

/* What endpoint 1 sends endpoint 0 for a message, captured on its way: endpoint 1 is
 * told endpoint 0 lives at a capturing socket, sends, and is told the truth again. */
static size_t capture_message(pair_t *p, const void *msg, size_t len, unsigned char *pkt,
                              size_t cap) {
    struct sockaddr_in at;
    int fd = bound_socket(&at);
    assert_int_equal(tw_udp_set_peer(p->l[1], 0, &at), TW_OK);
    assert_int_equal(tw_udp_send(p->l[1], 0, msg, len), TW_OK);
    ssize_t n;
    tw_udp_hdr_t h;
    do { /* the data packet, past bare acknowledgements */
        n = recv(fd, pkt, cap, 0);
        assert_true(n > 0);
        assert_int_equal(tw_udp_decode(pkt, (size_t)n, &KEY, 0, &h), TW_UDP_OK);
    } while (!(h.flags & TW_UDP_DATA));
    assert_int_equal(tw_udp_set_peer(p->l[1], 0, &p->addr[0]), TW_OK);
    close(fd);
    return (size_t)n;
}

/* Sends len bytes at pkt to endpoint 0 from socket fd, then polls endpoint 0 until it
 * has read them; returns the messages it delivered meanwhile. */
/* Polls endpoint 0 until a poll reads nothing: over loopback whatever was sent to it
 * before has arrived. */
static void drain(pair_t *p) {
    const tw_udp_stats_t *s = tw_udp_stats(p->l[0]);
    uint64_t before;
    int n = 0;
    do {
        before = s->packets_received;
        tw_udp_poll(p->l[0], count_only, &n);
    } while (s->packets_received != before);
}

static int inject(pair_t *p, int fd, const void *pkt, size_t len) {
    const tw_udp_stats_t *s = tw_udp_stats(p->l[0]);
    drain(p);
    uint64_t before = s->packets_received;
    assert_int_equal(
        sendto(fd, pkt, len, 0, (const struct sockaddr *)&p->addr[0], sizeof p->addr[0]),
        (ssize_t)len);
    int n = 0;
    for (long k = 0; k < 1000000 && s->packets_received == before; k++)
        tw_udp_poll(p->l[0], count_only, &n);
    assert_int_equal(s->packets_received, before + 1);
    return n;
}

/* A packet that authenticates, but comes from another port than its sender's (a copy
 * sent on by whoever saw it), is dropped and counted; nor does a packet forged with
 * the right magic, CRCs, lengths and endpoints but without the secret get anywhere. */
/* A message of one packet from endpoint 1 to endpoint 0 with sequence number seq,
 * sealed with key (the job's, or a forger's guess): its length. */
static size_t sealed_message(unsigned char *pkt, uint32_t seq, const char *text,
                             const tw_siphash_key_t *key) {
    uint16_t len = (uint16_t)strlen(text);
    tw_udp_hdr_t h = {.src = 1,
                      .dst = 0,
                      .seq = seq,
                      .ack = 1,
                      .flags = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST,
                      .len = len,
                      .msg_len = len};
    tw_udp_encode(pkt, &h, text, key);
    return TW_UDP_HDR_SIZE + len;
}

static void test_foreign_source_is_dropped(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    unsigned char pkt[2048];
    size_t n = capture_message(&p, "captured", 8, pkt, sizeof pkt);
    struct sockaddr_in stranger;
    int fd = bound_socket(&stranger);
    const tw_udp_stats_t *s = tw_udp_stats(p.l[0]);
    assert_int_equal(inject(&p, fd, pkt, n), 0);
    assert_int_equal(s->wrong_source, 1);
    /* made by hand: everything right but the secret it is sealed with */
    uint32_t seq = 1;
    const tw_siphash_key_t guess = {0x0123456789abcdefull, 0xfedcba9876543210ull};
    size_t forged = sealed_message(pkt, seq, "forged", &guess);
    assert_int_equal(inject(&p, fd, pkt, forged), 0);
    assert_int_equal(s->dropped[TW_UDP_BAD_MAC], 1);
    /* even sent from the sender's own port */
    assert_int_equal(inject(&p, tw_udp_fd(p.l[1]), pkt, forged), 0);
    assert_int_equal(s->dropped[TW_UDP_BAD_MAC], 2);
    assert_int_equal(s->msgs_received, 0);
    close(fd);
    close_pair(&p);
}

/* A link not told where a peer lives learns it from the peer's first packet that
 * authenticates, never from one that does not; from then on it holds to it. */
static void test_peer_address_learned_from_authenticated_packet(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    tw_udp_close(p.l[0]); /* endpoint 0 again, not told where endpoint 1 lives */
    tw_udp_config_t cfg;
    tw_udp_config_default(&cfg);
    memcpy(cfg.secret, SECRET, sizeof cfg.secret);
    cfg.self = 0;
    cfg.peers = 2;
    p.addr[0].sin_port = 0;
    p.l[0] = tw_udp_open(&cfg, &p.addr[0]);
    assert_non_null(p.l[0]);
    assert_int_equal(tw_udp_set_peer(p.l[1], 0, &p.addr[0]), TW_OK);
    struct sockaddr_in stranger;
    int fd = bound_socket(&stranger);
    unsigned char pkt[2048];
    uint32_t seq = 1;
    const tw_siphash_key_t guess = {KEY.k0 ^ 1, KEY.k1};
    assert_int_equal(inject(&p, fd, pkt, sealed_message(pkt, seq, "forged", &guess)), 0);
    const tw_udp_stats_t *s = tw_udp_stats(p.l[0]);
    assert_int_equal(s->dropped[TW_UDP_BAD_MAC], 1);
    /* the real peer speaks first: learned; the same packet from the stranger is not
     * taken, a later one from the stranger neither */
    assert_int_equal(tw_udp_send(p.l[1], 0, "first", 5), TW_OK);
    int n = 0;
    for (long k = 0; k < 1000000 && s->packets_received < 2; k++)
        tw_udp_poll(p.l[0], count_only, &n);
    assert_int_equal(n, 1);
    /* with the secret: as a copy would be */
    assert_int_equal(inject(&p, fd, pkt, sealed_message(pkt, seq + 1, "forged", &KEY)), 0);
    assert_int_equal(s->wrong_source, 1);
    inbox_t in[2] = {{0}, {0}}; /* and endpoint 0 answers where endpoint 1 lives */
    exchange(&p, 20, in);
    close(fd);
    close_pair(&p);
}

/* Captured packets sent again from their sender's own address: a data packet is
 * delivered once, its copies are dropped as duplicates; a copy with one bit of its
 * MAC flipped, and a packet with a valid MAC under another job's secret, are dropped
 * for their MAC. Nothing is delivered twice. */
static void test_replayed_packets_are_dropped(void **state) {
    (void)state;
    pair_t p;
    open_pair(&p, NULL, 0);
    unsigned char pkt[2048], flipped[2048];
    size_t n = capture_message(&p, "once", 4, pkt, sizeof pkt);
    int own = tw_udp_fd(p.l[1]);
    const tw_udp_stats_t *s = tw_udp_stats(p.l[0]);
    memcpy(flipped, pkt, n);
    flipped[offsetof(tw_udp_hdr_t, mac) + 5] ^= 0x10;
    assert_int_equal(inject(&p, own, flipped, n), 0);
    assert_int_equal(s->dropped[TW_UDP_BAD_MAC], 1);
    assert_int_equal(inject(&p, own, pkt, n), 1); /* the original, delivered */
    for (int k = 0; k < 3; k++) assert_int_equal(inject(&p, own, pkt, n), 0);
    assert_int_equal(s->duplicates, 3);
    assert_int_equal(s->msgs_received, 1);
    /* another job's endpoint 1, same ports, its own secret */
    uint32_t seq = 2;
    const tw_siphash_key_t other_job = {0x1111111111111111ull, 0x2222222222222222ull};
    assert_int_equal(inject(&p, own, pkt, sealed_message(pkt, seq, "other", &other_job)), 0);
    assert_int_equal(s->dropped[TW_UDP_BAD_MAC], 2);
    assert_int_equal(s->msgs_received, 1);
    int got = 0; /* endpoint 1's own packets flow as before */
    assert_int_equal(tw_udp_send(p.l[1], 0, "next", 4), TW_OK);
    for (long k = 0; k < 1000000 && !got; k++) tw_udp_poll(p.l[0], count_only, &got);
    assert_int_equal(got, 1);
    close_pair(&p);
}

/* Replayed acknowledgements change nothing: a bare acknowledgement behind the one
 * taken, and a FIN behind it, are dropped and counted; the packet in flight stays in
 * flight and the peer is not taken to have closed. A data packet kept ahead of a gap
 * and sent again is a duplicate, delivered once. */
static void test_replayed_acks_change_nothing(void **state) {
    (void)state;
    played_t p;
    open_played(&p);
    const tw_udp_stats_t *s = tw_udp_stats(p.l);
    int delivered = 0;
    assert_int_equal(tw_udp_send(p.l, 1, "one", 3), TW_OK);
    assert_int_equal(played_read_data(&p).seq, 1);
    played_send(&p, 0, 2, 0, count_only, &delivered); /* acknowledged: una 2 */
    assert_int_equal(tw_udp_in_flight(p.l, 1), 0);
    assert_int_equal(tw_udp_send(p.l, 1, "two", 3), TW_OK);
    assert_int_equal(played_read_data(&p).seq, 2);
    assert_int_equal(tw_udp_in_flight(p.l, 1), 1);
    /* the first acknowledgement of all (ack 1), as a bare ack and as a FIN */
    played_send(&p, 0, 1, 0, count_only, &delivered);
    assert_int_equal(s->stale_acks, 1);
    tw_udp_hdr_t fin = {.src = 1, .dst = 0, .ack = 1, .flags = TW_UDP_ACK | TW_UDP_FIN};
    unsigned char pkt[TW_UDP_HDR_SIZE];
    tw_udp_encode(pkt, &fin, NULL, &KEY);
    uint64_t before = s->packets_received;
    assert_int_equal(
        sendto(p.fd, pkt, sizeof pkt, 0, (struct sockaddr *)&p.link_addr, sizeof p.link_addr),
        (ssize_t)sizeof pkt);
    for (long k = 0; k < 1000000 && s->packets_received == before; k++)
        tw_udp_poll(p.l, count_only, &delivered);
    assert_int_equal(s->stale_acks, 2);
    assert_int_equal(tw_udp_in_flight(p.l, 1), 1);
    assert_false(tw_udp_idle(p.l)); /* still waiting for its acknowledgement */
    /* an acknowledgement of what was never sent */
    played_send(&p, 0, 9, 0, count_only, &delivered);
    assert_int_equal(s->stale_acks, 3);
    assert_int_equal(tw_udp_in_flight(p.l, 1), 1);
    assert_int_equal(delivered, 0);
    /* data: 1, then 3 ahead of a gap, each sent twice; then 2 */
    played_send(&p, 1, 2, 0, count_only, &delivered);
    played_send(&p, 1, 2, 0, count_only, &delivered);
    played_send(&p, 3, 2, 0, count_only, &delivered);
    played_send(&p, 3, 2, 0, count_only, &delivered);
    assert_int_equal(s->duplicates, 2);
    played_send(&p, 2, 2, 0, count_only, &delivered);
    assert_int_equal(delivered, 3);
    played_send(&p, 3, 2, 0, count_only, &delivered);
    played_send(&p, 2, 2, 0, count_only, &delivered);
    assert_int_equal(s->duplicates, 4);
    assert_int_equal(delivered, 3);
    assert_int_equal(s->msgs_received, 3);
    close_played(&p);
}

/* Sends the link a FIN from endpoint 1 with acknowledgement ack. */
static void played_fin(played_t *p, uint32_t ack) {
    tw_udp_hdr_t fin = {.src = 1, .dst = 0, .ack = ack, .flags = TW_UDP_ACK | TW_UDP_FIN};
    unsigned char pkt[TW_UDP_HDR_SIZE];
    tw_udp_encode(pkt, &fin, NULL, &KEY);
    const tw_udp_stats_t *s = tw_udp_stats(p->l);
    uint64_t before = s->packets_received;
    int n = 0;
    assert_int_equal(
        sendto(p->fd, pkt, sizeof pkt, 0, (struct sockaddr *)&p->link_addr, sizeof p->link_addr),
        (ssize_t)sizeof pkt);
    for (long k = 0; k < 1000000 && s->packets_received == before; k++)
        tw_udp_poll(p->l, count_only, &n);
    assert_int_equal(s->packets_received, before + 1);
    assert_int_equal(n, 0);
}

/* A FIN is believed only when it acknowledges all that was sent to its peer, and only
 * until the peer sends new data or new data goes to it. Anyone holding the job's
 * secret can make a FIN (tests/fuzz/insider.c did): a link that believed one short of
 * its data stopped resending that data, and its peer, which had not closed, waited for
 * it for good. Here a FIN short of the data is taken as an acknowledgement and the data
 * is resent at once; a FIN of all is believed (nothing owed: closing sends it no FIN);
 * data sent after it is waited for again, and data from the peer makes it owed a FIN
 * again. */
static void test_fin_believed_only_when_it_acknowledges_all(void **state) {
    (void)state;
    played_t p;
    open_played(&p);
    const tw_udp_stats_t *s = tw_udp_stats(p.l);
    int n = 0;
    assert_int_equal(tw_udp_send(p.l, 1, "one", 3), TW_OK);
    assert_int_equal(played_read_data(&p).seq, 1); /* and taken as lost */
    played_fin(&p, 1);
    assert_int_equal(s->retransmits, 1);
    assert_int_equal(played_read_data(&p).seq, 1);
    assert_int_equal(tw_udp_in_flight(p.l, 1), 1);
    assert_false(tw_udp_idle(p.l));
    played_fin(&p, 2); /* all: believed */
    assert_int_equal(tw_udp_in_flight(p.l, 1), 0);
    assert_true(tw_udp_idle(p.l));
    assert_int_equal(tw_udp_finish(p.l), 1); /* it sent its FIN: none owed to it */
    /* more data to it: waited for as to any peer, and resent when a FIN lacks it */
    assert_int_equal(tw_udp_send(p.l, 1, "two", 3), TW_OK);
    assert_int_equal(played_read_data(&p).seq, 2);
    assert_false(tw_udp_idle(p.l));
    played_fin(&p, 2);
    assert_int_equal(s->retransmits, 2);
    assert_int_equal(played_read_data(&p).seq, 2);
    played_fin(&p, 3);
    assert_true(tw_udp_idle(p.l));
    /* data from it after its FIN: it had not closed, and is owed a FIN again */
    played_send(&p, 1, 3, 0, count_only, &n);
    assert_int_equal(n, 1);
    for (long k = 0; k < 1000000 && !tw_udp_idle(p.l); k++) tw_udp_poll(p.l, count_only, &n);
    assert_true(tw_udp_idle(p.l));
    assert_int_equal(tw_udp_finish(p.l), 0);
    tw_udp_hdr_t h;
    do h = played_read(&p);
    while (!(h.flags & TW_UDP_FIN));
    assert_int_equal(h.ack, 2);
    close_played(&p);
}

static void *land_never(void *ctx, uint32_t peer, const void *prefix, size_t len, size_t *skip) {
    (void)ctx, (void)peer, (void)prefix, (void)len, (void)skip;
    fail_msg("asked where to land a message whose payload is not proven yet");
    return NULL;
}

/* TW_UDP_AUTH=payload: messages of every size go through faults in order and exactly
 * once, never landing in place; a data packet whose MAC covers only its header is
 * refused, and so is a payload changed with its CRCs made right again. */
static void test_payload_authenticated(void **state) {
    (void)state;
    tw_udp_faults_t f = {
        .drop = 0.01, .duplicate = 0.01, .reorder = 0.01, .corrupt = 0.001, .seed = 7};
    pair_t p;
    pair_mac_payload = 1;
    open_pair_sized(&p, &f, 0, 65535, 0);
    pair_mac_payload = 0;
    static const tw_udp_lander_t lander = {land_never, landed_nothing};
    tw_udp_set_lander(p.l[0], &lander); /* not used: land_never fails the test */
    tw_udp_set_lander(p.l[1], &lander);
    inbox_t in[2] = {{0}, {0}};
    exchange(&p, 500, in);
    const tw_udp_stats_t *s = tw_udp_stats(p.l[0]);
    assert_int_equal(s->in_place, 0);
    drain(&p);
    uint64_t bad_mac = s->dropped[TW_UDP_BAD_MAC];
    int own = tw_udp_fd(p.l[1]);
    unsigned char pkt[TW_UDP_HDR_SIZE + 8];
    tw_udp_hdr_t h = {.src = 1,
                      .dst = 0,
                      .seq = 501,
                      .ack = 1,
                      .flags = TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIRST | TW_UDP_LAST,
                      .len = 8,
                      .msg_len = 8};
    tw_udp_encode(pkt, &h, "headeronly", &KEY);
    assert_int_equal(inject(&p, own, pkt, sizeof pkt), 0);
    assert_int_equal(s->dropped[TW_UDP_BAD_MAC], bad_mac + 1);
    h.flags |= TW_UDP_MAC_PAYLOAD;
    tw_udp_encode(pkt, &h, "payload!", &KEY);
    pkt[TW_UDP_HDR_SIZE + 2] ^= 1;
    uint64_t mac; /* the CRCs made right again over the changed payload, the MAC as sent */
    memcpy(&mac, pkt + offsetof(tw_udp_hdr_t, mac), 8);
    memset(pkt + offsetof(tw_udp_hdr_t, mac), 0, 8);
    memset(pkt + offsetof(tw_udp_hdr_t, crc), 0, 4);
    memset(pkt + offsetof(tw_udp_hdr_t, hcrc), 0, 4);
    uint32_t crc = tw_crc32c(0, pkt, sizeof pkt);
    memcpy(pkt + offsetof(tw_udp_hdr_t, crc), &crc, 4);
    memcpy(pkt + offsetof(tw_udp_hdr_t, hcrc), &crc, 4);
    memcpy(pkt + offsetof(tw_udp_hdr_t, mac), &mac, 8);
    assert_int_equal(inject(&p, own, pkt, sizeof pkt), 0);
    assert_int_equal(s->dropped[TW_UDP_BAD_MAC], bad_mac + 2);
    close_pair(&p);
}

static void test_configuration_checked(void **state) {
    (void)state;
    tw_udp_config_t cfg;
    tw_udp_config_default(&cfg);
    cfg.peers = 2;
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cfg.window = 8; /* cannot hold the longest message */
    assert_null(tw_udp_open(&cfg, &a));
    tw_udp_config_default(&cfg);
    cfg.peers = 2;
    cfg.self = 2; /* not one of the peers */
    assert_null(tw_udp_open(&cfg, &a));
    tw_udp_config_default(&cfg);
    cfg.peers = 2;
    cfg.mtu = 60; /* no room for a payload */
    assert_null(tw_udp_open(&cfg, &a));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order_exactly_once),
        cmocka_unit_test(test_runs_go_segmented),
        cmocka_unit_test(test_refused_segmentation_falls_back),
        cmocka_unit_test(test_faults_are_repaired),
        cmocka_unit_test(test_in_place_receive),
        cmocka_unit_test(test_in_place_stream),
        cmocka_unit_test(test_kept_piece_changed_early),
        cmocka_unit_test(test_refused_messages_come_again),
        cmocka_unit_test(test_window_bounds_what_is_in_flight),
        cmocka_unit_test(test_lost_peer),
        cmocka_unit_test(test_forged_datagrams_are_dropped),
        cmocka_unit_test(test_broken_framing_is_refused),
        cmocka_unit_test(test_resends_only_what_a_gap_shows),
        cmocka_unit_test(test_acks_report_gaps),
        cmocka_unit_test(test_probe_before_the_timeout),
        cmocka_unit_test(test_kept_packet_survives_a_damaged_copy),
        cmocka_unit_test(test_foreign_source_is_dropped),
        cmocka_unit_test(test_peer_address_learned_from_authenticated_packet),
        cmocka_unit_test(test_replayed_packets_are_dropped),
        cmocka_unit_test(test_replayed_acks_change_nothing),
        cmocka_unit_test(test_fin_believed_only_when_it_acknowledges_all),
        cmocka_unit_test(test_payload_authenticated),
        cmocka_unit_test(test_configuration_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
