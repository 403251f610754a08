/* The udp link's table (tw_link_udp): device messages over the udp transport
 * (udp.c), to peers on other nodes.
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
 * the device of the target executes (device/rma.c). Requests and answers share one
 * ordered stream per pair, so an answer must never make a request wait: when the
 * window to the initiator is full the answer waits in a queue here, drained at every
 * poll. The queue is bounded because an initiator keeps at most RMA_UNANSWERED_MAX
 * requests unanswered per peer. So two endpoints whose windows are full of requests
 * to each other still take them in.
 *
 * The chunks of a long put are answered TW_LINK_ANSWERS_HELD at a time: an answer is a packet
 * of its own through the receiver's network stack, and one per chunk cost a receiver
 * streaming a put a fifth of its time. The last chunk's answer (which completes the
 * operation), and a fault, go at once with those held before them. */
#include "link/udp/link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <tollway/status.h>
#include <tollway/velo.h>

#include "link/link.h"
#include "link/address.h"
#include "link/ip_address.h"
#include "link/message.h"
#include "link/udp/udp.h"

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
 * RMA_UNANSWERED_MAX requests unanswered to us, so this holds at most that many per
 * peer: it grows to that bound, never past it (a peer beyond it is refused). Each slot
 * keeps its buffer once sent, for the next answer queued there: a window that stays
 * full allocates nothing per answer. */

typedef struct queued_answer {
    int dest;
    size_t len, cap; /* the answer's bytes; the buffer's */
    unsigned char *msg;
} queued_answer_t;

/* A message being received in place (land, then landed): what it asked for. */
enum { LANDING_NONE, LANDING_DEVICE };

struct tw_link_ctx {
    tw_udp_link_t *udp;
    const tw_link_device_t *dev;
    void *dev_ctx;
    int size;
    queued_answer_t *q;
    uint32_t head, count, cap;
    int landing;
    tw_link_held_t held;   /* chunks answered but not sent yet */
    uint64_t malformed;    /* link messages that were no device message */
    uint64_t answers_lost; /* answers that found no memory to wait in */
    unsigned lost_seen;    /* peers lost that the device has been told of */
};

static void drain_answers(tw_link_ctx_t *l) {
    while (l->count) {
        queued_answer_t *a = &l->q[l->head];
        /* sent, or the peer is lost: either way it is done here (the buffer stays) */
        if (tw_udp_send(l->udp, (uint32_t)a->dest, a->msg, a->len) == TW_RETRY) return;
        l->head = (l->head + 1) % l->cap;
        l->count--;
    }
}

/* Room for one more queued answer, growing the queue up to its bound. */
static int answer_room(tw_link_ctx_t *l) {
    if (l->count < l->cap) return 1;
    uint32_t bound = (uint32_t)l->size * RMA_UNANSWERED_MAX;
    if (l->cap >= bound) return 0;
    uint32_t cap = l->cap ? l->cap * 2 : 64;
    if (cap > bound) cap = bound;
    queued_answer_t *q = calloc(cap, sizeof *q);
    if (!q) return 0;
    for (uint32_t i = 0; i < l->cap; i++) q[i] = l->q[(l->head + i) % l->cap]; /* and spares */
    free(l->q);
    l->q = q;
    l->head = 0;
    l->cap = cap;
    return 1;
}

static void *land(void *ctx, uint32_t source, const void *prefix, size_t len, size_t *skip);
static void landed(void *ctx, uint32_t source, const void *prefix, size_t len, int ok);

/* The secret of endpoint index of a process (index > 0): two SipHash-2-4 words of
 * ("tw-ep", index, half) under the job's secret, which only the job's processes hold. */
