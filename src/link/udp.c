/* The udp link (see udp.h for what it guarantees).
 *
 * Sender, per peer: packets next_seq - 1 .. una in flight, kept in a ring of
 * `window` packets indexed by sequence number, so a retransmission resends the very
 * bytes sent first. A timeout resends every packet in flight (go-back-N) and doubles
 * the timeout, up to 64 times the first; an acknowledgement that moves una forward
 * resets both.
 *
 * Receiver, per peer: accepts only the packet it expects next. Its acknowledgement
 * counts whole messages only (the first sequence number of a message still being put
 * together), so a message refused at delivery is sent again in full.
 *
 * Every packet leaves through one outgoing batch (sendmmsg), after the fault
 * injector has had its say. The batch holds copies, so ring slots may be reused at
 * once. */
#include "link/udp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <tollway/status.h>

enum { BATCH = 64, HELD_MAX = 64, IP_UDP_OVERHEAD = 28, BACKOFF_MAX = 6 };

typedef struct peer {
    struct sockaddr_in addr;
    int has_addr, lost, busy, ack_due;
    /* sending */
    uint32_t next_seq, una;
    unsigned char *ring; /* window packets of pkt_max bytes */
    uint16_t *ring_len;
    uint64_t timer_ns;    /* when the oldest packet in flight was last sent */
    uint64_t progress_ns; /* when una last moved (or the first packet left) */
    unsigned backoff;
    /* receiving */
    uint32_t expected;  /* the sequence number accepted next */
    uint32_t msg_first; /* of the message being put together */
    int in_msg;
    unsigned char *msg;
    size_t msg_cap, msg_len, msg_fill;
} peer_t;

typedef struct outgoing {
    uint32_t peer;
    uint16_t len;
    uint64_t due_ns; /* held packets: when they leave */
    unsigned char *buf;
} outgoing_t;

struct tw_udp_link {
    tw_udp_config_t cfg;
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
    uint64_t rng;
    uint64_t now_ns;
    tw_udp_stats_t stats;
};

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
    cfg->peer_timeout_ms = 10000;
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

static void flush(tw_udp_link_t *l) {
    struct mmsghdr m[BATCH];
    struct iovec iov[BATCH];
    unsigned n = 0;
    for (unsigned k = 0; k < l->nout; k++) {
        const peer_t *p = &l->peers[l->out[k].peer];
        iov[n] = (struct iovec){l->out[k].buf, l->out[k].len};
        memset(&m[n], 0, sizeof m[n]);
        m[n].msg_hdr.msg_name = (void *)&p->addr;
        m[n].msg_hdr.msg_namelen = sizeof p->addr;
        m[n].msg_hdr.msg_iov = &iov[n];
        m[n].msg_hdr.msg_iovlen = 1;
        n++;
    }
    for (unsigned done = 0; done < n;) {
        int r = sendmmsg(l->fd, m + done, n - done, 0);
        if (r <= 0) break; /* a full socket buffer loses packets like a network does */
        done += (unsigned)r;
    }
    l->stats.packets_sent += n;
    l->nout = 0;
}

/* Puts a copy of a packet into the outgoing batch. */
static void queue(tw_udp_link_t *l, uint32_t peer, const unsigned char *pkt, size_t len) {
    if (l->nout == BATCH) flush(l);
    outgoing_t *o = &l->out[l->nout++];
    o->peer = peer;
    o->len = (uint16_t)len;
    memcpy(o->buf, pkt, len);
}

/* Holds a copy back until due (0: until the next packet has gone). 0 when full. */
static int hold(tw_udp_link_t *l, uint32_t peer, const unsigned char *pkt, size_t len,
                uint64_t due) {
    if (l->nheld == HELD_MAX) return 0;
    outgoing_t *h = &l->held[l->nheld++];
    h->peer = peer;
    h->len = (uint16_t)len;
    h->due_ns = due;
    memcpy(h->buf, pkt, len);
    return 1;
}

static void unhold(tw_udp_link_t *l, unsigned k) {
    queue(l, l->held[k].peer, l->held[k].buf, l->held[k].len);
    unsigned char *buf = l->held[k].buf; /* keep the buffers: swap in the last entry */
    l->held[k] = l->held[--l->nheld];
    l->held[l->nheld].buf = buf;
    if (l->reorder_slot == (int)l->nheld) l->reorder_slot = (int)k;
}

