/* Liveness of a link's peers (see liveness.h). */
#include "link/liveness.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <tollway/status.h>

enum { RECEIVE_BATCH = 64 };

struct tw_udp_liveness {
    tw_siphash_key_t key;
    uint32_t self, npeers;
    uint64_t timeout_ns, interval_ns;
    int fd;
    pthread_t thread;
    _Atomic int stop;
    _Atomic uint64_t polled_ns; /* when the owner last polled */
    _Atomic unsigned verdicts;
    _Atomic uint64_t probes_sent, echoes_sent, resets_sent, resets_received, dropped;
    tw_udp_live_peer_t *peers;
};

#define relaxed memory_order_relaxed

static uint64_t clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void count(_Atomic uint64_t *c) {
    atomic_fetch_add_explicit(c, 1, relaxed);
}

void tw_udp_control_packet(void *pkt, const tw_siphash_key_t *key, uint32_t self, uint32_t dst,
                           uint16_t flag, uint32_t una) {
    tw_udp_hdr_t h = {.src = self, .dst = dst, .flags = flag, .seq = una};
    tw_udp_encode(pkt, &h, NULL, key);
}

static uint64_t pack_where(const struct sockaddr_in *a, uint64_t flags) {
    return TW_UDP_LIVE_KNOWN | flags | (uint64_t)a->sin_addr.s_addr << TW_UDP_LIVE_ADDR_SHIFT |
           a->sin_port;
}

static struct sockaddr_in unpack_where(uint64_t where) {
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = (uint32_t)(where >> TW_UDP_LIVE_ADDR_SHIFT);
    a.sin_port = (uint16_t)where;
    return a;
}

static void send_to(tw_udp_liveness_t *lv, uint32_t peer, uint16_t flag,
                    const struct sockaddr_in *to) {
    unsigned char pkt[TW_UDP_HDR_SIZE];
    uint32_t una = flag == TW_UDP_RST ? 0 : atomic_load_explicit(&lv->peers[peer].una, relaxed);
    tw_udp_control_packet(pkt, &lv->key, lv->self, peer, flag, una);
    /* a full socket buffer loses it, as a network would: the next round sends again */
    (void)sendto(lv->fd, pkt, sizeof pkt, MSG_DONTWAIT, (const struct sockaddr *)to, sizeof *to);
}

static void send_control(tw_udp_liveness_t *lv, uint32_t peer, uint16_t flag) {
    struct sockaddr_in to =
        unpack_where(atomic_load_explicit(&lv->peers[peer].where, memory_order_acquire));
    send_to(lv, peer, flag, &to);
}

static void give_verdict(tw_udp_liveness_t *lv, tw_udp_live_peer_t *p, int cause) {
    int none = 0;
    if (atomic_compare_exchange_strong(&p->verdict, &none, cause))
        atomic_fetch_add_explicit(&lv->verdicts, 1, memory_order_release);
}

/* The peer a control packet from from comes from: where it lives as far as known, or,
 * for a peer not known yet, where its first authenticated probe came from (learnt, as
 * the link learns a data address from a first packet: only the job's processes seal
 * packets). NULL for anything else: an echo or reset from a peer never probed, a
 * packet from another address than the one known (a copy replayed from elsewhere). */
static tw_udp_live_peer_t *sender(tw_udp_liveness_t *lv, const tw_udp_hdr_t *h,
                                  const struct sockaddr_in *from) {
    tw_udp_live_peer_t *p = &lv->peers[h->src];
    uint64_t where = atomic_load_explicit(&p->where, memory_order_acquire);
    if (!where) {
        if (h->flags != TW_UDP_PROBE) return NULL;
        uint64_t learnt = pack_where(from, 0);
        if (atomic_compare_exchange_strong(&p->where, &where, learnt)) return p;
        /* the owner published it meanwhile: that one holds */
    }
    struct sockaddr_in known = unpack_where(where);
    return known.sin_addr.s_addr == from->sin_addr.s_addr && known.sin_port == from->sin_port
               ? p
               : NULL;
}

/* 1 when peer p, which says its data to this side is acknowledged up to una, gave up
 * data this side never got: una is past the last acknowledgement the link sent it
 * (published before it went, so an honest una is never past it), as it was at an
 * announcement half an interval ago or more, the acknowledgement unmoved since. One
 * forged announcement alone changes nothing; nor does a race with the publishing. An
 * announcement behind (late, replayed, or forged so) does not clear the first: it
 * would let copies of old probes put the verdict off for good. */