static void endpoint_secret(unsigned char secret[TW_UDP_SECRET_SIZE], int index) {
    tw_siphash_key_t key = tw_siphash_key(secret);
    for (int half = 0; half < 2; half++) {
        unsigned char msg[8] = {'t',
                                'w',
                                '-',
                                'e',
                                'p',
                                (unsigned char)index,
                                (unsigned char)(index >> 8),
                                (unsigned char)half};
        uint64_t word = tw_siphash24(&key, msg, sizeof msg);
        for (int b = 0; b < 8; b++) secret[half * 8 + b] = (unsigned char)(word >> (8 * b));
    }
}

static tw_link_ctx_t *link_open(const tw_job_t *job, const tw_link_device_t *dev, void *dev_ctx,
                                char *addr, size_t cap) {
    const tw_config_t *cfg = job->config;
    tw_udp_config_t u;
    tw_udp_config_default(&u);
    memcpy(u.secret, job->secret, sizeof u.secret);
    /* the endpoint being opened is the job's last counted: a process's further ones
     * (MPI's channels) key their packets apart from its first, so that a packet of one
     * endpoint's stream, sent again to another's socket, fails its MAC there */
    if (job->next_index > 1) endpoint_secret(u.secret, job->next_index - 1);
    u.self = (uint32_t)job->rank;
    u.peers = (uint32_t)job->size;
    u.window = cfg->udp_window;
    u.rto_us = cfg->udp_rto_us;
    u.peer_timeout_ms = cfg->udp_timeout_ms;
    u.ack_delay_us = 100; /* an answer or a reply usually comes sooner and carries it */
    u.liveness = job->size > 1;
    u.mac_payload = cfg->udp_auth == TW_UDP_AUTH_PAYLOAD;
    u.faults = (tw_udp_faults_t){cfg->fault_drop,    cfg->fault_duplicate, cfg->fault_reorder,
                                 cfg->fault_corrupt, cfg->fault_delay,     cfg->fault_delay_us,
                                 cfg->fault_seed};
    struct sockaddr_in a;
    tw_link_ip_address(cfg, job->local_known && job->local_size == job->size, &a);
    u.mtu = cfg->udp_mtu ? cfg->udp_mtu : interface_mtu(&a);
    if (!u.window) /* auto: the same bytes in flight whatever the MTU */
        u.window = TW_UDP_WINDOW_LEAST > TW_UDP_WINDOW_BYTES / u.mtu ? TW_UDP_WINDOW_LEAST
                                                                     : TW_UDP_WINDOW_BYTES / u.mtu;
    tw_link_ctx_t *l = calloc(1, sizeof *l);
    if (l) l->udp = tw_udp_open(&u, &a);
    if (!l || !l->udp) {
        char ip[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
        fprintf(stderr, "tollway: rank %d: cannot open the udp link on %s: %s\n", job->rank, ip,
                strerror(l ? errno : ENOMEM));
        free(l);
        return NULL;
    }
    l->dev = dev;
    l->dev_ctx = dev_ctx;
    l->size = job->size;
    /* the data socket's port, then the liveness socket's */
    tw_link_udp_address_make(addr, cap, &a, tw_udp_liveness_port(l->udp));
    static const tw_udp_lander_t lander = {land, landed};
    tw_udp_set_lander(l->udp, &lander);
    return l;
}

static int link_connect(tw_link_ctx_t *l, int rank, const char *addr) {
    unsigned live;
    struct sockaddr_in a;
    if (tw_link_udp_address_take(addr, &a, &live)) return TW_ERR_PEER;
    if (tw_udp_set_peer(l->udp, (uint32_t)rank, &a)) return TW_ERR_PEER;
    /* a peer of a job of one has none; ours, then, is not running either */
    if (live && tw_udp_liveness_port(l->udp) &&
        tw_udp_set_peer_liveness(l->udp, (uint32_t)rank, live))
        return TW_ERR_PEER;
    return TW_OK;
}

static int link_poll(tw_link_ctx_t *l);

static int link_velo_send(tw_link_ctx_t *l, int dest, unsigned tag, const void *hdr, size_t hlen,
                          const void *buf, size_t len) {
    tw_link_msg_hdr_t h = {TW_LINK_MSG_VELO, 0, (uint16_t)tag};
    struct iovec v[3] = {{&h, sizeof h}, {(void *)hdr, hlen}, {(void *)buf, len}};
    int rc = tw_udp_sendv(l->udp, (uint32_t)dest, v, 3);
    if (rc == TW_RETRY) { /* the window is full: take in what acknowledgements came */
        link_poll(l);
        rc = tw_udp_sendv(l->udp, (uint32_t)dest, v, 3);
    }
    return rc;
}

/* The longest chunk of put or get data: its request or answer, headers and all, is one
 * message of the link's (TW_UDP_MSG_MAX), with room to spare. */
enum { UDP_CHUNK_MAX = 61440 };
_Static_assert(sizeof(tw_link_msg_hdr_t) + sizeof(rma_req_t) + UDP_CHUNK_MAX <= TW_UDP_MSG_MAX,
               "a udp chunk's request is one message");

static int link_rma_request(tw_link_ctx_t *l, int dest, const rma_req_t *r, const void *data,
                            size_t len) {
    tw_link_msg_hdr_t h = {TW_LINK_MSG_RMA_REQ, 0, 0};
    if (len > UDP_CHUNK_MAX) return TW_ERR_SIZE;
    struct iovec v[3] = {{&h, sizeof h}, {(void *)r, sizeof *r}, {(void *)data, len}};
    /* the data is sent from where it is, and again from there if it is lost: the put
     * completes (and its source may change) only once the target's answer has come,
     * and that carries the acknowledgement */
    return tw_udp_sendv_kept(l->udp, (uint32_t)dest, v, 3);
}

static uint64_t link_rma_chunk(tw_link_ctx_t *l, int dest, const rma_req_t *r) {
    (void)dest;
    (void)r;
    /* A chunk in one datagram where that is large enough to land in place (the answer's
     * header is the smaller); below, the longest chunk: its packets leave as one run the
     * kernel cuts and come joined (segmentation offload), and a chunk costs one request
     * and one answer however small the MTU (16 KiB chunks moved 0.6 of it at MTU 1500) */
    size_t room = tw_udp_payload_max(l->udp) - sizeof(tw_link_msg_hdr_t) - sizeof(rma_req_t);
    if (room >= UDP_CHUNK_MAX) return UDP_CHUNK_MAX;
    return room >= TW_UDP_IN_PLACE_MIN ? room & ~(size_t)1023 : UDP_CHUNK_MAX;
}

static int link_rma_can_request(tw_link_ctx_t *l, int dest, const rma_req_t *r, size_t len) {
    (void)r;
    return tw_udp_room(l->udp, (uint32_t)dest, sizeof(tw_link_msg_hdr_t) + sizeof(rma_req_t) + len);
}

static int link_rma_can_answer(tw_link_ctx_t *l) {
    return answer_room(l);
}

static void send_answer(tw_link_ctx_t *l, int dest, const rma_answer_t *a, const void *data,
                        size_t len);

static void link_rma_answer(tw_link_ctx_t *l, int dest, const rma_answer_t *a, const void *data,
                            size_t len, int may_wait) {
    tw_link_answer_hold(&l->held, l, dest, a, data, len, may_wait, send_answer);
}

static void send_answer(tw_link_ctx_t *l, int dest, const rma_answer_t *a, const void *data,
                        size_t len) {
    tw_link_msg_hdr_t h = {TW_LINK_MSG_RMA_ANSWER, 0, 0};
    size_t total = sizeof h + sizeof *a + len;
    if (total > TW_LINK_RMA_MSG_MAX) return;
    struct iovec v[3] = {{&h, sizeof h}, {(void *)a, sizeof *a}, {(void *)data, len}};
    if (!l->count && tw_udp_sendv(l->udp, (uint32_t)dest, v, 3) != TW_RETRY) return;
    /* behind others, or no room in the window: queued (the caller made sure of room) */
    queued_answer_t *slot = answer_room(l) ? &l->q[(l->head + l->count) % l->cap] : NULL;
    if (slot && slot->cap < total) {
        unsigned char *grown = realloc(slot->msg, total);
        if (grown) *slot = (queued_answer_t){.cap = total, .msg = grown};
    }
    if (!slot || slot->cap < total) {
        l->answers_lost++;
        return;
    }
    memcpy(slot->msg, &h, sizeof h);
    memcpy(slot->msg + sizeof h, a, sizeof *a);
    if (len) memcpy(slot->msg + sizeof h + sizeof *a, data, len);
    slot->dest = dest;
    slot->len = total;
    l->count++;
}

/* A message the link delivers, checked before it is believed. 0: taken; 1: no room
 * in the mailbox (or notification queue) now (the link brings it again). */
static int arrived(void *ctx, uint32_t source, const void *data, size_t len) {
    tw_link_ctx_t *l = ctx;
    if (len < sizeof(tw_link_msg_hdr_t)) return 0; /* nothing to take: dropped */
    int rc = tw_link_msg_deliver(l->dev, l->dev_ctx, (uint32_t)l->size, source, data, len);
    if (rc == TW_RETRY) return 1;
    if (rc != TW_OK) l->malformed++;
    return 0;
}

/* Receiving in place (tw_udp_lander_t): a put request's data straight into our
 * memory, a get answer's into the buffer of the get, where the device says. */
static void *land(void *ctx, uint32_t source, const void *prefix, size_t len, size_t *skip) {
    tw_link_ctx_t *l = ctx;
    void *dest = tw_link_msg_land(l->dev, l->dev_ctx, (uint32_t)l->size, source, prefix, len, skip);
    l->landing = dest ? LANDING_DEVICE : LANDING_NONE;
    return dest;
}

static void landed(void *ctx, uint32_t source, const void *prefix, size_t len, int ok) {
    tw_link_ctx_t *l = ctx;
    (void)prefix;
    if (l->landing == LANDING_DEVICE)
        l->dev->landed(l->dev_ctx, source, len - sizeof(tw_link_msg_hdr_t), ok);
    l->landing = LANDING_NONE;
}

/* Tells the device of the peers the link declared lost since the last look. */
static void report_lost(tw_link_ctx_t *l) {
    l->lost_seen = tw_udp_lost_count(l->udp);
    for (int r = 0; r < l->size; r++) {
        int cause = tw_udp_peer_lost(l->udp, (uint32_t)r);
        if (cause) l->dev->peer_lost(l->dev_ctx, (uint32_t)r, cause); /* once: it remembers */
    }
}

static int link_poll(tw_link_ctx_t *l) {
    if (l->count) drain_answers(l);
    int delivered = tw_udp_poll(l->udp, arrived, l);
    if (l->count) drain_answers(l);
    if (__builtin_expect(tw_udp_lost_count(l->udp) != l->lost_seen, 0)) report_lost(l);
    return delivered;
}

static int link_fd(tw_link_ctx_t *l) {
    return tw_udp_fd(l->udp);
}

static int link_quiet(tw_link_ctx_t *l) {
    return tw_udp_quiet(l->udp);
}

/* Between two polls of the linger below: asleep until a packet comes or a tenth of a
 * millisecond passes (the timers' resolution is coarser), so that a peer sharing the
 * core runs meanwhile; a yield would hand the core back at once. */
static void linger_pause(tw_link_ctx_t *l) {
    struct pollfd p = {.fd = tw_udp_fd(l->udp), .events = POLLIN};
    const struct timespec tenth_ms = {0, 100000};
    ppoll(&p, 1, &tenth_ms, NULL);
}

static void link_close(tw_link_ctx_t *l) {
    /* linger, as a TCP close does: what was sent last (a lost packet among it) is
     * resent until acknowledged — by an ack, or by the peer's FIN, which carries its
     * last one — and the acknowledgements owed go out, or the peers are declared lost
     * (TW_UDP_TIMEOUT) */
    while (!tw_udp_idle(l->udp)) { /* answers still queued keep a window full */
        link_poll(l);
        if (!tw_udp_idle(l->udp)) linger_pause(l);
    }
    /* then FINs, so that a peer whose last acknowledgement was lost need not wait for
     * it from a process that has gone (bounded: see tw_udp_finish) */
    while (!tw_udp_finish(l->udp)) {
        link_poll(l);
        linger_pause(l);
    }
    tw_udp_close(l->udp);
    for (uint32_t i = 0; i < l->cap; i++) free(l->q[i].msg);
    free(l->q);
    free(l);
}

static void link_print_stats(tw_link_ctx_t *l, FILE *out, int rank, int index) {
    const tw_udp_stats_t *s = tw_udp_stats(l->udp);
    struct sockaddr_in a = {0};
    socklen_t alen = sizeof a;
    char ip[INET_ADDRSTRLEN] = "?";
    if (getsockname(tw_udp_fd(l->udp), (struct sockaddr *)&a, &alen) == 0)
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
    fprintf(out,
            "tollway: rank %d endpoint %d: udp on %s:%u: %llu msgs out, %llu in; packets %llu "
            "out, %llu in; retransmits %llu (timeouts %llu), out of order %llu, refused %llu, "
            "in place %llu, segmented %llu, joined %llu; "
            "dropped: bad crc %llu, bad mac %llu, bad length %llu, bad field %llu, short %llu, "
            "bad magic %llu, wrong source %llu, unknown peer %llu, duplicates %llu, stale acks "
            "%llu; injected: drop %llu dup %llu reorder %llu corrupt %llu delay %llu\n",
            rank, index, ip, (unsigned)ntohs(a.sin_port), (unsigned long long)s->msgs_sent,
            (unsigned long long)s->msgs_received, (unsigned long long)s->packets_sent,
            (unsigned long long)s->packets_received, (unsigned long long)s->retransmits,
            (unsigned long long)s->timeouts, (unsigned long long)s->out_of_order,
            (unsigned long long)s->refused, (unsigned long long)s->in_place,
            (unsigned long long)s->segmented, (unsigned long long)s->joined,
            (unsigned long long)s->dropped[TW_UDP_BAD_CRC],
            (unsigned long long)s->dropped[TW_UDP_BAD_MAC],
            (unsigned long long)s->dropped[TW_UDP_BAD_LEN],
            (unsigned long long)s->dropped[TW_UDP_BAD_FIELD],
            (unsigned long long)s->dropped[TW_UDP_SHORT],
            (unsigned long long)s->dropped[TW_UDP_BAD_MAGIC], (unsigned long long)s->wrong_source,
            (unsigned long long)s->unknown_peer, (unsigned long long)s->duplicates,
            (unsigned long long)s->stale_acks, (unsigned long long)s->injected_drop,
            (unsigned long long)s->injected_duplicate, (unsigned long long)s->injected_reorder,
            (unsigned long long)s->injected_corrupt, (unsigned long long)s->injected_delay);
    uint64_t probes, echoes, resets_out, resets_in;
    tw_udp_liveness_counters(l->udp, &probes, &echoes, &resets_out, &resets_in);
    fprintf(out,
            "tollway: rank %d endpoint %d: udp liveness: probes %llu, echoes %llu, resets out "
            "%llu, in %llu\n",
            rank, index, (unsigned long long)probes, (unsigned long long)echoes,
            (unsigned long long)resets_out, (unsigned long long)resets_in);
}

/* The counters tools read (tw_ep_link_counter): fields of tw_udp_stats_t, then the
 * link's own and the liveness thread's. */
#define UDP_STAT(field, meaning)                                                                   \
    { "udp", #field, meaning }
static const tw_link_counter_info_t link_counters[] = {
    UDP_STAT(msgs_sent, "messages sent"),
    UDP_STAT(msgs_received, "messages received whole"),
    UDP_STAT(packets_sent, "data packets sent, first sendings and resends"),
    UDP_STAT(packets_received, "datagrams received"),
    UDP_STAT(retransmits, "data packets sent again"),
    UDP_STAT(timeouts, "retransmission timeouts"),
    UDP_STAT(acks_sent, "bare acknowledgements sent"),
    UDP_STAT(out_of_order, "data packets received ahead of a gap"),
    UDP_STAT(duplicates, "data packets received again (a resend or a replay): dropped"),
    UDP_STAT(stale_acks, "old or impossible acknowledgements: dropped"),
    UDP_STAT(fins_sent, "FINs sent while closing"),
    UDP_STAT(resets_sent, "resets sent to peers that had declared this one lost"),
    UDP_STAT(resets_received, "resets received from peers"),
    UDP_STAT(refused, "whole messages the receiver did not take at once"),
    UDP_STAT(in_place, "messages received straight where they belong"),
    UDP_STAT(segmented, "packets sent in runs the kernel cut (UDP_SEGMENT)"),
    UDP_STAT(joined, "packets received in datagrams the kernel joined (UDP_GRO)"),
    {"udp", "dropped_short", "datagrams dropped: shorter than a header"},
    {"udp", "dropped_bad_magic", "datagrams dropped: not of this protocol"},
    {"udp", "dropped_bad_crc", "datagrams dropped: damaged (CRC)"},
    {"udp", "dropped_bad_mac", "datagrams dropped: MAC wrong (another job's, or forged)"},
    {"udp", "dropped_bad_len", "datagrams dropped: lengths that disagree"},
    {"udp", "dropped_bad_field", "datagrams dropped: impossible fields"},
    UDP_STAT(unknown_peer, "datagrams from no peer of this link: dropped"),
    UDP_STAT(wrong_source, "datagrams from another address than the peer's: dropped"),
    UDP_STAT(protocol, "segments out of order within a message"),
    UDP_STAT(injected_drop, "faults injected (TW_UDP_FAULTS): packets dropped"),
    UDP_STAT(injected_duplicate, "faults injected: packets duplicated"),
    UDP_STAT(injected_reorder, "faults injected: packets reordered"),
    UDP_STAT(injected_corrupt, "faults injected: packets corrupted"),
    UDP_STAT(injected_delay, "faults injected: packets delayed"),
    {"udp", "malformed", "messages the device refused as malformed"},
    {"udp", "liveness_probes", "liveness probes sent"},
    {"udp", "liveness_echoes", "liveness probes answered"},
};
#undef UDP_STAT
/* where the counters that are fields of tw_udp_stats_t lie, in the order above */
#define AT(field) offsetof(tw_udp_stats_t, field)
static const size_t link_counter_at[] = {
    AT(msgs_sent),
    AT(msgs_received),
    AT(packets_sent),
    AT(packets_received),
    AT(retransmits),
    AT(timeouts),
    AT(acks_sent),
    AT(out_of_order),
    AT(duplicates),
    AT(stale_acks),
    AT(fins_sent),
    AT(resets_sent),
    AT(resets_received),
    AT(refused),
    AT(in_place),
    AT(segmented),
    AT(joined),
    AT(dropped[TW_UDP_SHORT]),
    AT(dropped[TW_UDP_BAD_MAGIC]),
    AT(dropped[TW_UDP_BAD_CRC]),
    AT(dropped[TW_UDP_BAD_MAC]),
    AT(dropped[TW_UDP_BAD_LEN]),
    AT(dropped[TW_UDP_BAD_FIELD]),
    AT(unknown_peer),
    AT(wrong_source),
    AT(protocol),
    AT(injected_drop),
    AT(injected_duplicate),
    AT(injected_reorder),
    AT(injected_corrupt),
    AT(injected_delay),
};
#undef AT
enum { LINK_FIELDS = sizeof link_counter_at / sizeof link_counter_at[0] };
_Static_assert(sizeof link_counters / sizeof link_counters[0] == LINK_FIELDS + 3,
               "link_counters and link_counter disagree");

static uint64_t link_counter(tw_link_ctx_t *l, unsigned i) {
    if (i < LINK_FIELDS) {
        uint64_t v;
        memcpy(&v, (const char *)tw_udp_stats(l->udp) + link_counter_at[i], sizeof v);
        return v;
    }
    if (i == LINK_FIELDS) return l->malformed;
    uint64_t probes, echoes, resets_out, resets_in;
    tw_udp_liveness_counters(l->udp, &probes, &echoes, &resets_out, &resets_in);
    return i == LINK_FIELDS + 1 ? probes : i == LINK_FIELDS + 2 ? echoes : 0;
}

tw_udp_link_t *tw_link_udp_transport(tw_link_ctx_t *l) {
    return l->udp;
}

uint64_t tw_link_udp_malformed(const tw_link_ctx_t *l) {
    return l->malformed;
}

/* Binds a UDP socket to addr (any port) and closes it: 0, or errno. */
static int try_bind(const struct sockaddr_in *addr) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int err = fd < 0 || bind(fd, (const struct sockaddr *)addr, sizeof *addr) ? errno : 0;
    if (fd >= 0) close(fd);
    return err;
}

/* Usable when a socket binds on loopback (a job on this node with TW_LINK=udp) and on
 * the address a job across nodes would bind (TW_UDP_ADDR, or the one found). */
static int link_probe(size_t segment_size, char *note, size_t cap) {
    (void)segment_size;
    static const tw_config_t no_settings; /* invalid settings: the defaults */
    const tw_config_t *cfg = tw_config() ? tw_config() : &no_settings;
    struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int err = try_bind(&lo);
    if (err) {
        snprintf(note, cap, "cannot bind a UDP socket on 127.0.0.1: %s", strerror(err));
        return 0;
    }
    struct sockaddr_in wide;
    tw_link_ip_address(cfg, 0, &wide);
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &wide.sin_addr, ip, sizeof ip);
    if (wide.sin_addr.s_addr == lo.sin_addr.s_addr) {
        snprintf(note, cap,
                 "binds 127.0.0.1; no interface but loopback is up (and TW_UDP_ADDR is unset): "
                 "other nodes cannot reach this one");
        return 1;
    }
    err = try_bind(&wide);
    if (err) {
        snprintf(note, cap, "cannot bind a UDP socket on %s (%s): %s", ip,
                 cfg->udp_addr[0] ? "TW_UDP_ADDR" : "the first interface that is up",
                 strerror(err));
        return 0;
    }
    snprintf(note, cap, "binds 127.0.0.1; other nodes reach this one at %s (%s), MTU %u", ip,
             cfg->udp_addr[0] ? "TW_UDP_ADDR" : "the first interface that is up",
             cfg->udp_mtu ? cfg->udp_mtu : interface_mtu(&wide));
    return 1;
}

const tw_link_t tw_link_udp = {
    .name = "udp",
    .caps = TW_LINK_PUT_CHEAPER | TW_LINK_POLLED,
    .velo_max = TW_VELO_MAX_SIZE,
    .rma_chunk_max = UDP_CHUNK_MAX,
    .open = link_open,
    .connect = link_connect,
    .velo_send = link_velo_send,
    .rma_request = link_rma_request,
    .rma_can_request = link_rma_can_request,
    .rma_chunk = link_rma_chunk,
    .rma_can_answer = link_rma_can_answer,
    .rma_answer = link_rma_answer,
    .poll = link_poll,
    .fd = link_fd,
    .quiet = link_quiet,
    .close = link_close,
    .print_stats = link_print_stats,
    .counters = link_counters,
    .ncounters = sizeof link_counters / sizeof link_counters[0],
    .counter = link_counter,
    .probe = link_probe,
};