/* Sends one packet as the injected faults decide. */
static void transmit(tw_udp_link_t *l, uint32_t peer, const unsigned char *pkt, size_t len) {
    const tw_udp_faults_t *f = &l->cfg.faults;
    if (chance(l, f->drop)) {
        l->stats.injected_drop++;
        return;
    }
    unsigned char bad[TW_UDP_HDR_SIZE + TW_UDP_MSG_MAX];
    if (chance(l, f->corrupt)) {
        memcpy(bad, pkt, len);
        bad[(size_t)(uniform(l) * (double)len)] ^= (unsigned char)(1u << (int)(uniform(l) * 8));
        pkt = bad;
        l->stats.injected_corrupt++;
    }
    if (chance(l, f->delay) && hold(l, peer, pkt, len, l->now_ns + 1000ull * f->delay_us)) {
        l->stats.injected_delay++;
        return;
    }
    if (l->reorder_slot < 0 && chance(l, f->reorder) && hold(l, peer, pkt, len, UINT64_MAX)) {
        l->reorder_slot = (int)l->nheld - 1;
        l->stats.injected_reorder++;
        return;
    }
    queue(l, peer, pkt, len);
    if (chance(l, f->duplicate)) {
        queue(l, peer, pkt, len);
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
        (size_t)cfg->window * payload_max < TW_UDP_MSG_MAX || cfg->window > 65536) {
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
    l->rng = cfg->faults.seed ? cfg->faults.seed
                              : cfg->job_key ^ (0x9e3779b97f4a7c15ull * (cfg->self + 1));
    if (!l->rng) l->rng = 1;
    l->peers = calloc(cfg->peers, sizeof *l->peers);
    l->busy = calloc(cfg->peers, sizeof *l->busy);
    l->acking = calloc(cfg->peers, sizeof *l->acking);
    l->rx = malloc(BATCH * (pkt_max + 1));
    int ok = l->peers && l->busy && l->acking && l->rx;
    for (unsigned k = 0; ok && k < BATCH; k++) ok = (l->out[k].buf = malloc(pkt_max)) != NULL;
    for (unsigned k = 0; ok && k < HELD_MAX; k++) ok = (l->held[k].buf = malloc(pkt_max)) != NULL;
    if (ok) {
        for (uint32_t p = 0; p < cfg->peers; p++) {
            l->peers[p].next_seq = l->peers[p].una = 1;
            l->peers[p].expected = 1;
        }
        l->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        socklen_t alen = sizeof *addr;
        ok = l->fd >= 0 && bind(l->fd, (const struct sockaddr *)addr, sizeof *addr) == 0 &&
             getsockname(l->fd, (struct sockaddr *)addr, &alen) == 0;
    }
    if (!ok) {
        int e = errno;
        tw_udp_close(l);
        errno = e ? e : ENOMEM;
        return NULL;
    }
    int bufsize = 4 << 20; /* room for whole windows from several peers */
    setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof bufsize);
    setsockopt(l->fd, SOL_SOCKET, SO_SNDBUF, &bufsize, sizeof bufsize);
    return l;
}

void tw_udp_close(tw_udp_link_t *l) {
    if (!l) return;
    if (l->fd >= 0) {
        l->now_ns = clock_ns();
        for (unsigned k = l->nheld; k-- > 0;) unhold(l, k); /* what was held still goes */
        flush(l);
        close(l->fd);
    }
    for (uint32_t p = 0; l->peers && p < l->cfg.peers; p++) {
        free(l->peers[p].ring);
        free(l->peers[p].ring_len);
        free(l->peers[p].msg);
    }
    for (unsigned k = 0; k < BATCH; k++) free(l->out[k].buf);
    for (unsigned k = 0; k < HELD_MAX; k++) free(l->held[k].buf);
    free(l->peers);
    free(l->busy);
    free(l->acking);
    free(l->rx);
    free(l);
}

int tw_udp_set_peer(tw_udp_link_t *l, uint32_t peer, const struct sockaddr_in *addr) {
    if (peer >= l->cfg.peers) return TW_ERR_RANK;
    l->peers[peer].addr = *addr;
    l->peers[peer].has_addr = 1;
    return TW_OK;
}

unsigned tw_udp_in_flight(const tw_udp_link_t *l, uint32_t peer) {
    return peer < l->cfg.peers ? l->peers[peer].next_seq - l->peers[peer].una : 0;
}

int tw_udp_peer_lost(const tw_udp_link_t *l, uint32_t peer) {
    return peer < l->cfg.peers && l->peers[peer].lost;
}

const tw_udp_stats_t *tw_udp_stats(const tw_udp_link_t *l) {
    return &l->stats;
}

int tw_udp_fd(const tw_udp_link_t *l) {
    return l->fd;
}

/* ---- sending ---- */

static unsigned char *slot(tw_udp_link_t *l, peer_t *p, uint32_t seq, uint16_t **len) {
    size_t k = seq % l->cfg.window;
    *len = &p->ring_len[k];
    return p->ring + k * l->pkt_max;
}

