/* The udp link (see udp.h for what it guarantees).
 *
 * Sender, per peer: packets una .. next_seq - 1 in flight, kept in a ring of `window`
 * packets indexed by sequence number, so a retransmission resends the very bytes sent
 * first. The oldest packet is sent again when its timeout expires, or at once when the
 * receiver reports it missing: packets held past it (DUP_THRESH of them, or three
 * acknowledgements of the gap), and, after a resend, an acknowledgement that moves una
 * only partway with a gap still behind it (NewReno). Packets that are late rather than
 * lost (a receiver that did not run for a while) leave no gap, so a spurious timeout
 * costs one packet, not a resend of all that was in flight. The first timeout after
 * progress is a probe (RFC 8985's tail loss probe), due once an acknowledgement is
 * overdue: two smoothed round trips and the receiver's ack delay. The packet last lost
 * in a burst (or the acknowledgement of it) leaves no later packet to report the gap;
 * the probe's acknowledgement reports it. Later timeouts wait the configured RTO or
 * longer, doubling per timeout up to 64 configured RTOs (or the undoubled estimate,
 * if longer; see rto_ns). An acknowledgement that moves una forward resets the
 * timeout and its backoff.
 *
 * Receiver, per peer: keeps packets that arrive ahead of a gap (up to a window's
 * worth) and takes them in order once the gap is filled, answering each arrival out
 * of order with an acknowledgement at once; every acknowledgement says how far past
 * the missing packet packets came (held). A whole message the receiver refuses
 * is parked and offered again at every poll; while it is parked nothing after it
 * is taken (or acknowledged), so a sender facing a busy receiver fills its window
 * and then gets TW_RETRY.
 *
 * Every packet leaves through one outgoing batch (sendmmsg), after the fault
 * injector has had its say. The batch holds copies, so ring slots may be reused at
 * once. */
#include "link/udp/udp.h"

#include <stdatomic.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <tollway/status.h>

#include "link/liveness.h"

enum {
    BATCH = 64,
    HELD_MAX = 64,
    IP_UDP_OVERHEAD = 28,
    BACKOFF_MAX = 7, /* the probe, then the RTO doubled up to 64 times */
    STREAM_SMALL_MAX = 16,
    DUP_THRESH = 3,        /* packets past a missing one, or acks of its gap, that prove it lost */
    GSO_SEGMENTS_MAX = 64, /* the kernel's UDP_MAX_SEGMENTS (since 4.18) */
    GSO_BYTES_MAX = 65507, /* one UDP datagram's payload, what a segmented send holds */
    GRO_BATCH = 8,         /* recvmmsg's entries when each may hold a joined datagram */
    GRO_CAP = 65536,       /* a joined datagram, and a byte that tells one too long */
};

/* A packet in the send window: len bytes in its ring slot, then ext_len bytes where
 * the sender keeps them (tw_udp_sendv_kept), or none. */
struct sent {
    const unsigned char *ext;
    uint16_t len, ext_len;
};

/* A packet kept because it came ahead of its turn. */
struct kept {
    uint32_t seq;
    uint16_t len;
};

typedef struct peer {
    struct sockaddr_in addr;
    int has_addr, busy, ack_due;
    int lost; /* 0, or why the peer was declared lost: TW_ERR_LOST, TW_ERR_RESET, TW_ERR_DESYNC */
    int fin;  /* the peer has closed: a FIN believed (take_fin); nothing more goes */
    int ack_listed;        /* in l->acking until the ack went, even once data carried it */
    int ack_now;           /* a gap or a duplicate: the sender needs to hear at once */
    unsigned ack_pkts;     /* packets taken since the last acknowledgement went */
    uint64_t ack_since_ns; /* when the oldest of them came */
    /* sending */
    uint32_t next_seq, una;
    unsigned char *ring;   /* window packets of pkt_max bytes */
    struct sent *sent;     /* what each slot's packet is */
    uint64_t timer_ns;     /* when the oldest packet in flight was last sent */
    uint64_t una_moved_ns; /* when una last moved (or the first packet left) */
    unsigned backoff;
    uint64_t resent_ns;          /* when una was last sent again, since it moved (0: not yet): its
                                    RTT sample would lie (Karn) */
    uint64_t srtt_ns, rttvar_ns; /* smoothed round trip and its variation (RFC 6298) */
    unsigned dupacks;            /* bare acknowledgements of una in a row */
    int recovering;              /* una was resent; until recover is acknowledged, */
    uint32_t recover;            /* an ack short of it names the next packet lost */
    uint64_t heard_ns;           /* when the last valid packet came from this peer */
    uint64_t reset_ns;           /* when the last reset went to it (lost) */
    int watched;                 /* the liveness thread watches it */
    /* receiving */
    uint32_t expected;  /* the sequence number taken next */
    uint32_t held_end;  /* one past the furthest packet kept ahead of expected */
    uint32_t msg_first; /* of the message being put together */
    int in_msg;
    int parked;             /* the message is whole, but the receiver refused it so far */
    unsigned char *held_in; /* window packets that came ahead of expected, by seq */
    struct kept *held;      /* the sequence number (0: empty) and length of each */
    unsigned char *msg;
    size_t msg_cap, msg_len, msg_fill;
} peer_t;

typedef struct outgoing {
    uint32_t peer;
    uint16_t len, ext_len;
    const unsigned char *ext; /* the packet's last ext_len bytes, when not behind ref */
    uint64_t due_ns;          /* held packets: when they leave */
    unsigned char *buf;       /* a copy of the packet */
    const unsigned char *ref; /* in the batch: what leaves (buf, or a ring slot) */
} outgoing_t;

struct tw_udp_link {
    tw_udp_config_t cfg;
    tw_siphash_key_t key; /* the secret, as SipHash takes it */
    int fd;
    size_t payload_max, pkt_max;
    peer_t *peers;
    uint32_t *busy; /* peers with packets in flight */
    uint32_t nbusy;
    uint32_t *acking; /* peers owed an acknowledgement */
    uint32_t nacking;
    outgoing_t out[BATCH];
    unsigned nout;
    outgoing_t held[HELD_MAX]; /* delayed packets, and one held back to be reordered */
    unsigned nheld;
    int reorder_slot; /* index in held of the packet to send after the next one, or -1 */
    unsigned char *rx;
    /* recvmmsg's headers, set up once: a poll that finds nothing costs the call only */
    struct mmsghdr rx_msg[BATCH];
    struct iovec rx_iov[BATCH];
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } rx_ctl[BATCH];
    struct sockaddr_in rx_from[BATCH];
    unsigned char *damaged; /* one packet, for the fault injector's corrupted copy */
    tw_udp_lander_t lander;
    int gso;            /* 1: runs of packets to one peer go as one segmented datagram */
    int gro;            /* 1: packets the kernel joined come as one datagram (UDP_GRO) */
    unsigned rx_count;  /* recvmmsg's entries */
    size_t rx_cap;      /* bytes of each: one packet and a byte, or a joined datagram's */
    unsigned streaming; /* large datagrams are coming: look at each before reading it, until
                           this many small ones come in a row */
    unsigned parked;    /* peers with a parked message */
    uint64_t rng;
    uint64_t now_ns;
    unsigned lost_count;            /* peers declared lost so far */
    tw_udp_liveness_t *live;        /* NULL without liveness */
    tw_udp_live_peer_t *live_peers; /* its entries, by peer */
    unsigned live_verdicts;         /* of its verdicts, those taken */
    uint64_t polled_ns;             /* when the owner last polled */
    struct sockaddr_in live_addr;
    unsigned fins_sent; /* closing: rounds of FINs sent (tw_udp_finish) */
    uint64_t fin_ns;    /* when the last round went */
    tw_udp_stats_t stats;
};

static void send_acks(tw_udp_link_t *l, int all);
static void mark_lost(tw_udp_link_t *l, uint32_t id, int cause);
static void reset(tw_udp_link_t *l, uint32_t id);
static void reopen(tw_udp_link_t *l, peer_t *p, uint32_t id);

static uint64_t clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sequence numbers compare modulo 2^32. */
static int32_t seq_diff(uint32_t a, uint32_t b) {
    return (int32_t)(a - b);
}

void tw_udp_config_default(tw_udp_config_t *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->mtu = 1500;
    cfg->window = 64;
    cfg->rto_us = 2000;
    cfg->peer_timeout_ms = 30000;
    cfg->offload = 1;
}

