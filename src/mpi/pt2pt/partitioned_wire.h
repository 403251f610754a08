/* What partitioned communication (MPI-4.1 chapter 4, partitioned.c) puts on the wire,
 * and the checks of what a peer sends before it is believed: static inline, so that
 * the handlers pay no call, and the ones tests/fuzz/fuzz_part_wire.c runs.
 *
 * A partitioned send and receive meet by messages of the VELO kind TW_MPI_PART:
 *   SEND   sender to receiver at the send's first start: its envelope (tag, context),
 *          its order among the Psend_inits of that envelope, request, size and
 *          partition count; the receiver matches it with the receive of that source,
 *          tag and context whose Precv_init was of the same order (MPI-4.1 chapter 4:
 *          partitioned calls match in the order of their initialization calls, not
 *          of their starts);
 *   CLEAR  receiver to sender at each start of the matched receive: its buffer (NLA
 *          and key), size and partition count; the sender may put the data of that
 *          round now, and not before (the receiver's buffer is its own until then);
 *   EMPTY  sender to receiver: every partition of a round of a message of 0 bytes is
 *          ready (there is nothing to put).
 * Each partition that becomes ready is put straight into the receiver's buffer at
 * its offset, asking for requester (the sender's buffer is free) and completer (the
 * data is in place) notifications; the cookie names both requests. The receiver maps
 * the byte range a notification names to its own partitions. */
#ifndef TW_MPI_PT2PT_PARTITIONED_WIRE_H
#define TW_MPI_PT2PT_PARTITIONED_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tollway/tollway.h>

#pragma GCC visibility push(hidden)

enum { TW_PART_SEND = 1, TW_PART_CLEAR = 2, TW_PART_EMPTY = 3 };

/* Every message is one of these: 48 bytes, one mailbox slot. */
typedef struct tw_part_msg {
    uint32_t op;         /* TW_PART_* */
    int32_t tag;         /* SEND: the send's tag */
    uint32_t context;    /* SEND: its communicator's point-to-point context */
    uint32_t sreq, rreq; /* the send's and the receive's request handles (rreq 0 in SEND) */
    uint32_t partitions; /* SEND, EMPTY: the sender's partitions; CLEAR: the receiver's */
    uint64_t bytes;      /* the message's size as the side that sends this has it */
    union {
        uint64_t nla;   /* CLEAR: the receiver's buffer, with key */
        uint64_t order; /* SEND: 1 for the first Psend_init of its destination, tag and
                           communicator, 2 for the next ... */
    };
    uint64_t key;
} tw_part_msg_t;

/* Partitions of one request: at most this many (a bitmap word per 64 of them). */
#define TW_PART_MAX (1 << 24)

/* A message of len bytes at data: its op with the message in *m, or 0 when it is
 * none: another length, an unknown op, a negative tag, no partitions or more than
 * TW_PART_MAX, a size that the partitions do not divide (every partition of a side
 * has the same size; a message of 0 bytes has partitions of 0 bytes), or a SEND of
 * order 0. */
static inline int tw_part_msg_take(const void *data, size_t len, tw_part_msg_t *m) {
    if (len != sizeof *m) return 0;
    memcpy(m, data, sizeof *m);
    if (m->op < TW_PART_SEND || m->op > TW_PART_EMPTY) return 0;
    if (m->tag < 0 || m->partitions < 1 || m->partitions > TW_PART_MAX) return 0;
    if (m->bytes % m->partitions) return 0;
    if (m->op == TW_PART_SEND && !m->order) return 0; /* orders count from 1 */
    return (int)m->op;
}

/* Cookies of the puts: TW_MPI_COOKIE_PART (bit 62), the receive's handle in bits
 * 24..47, the send's in bits 0..23. Handles are 0x2c in their top byte (request.h),
 * so 24 bits name one. */
#define TW_PART_COOKIE ((uint64_t)1 << 62)
static inline uint64_t tw_part_cookie(uint32_t sreq, uint32_t rreq) {
    return TW_PART_COOKIE | (uint64_t)(rreq & 0xffffff) << 24 | (sreq & 0xffffff);
}
static inline uint32_t tw_part_cookie_sreq(uint64_t cookie) {
    return 0x2c000000u | (uint32_t)(cookie & 0xffffff);
}
static inline uint32_t tw_part_cookie_rreq(uint64_t cookie) {
    return 0x2c000000u | (uint32_t)(cookie >> 24 & 0xffffff);
}

/* What a receive knows of the send it matched, to check what lands. */
typedef struct tw_part_recv_view {
    int peer;             /* the sender's world rank */
    uint64_t nla;         /* the receive buffer's first byte */
    uint64_t bytes;       /* its size (the send's too) */
    uint64_t sender_part; /* bytes of each of the sender's partitions (0: none land) */
} tw_part_recv_view_t;

/* The sender's partition that notification n says landed, or -1 when it is none of
 * this receive's: not the completer notification of a put that succeeded, from
 * another peer, outside the buffer, not at a partition's start or not one
 * partition's length. */
static inline int64_t tw_part_arrival(const tw_part_recv_view_t *v, const tw_notification_t *n) {
    if (n->op != TW_OP_PUT || n->cls != TW_NOTIFY_COMPLETER || n->status != TW_OK) return -1;
    if (n->peer != v->peer || !v->sender_part || n->nla < v->nla) return -1;
    uint64_t off = n->nla - v->nla;
    if (off >= v->bytes || off % v->sender_part || n->length != v->sender_part) return -1;
    if (v->bytes - off < n->length) return -1;
    return (int64_t)(off / v->sender_part);
}

/* The receiver's partitions that the sender's partition q (sender_part bytes each)
 * overlaps, given own bytes each of its own: [*first, *last]. The overlap of own
 * partition p with q is tw_part_overlap(). */
static inline void tw_part_span(uint64_t q, uint64_t sender_part, uint64_t own, uint64_t *first,
                                uint64_t *last) {
    uint64_t lo = q * sender_part, hi = lo + sender_part; /* [lo, hi) */
    *first = lo / own;
    *last = (hi - 1) / own;
}
static inline uint64_t tw_part_overlap(uint64_t q, uint64_t sender_part, uint64_t p, uint64_t own) {
    uint64_t lo = q * sender_part, hi = lo + sender_part;
    uint64_t plo = p * own, phi = plo + own;
    uint64_t a = lo > plo ? lo : plo, b = hi < phi ? hi : phi;
    return b > a ? b - a : 0;
}

#pragma GCC visibility pop

#endif
