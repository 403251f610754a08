/* The device's side of the udp link: peers on other nodes.
 *
 * Every endpoint of a job that spans nodes opens one udp link and publishes its
 * address next to its segment's. A VELO message to a peer on another node travels
 * as one link message (a small header, then the payload); the receiving device puts
 * it into its own mailbox as a local sender would, so the receive path is the same
 * for both links. When the mailbox is full the device refuses the message and the
 * link sends it again later: the back pressure of a full mailbox reaches the remote
 * sender as it reaches a local one.
 *
 * RMA to a peer on another node travels as requests and answers (rma_wire.h) that
 * the device of the target executes (rma.c). Requests and answers share one ordered
 * stream per pair, so an answer must never make a request wait: when the window to
 * the initiator is full the answer waits in a queue here, drained at every poll. The
 * queue is bounded because an initiator keeps at most TW_REMOTE_REQUESTS requests
 * unanswered per peer. So two endpoints whose windows are full of requests to each
 * other still take them in.
 *
 * The chunks of a long put are answered ANSWERS_HELD at a time: an answer is a packet
 * of its own through the receiver's network stack, and one per chunk cost a receiver
 * streaming a put a fifth of its time. The last chunk's answer (which completes the
 * operation), and a fault, go at once with those held before them. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/status.h>
#include <tollway/velo.h>

#include "device/endpoint.h"
#include "device/progress.h"
#include "device/remote.h"
#include "device/rma_wire.h"

enum { REMOTE_VELO = 1, REMOTE_RMA_REQ = 2, REMOTE_RMA_ANSWER = 3 };

/* What precedes the payload of every device message on the link. */
typedef struct remote_hdr {
    uint8_t kind;
    uint8_t unused;
    uint16_t tag;
} remote_hdr_t;

static void *land(void *ctx, uint32_t source, const void *prefix, size_t len, size_t *skip);
static void landed(void *ctx, uint32_t source, const void *prefix, size_t len, int ok);

/* The address to bind: TW_UDP_ADDR, else the first IPv4 address of an interface that
 * is up and not loopback, else loopback. */
static void bind_address(const tw_config_t *cfg, struct sockaddr_in *a) {
    *a = (struct sockaddr_in){.sin_family = AF_INET};
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (cfg->udp_addr[0]) {
        inet_pton(AF_INET, cfg->udp_addr, &a->sin_addr);
        return;
    }
    struct ifaddrs *all;
    if (getifaddrs(&all)) return;
    for (struct ifaddrs *i = all; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK)) {
            a->sin_addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            break;
        }
    freeifaddrs(all);
}

/* TW_UDP_MTU=auto: the MTU of the interface that holds addr, within what the link
 * takes; 1500 when it cannot be found. Large datagrams are what makes a udp link fast
 * where the network allows them. */
static unsigned interface_mtu(const struct sockaddr_in *addr) {
    unsigned mtu = 1500;
    struct ifaddrs *all;
    if (getifaddrs(&all)) return mtu;
    for (struct ifaddrs *i = all; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr != addr->sin_addr.s_addr)
            continue;
        struct ifreq r = {0};
        snprintf(r.ifr_name, sizeof r.ifr_name, "%s", i->ifa_name);
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && ioctl(fd, SIOCGIFMTU, &r) == 0 && r.ifr_mtu > 1500)
            mtu = r.ifr_mtu > 65535 ? 65535 : (unsigned)r.ifr_mtu;
        if (fd >= 0) close(fd);
        break;
    }
    freeifaddrs(all);
    return mtu;
}

/* Answers waiting for room in the window, oldest first. An initiator has at most
 * TW_REMOTE_REQUESTS requests unanswered to us, so this holds at most that many per
 * peer: it grows to that bound, never past it (a peer beyond it is refused). Each slot
 * keeps its buffer once sent, for the next answer queued there: a window that stays
 * full allocates nothing per answer. */
enum { REMOTE_RMA_MSG_MAX = 4 + sizeof(rma_req_t) + REMOTE_CHUNK_MAX };
/* Below TW_REMOTE_REQUESTS, so that an initiator stopped at that bound always has
 * requests on the way whose arrival releases the held answer. */
enum { ANSWERS_HELD = TW_REMOTE_REQUESTS / 4 };

typedef struct remote_answer {
    int dest;
    size_t len, cap; /* the answer's bytes; the buffer's */
    unsigned char *msg;
} remote_answer_t;

/* A message being received in place (land, then landed): what it asked for. */
enum { LANDING_NONE, LANDING_PUT, LANDING_ANSWER };