/* ---- the fault injector and the outgoing batch ---- */

static double uniform(tw_udp_link_t *l) { /* xorshift64* */
    l->rng ^= l->rng >> 12;
    l->rng ^= l->rng << 25;
    l->rng ^= l->rng >> 27;
    return (double)((l->rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static int chance(tw_udp_link_t *l, double p) {
    return p > 0 && uniform(l) < p;
}

/* The packets from out[k] on that go as one datagram of the kernel's UDP segmentation
 * (UDP_SEGMENT): those that follow to the same peer, all as long as the first but the
 * last (which may be shorter), within what one send takes. 1 without it. */
static unsigned gso_run(const tw_udp_link_t *l, unsigned k) {
    const outgoing_t *o = &l->out[k];
    size_t seg = (size_t)o->len + o->ext_len, total = seg;
    unsigned n = 1;
    if (!l->gso || seg > GSO_BYTES_MAX / 2) return 1; /* not two of them in one send */
    while (k + n < l->nout && n < GSO_SEGMENTS_MAX) {
        const outgoing_t *q = &l->out[k + n];
        size_t len = (size_t)q->len + q->ext_len;
        if (q->peer != o->peer || len > seg || total + len > GSO_BYTES_MAX) break;
        total += len;
        n++;
        if (len < seg) break; /* a shorter one ends the run */
    }
    return n;
}

/* Sends the outgoing batch from out[from] on: one sendmmsg, a run of packets to one
 * peer as one datagram that the kernel cuts (or the NIC, with segmentation offload)
 * where each packet ends — one pass through the stack for up to 64 KiB instead of one
 * per packet, which is what makes a small MTU cheap. A kernel or route that refuses it
 * (EIO: no checksum offload on the way; EINVAL, ENOPROTOOPT: too old) turns it off for
 * the link, and what was not sent goes packet by packet. */
static void send_batch(tw_udp_link_t *l, unsigned from) {
    struct mmsghdr m[BATCH];
    struct iovec iov[2 * BATCH];
    unsigned first[BATCH]; /* the packet each datagram starts with */
    union {
        char buf[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } ctl[BATCH];
    unsigned n = 0, v = 0;
    for (unsigned k = from; k < l->nout;) {
        const outgoing_t *o = &l->out[k];
        unsigned run = gso_run(l, k);
        memset(&m[n], 0, sizeof m[n]);
        m[n].msg_hdr.msg_name = (void *)&l->peers[o->peer].addr;
        m[n].msg_hdr.msg_namelen = sizeof l->peers[o->peer].addr;
        m[n].msg_hdr.msg_iov = &iov[v];
        for (unsigned j = 0; j < run; j++) {
            const outgoing_t *q = &l->out[k + j];
            iov[v++] = (struct iovec){(void *)q->ref, q->len};
            if (q->ext_len) iov[v++] = (struct iovec){(void *)q->ext, q->ext_len};
        }
        m[n].msg_hdr.msg_iovlen = (size_t)(&iov[v] - m[n].msg_hdr.msg_iov);
        if (run > 1) {
            uint16_t seg = (uint16_t)(o->len + o->ext_len);
            m[n].msg_hdr.msg_control = ctl[n].buf;
            m[n].msg_hdr.msg_controllen = sizeof ctl[n].buf;
            struct cmsghdr *c = CMSG_FIRSTHDR(&m[n].msg_hdr);
            c->cmsg_level = SOL_UDP;
            c->cmsg_type = UDP_SEGMENT;
            c->cmsg_len = CMSG_LEN(sizeof seg);
            memcpy(CMSG_DATA(c), &seg, sizeof seg);
        }
        first[n++] = k;
        k += run;
    }
    for (unsigned done = 0; done < n;) {
        int r = sendmmsg(l->fd, m + done, n - done, 0);
        if (r > 0) {
            for (int j = 0; j < r; j++) {
                unsigned end = done + (unsigned)j + 1 < n ? first[done + (unsigned)j + 1] : l->nout;
                if (m[done + (unsigned)j].msg_hdr.msg_controllen)
                    l->stats.segmented += end - first[done + (unsigned)j];
            }
            done += (unsigned)r;
            continue;
        }
        if (r < 0 && m[done].msg_hdr.msg_controllen &&
            (errno == EIO || errno == EINVAL || errno == ENOPROTOOPT || errno == EOPNOTSUPP)) {
            l->gso = 0;
            send_batch(l, first[done]);
        }
        break; /* else a full socket buffer loses packets, as a network does */
    }
}

static void flush(tw_udp_link_t *l) {
    send_batch(l, 0);
    l->stats.packets_sent += l->nout;
    l->nout = 0;
}

/* A packet to send: len bytes at pkt, then ext_len bytes at ext (a message's piece
 * the sender keeps until it is acknowledged), or all in one place (ext_len 0). */
typedef struct wire {
    const unsigned char *pkt;
    size_t len;
    const unsigned char *ext;
    size_t ext_len;
} wire_t;

/* Copies a packet whole into buf. */
static size_t gather(unsigned char *buf, const wire_t *w) {
    memcpy(buf, w->pkt, w->len);
    if (w->ext_len) memcpy(buf + w->len, w->ext, w->ext_len);
    return w->len + w->ext_len;
}

/* Puts a packet into the outgoing batch: a copy, or (stable) the packet where it lies.
 * A packet of the send ring is stable: every send and every poll flushes the batch
 * before it returns, and a ring slot is written again only once its packet is
 * acknowledged, when it no longer matters what goes out in its name. */
static void queue(tw_udp_link_t *l, uint32_t peer, const wire_t *w, int stable) {
    if (l->nout == BATCH) flush(l);
    outgoing_t *o = &l->out[l->nout++];
    o->peer = peer;
    if (stable) {
        o->ref = w->pkt;
        o->len = (uint16_t)w->len;
        o->ext = w->ext;
        o->ext_len = (uint16_t)w->ext_len;
    } else {
        o->len = (uint16_t)gather(o->buf, w);
        o->ref = o->buf;
        o->ext = NULL;
        o->ext_len = 0;
    }
}

/* Holds a copy back until due (0: until the next packet has gone). 0 when full. */
static int hold(tw_udp_link_t *l, uint32_t peer, const wire_t *w, uint64_t due) {
    if (l->nheld == HELD_MAX) return 0;
    outgoing_t *h = &l->held[l->nheld++];
    h->peer = peer;
    h->len = (uint16_t)gather(h->buf, w);
    h->due_ns = due;
    return 1;
}

static void unhold(tw_udp_link_t *l, unsigned k) {
    wire_t w = {l->held[k].buf, l->held[k].len, NULL, 0};
    queue(l, l->held[k].peer, &w, 0);
    unsigned char *buf = l->held[k].buf; /* keep the buffers: swap in the last entry */
    l->held[k] = l->held[--l->nheld];
    l->held[l->nheld].buf = buf;
    if (l->reorder_slot == (int)l->nheld) l->reorder_slot = (int)k;
}

/* Sends one packet as the injected faults decide (stable: a send ring slot). */
static void transmit(tw_udp_link_t *l, uint32_t peer, const wire_t *w, int stable) {
    const tw_udp_faults_t *f = &l->cfg.faults;
    if (chance(l, f->drop)) {
        l->stats.injected_drop++;
        return;
    }
    wire_t damaged;
    if (chance(l, f->corrupt)) { /* a damaged copy: the ring keeps the packet intact */
        unsigned char *bad = l->damaged;
        size_t len = gather(bad, w);
        bad[(size_t)(uniform(l) * (double)len)] ^= (unsigned char)(1u << (int)(uniform(l) * 8));
        damaged = (wire_t){bad, len, NULL, 0};
        w = &damaged;
        stable = 0;
        l->stats.injected_corrupt++;
    }
    if (chance(l, f->delay) && hold(l, peer, w, l->now_ns + 1000ull * f->delay_us)) {
        l->stats.injected_delay++;
        return;
    }
    if (l->reorder_slot < 0 && chance(l, f->reorder) && hold(l, peer, w, UINT64_MAX)) {
        l->reorder_slot = (int)l->nheld - 1;
        l->stats.injected_reorder++;
        return;
    }
    queue(l, peer, w, stable);
    if (chance(l, f->duplicate)) {
        queue(l, peer, w, stable);
        l->stats.injected_duplicate++;
    }
    if (l->reorder_slot >= 0) { /* the packet held back goes after this one */
        int k = l->reorder_slot;
        l->reorder_slot = -1;
        unhold(l, (unsigned)k);
    }
}

/* ---- open, close, peers ---- */

tw_udp_link_t *tw_udp_open(const tw_udp_config_t *cfg, struct sockaddr_in *addr) {
    size_t pkt_max = cfg->mtu > IP_UDP_OVERHEAD ? cfg->mtu - IP_UDP_OVERHEAD : 0;
    size_t payload_max = pkt_max > TW_UDP_HDR_SIZE ? pkt_max - TW_UDP_HDR_SIZE : 0;
    if (cfg->mtu > 65535 || payload_max < 64 || cfg->peers == 0 || cfg->self >= cfg->peers ||
        cfg->rto_us == 0 || cfg->peer_timeout_ms == 0 ||
        (size_t)cfg->window * payload_max < TW_UDP_MSG_MAX || cfg->window > TW_UDP_WINDOW_MAX) {
        errno = EINVAL;
        return NULL;
    }
    tw_udp_link_t *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->cfg = *cfg;
    l->fd = -1;
    l->pkt_max = pkt_max;
    l->payload_max = payload_max;
    l->reorder_slot = -1;
    l->gso = cfg->offload;
    l->key = tw_siphash_key(cfg->secret);
    l->rng =
        cfg->faults.seed ? cfg->faults.seed : l->key.k0 ^ (0x9e3779b97f4a7c15ull * (cfg->self + 1));
    if (!l->rng) l->rng = 1;
    l->peers = calloc(cfg->peers, sizeof *l->peers);
    l->busy = calloc(cfg->peers, sizeof *l->busy);
    l->acking = calloc(cfg->peers, sizeof *l->acking);
    /* Below a packet worth landing in place, the kernel may join a peer's packets into
     * one datagram for us (UDP_GRO): one pass up the stack, and one recvmmsg entry, for
     * up to 64 KiB. Larger packets gain nothing from it. */
    l->gro = cfg->offload && TW_UDP_HDR_SIZE + payload_max < TW_UDP_IN_PLACE_MIN;
    l->rx_count = l->gro ? GRO_BATCH : BATCH;
    l->rx_cap = l->gro ? GRO_CAP : pkt_max + 1; /* one byte more tells an oversized datagram */
    l->rx = malloc(l->rx_count * l->rx_cap);
    l->damaged = malloc(pkt_max);
    int ok = l->peers && l->busy && l->acking && l->rx && l->damaged;
    for (unsigned k = 0; ok && k < BATCH; k++) ok = (l->out[k].buf = malloc(pkt_max)) != NULL;
    for (unsigned k = 0; ok && k < HELD_MAX; k++) ok = (l->held[k].buf = malloc(pkt_max)) != NULL;
    for (unsigned k = 0; ok && k < BATCH; k++) {
        l->rx_iov[k] = (struct iovec){l->rx + k * l->rx_cap, l->rx_cap};
        l->rx_msg[k].msg_hdr.msg_iov = &l->rx_iov[k];
        l->rx_msg[k].msg_hdr.msg_iovlen = 1;
        l->rx_msg[k].msg_hdr.msg_name = &l->rx_from[k];
        l->rx_msg[k].msg_hdr.msg_namelen = sizeof l->rx_from[k];
        if (l->gro) {
            l->rx_msg[k].msg_hdr.msg_control = l->rx_ctl[k].buf;
            l->rx_msg[k].msg_hdr.msg_controllen = sizeof l->rx_ctl[k].buf;
        }
    }
    if (ok) {
        for (uint32_t p = 0; p < cfg->peers; p++) {
            l->peers[p].next_seq = l->peers[p].una = 1;
            l->peers[p].expected = 1;
        }
        l->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        socklen_t alen = sizeof *addr;
        ok = l->fd >= 0 && bind(l->fd, (const struct sockaddr *)addr, sizeof *addr) == 0 &&
             getsockname(l->fd, (struct sockaddr *)addr, &alen) == 0;
        int one = 1; /* a kernel without it (before 5.0) delivers packets one by one */
        if (ok && l->gro && setsockopt(l->fd, SOL_UDP, UDP_GRO, &one, sizeof one)) l->gro = 0;
        /* (its buffers stay as large: they hold one packet each then) */
    }
    if (!ok) {
        int e = errno;
        tw_udp_close(l);
        errno = e ? e : ENOMEM;
        return NULL;
    }
    if (cfg->liveness) {
        l->live_addr = *addr;
        l->live = tw_udp_liveness_open(&l->key, cfg->self, cfg->peers, cfg->peer_timeout_ms,
                                       &l->live_addr);
        if (!l->live) {
            int e = errno;
            tw_udp_close(l);
            errno = e;
            return NULL;
        }
        l->live_peers = tw_udp_liveness_peers(l->live);
    }
    /* room for whole windows from several peers: past net.core.rmem_max (and
     * wmem_max) where the process may (CAP_NET_ADMIN), else as far as they allow */
    int bufsize = 4 << 20;
    if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof bufsize))
        setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof bufsize);
    if (setsockopt(l->fd, SOL_SOCKET, SO_SNDBUFFORCE, &bufsize, sizeof bufsize))
        setsockopt(l->fd, SOL_SOCKET, SO_SNDBUF, &bufsize, sizeof bufsize);
    return l;
}

void tw_udp_close(tw_udp_link_t *l) {
    if (!l) return;
    tw_udp_liveness_close(l->live);
    l->live = NULL;
    l->live_peers = NULL; /* what is sent from now on publishes nothing */
    if (l->fd >= 0) {
        l->now_ns = clock_ns();
        send_acks(l, 1); /* what is owed goes now: no later poll will send it */
        for (unsigned k = l->nheld; k-- > 0;) unhold(l, k); /* what was held still goes */
        flush(l);
        close(l->fd);
    }
    for (uint32_t p = 0; l->peers && p < l->cfg.peers; p++) {
        free(l->peers[p].ring);
        free(l->peers[p].sent);
        free(l->peers[p].msg);
        free(l->peers[p].held_in);
        free(l->peers[p].held);
    }
    for (unsigned k = 0; k < BATCH; k++) free(l->out[k].buf);
    for (unsigned k = 0; k < HELD_MAX; k++) free(l->held[k].buf);
    free(l->peers);
    free(l->busy);
    free(l->acking);
    free(l->rx);
    free(l->damaged);
    free(l);
}

int tw_udp_set_peer(tw_udp_link_t *l, uint32_t peer, const struct sockaddr_in *addr) {
    if (peer >= l->cfg.peers) return TW_ERR_RANK;
    l->peers[peer].addr = *addr;
    l->peers[peer].has_addr = 1;
    return TW_OK;
}

unsigned tw_udp_liveness_port(const tw_udp_link_t *l) {
    return l->live ? ntohs(l->live_addr.sin_port) : 0;
}

int tw_udp_set_peer_liveness(tw_udp_link_t *l, uint32_t peer, unsigned port) {
    if (!l->live || peer >= l->cfg.peers || !l->peers[peer].has_addr || port == 0 || port > 65535)
        return TW_ERR_RANK;
    struct sockaddr_in a = l->peers[peer].addr;
    a.sin_port = htons((uint16_t)port);
    tw_udp_liveness_set_peer(l->live, peer, &a);
    return TW_OK;
}

void tw_udp_liveness_counters(const tw_udp_link_t *l, uint64_t *probes, uint64_t *echoes,
                              uint64_t *resets_sent, uint64_t *resets_received) {
    tw_udp_liveness_stats_t s = {0};
    if (l->live) tw_udp_liveness_stats(l->live, &s);
    *probes = s.probes_sent;
    *echoes = s.echoes_sent;
    *resets_sent = s.resets_sent + l->stats.resets_sent;
    *resets_received = s.resets_received + l->stats.resets_received;
}

/* The liveness thread watches peer id from now (the link talks to it). */
static void watch(tw_udp_link_t *l, peer_t *p, uint32_t id) {
    p->watched = 1;
    if (l->live_peers) atomic_store_explicit(&l->live_peers[id].watched, 1, memory_order_relaxed);
}

unsigned tw_udp_in_flight(const tw_udp_link_t *l, uint32_t peer) {
    return peer < l->cfg.peers ? l->peers[peer].next_seq - l->peers[peer].una : 0;
}

size_t tw_udp_payload_max(const tw_udp_link_t *l) {
    return l->payload_max;
}

int tw_udp_room(const tw_udp_link_t *l, uint32_t peer, size_t len) {
    if (peer >= l->cfg.peers || l->peers[peer].lost) return 1; /* the send says why */
    size_t segments = len ? (len + l->payload_max - 1) / l->payload_max : 1;
    return tw_udp_in_flight(l, peer) + segments <= l->cfg.window;
}

int tw_udp_idle(const tw_udp_link_t *l) {
    if (l->nacking) return 0;
    for (uint32_t k = 0; k < l->cfg.peers; k++)
        if (!l->peers[k].lost && !l->peers[k].fin && l->peers[k].una != l->peers[k].next_seq)
            return 0;
    return 1;
}

int tw_udp_quiet(const tw_udp_link_t *l) {
    return !l->nheld && !l->parked && tw_udp_idle(l);
}

int tw_udp_peer_lost(const tw_udp_link_t *l, uint32_t peer) {
    return peer < l->cfg.peers ? l->peers[peer].lost : 0;
}

unsigned tw_udp_lost_count(const tw_udp_link_t *l) {
    return l->lost_count;
}

const tw_udp_stats_t *tw_udp_stats(const tw_udp_link_t *l) {
    return &l->stats;
}

void tw_udp_set_lander(tw_udp_link_t *l, const tw_udp_lander_t *lander) {
    /* a payload authenticated with the header is proven only once read whole */
    l->lander = lander && !l->cfg.mac_payload ? *lander : (tw_udp_lander_t){0};
    l->streaming = 0;
}

int tw_udp_fd(const tw_udp_link_t *l) {
    return l->fd;
}

/* ---- sending ---- */

/* The ring slot of sequence number seq. */
static unsigned char *slot(tw_udp_link_t *l, peer_t *p, uint32_t seq) {
    return p->ring + (seq % l->cfg.window) * l->pkt_max;
}

/* The packet sent as seq, as it was sent (its slot and what it refers to). */
static wire_t sent_packet(tw_udp_link_t *l, peer_t *p, uint32_t seq) {
    size_t k = seq % l->cfg.window;
    return (wire_t){slot(l, p, seq), p->sent[k].len, p->sent[k].ext, p->sent[k].ext_len};
}

/* The packet sent as seq, to be sent again. A piece the caller keeps is sealed anew:
 * a caller that changed it too soon (its data is then undefined, as any RMA race's)
 * gets a packet that arrives, not one refused for its CRC until the peer is lost. */
static wire_t resent_packet(tw_udp_link_t *l, peer_t *p, uint32_t seq) {
    wire_t w = sent_packet(l, p, seq);
    if (w.ext_len) tw_udp_reseal(slot(l, p, seq), w.ext, w.ext_len, &l->key);
    return w;
}

/* The acknowledgement this side owes peer id, into h, which goes to it now. With it
 * goes how far past a gap packets came, when the packet expected next is missing:
 * the sender resends only what a gap shows lost, not what is late (a receiver that
 * did not run for a while), nor what is kept here and not taken yet (an ack that
 * goes out while the kept packets are being taken). */
static void put_ack(tw_udp_link_t *l, uint32_t id, tw_udp_hdr_t *h) {
    peer_t *p = &l->peers[id];
    p->ack_due = p->ack_now = 0;
    p->ack_pkts = 0;
    h->ack = p->expected;
    if (l->live_peers) /* before it goes: the peer's una is never past it (liveness.h) */
        atomic_store_explicit(&l->live_peers[id].acked, h->ack, memory_order_relaxed);
    int32_t past = seq_diff(p->held_end, p->expected);
    if (past < 0) p->held_end = p->expected; /* never so far behind that it wraps */
    int missing = !p->held || p->held[p->expected % l->cfg.window].seq != p->expected;
    h->held = past > 1 && missing ? (uint32_t)past : 0;
}

static void mark_busy(tw_udp_link_t *l, uint32_t id) {
    peer_t *p = &l->peers[id];
    if (p->busy) return;
    p->busy = 1;
    l->busy[l->nbusy++] = id;
    if (!p->watched) watch(l, p, id);
    if (l->live_peers) /* probed while it stays unacknowledged, whether we wait or not */
        atomic_store_explicit(&l->live_peers[id].in_flight, 1, memory_order_relaxed);
    p->timer_ns = p->una_moved_ns = l->now_ns;
    p->backoff = 0;
}

int tw_udp_send(tw_udp_link_t *l, uint32_t id, const void *msg, size_t len) {
    struct iovec iov = {(void *)msg, len};
    return tw_udp_sendv(l, id, &iov, 1);
}

/* A window of n packets of size bytes into *pkts, and its table of n entries of
 * entry bytes (zeroed), returned; NULL (and nothing allocated) without memory. */
static void *window_alloc(size_t n, size_t size, unsigned char **pkts, size_t entry) {
    *pkts = malloc(n * size);
    void *table = calloc(n, entry);
    if (*pkts && table) return table;
    free(*pkts);
    free(table);
    *pkts = NULL;
    return NULL;
}

/* tw_udp_sendv, and with keep_last tw_udp_sendv_kept. */
static int send_pieces(tw_udp_link_t *l, uint32_t id, const struct iovec *iov, int niov,
                       int keep_last) {
    size_t len = 0;
    for (int i = 0; i < niov; i++) len += iov[i].iov_len;
    if (id >= l->cfg.peers || !l->peers[id].has_addr) return TW_ERR_RANK;
    if (len > TW_UDP_MSG_MAX) return TW_ERR_SIZE;
    peer_t *p = &l->peers[id];
    if (p->lost) return TW_ERR_LOST;
    size_t segments = len ? (len + l->payload_max - 1) / l->payload_max : 1;
    if (tw_udp_in_flight(l, id) + segments > l->cfg.window) return TW_RETRY;
    if (__builtin_expect(p->fin, 0)) reopen(l, p, id);
    if (!p->ring && !(p->sent = window_alloc(l->cfg.window, l->pkt_max, &p->ring, sizeof *p->sent)))
        return TW_ERR_NOMEM;
    l->now_ns = clock_ns();
    if (!p->busy) mark_busy(l, id);
    /* The last piece is left where it is when the message goes as one packet, all but
     * what the prefix (under hcrc) takes of it: that is copied, so that a receiver
     * peeking at the prefix sees the ring's bytes */
    size_t kept = 0;
    if (keep_last && niov > 0 && segments == 1) {
        size_t head = len - iov[niov - 1].iov_len;
        size_t copied = head > TW_UDP_PREFIX ? head : TW_UDP_PREFIX;
        kept = len > copied ? len - copied : 0;
    }
    const unsigned char *ext =
        kept ? (const unsigned char *)iov[niov - 1].iov_base + iov[niov - 1].iov_len - kept : NULL;
    int piece = 0; /* where the gathering stands: iov[piece], at byte at */
    size_t at = 0;
    for (size_t off = 0, s = 0; s < segments; s++) {
        size_t n = len - off < l->payload_max ? len - off : l->payload_max;
        tw_udp_hdr_t h = {.src = l->cfg.self,
                          .dst = id,
                          .seq = p->next_seq,
                          .flags = TW_UDP_DATA | TW_UDP_ACK | (s == 0 ? TW_UDP_FIRST : 0) |
                                   (s == segments - 1 ? TW_UDP_LAST : 0) |
                                   (l->cfg.mac_payload ? TW_UDP_MAC_PAYLOAD : 0),
                          .len = (uint16_t)n,
                          .msg_len = s == 0 ? (uint32_t)len : 0};
        put_ack(l, id, &h);
        size_t k = p->next_seq % l->cfg.window;
        unsigned char *pkt = slot(l, p, p->next_seq++);
        size_t copied = n - kept;
        for (size_t done = 0; done < copied;) { /* the payload straight into the ring */
            size_t c =
                iov[piece].iov_len - at < copied - done ? iov[piece].iov_len - at : copied - done;
            if (c) /* an empty piece may have no base */
                memcpy(pkt + TW_UDP_HDR_SIZE + done,
                       (const unsigned char *)iov[piece].iov_base + at, c);
            done += c;
            at += c;
            if (at == iov[piece].iov_len) {
                piece++;
                at = 0;
            }
        }
        p->sent[k] = (struct sent){ext, (uint16_t)(TW_UDP_HDR_SIZE + copied), (uint16_t)kept};
        tw_udp_seal_split(pkt, &h, p->sent[k].ext, kept, &l->key);
        wire_t w = sent_packet(l, p, h.seq);
        transmit(l, id, &w, 1);
        off += n;
    }
    l->stats.msgs_sent++;
    flush(l);
    return TW_OK;
}

int tw_udp_sendv(tw_udp_link_t *l, uint32_t id, const struct iovec *iov, int niov) {
    return send_pieces(l, id, iov, niov, 0);
}

int tw_udp_sendv_kept(tw_udp_link_t *l, uint32_t id, const struct iovec *iov, int niov) {
    return send_pieces(l, id, iov, niov, 1);
}

/* ---- receiving ---- */

/* Owes peer id an acknowledgement; urgent: send it with this poll. Otherwise it waits
 * (ack_delay_us, or a quarter window of packets) for data going back to carry it: a
 * request answered at once, a ping-pong's reply, then cost no packet of their own. */
static void owe_ack(tw_udp_link_t *l, uint32_t id, int urgent) {
    peer_t *p = &l->peers[id];
    p->ack_now |= urgent;
    if (!p->ack_due) {
        p->ack_due = 1;
        p->ack_pkts = 0;
        p->ack_since_ns = l->now_ns;
    }
    p->ack_pkts++;
    /* a receiver that sends while it takes a message (an RMA answer) clears ack_due
     * with the data it sends: the peer may be listed already */
    if (p->ack_listed) return;
    p->ack_listed = 1;
    l->acking[l->nacking++] = id;
}

/* Sends the oldest unacknowledged packet again: on its timeout, or at once when the
 * receiver reports it missing. */
static void resend_una(tw_udp_link_t *l, peer_t *p, uint32_t id) {
    wire_t w = resent_packet(l, p, p->una);
    transmit(l, id, &w, 1);
    l->stats.retransmits++;
    p->resent_ns = l->now_ns;
    p->dupacks = 0;
}

static void take_ack(tw_udp_link_t *l, peer_t *p, const tw_udp_hdr_t *h, uint32_t id) {
    uint32_t ack = h->ack;
    /* the receiver holds packets past a gap at ack: ack itself went missing (a
     * packet that is only late leaves no gap behind a later one) */
    int gap = h->held > 1 && seq_diff(ack + h->held, p->next_seq) <= 0;
    if (ack == p->una && p->una != p->next_seq) {
        /* The receiver is missing una: lost once it holds DUP_THRESH packets sent after
         * it (a receiver that reads a whole window in one poll acks it once), or at
         * the third bare ack of the gap. Sent again then, unless it was sent again too
         * lately to have come yet (the gap is still the old one). */
        int lost = gap && (h->held > DUP_THRESH ||
                           (!(h->flags & TW_UDP_DATA) && ++p->dupacks >= DUP_THRESH));
        uint64_t due_ns = p->resent_ns + p->srtt_ns + 4 * p->rttvar_ns;
        if (lost && (!p->resent_ns || l->now_ns > due_ns)) {
            resend_una(l, p, id);
            p->recovering = 1;
            p->recover = p->next_seq;
        }
        return;
    }
    if (seq_diff(ack, p->una) <= 0 || seq_diff(ack, p->next_seq) > 0) return; /* old, or bogus */
    if (!p->resent_ns) {
        uint64_t rtt = l->now_ns - p->timer_ns;
        if (!p->srtt_ns) {
            p->srtt_ns = rtt;
            p->rttvar_ns = rtt / 2;
        } else {
            uint64_t dev = rtt > p->srtt_ns ? rtt - p->srtt_ns : p->srtt_ns - rtt;
            p->rttvar_ns = (3 * p->rttvar_ns + dev) / 4;
            p->srtt_ns = (7 * p->srtt_ns + rtt) / 8;
        }
    }
    p->resent_ns = 0;
    p->dupacks = 0;
    p->una = ack;
    if (l->live_peers) /* announced in probes and echoes (liveness.h) */
        atomic_store_explicit(&l->live_peers[id].una, ack, memory_order_relaxed);
    p->una_moved_ns = p->timer_ns = l->now_ns;
    p->backoff = 0;
    if (p->recovering && seq_diff(ack, p->recover) < 0) {
        /* a partial acknowledgement (NewReno): the receiver keeps what came after a
         * gap, so the ack stops at the next packet it lacks; resent now, not after
         * three more duplicates that may never come or a timeout. Without a gap the
         * rest is late, not lost (the timeout was spurious): resending it would only
         * send it twice */
        if (gap) resend_una(l, p, id);
    } else {
        p->recovering = 0;
    }
}

/* Offers the whole message (at msg: p->msg, or a packet's payload) to the receiver: 1
 * when taken. A message refused from a packet is copied to p->msg, to be offered again. */
static int hand_over(tw_udp_link_t *l, uint32_t id, const unsigned char *msg,
                     tw_udp_deliver_fn deliver, void *ctx) {
    peer_t *p = &l->peers[id];
    if (deliver(ctx, id, msg, p->msg_len)) {
        if (msg != p->msg) memcpy(p->msg, msg, p->msg_len);
        if (!p->parked) {
            l->stats.refused++;
            l->parked++;
            p->parked = 1;
        }
        return 0;
    }
    if (p->parked) l->parked--;
    p->parked = p->in_msg = 0;
    l->stats.msgs_received++;
    owe_ack(l, id, 0);
    return 1;
}

/* The packet expected next, added to its message; 1 when that message was handed
 * over whole. A packet that breaks its sender's framing is not taken (and so never
 * acknowledged): nothing of it is believed. */
static int take_segment(tw_udp_link_t *l, uint32_t id, const tw_udp_hdr_t *h,
                        const unsigned char *payload, tw_udp_deliver_fn deliver, void *ctx) {
    peer_t *p = &l->peers[id];
    int first = (h->flags & TW_UDP_FIRST) != 0;
    if (first == p->in_msg || (!first && p->msg_fill + h->len > p->msg_len)) {
        l->stats.protocol++;
        return 0;
    }
    if (first) {
        if (p->msg_cap < h->msg_len || !p->msg) {
            unsigned char *m = realloc(p->msg, h->msg_len ? h->msg_len : 1);
            if (!m) return 0; /* not taken: it comes again */
            p->msg = m;
            p->msg_cap = h->msg_len;
        }
        p->in_msg = 1;
        p->msg_first = h->seq;
        p->msg_len = h->msg_len;
        p->msg_fill = 0;
    }
    if (first && (h->flags & TW_UDP_LAST) && h->len == p->msg_len) {
        /* a message of one packet: offered where it lies, not copied */
        p->msg_fill = h->len;
        p->expected++;
        return hand_over(l, id, payload, deliver, ctx);
    }
    if (!(h->flags & TW_UDP_LAST) || p->msg_fill + h->len == p->msg_len) {
        memcpy(p->msg + p->msg_fill, payload, h->len);
        p->msg_fill += h->len;
        p->expected++;
    }
    if (!(h->flags & TW_UDP_LAST)) return 0;
    if (p->msg_fill != p->msg_len) { /* the last segment, and the message still short */
        l->stats.protocol++;
        return 0;
    }
    return hand_over(l, id, p->msg, deliver, ctx);
}

/* Takes, in order, the packets kept from peer id that the gap held back. */
static int take_held(tw_udp_link_t *l, uint32_t id, tw_udp_deliver_fn deliver, void *ctx) {
    peer_t *p = &l->peers[id];
    int delivered = 0;
    if (!p->held) return 0;
    while (!p->parked) {
        size_t k = p->expected % l->cfg.window;
        if (p->held[k].seq != p->expected) break;
        const unsigned char *pkt = p->held_in + k * l->pkt_max;
        tw_udp_hdr_t h;
        if (tw_udp_decode(pkt, p->held[k].len, &l->key, l->cfg.self, &h) != TW_UDP_OK)
            break; /* cannot be: it was checked when it came */
        uint32_t before = p->expected;
        delivered += take_segment(l, id, &h, pkt + TW_UDP_HDR_SIZE, deliver, ctx);
        if (p->expected == before) break; /* not taken */
        p->held[k].seq = 0;
    }
    return delivered;
}

/* Where packet seq, ahead of its turn, is kept (of pkt_max bytes); NULL when it is not
 * ahead within the window, one is kept there already, or there is no memory. */
static unsigned char *kept_slot(tw_udp_link_t *l, peer_t *p, uint32_t seq) {
    int32_t d = seq_diff(seq, p->expected);
    if (d <= 0 || (uint32_t)d >= l->cfg.window) return NULL;
    if (!p->held_in &&
        !(p->held = window_alloc(l->cfg.window, l->pkt_max, &p->held_in, sizeof *p->held)))
        return NULL;
    size_t k = seq % l->cfg.window;
    return p->held[k].seq == seq ? NULL : p->held_in + k * l->pkt_max;
}

/* Keeps a packet that came ahead of its turn (read there already when pkt is its
 * slot); 0 when there is no room for it. */
static int keep(tw_udp_link_t *l, peer_t *p, const unsigned char *pkt, size_t len, uint32_t seq) {
    unsigned char *at = kept_slot(l, p, seq);
    if (!at) return 0;
    if (at != pkt) memcpy(at, pkt, len);
    p->held[seq % l->cfg.window] = (struct kept){seq, (uint16_t)len};
    return 1;
}

/* The peer an authenticated packet names as its sender, when it came from where that
 * peer lives: the address published for it, or for a peer not told yet, where its
 * first authenticated packet came from (answered there). NULL, counted, for a packet
 * from anywhere else, even one that authenticates: a copy replayed from another port. */
static peer_t *sender_of(tw_udp_link_t *l, const tw_udp_hdr_t *h, const struct sockaddr_in *from,
                         socklen_t from_len) {
    if (h->src >= l->cfg.peers || h->src == l->cfg.self) {
        l->stats.unknown_peer++;
        return NULL;
    }
    peer_t *p = &l->peers[h->src];
    if (from_len != sizeof *from || from->sin_family != AF_INET) {
        l->stats.wrong_source++;
        return NULL;
    }
    if (!p->has_addr) {
        p->addr = *from;
        p->has_addr = 1;
    } else if (from->sin_addr.s_addr != p->addr.sin_addr.s_addr ||
               from->sin_port != p->addr.sin_port) {
        l->stats.wrong_source++;
        return NULL;
    }
    return p;
}

/* A packet that repeats what was taken already: a data packet before the one expected
 * next (its sender resent it, or it is replayed), or a bare acknowledgement behind
 * the last one taken or of what was never sent (late, or replayed). It is counted and
 * changes nothing: its acknowledgement is not taken, the peer is not heard from, a FIN
 * it carries is not believed. A data packet is still acknowledged (its sender may
 * have missed the acknowledgement). */
static int replayed(tw_udp_link_t *l, peer_t *p, const tw_udp_hdr_t *h) {
    if (h->flags & TW_UDP_DATA) {
        if (seq_diff(h->seq, p->expected) >= 0) return 0;
        l->stats.duplicates++;
        return 1;
    }
    if (seq_diff(h->ack, p->una) >= 0 && seq_diff(h->ack, p->next_seq) <= 0) return 0;
    l->stats.stale_acks++;
    return 1;
}

/* A peer's FIN, its acknowledgement taken: it says the peer has closed and takes
 * nothing more. Believed only when it acknowledges everything sent to the peer, as a
 * peer's FIN does when it closed having received it all: nothing is given up then.
 * One short of that (the peer closes while data to it is missing, or it is not the
 * peer's at all: anyone holding the job's secret can make one) is taken as an
 * acknowledgement only, and what it lacks is sent at once: a closing peer still reads
 * while it sends its FINs, and its next FIN is final; a peer that has gone is found
 * lost by the timeout. Giving data up on a FIN that did not acknowledge it would leave
 * a peer that had not closed waiting for it for good (tests/fuzz/insider.c found it). */
static void take_fin(tw_udp_link_t *l, peer_t *p, uint32_t id) {
    if (p->una != p->next_seq) {
        uint64_t due_ns = p->resent_ns + p->srtt_ns + 4 * p->rttvar_ns;
        if (!p->resent_ns || l->now_ns > due_ns) resend_una(l, p, id);
        return;
    }
    p->fin = 1;
    if (l->live_peers) /* it has gone: its silence says nothing now */
        atomic_store_explicit(&l->live_peers[id].watched, 0, memory_order_relaxed);
}

/* A peer taken for closed that sends new data, or to which new data goes, has not
 * closed (a closed peer sends nothing, and a FIN may be forged): it is watched again,
 * and what goes to it is resent until acknowledged, as to any peer. */
static void reopen(tw_udp_link_t *l, peer_t *p, uint32_t id) {
    p->fin = 0;
    watch(l, p, id);
}

/* What every accepted packet does first: its sender known, its acknowledgement
 * taken. The sender, or NULL when nothing more of the packet is looked at. */
static peer_t *accept_packet(tw_udp_link_t *l, const tw_udp_hdr_t *h,
                             const struct sockaddr_in *from, socklen_t from_len) {
    peer_t *p = sender_of(l, h, from, from_len);
    if (!p) return NULL;
    if (h->flags & TW_UDP_CONTROL) { /* a reset: the peer had declared us lost */
        if (h->flags == TW_UDP_RST) {
            l->stats.resets_received++;
            mark_lost(l, h->src, TW_ERR_RESET);
        }
        return NULL;
    }
    if (p->lost) {
        reset(l, h->src);
        return NULL;
    }
    if (replayed(l, p, h)) {
        if (h->flags & TW_UDP_DATA) owe_ack(l, h->src, 1);
        return NULL;
    }
    p->heard_ns = l->now_ns;
    if (l->live_peers) {
        atomic_store_explicit(&l->live_peers[h->src].heard_ns, l->now_ns, memory_order_relaxed);
        if (!p->watched) watch(l, p, h->src);
    }
    if (p->fin && (h->flags & TW_UDP_DATA)) reopen(l, p, h->src); /* new data: it is there */
    take_ack(l, p, h, h->src);
    if (h->flags & TW_UDP_FIN) take_fin(l, p, h->src);
    return p;
}

/* One datagram of len bytes (truncated: it was longer) from from: checked, then
 * acknowledged, taken, kept or dropped. Returns the messages delivered. */
static int take_datagram(tw_udp_link_t *l, const unsigned char *pkt, size_t len, int truncated,
                         const struct sockaddr_in *from, socklen_t from_len,
                         tw_udp_deliver_fn deliver, void *ctx) {
    l->stats.packets_received++;
    tw_udp_hdr_t h;
    tw_udp_verdict_t v = len > l->pkt_max || truncated
                             ? TW_UDP_BAD_LEN
                             : tw_udp_decode(pkt, len, &l->key, l->cfg.self, &h);
    if (v == TW_UDP_OK && l->cfg.mac_payload && (h.flags & TW_UDP_DATA) &&
        !(h.flags & TW_UDP_MAC_PAYLOAD))
        v = TW_UDP_BAD_MAC; /* its payload is not authenticated, as this job requires */
    if (v != TW_UDP_OK) {
        l->stats.dropped[v]++;
        return 0;
    }
    if (l->lander.land && len >= TW_UDP_IN_PLACE_MIN) l->streaming = STREAM_SMALL_MAX;
    peer_t *p = accept_packet(l, &h, from, from_len);
    if (!p || !(h.flags & TW_UDP_DATA)) return 0;
    int delivered = 0;
    int32_t d = seq_diff(h.seq, p->expected); /* not behind: accept_packet saw to it */
    if (d == 0 && !p->parked) {
        delivered += take_segment(l, h.src, &h, pkt + TW_UDP_HDR_SIZE, deliver, ctx);
        delivered += take_held(l, h.src, deliver, ctx);
    } else if ((uint32_t)d < l->cfg.window) {
        if (d > 0 && p->held && p->held[h.seq % l->cfg.window].seq == h.seq) {
            l->stats.duplicates++; /* kept already */
        } else {
            l->stats.out_of_order += !p->parked;
            if (keep(l, p, pkt, len, h.seq) && seq_diff(h.seq + 1, p->held_end) > 0)
                p->held_end = h.seq + 1;
        }
    }
    /* packets out of order at once, whose duplicate ack reports the gap (duplicates
     * too: accept_packet owes theirs) */
    owe_ack(l, h.src, d != 0 || p->parked);
    return delivered;
}

/* 1 when a datagram from from comes from where peer p lives (as far as known yet): the
 * receiver's memory is written only for a packet that comes from there. */
static int from_peer(const peer_t *p, const struct sockaddr_in *from, socklen_t from_len) {
    return from_len == sizeof *from && from->sin_family == AF_INET &&
           (!p->has_addr || (from->sin_addr.s_addr == p->addr.sin_addr.s_addr &&
                             from->sin_port == p->addr.sin_port));
}

/* Takes the large datagrams at the head of the socket one by one: the header and
 * prefix are looked at first without taking the datagram (MSG_PEEK); one that carries
 * a whole message, next in order, goes into the link's buffer and the receiver's
 * destination (tw_udp_lander_t), one ahead of its turn where it is kept until then,
 * any other into the link's buffer. Stops at the datagram when small ones come in a
 * row (streaming runs out): those are recvmmsg's. */
static int receive_in_place(tw_udp_link_t *l, tw_udp_deliver_fn deliver, void *ctx) {
    int delivered = 0;
    unsigned char *buf = l->rx;
    const uint16_t whole = TW_UDP_DATA | TW_UDP_FIRST | TW_UDP_LAST;
    for (unsigned k = 0; k < BATCH; k++) {
        struct sockaddr_in from;
        struct iovec iov = {buf, TW_UDP_HDR_SIZE + TW_UDP_PREFIX};
        struct msghdr mh = {
            .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1};
        ssize_t total = recvmsg(l->fd, &mh, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
        if (total < 0) break;
        if (total >= TW_UDP_IN_PLACE_MIN)
            l->streaming = STREAM_SMALL_MAX;
        else if (!--l->streaming)
            break;
        tw_udp_hdr_t h;
        size_t seen = (size_t)total < iov.iov_len ? (size_t)total : iov.iov_len;
        void *dest = NULL;
        size_t skip = 0;
        unsigned char *into = buf;
        if ((size_t)total >= TW_UDP_IN_PLACE_MIN && (size_t)total <= l->pkt_max &&
            tw_udp_decode_prefix(buf, seen, (size_t)total, &l->key, l->cfg.self, &h) == TW_UDP_OK &&
            (h.flags & TW_UDP_DATA) && h.src < l->cfg.peers && h.src != l->cfg.self &&
            from_peer(&l->peers[h.src], &from, mh.msg_namelen)) {
            peer_t *q = &l->peers[h.src];
            if (!q->lost && !q->parked && (h.flags & whole) == whole && !q->in_msg &&
                h.seq == q->expected) {
                dest = l->lander.land(ctx, h.src, buf + TW_UDP_HDR_SIZE, h.len, &skip);
            } else if (!q->lost) {
                unsigned char *slot = kept_slot(l, q, h.seq);
                if (slot) into = slot;
            }
        }
        if (!dest) { /* read as usual, and judged and counted so */
            iov = (struct iovec){into, into == buf ? l->pkt_max + 1 : l->pkt_max};
            mh = (struct msghdr){
                .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1};
            ssize_t n = recvmsg(l->fd, &mh, MSG_DONTWAIT);
            if (n < 0) break;
            delivered += take_datagram(l, into, (size_t)n, (mh.msg_flags & MSG_TRUNC) != 0, &from,
                                       mh.msg_namelen, deliver, ctx);
            continue;
        }
        peer_t *p = &l->peers[h.src];
        if (skip > TW_UDP_PREFIX) skip = TW_UDP_PREFIX; /* the lander promised as much */
        if (skip > h.len) skip = h.len;
        unsigned char peeked[TW_UDP_HDR_SIZE];
        memcpy(peeked, buf, sizeof peeked);
        struct iovec two[2] = {{buf, TW_UDP_HDR_SIZE + skip}, {dest, h.len - skip}};
        mh = (struct msghdr){
            .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = two, .msg_iovlen = 2};
        ssize_t n = recvmsg(l->fd, &mh, MSG_DONTWAIT);
        l->stats.packets_received++;
        /* the datagram read is the one looked at (this thread alone reads the socket);
         * the whole packet's CRC proves it undamaged */
        int ok = n == total && !(mh.msg_flags & MSG_TRUNC) && !memcmp(peeked, buf, sizeof peeked) &&
                 tw_udp_crc_split_ok(buf, TW_UDP_HDR_SIZE + skip, dest, h.len - skip, &h);
        if (!ok) {
            l->stats.dropped[n == total ? TW_UDP_BAD_CRC : TW_UDP_BAD_LEN]++;
            l->lander.landed(ctx, h.src, buf + TW_UDP_HDR_SIZE, h.len, 0);
            continue;
        }
        if (!accept_packet(l, &h, &from, mh.msg_namelen)) { /* lost meanwhile */
            l->lander.landed(ctx, h.src, buf + TW_UDP_HDR_SIZE, h.len, 0);
            continue;
        }
        p->expected++;
        l->lander.landed(ctx, h.src, buf + TW_UDP_HDR_SIZE, h.len, 1);
        l->stats.msgs_received++;
        l->stats.in_place++;
        delivered++;
        owe_ack(l, h.src, 0);
        delivered += take_held(l, h.src, deliver, ctx);
    }
    return delivered;
}

/* The size of each packet in a datagram the kernel joined (UDP_GRO's control message),
 * or 0: one packet. */
static size_t joined_size(struct msghdr *h) {
    for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
            c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int seg;
            memcpy(&seg, CMSG_DATA(c), sizeof seg);
            return seg > 0 ? (size_t)seg : 0;
        }
    return 0;
}

static int receive(tw_udp_link_t *l, tw_udp_deliver_fn deliver, void *ctx) {
    int delivered = 0;
    if (l->streaming) {
        delivered = receive_in_place(l, deliver, ctx);
        /* it stopped at an empty socket or after a batch: what comes next is looked
         * at first too, at the next poll */
        if (l->streaming) return delivered;
    }
    struct mmsghdr *m = l->rx_msg;
    struct sockaddr_in *from = l->rx_from;
    int n = recvmmsg(l->fd, m, l->rx_count, MSG_DONTWAIT, NULL);
    for (int k = 0; k < n; k++) {
        unsigned char *at = l->rx + (size_t)k * l->rx_cap;
        size_t len = m[k].msg_len, seg = joined_size(&m[k].msg_hdr);
        int trunc = (m[k].msg_hdr.msg_flags & MSG_TRUNC) != 0;
        if (seg && seg < len && !trunc) { /* packets the kernel joined: each on its own */
            for (size_t off = 0; off < len; off += seg) {
                size_t piece = len - off < seg ? len - off : seg;
                delivered += take_datagram(l, at + off, piece, 0, &from[k],
                                           m[k].msg_hdr.msg_namelen, deliver, ctx);
                l->stats.joined++;
            }
            continue;
        }
        delivered +=
            take_datagram(l, at, len, trunc, &from[k], m[k].msg_hdr.msg_namelen, deliver, ctx);
    }
    for (int k = 0; k < n; k++) { /* for the next call */
        m[k].msg_hdr.msg_namelen = sizeof from[k];
        m[k].msg_hdr.msg_controllen = m[k].msg_hdr.msg_control ? sizeof l->rx_ctl[k].buf : 0;
    }
    return delivered;
}

/* Offers the parked messages again, and takes what they held back. */
static int retry_parked(tw_udp_link_t *l, tw_udp_deliver_fn deliver, void *ctx) {
    int delivered = 0;
    for (uint32_t id = 0; id < l->cfg.peers && l->parked; id++) {
        peer_t *p = &l->peers[id];
        if (!p->parked) continue;
        if (p->lost) { /* nothing more is taken from it, even what came before */
            p->parked = 0;
            l->parked--;
            continue;
        }
        if (!hand_over(l, id, p->msg, deliver, ctx)) continue;
        delivered += 1 + take_held(l, id, deliver, ctx);
    }
    return delivered;
}

/* ---- timers ---- */

/* The retransmission timeout: the smoothed round trip plus four variations, at least
 * the configured one, doubled per timeout after the first since the last progress, up
 * to 64 configured ones or the undoubled estimate if that is longer. The estimate
 * takes in the time a peer did not poll (a pause, a loaded host): doubled as well,
 * it would let one lost packet stall the stream for minutes. The first is a probe,
 * sooner where a round trip has been measured. */
static uint64_t rto_ns(const tw_udp_link_t *l, const peer_t *p) {
    uint64_t rto = p->srtt_ns + 4 * p->rttvar_ns, min = 1000ull * l->cfg.rto_us;
    if (rto < min) rto = min;
    if (p->backoff) {
        uint64_t doubled = rto << (p->backoff - 1), max = min << (BACKOFF_MAX - 1);
        return doubled <= max ? doubled : rto > max ? rto : max;
    }
    uint64_t probe = 2 * p->srtt_ns + 1000ull * l->cfg.ack_delay_us;
    return p->srtt_ns && probe < rto ? probe : rto;
}

static void retransmit(tw_udp_link_t *l) {
    uint64_t timeout_ns = 1000ull * l->cfg.peer_timeout_ms * 1000u;
    for (uint32_t k = 0; k < l->nbusy;) {
        uint32_t id = l->busy[k];
        peer_t *p = &l->peers[id];
        if (p->una == p->next_seq || p->lost || p->fin) { /* all acknowledged, or given up */
            p->busy = 0;
            l->busy[k] = l->busy[--l->nbusy];
            if (l->live_peers)
                atomic_store_explicit(&l->live_peers[id].in_flight, 0, memory_order_relaxed);
            continue;
        }
        k++;
        /* With liveness, its thread gives the verdict: a peer that answers probes is
         * alive, however long its acknowledgements wait (it computes, or its host is
         * busy). Without, unacknowledged data is the only evidence. */
        uint64_t alive = p->una_moved_ns > p->heard_ns ? p->una_moved_ns : p->heard_ns;
        if (!l->live_peers && l->now_ns - alive > timeout_ns) {
            mark_lost(l, id, TW_ERR_LOST);
            continue;
        }
        if (l->now_ns - p->timer_ns < rto_ns(l, p)) continue;
        resend_una(l, p, id); /* the oldest only: the receiver keeps what came after it */
        l->stats.timeouts++;
        p->recovering = 1;
        p->recover = p->next_seq;
        p->timer_ns = l->now_ns;
        if (p->backoff < BACKOFF_MAX) p->backoff++;
    }
}

/* Declares peer id lost, for cause: nothing more goes to it or is taken from it. */
static void mark_lost(tw_udp_link_t *l, uint32_t id, int cause) {
    peer_t *p = &l->peers[id];
    if (p->lost) return;
    p->lost = cause;
    l->lost_count++;
    if (l->live_peers) atomic_store_explicit(&l->live_peers[id].lost, cause, memory_order_relaxed);
    if (cause != TW_ERR_RESET) reset(l, id); /* if it still hears us, it learns at once */
}

/* Tells peer id, declared lost, that it was: a reset, at most one per millisecond. */
static void reset(tw_udp_link_t *l, uint32_t id) {
    peer_t *p = &l->peers[id];
    if (!p->has_addr || (p->reset_ns && l->now_ns - p->reset_ns < 1000000u)) return;
    p->reset_ns = l->now_ns;
    unsigned char pkt[TW_UDP_HDR_SIZE];
    tw_udp_control_packet(pkt, &l->key, l->cfg.self, id, TW_UDP_RST, 0);
    wire_t w = {pkt, sizeof pkt, NULL, 0};
    queue(l, id, &w, 0); /* not through the fault injector: it is not data */
    l->stats.resets_sent++;
}

/* Sends the acknowledgements that are due (all: every one still owed); the others
 * stay listed for a later poll. */
static void send_acks(tw_udp_link_t *l, int all) {
    unsigned char pkt[TW_UDP_HDR_SIZE];
    uint64_t delay_ns = 1000ull * l->cfg.ack_delay_us;
    unsigned every = l->cfg.window / 4 ? l->cfg.window / 4 : 1;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < l->nacking; k++) {
        uint32_t id = l->acking[k];
        peer_t *p = &l->peers[id];
        if (p->ack_due && p->has_addr && !all && !p->ack_now && p->ack_pkts < every &&
            l->now_ns - p->ack_since_ns < delay_ns) {
            l->acking[kept++] = id; /* not due yet */
            continue;
        }
        p->ack_listed = 0;
        if (!p->ack_due) continue; /* data carried it */
        if (!p->has_addr) {
            p->ack_due = 0;
            continue;
        }
        tw_udp_hdr_t h = {.src = l->cfg.self, .dst = id, .flags = TW_UDP_ACK};
        put_ack(l, id, &h);
        tw_udp_encode(pkt, &h, NULL, &l->key);
        wire_t w = {pkt, sizeof pkt, NULL, 0};
        transmit(l, id, &w, 0);
        l->stats.acks_sent++;
    }
    l->nacking = kept;
}