/* The acknowledgement this side owes peer, carried by whatever goes to it now. */
static uint32_t ack_for(tw_udp_link_t *l, uint32_t id) {
    peer_t *p = &l->peers[id];
    p->ack_due = 0;
    return p->in_msg ? p->msg_first : p->expected;
}

static void mark_busy(tw_udp_link_t *l, uint32_t id) {
    peer_t *p = &l->peers[id];
    if (p->busy) return;
    p->busy = 1;
    l->busy[l->nbusy++] = id;
    p->timer_ns = p->progress_ns = l->now_ns;
    p->backoff = 0;
}

int tw_udp_send(tw_udp_link_t *l, uint32_t id, const void *msg, size_t len) {
    if (id >= l->cfg.peers || !l->peers[id].has_addr) return TW_ERR_RANK;
    if (len > TW_UDP_MSG_MAX) return TW_ERR_SIZE;
    peer_t *p = &l->peers[id];
    if (p->lost) return TW_ERR_LOST;
    size_t segments = len ? (len + l->payload_max - 1) / l->payload_max : 1;
    if (tw_udp_in_flight(l, id) + segments > l->cfg.window) return TW_RETRY;
    if (!p->ring) {
        p->ring = malloc((size_t)l->cfg.window * l->pkt_max);
        p->ring_len = malloc((size_t)l->cfg.window * sizeof *p->ring_len);
        if (!p->ring || !p->ring_len) {
            free(p->ring);
            free(p->ring_len);
            p->ring = NULL;
            p->ring_len = NULL;
            return TW_ERR_NOMEM;
        }
    }
    l->now_ns = clock_ns();
    if (!p->busy) mark_busy(l, id);
    const unsigned char *data = msg;
    for (size_t off = 0, s = 0; s < segments; s++) {
        size_t n = len - off < l->payload_max ? len - off : l->payload_max;
        tw_udp_hdr_t h = {.job_key = l->cfg.job_key,
                          .src = l->cfg.self,
                          .dst = id,
                          .seq = p->next_seq,
                          .ack = ack_for(l, id),
                          .flags = TW_UDP_DATA | TW_UDP_ACK | (s == 0 ? TW_UDP_FIRST : 0) |
                                   (s == segments - 1 ? TW_UDP_LAST : 0),
                          .len = (uint16_t)n,
                          .msg_len = s == 0 ? (uint32_t)len : 0};
        uint16_t *plen;
        unsigned char *pkt = slot(l, p, p->next_seq++, &plen);
        tw_udp_encode(pkt, &h, data + off);
        *plen = (uint16_t)(TW_UDP_HDR_SIZE + n);
        transmit(l, id, pkt, *plen);
        off += n;
    }
    l->stats.msgs_sent++;
    flush(l);
    return TW_OK;
}

/* ---- receiving ---- */

static void owe_ack(tw_udp_link_t *l, uint32_t id) {
    if (l->peers[id].ack_due) return;
    l->peers[id].ack_due = 1;
    l->acking[l->nacking++] = id;
}

static void take_ack(tw_udp_link_t *l, peer_t *p, uint32_t ack) {
    if (seq_diff(ack, p->una) <= 0 || seq_diff(ack, p->next_seq) > 0) return; /* old, or bogus */
    p->una = ack;
    p->progress_ns = p->timer_ns = l->now_ns;
    p->backoff = 0;
}

/* A data packet accepted as the next of its sender: add it to the message; deliver
 * the message when it is whole. */
static int take_segment(tw_udp_link_t *l, uint32_t id, const tw_udp_hdr_t *h,
                        const unsigned char *payload, tw_udp_deliver_fn deliver, void *ctx) {
    peer_t *p = &l->peers[id];
    int first = (h->flags & TW_UDP_FIRST) != 0;
    if (first == p->in_msg || (!first && p->msg_fill + h->len > p->msg_len)) {
        l->stats.protocol++; /* a sender that breaks its own framing: nothing taken */
        return 0;
    }
    if (first) {
        if (p->msg_cap < h->msg_len || !p->msg) {
            unsigned char *m = realloc(p->msg, h->msg_len ? h->msg_len : 1);
            if (!m) return 0; /* not acknowledged: it comes again */
            p->msg = m;
            p->msg_cap = h->msg_len;
        }
        p->in_msg = 1;
        p->msg_first = h->seq;
        p->msg_len = h->msg_len;
        p->msg_fill = 0;
    }
    memcpy(p->msg + p->msg_fill, payload, h->len);
    p->msg_fill += h->len;
    p->expected++;
    if (!(h->flags & TW_UDP_LAST)) return 0;
    if (p->msg_fill != p->msg_len) { /* LAST before the whole message: start over */
        l->stats.protocol++;
        p->expected = p->msg_first;
        p->in_msg = 0;
        return 0;
    }
    if (deliver(ctx, id, p->msg, p->msg_len)) { /* refused: unacknowledged, so resent */
        l->stats.refused++;
        p->expected = p->msg_first;
        p->in_msg = 0;
        return 0;
    }
    p->in_msg = 0;
    l->stats.msgs_received++;
    return 1;
}