static int gave_up_unreceived(tw_udp_liveness_t *lv, tw_udp_live_peer_t *p, uint32_t una,
                              uint64_t now) {
    uint32_t acked = atomic_load_explicit(&p->acked, relaxed);
    if (!una || (int32_t)(una - acked) <= 0) return 0; /* it says nothing, or nothing amiss */
    if (!p->ahead_ns || p->ahead_of != acked) {
        p->ahead_ns = now;
        p->ahead_of = acked;
        return 0;
    }
    return now - p->ahead_ns >= lv->interval_ns / 2;
}

/* What came to the socket: probes answered, echoes and resets taken, anything else
 * (another job's, a forger's, from an address that is not the peer's) dropped. */
static void receive(tw_udp_liveness_t *lv, uint64_t now) {
    for (int k = 0; k < RECEIVE_BATCH; k++) {
        unsigned char pkt[TW_UDP_HDR_SIZE + 1];
        struct sockaddr_in from;
        socklen_t from_len = sizeof from;
        ssize_t n =
            recvfrom(lv->fd, pkt, sizeof pkt, MSG_DONTWAIT, (struct sockaddr *)&from, &from_len);
        if (n < 0) return;
        tw_udp_hdr_t h;
        tw_udp_live_peer_t *p = NULL;
        if (tw_udp_decode(pkt, (size_t)n, &lv->key, lv->self, &h) != TW_UDP_OK ||
            !(h.flags & TW_UDP_CONTROL) || h.src >= lv->npeers || h.src == lv->self ||
            from_len != sizeof from || from.sin_family != AF_INET || !(p = sender(lv, &h, &from))) {
            count(&lv->dropped);
            continue;
        }
        if (h.flags == TW_UDP_RST) {
            count(&lv->resets_received);
            give_verdict(lv, p, TW_ERR_RESET);
            continue;
        }
        if (gave_up_unreceived(lv, p, h.seq, now)) give_verdict(lv, p, TW_ERR_DESYNC);
        if (atomic_load_explicit(&p->lost, relaxed) || atomic_load_explicit(&p->verdict, relaxed)) {
            /* declared lost here: it must learn so (once per half interval at most) */
            if (now - p->reset_ns >= lv->interval_ns / 2) {
                send_control(lv, h.src, TW_UDP_RST);
                count(&lv->resets_sent);
                p->reset_ns = now;
            }
            continue;
        }
        atomic_store_explicit(&p->echo_ns, now, relaxed); /* a probe proves life as well */
        if (h.flags == TW_UDP_PROBE) {
            send_control(lv, h.src, TW_UDP_ECHO);
            count(&lv->echoes_sent);
        }
    }
}

static void probe(tw_udp_liveness_t *lv, uint32_t id, uint64_t now) {
    tw_udp_live_peer_t *p = &lv->peers[id];
    if (now - p->probe_ns < lv->interval_ns) return;
    send_control(lv, id, TW_UDP_PROBE);
    count(&lv->probes_sent);
    p->probe_ns = now;
}

/* Introduces this side to the peers it was told of that have not answered yet; probes
 * the peers silent for an interval while the owner waits or has data in flight to
 * them, and gives its verdict on those that stayed silent, probed, for the whole
 * timeout. */
static void check(tw_udp_liveness_t *lv, uint64_t now) {
    uint64_t polled = atomic_load_explicit(&lv->polled_ns, relaxed);
    /* the owner may have polled since now was read: a polled past now is recent too */
    int waiting = polled && (polled >= now || now - polled <= 2 * lv->interval_ns);
    for (uint32_t id = 0; id < lv->npeers; id++) {
        tw_udp_live_peer_t *p = &lv->peers[id];
        uint64_t where = atomic_load_explicit(&p->where, memory_order_acquire);
        if (!where || atomic_load_explicit(&p->lost, relaxed) ||
            atomic_load_explicit(&p->verdict, relaxed)) {
            p->probing_since = 0;
            continue;
        }
        uint64_t echo = atomic_load_explicit(&p->echo_ns, relaxed);
        if (!echo && (where & TW_UDP_LIVE_PUBLISHED)) probe(lv, id, now); /* introduction */
        if (!atomic_load_explicit(&p->watched, relaxed)) {
            p->probing_since = 0;
            continue;
        }
        uint64_t heard = atomic_load_explicit(&p->heard_ns, relaxed);
        if (echo > heard) heard = echo;
        uint64_t silent = now > heard ? now - heard : 0;
        if (silent < lv->interval_ns ||
            (!waiting && !atomic_load_explicit(&p->in_flight, relaxed))) {
            p->probing_since = 0; /* it spoke, or nobody waits on it: the count starts again */
            continue;
        }
        if (!p->probing_since) p->probing_since = now;
        probe(lv, id, now);
        if (silent >= lv->timeout_ns && now - p->probing_since >= lv->timeout_ns)
            give_verdict(lv, p, TW_ERR_LOST);
    }
}