/* Closing, after tw_udp_idle: a FIN, which carries our final acknowledgement, to every
 * peer heard from, again every FIN_EVERY_NS until that peer's own FIN came, at most
 * FIN_SENDS times. A peer whose last packet's acknowledgement was lost learns from any
 * of them that it arrived, even after this process has gone (the FINs wait in its
 * socket), so no side waits for an acknowledgement from a peer that has left. */
enum { FIN_SENDS = 10 };
#define FIN_EVERY_NS (10ull * 1000 * 1000)

static int fin_owed(const tw_udp_link_t *l, uint32_t id) {
    const peer_t *p = &l->peers[id];
    return id != l->cfg.self && p->has_addr && p->heard_ns && !p->lost && !p->fin;
}

int tw_udp_finish(tw_udp_link_t *l) {
    l->now_ns = clock_ns();
    int waiting = 0;
    for (uint32_t id = 0; id < l->cfg.peers && !waiting; id++) waiting = fin_owed(l, id);
    if (!waiting) return 1;
    if (l->fins_sent && l->now_ns - l->fin_ns < FIN_EVERY_NS) return 0;
    if (l->fins_sent >= FIN_SENDS) return 1;
    unsigned char pkt[TW_UDP_HDR_SIZE];
    for (uint32_t id = 0; id < l->cfg.peers; id++) {
        if (!fin_owed(l, id)) continue;
        tw_udp_hdr_t h = {.src = l->cfg.self, .dst = id, .flags = TW_UDP_ACK | TW_UDP_FIN};
        put_ack(l, id, &h);
        tw_udp_encode(pkt, &h, NULL, &l->key);
        wire_t w = {pkt, sizeof pkt, NULL, 0};
        transmit(l, id, &w, 0);
        l->stats.fins_sent++;
    }
    flush(l);
    l->fins_sent++;
    l->fin_ns = l->now_ns;
    return 0;
}