static int receive(tw_udp_link_t *l, tw_udp_deliver_fn deliver, void *ctx) {
    struct mmsghdr m[BATCH];
    struct iovec iov[BATCH];
    size_t cap = l->pkt_max + 1; /* one byte more tells an oversized datagram */
    for (unsigned k = 0; k < BATCH; k++) {
        iov[k] = (struct iovec){l->rx + k * cap, cap};
        memset(&m[k], 0, sizeof m[k]);
        m[k].msg_hdr.msg_iov = &iov[k];
        m[k].msg_hdr.msg_iovlen = 1;
    }
    int n = recvmmsg(l->fd, m, BATCH, MSG_DONTWAIT, NULL);
    int delivered = 0;
    for (int k = 0; k < n; k++) {
        const unsigned char *pkt = l->rx + (size_t)k * cap;
        size_t len = m[k].msg_len;
        l->stats.packets_received++;
        tw_udp_hdr_t h;
        tw_udp_verdict_t v = len > l->pkt_max || (m[k].msg_hdr.msg_flags & MSG_TRUNC)
                                 ? TW_UDP_BAD_LEN
                                 : tw_udp_decode(pkt, len, l->cfg.job_key, l->cfg.self, &h);
        if (v != TW_UDP_OK) {
            l->stats.dropped[v]++;
            continue;
        }
        if (h.src >= l->cfg.peers || h.src == l->cfg.self) {
            l->stats.unknown_peer++;
            continue;
        }
        peer_t *p = &l->peers[h.src];
        if (p->lost) continue;
        take_ack(l, p, h.ack);
        if (!(h.flags & TW_UDP_DATA)) continue;
        int32_t d = seq_diff(h.seq, p->expected);
        if (d < 0)
            l->stats.duplicates++;
        else if (d > 0)
            l->stats.out_of_order++;
        else
            delivered += take_segment(l, h.src, &h, pkt + TW_UDP_HDR_SIZE, deliver, ctx);
        owe_ack(l, h.src); /* also for duplicates: their sender missed our ack */
    }
    return delivered;
}

/* ---- timers ---- */

static void retransmit(tw_udp_link_t *l) {
    uint64_t timeout_ns = 1000ull * l->cfg.peer_timeout_ms * 1000u;
    for (uint32_t k = 0; k < l->nbusy;) {
        uint32_t id = l->busy[k];
        peer_t *p = &l->peers[id];
        if (p->una == p->next_seq || p->lost) { /* all acknowledged, or given up */
            p->busy = 0;
            l->busy[k] = l->busy[--l->nbusy];
            continue;
        }
        k++;
        if (l->now_ns - p->progress_ns > timeout_ns) {
            p->lost = 1;
            continue;
        }
        if (l->now_ns - p->timer_ns < (1000ull * l->cfg.rto_us) << p->backoff) continue;
        l->stats.timeouts++;
        for (uint32_t s = p->una; s != p->next_seq; s++) { /* go back N */
            uint16_t *len;
            unsigned char *pkt = slot(l, p, s, &len);
            transmit(l, id, pkt, *len);
            l->stats.retransmits++;
        }
        p->timer_ns = l->now_ns;
        if (p->backoff < BACKOFF_MAX) p->backoff++;
    }
}

static void send_acks(tw_udp_link_t *l) {
    unsigned char pkt[TW_UDP_HDR_SIZE];
    for (uint32_t k = 0; k < l->nacking; k++) {
        uint32_t id = l->acking[k];
        if (!l->peers[id].ack_due) continue; /* data carried it */
        if (!l->peers[id].has_addr) {
            l->peers[id].ack_due = 0;
            continue;
        }
        tw_udp_hdr_t h = {.job_key = l->cfg.job_key,
                          .src = l->cfg.self,
                          .dst = id,
                          .ack = ack_for(l, id),
                          .flags = TW_UDP_ACK};
        tw_udp_encode(pkt, &h, NULL);
        transmit(l, id, pkt, sizeof pkt);
        l->stats.acks_sent++;
    }
    l->nacking = 0;
}

int tw_udp_poll(tw_udp_link_t *l, tw_udp_deliver_fn deliver, void *ctx) {
    l->now_ns = clock_ns();
    int delivered = receive(l, deliver, ctx);
    for (unsigned k = 0; k < l->nheld;) { /* delayed packets that are due */
        if (l->held[k].due_ns <= l->now_ns)
            unhold(l, k);
        else
            k++;
    }
    retransmit(l);
    send_acks(l);
    flush(l);
    return delivered;
}