struct tw_remote_answers {
    remote_answer_t *q;
    uint32_t head, count, cap;
    int landing;
    rma_req_t req;
    tw_remote_serving_t serving;
    rma_answer_t answer;
    rma_answer_t held; /* chunks answered but not sent yet (held.chunks of them), */
    int held_dest;     /* to this initiator */
};

static void drain_answers(tw_ep_t *ep) {
    struct tw_remote_answers *w = ep->remote_answers;
    while (w->count) {
        remote_answer_t *a = &w->q[w->head];
        /* sent, or the peer is lost: either way it is done here (the buffer stays) */
        if (tw_udp_send(ep->udp, (uint32_t)a->dest, a->msg, a->len) == TW_RETRY) return;
        w->head = (w->head + 1) % w->cap;
        w->count--;
    }
}

/* Room for one more queued answer, growing the queue up to its bound. */
static int answer_room(tw_ep_t *ep) {
    struct tw_remote_answers *w = ep->remote_answers;
    if (w->count < w->cap) return 1;
    uint32_t bound = (uint32_t)ep->size * TW_REMOTE_REQUESTS;
    if (w->cap >= bound) return 0;
    uint32_t cap = w->cap ? w->cap * 2 : 64;
    if (cap > bound) cap = bound;
    remote_answer_t *q = calloc(cap, sizeof *q);
    if (!q) return 0;
    for (uint32_t i = 0; i < w->cap; i++) q[i] = w->q[(w->head + i) % w->cap]; /* and spares */
    free(w->q);
    w->q = q;
    w->head = 0;
    w->cap = cap;
    return 1;
}

static void waiting(void *ctx) {
    tw_remote_progress(ctx);
}