static void *run(void *arg) {
    tw_udp_liveness_t *lv = arg;
    struct pollfd fd = {.fd = lv->fd, .events = POLLIN};
    uint64_t tick = lv->interval_ns / 2;
    struct timespec wait = {(time_t)(tick / 1000000000u), (long)(tick % 1000000000u)};
    uint64_t checked = 0;
    while (!atomic_load_explicit(&lv->stop, memory_order_acquire)) {
        ppoll(&fd, 1, &wait, NULL);
        uint64_t now = clock_ns();
        if (checked && now - checked > lv->timeout_ns / 2) /* this process was stopped */
            for (uint32_t id = 0; id < lv->npeers; id++) lv->peers[id].probing_since = 0;
        receive(lv, now);
        if (now - checked >= tick) {
            check(lv, now);
            checked = now;
        }
    }
    return NULL;
}

tw_udp_liveness_t *tw_udp_liveness_open(const tw_siphash_key_t *key, uint32_t self, uint32_t peers,
                                        unsigned timeout_ms, struct sockaddr_in *addr) {
    tw_udp_liveness_t *lv = calloc(1, sizeof *lv);
    if (!lv) return NULL;
    lv->key = *key;
    lv->self = self;
    lv->npeers = peers;
    lv->timeout_ns = (uint64_t)timeout_ms * 1000000u;
    uint64_t interval = lv->timeout_ns / 10, least = 20000000u, most = 1000000000u;
    lv->interval_ns = interval < least ? least : interval > most ? most : interval;
    lv->peers = calloc(peers, sizeof *lv->peers);
    for (uint32_t id = 0; lv->peers && id < peers; id++) { /* as the link's sequences start */
        atomic_init(&lv->peers[id].una, 1);
        atomic_init(&lv->peers[id].acked, 1);
    }
    lv->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    socklen_t alen = sizeof *addr;
    addr->sin_port = 0;
    int ok = lv->peers && lv->fd >= 0 &&
             bind(lv->fd, (const struct sockaddr *)addr, sizeof *addr) == 0 &&
             getsockname(lv->fd, (struct sockaddr *)addr, &alen) == 0;
    if (ok) { /* signals stay with the application's threads */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int rc = pthread_create(&lv->thread, NULL, run, lv);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (rc) errno = rc;
        ok = rc == 0;
    }
    if (!ok) {
        int e = errno ? errno : ENOMEM;
        if (lv->fd >= 0) close(lv->fd);
        free(lv->peers);
        free(lv);
        errno = e;
        return NULL;
    }
    return lv;
}

void tw_udp_liveness_close(tw_udp_liveness_t *lv) {
    if (!lv) return;
    atomic_store_explicit(&lv->stop, 1, memory_order_release);
    /* wakes the thread's ppoll now (Linux wakes a shut-down socket's pollers, connected
     * or not): otherwise a job's end waited up to half a probe interval for it, 0.5 s
     * at the default timeout, in every process */
    shutdown(lv->fd, SHUT_RDWR);
    pthread_join(lv->thread, NULL);
    close(lv->fd);
    free(lv->peers);
    free(lv);
}

void tw_udp_liveness_set_peer(tw_udp_liveness_t *lv, uint32_t peer,
                              const struct sockaddr_in *addr) {
    if (peer >= lv->npeers) return;
    atomic_store_explicit(&lv->peers[peer].where, pack_where(addr, TW_UDP_LIVE_PUBLISHED),
                          memory_order_release);
}

tw_udp_live_peer_t *tw_udp_liveness_peers(tw_udp_liveness_t *lv) {
    return lv->peers;
}

void tw_udp_liveness_polled(tw_udp_liveness_t *lv, uint64_t now_ns) {
    atomic_store_explicit(&lv->polled_ns, now_ns, relaxed);
}

unsigned tw_udp_liveness_verdicts(tw_udp_liveness_t *lv) {
    return atomic_load_explicit(&lv->verdicts, memory_order_acquire);
}

uint64_t tw_udp_liveness_interval_ns(const tw_udp_liveness_t *lv) {
    return lv->interval_ns;
}

void tw_udp_liveness_stats(tw_udp_liveness_t *lv, tw_udp_liveness_stats_t *out) {
    out->probes_sent = atomic_load_explicit(&lv->probes_sent, relaxed);
    out->echoes_sent = atomic_load_explicit(&lv->echoes_sent, relaxed);
    out->resets_sent = atomic_load_explicit(&lv->resets_sent, relaxed);
    out->resets_received = atomic_load_explicit(&lv->resets_received, relaxed);
    out->dropped = atomic_load_explicit(&lv->dropped, relaxed);
}