/* Takes the liveness thread's new verdicts. */
static void take_verdicts(tw_udp_link_t *l, unsigned verdicts) {
    l->live_verdicts = verdicts;
    for (uint32_t id = 0; id < l->cfg.peers; id++) {
        int v = atomic_load_explicit(&l->live_peers[id].verdict, memory_order_relaxed);
        if (v && !l->peers[id].lost) mark_lost(l, id, v);
    }
}

/* This process did not run for half a timeout (it was stopped, or computed without
 * polling): the silence of its peers meanwhile says nothing of them. Each gets a whole
 * timeout from now; one that declared us lost meanwhile resets us sooner than that. */
static void came_back(tw_udp_link_t *l) {
    for (uint32_t k = 0; k < l->nbusy; k++) {
        peer_t *p = &l->peers[l->busy[k]];
        p->una_moved_ns = p->timer_ns = l->now_ns;
    }
}

int tw_udp_poll(tw_udp_link_t *l, tw_udp_deliver_fn deliver, void *ctx) {
    l->now_ns = clock_ns();
    if (__builtin_expect(l->now_ns - l->polled_ns > 500000ull * l->cfg.peer_timeout_ms, 0) &&
        l->polled_ns)
        came_back(l);
    l->polled_ns = l->now_ns;
    if (l->live) {
        tw_udp_liveness_polled(l->live, l->now_ns);
        unsigned verdicts = tw_udp_liveness_verdicts(l->live);
        if (__builtin_expect(verdicts != l->live_verdicts, 0)) take_verdicts(l, verdicts);
    }
    int delivered = l->parked ? retry_parked(l, deliver, ctx) : 0;
    delivered += receive(l, deliver, ctx);
    for (unsigned k = 0; k < l->nheld;) { /* delayed packets that are due */
        if (l->held[k].due_ns <= l->now_ns)
            unhold(l, k);
        else
            k++;
    }
    retransmit(l);
    send_acks(l, 0);
    flush(l);
    return delivered;
}