int tw_remote_open(tw_ep_t *ep, char *addr, size_t cap) {
    const tw_config_t *cfg = ep->job->config;
    tw_udp_config_t u;
    tw_udp_config_default(&u);
    u.job_key = ep->job->job_key;
    u.self = (uint32_t)ep->rank;
    u.peers = (uint32_t)ep->size;
    u.window = cfg->udp_window;
    u.rto_us = cfg->udp_rto_us;
    u.peer_timeout_ms = cfg->udp_timeout_ms;
    u.ack_delay_us = 100; /* an answer or a reply usually comes sooner and carries it */
    u.faults = (tw_udp_faults_t){cfg->fault_drop,    cfg->fault_duplicate, cfg->fault_reorder,
                                 cfg->fault_corrupt, cfg->fault_delay,     cfg->fault_delay_us,
                                 cfg->fault_seed};
    struct sockaddr_in a;
    bind_address(cfg, &a);
    u.mtu = cfg->udp_mtu ? cfg->udp_mtu : interface_mtu(&a);
    ep->udp = tw_udp_open(&u, &a);
    if (!ep->udp) {
        char ip[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
        fprintf(stderr, "tollway: rank %d: cannot open the udp link on %s: %s\n", ep->rank, ip,
                strerror(errno));
        return TW_ERR_SYSTEM;
    }
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
    snprintf(addr, cap, "udp:%s:%u", ip, (unsigned)ntohs(a.sin_port));
    ep->remote_answers = calloc(1, sizeof *ep->remote_answers);
    if (!ep->remote_answers) {
        tw_udp_close(ep->udp);
        ep->udp = NULL;
        return TW_ERR_NOMEM;
    }
    static const tw_udp_lander_t lander = {land, landed};
    tw_udp_set_lander(ep->udp, &lander);
    ep->job->pmi.waiting = waiting; /* the link goes on while the process manager answers */
    ep->job->pmi.waiting_ctx = ep;
    tw_ring_producer_init(&ep->velo_self, &ep->segment->velo_ctrl, ep->velo_rx.slots,
                          ep->velo_rx.size);
    return TW_OK;
}

int tw_remote_connect(tw_ep_t *ep, int rank, const char *addr) {
    char ip[INET_ADDRSTRLEN];
    unsigned port;
    char tail;
    struct sockaddr_in a = {.sin_family = AF_INET};
    if (!ep->udp || sscanf(addr, "udp:%15[0-9.]:%u%c", ip, &port, &tail) != 2 || port == 0 ||
        port > 65535 || inet_pton(AF_INET, ip, &a.sin_addr) != 1)
        return TW_ERR_PEER;
    a.sin_port = htons((uint16_t)port);
    return tw_udp_set_peer(ep->udp, (uint32_t)rank, &a) ? TW_ERR_PEER : TW_OK;
}

int tw_remote_velo_send(tw_ep_t *ep, int dest, unsigned tag, const void *hdr, size_t hlen,
                        const void *buf, size_t len) {
    remote_hdr_t h = {REMOTE_VELO, 0, (uint16_t)tag};
    struct iovec v[3] = {{&h, sizeof h}, {(void *)hdr, hlen}, {(void *)buf, len}};
    tw_dev_lock(ep);
    int rc = tw_udp_sendv(ep->udp, (uint32_t)dest, v, 3);
    if (rc == TW_RETRY) { /* the window is full: take in what acknowledgements came */
        tw_remote_poll(ep);
        rc = tw_udp_sendv(ep->udp, (uint32_t)dest, v, 3);
    }
    tw_dev_unlock(ep);
    if (rc == TW_RETRY) ep->stats.send_retries++;
    if (rc) return rc;
    ep->stats.msgs_sent++;
    ep->stats.bytes_sent += hlen + len;
    return TW_OK;
}

_Static_assert((size_t)REMOTE_RMA_MSG_MAX <= (size_t)TW_UDP_MSG_MAX,
               "an RMA chunk fits a link message");

int tw_remote_rma_request(tw_ep_t *ep, int dest, const rma_req_t *r, const void *data, size_t len) {
    remote_hdr_t h = {REMOTE_RMA_REQ, 0, 0};
    if (sizeof h + sizeof *r + len > REMOTE_RMA_MSG_MAX) return TW_ERR_SIZE;
    struct iovec v[3] = {{&h, sizeof h}, {(void *)r, sizeof *r}, {(void *)data, len}};
    /* the data is sent from where it is, and again from there if it is lost: the put
     * completes (and its source may change) only once the target's answer has come,
     * and that carries the acknowledgement */
    return tw_udp_sendv_kept(ep->udp, (uint32_t)dest, v, 3);
}

uint64_t tw_remote_chunk(tw_ep_t *ep) {
    /* a chunk in one datagram (a message over several costs the window more and is
     * lost whole with any of its packets); the answer's header is the smaller */
    size_t room = tw_udp_payload_max(ep->udp) - sizeof(remote_hdr_t) - sizeof(rma_req_t);
    if (room >= REMOTE_CHUNK_MAX) return REMOTE_CHUNK_MAX;
    return room > RMA_CHUNK ? room & ~(size_t)1023 : RMA_CHUNK;
}

int tw_remote_can_request(tw_ep_t *ep, int dest, size_t len) {
    return tw_udp_room(ep->udp, (uint32_t)dest, sizeof(remote_hdr_t) + sizeof(rma_req_t) + len);
}

int tw_remote_can_answer(tw_ep_t *ep) {
    return answer_room(ep);
}

static void send_answer(tw_ep_t *ep, int dest, const rma_answer_t *a, const void *data, size_t len);

void tw_remote_rma_answer(tw_ep_t *ep, int dest, const rma_answer_t *a, const void *data,
                          size_t len, int may_wait) {
    struct tw_remote_answers *w = ep->remote_answers;
    rma_answer_t joined;
    if (w->held.chunks) {
        if (w->held_dest == dest && w->held.handle == a->handle) { /* the same operation */
            joined = *a;
            joined.chunks = (uint16_t)(w->held.chunks + a->chunks);
            if (joined.status == TW_OK) joined.status = w->held.status;
            a = &joined;
        } else { /* another one's: what is held goes first, in order */
            send_answer(ep, w->held_dest, &w->held, NULL, 0);
        }
        w->held.chunks = 0;
    }
    if (may_wait && a->status == TW_OK && a->chunks < ANSWERS_HELD) {
        w->held = *a;
        w->held_dest = dest;
        return;
    }
    send_answer(ep, dest, a, data, len);
}

static void send_answer(tw_ep_t *ep, int dest, const rma_answer_t *a, const void *data,
                        size_t len) {
    remote_hdr_t h = {REMOTE_RMA_ANSWER, 0, 0};
    size_t total = sizeof h + sizeof *a + len;
    if (total > REMOTE_RMA_MSG_MAX) return;
    struct iovec v[3] = {{&h, sizeof h}, {(void *)a, sizeof *a}, {(void *)data, len}};
    struct tw_remote_answers *w = ep->remote_answers;
    if (!w->count && tw_udp_sendv(ep->udp, (uint32_t)dest, v, 3) != TW_RETRY) return;
    /* behind others, or no room in the window: queued (the caller made sure of room) */
    remote_answer_t *slot = answer_room(ep) ? &w->q[(w->head + w->count) % w->cap] : NULL;
    if (slot && slot->cap < total) {
        unsigned char *grown = realloc(slot->msg, total);
        if (grown) *slot = (remote_answer_t){.cap = total, .msg = grown};
    }
    if (!slot || slot->cap < total) {
        ep->remote_answers_lost++;
        return;
    }
    memcpy(slot->msg, &h, sizeof h);
    memcpy(slot->msg + sizeof h, a, sizeof *a);
    if (len) memcpy(slot->msg + sizeof h + sizeof *a, data, len);
    slot->dest = dest;
    slot->len = total;
    w->count++;
}

/* A request of len bytes (header and put data) from source, every field checked. */
static int request_ok(const tw_ep_t *ep, uint32_t source, const rma_req_t *r, size_t len) {
    return r->chunk_len == len - sizeof *r && r->source == (int32_t)source &&
           tw_rma_request_valid(r, ep->size, REMOTE_CHUNK_MAX) &&
           !(r->op == TW_OP_GET && (r->b > REMOTE_CHUNK_MAX || (!r->b && r->offset < r->total)));
}

/* RMA requests and answers come only from peers on other nodes (a peer that spoke
 * first may not be connected yet: the link knows where it is). */
static int rma_from(const tw_ep_t *ep, uint32_t source, const remote_hdr_t *h) {
    return (h->kind == REMOTE_RMA_REQ || h->kind == REMOTE_RMA_ANSWER) &&
           source < (uint32_t)ep->size && (!ep->peers[source] || ep->peers[source]->remote);
}

/* An RMA request or answer, every field checked before it is used. */
static int rma_arrived(tw_ep_t *ep, uint32_t source, const remote_hdr_t *h,
                       const unsigned char *body, size_t len) {
    if (h->kind == REMOTE_RMA_REQ) {
        rma_req_t r;
        if (len < sizeof r) goto malformed;
        memcpy(&r, body, sizeof r);
        if (!request_ok(ep, source, &r, len)) goto malformed;
        return tw_rma_remote_serve(ep, (int)source, &r, body + sizeof r) == TW_RETRY;
    }
    rma_answer_t a;
    if (len < sizeof a) goto malformed;
    memcpy(&a, body, sizeof a);
    if (tw_rma_remote_answer(ep, (int)source, &a, body + sizeof a, len - sizeof a)) goto malformed;
    return 0;
malformed:
    ep->remote_malformed++;
    return 0;
}

/* A message the link delivers, checked before it is believed. 0: taken; 1: no room
 * in the mailbox (or notification queue) now (the link brings it again). */
static int arrived(void *ctx, uint32_t source, const void *data, size_t len) {
    tw_ep_t *ep = ctx;
    remote_hdr_t h;
    if (len < sizeof h) return 0; /* nothing to take: dropped */
    memcpy(&h, data, sizeof h);
    size_t body = len - sizeof h;
    if (rma_from(ep, source, &h))
        return rma_arrived(ep, source, &h, (const unsigned char *)data + sizeof h, body);
    if (h.kind != REMOTE_VELO || h.tag > TW_VELO_TAG_MAX || body > TW_VELO_MAX_SIZE) {
        ep->remote_malformed++;
        return 0;
    }
    tw_slot_t *s = tw_ring_reserve(&ep->velo_self, body);
    if (!s) return 1;
    tw_copy(&s->word[1], (const unsigned char *)data + sizeof h, body);
    tw_ring_commit(
        s, ((uint64_t)h.tag << TW_VELO_TAG_SHIFT) | ((uint64_t)source << TW_VELO_SOURCE_SHIFT),
        body);
    return 0;
}

/* Receiving in place (tw_udp_lander_t): a put request's data straight into our
 * memory, a get answer's into the buffer of the get. The device headers are in the
 * prefix, checked as rma_arrived checks them; what land prepared waits in
 * remote_answers until landed. */
static void *land(void *ctx, uint32_t source, const void *prefix, size_t len, size_t *skip) {
    tw_ep_t *ep = ctx;
    struct tw_remote_answers *g = ep->remote_answers;
    remote_hdr_t h;
    if (len < sizeof h) return NULL;
    memcpy(&h, prefix, sizeof h);
    const unsigned char *body = (const unsigned char *)prefix + sizeof h;
    size_t blen = len - sizeof h;
    if (!rma_from(ep, source, &h)) return NULL;
    void *dest = NULL;
    if (h.kind == REMOTE_RMA_REQ && blen >= sizeof g->req) {
        memcpy(&g->req, body, sizeof g->req);
        if (!request_ok(ep, source, &g->req, blen)) return NULL; /* refused the usual way */
        dest = tw_rma_remote_land_put(ep, &g->req, &g->serving);
        g->landing = LANDING_PUT;
        *skip = sizeof h + sizeof g->req;
    } else if (h.kind == REMOTE_RMA_ANSWER && blen >= sizeof g->answer) {
        memcpy(&g->answer, body, sizeof g->answer);
        dest = tw_rma_remote_land_answer(ep, (int)source, &g->answer, blen - sizeof g->answer);
        g->landing = LANDING_ANSWER;
        *skip = sizeof h + sizeof g->answer;
    }
    if (!dest) g->landing = LANDING_NONE;
    return dest;
}

static void landed(void *ctx, uint32_t source, const void *prefix, size_t len, int ok) {
    tw_ep_t *ep = ctx;
    struct tw_remote_answers *g = ep->remote_answers;
    (void)prefix;
    if (g->landing == LANDING_PUT)
        tw_rma_remote_landed_put(ep, (int)source, &g->req, &g->serving, ok);
    else if (g->landing == LANDING_ANSWER && ok)
        tw_rma_remote_landed_answer(ep, (int)source, &g->answer,
                                    len - sizeof(remote_hdr_t) - sizeof g->answer);
    g->landing = LANDING_NONE;
}

int tw_remote_poll(tw_ep_t *ep) {
    if (ep->remote_answers->count) drain_answers(ep);
    int delivered = tw_udp_poll(ep->udp, arrived, ep);
    if (ep->remote_answers->count) drain_answers(ep);
    return delivered;
}

int tw_remote_progress(tw_ep_t *ep) {
    tw_dev_lock(ep);
    int delivered = tw_remote_poll(ep);
    tw_dev_unlock(ep);
    return delivered;
}

void tw_remote_close(tw_ep_t *ep) {
    /* linger, as a TCP close does: what was sent last (a lost packet among it) is
     * resent until acknowledged, and the acknowledgements owed go out, or the peers
     * are declared lost (TW_UDP_TIMEOUT) */
    while (!tw_udp_idle(ep->udp)) { /* answers still queued keep a window full */
        tw_remote_poll(ep);
        if (!tw_udp_idle(ep->udp)) sched_yield(); /* let the peer run meanwhile */
    }
    if (ep->job->pmi.waiting_ctx == ep) ep->job->pmi.waiting = NULL;
    tw_udp_close(ep->udp);
    ep->udp = NULL;
    struct tw_remote_answers *w = ep->remote_answers;
    if (w) {
        for (uint32_t i = 0; i < w->cap; i++) free(w->q[i].msg);
        free(w->q);
    }
    free(w);
    ep->remote_answers = NULL;
}

void tw_remote_print_stats(tw_ep_t *ep, FILE *out) {
    const tw_udp_stats_t *s = tw_udp_stats(ep->udp);
    fprintf(out,
            "tollway: rank %d endpoint %d: udp %llu msgs out, %llu in; packets %llu out, %llu in; "
            "retransmits %llu (timeouts %llu), duplicates %llu, out of order %llu, refused %llu, "
            "in place %llu; "
            "dropped: bad crc %llu, wrong key %llu, bad length %llu, bad field %llu, short %llu, "
            "bad magic %llu; injected: drop %llu dup %llu reorder %llu corrupt %llu delay %llu\n",
            ep->rank, ep->index, (unsigned long long)s->msgs_sent,
            (unsigned long long)s->msgs_received, (unsigned long long)s->packets_sent,
            (unsigned long long)s->packets_received, (unsigned long long)s->retransmits,
            (unsigned long long)s->timeouts, (unsigned long long)s->duplicates,
            (unsigned long long)s->out_of_order, (unsigned long long)s->refused,
            (unsigned long long)s->in_place, (unsigned long long)s->dropped[TW_UDP_BAD_CRC],
            (unsigned long long)s->dropped[TW_UDP_BAD_KEY],
            (unsigned long long)s->dropped[TW_UDP_BAD_LEN],
            (unsigned long long)s->dropped[TW_UDP_BAD_FIELD],
            (unsigned long long)s->dropped[TW_UDP_SHORT],
            (unsigned long long)s->dropped[TW_UDP_BAD_MAGIC], (unsigned long long)s->injected_drop,
            (unsigned long long)s->injected_duplicate, (unsigned long long)s->injected_reorder,
            (unsigned long long)s->injected_corrupt, (unsigned long long)s->injected_delay);
}
