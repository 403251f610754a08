/* What MPI takes from a peer before believing it: the envelope of an eager message or
 * request-to-send, and the request that a clear-to-send, a READY or a rendezvous
 * notification names. Each check is the one its handler runs (engine.c, proto_eager.c,
 * proto_rndv_get.c, proto_rndv_split.c), static inline so that the receive paths pay
 * no call, and the one tests/fuzz/fuzz_mpi_wire.c runs.
 *
 * A context id is not checked: a peer may send on a communicator this rank has not
 * finished creating yet, and such a message waits, unexpected, for its receive. */
#ifndef TW_MPI_WIRE_CHECK_H
#define TW_MPI_WIRE_CHECK_H

#include <stddef.h>
#include <string.h>

#include <tollway/tollway.h>

#include "mpi/pt2pt/engine_progress.h"
#include "mpi/pt2pt/request.h"
#include "mpi/pt2pt/wire.h"

#pragma GCC visibility push(hidden)

/* The header of a message of len bytes at data: 1 with it in *h, 0 when the message is
 * shorter. The blocking receive's fast path (proto_eager.c) takes no more than this:
 * a receive of any tag takes no negative one there (tw_match_accepts), and what it does
 * not match goes through tw_mpi_envelope_take. */
static inline int tw_mpi_header_take(const void *data, size_t len, tw_mpi_hdr_t *h) {
    if (len < sizeof *h) return 0;
    memcpy(h, data, sizeof *h);
    return 1;
}

/* An eager message (rts NULL) or RTS of len bytes at data: 1 with its header in *h,
 * the RTS in *rts, and the body at data + sizeof *h, len - sizeof *h bytes; 0 when it
 * is none of MPI's: shorter than the header, a negative tag on a point-to-point context
 * (user tags are 0 or more; negative ones are the communicator creation exchanges', on
 * collective contexts, comm.h), an RTS whose body is not one, or of an unknown
 * variant. */
static inline int tw_mpi_envelope_take(const void *data, size_t len, tw_mpi_hdr_t *h,
                                       tw_mpi_rts_t *rts) {
    if (!tw_mpi_header_take(data, len, h) || (h->tag < 0 && !(h->context & TW_CTX_COLL))) return 0;
    if (!rts) return 1;
    if (len - sizeof *h != sizeof *rts) return 0;
    memcpy(rts, (const unsigned char *)data + sizeof *h, sizeof *rts);
    return rts->split <= TW_RTS_PIECES;
}

/* A synchronous eager message of len bytes at data: 1 with its header in *h and the
 * sender's request handle in *sreq, its payload at data + sizeof *h +
 * sizeof(tw_mpi_sync_t); 0 when it is none of MPI's: an envelope tw_mpi_envelope_take
 * refuses, or too short for the handle. */
static inline int tw_mpi_sync_take(const void *data, size_t len, tw_mpi_hdr_t *h, uint32_t *sreq) {
    tw_mpi_sync_t s;
    if (!tw_mpi_envelope_take(data, len, h, NULL) || len - sizeof *h < sizeof s) return 0;
    memcpy(&s, (const unsigned char *)data + sizeof *h, sizeof s);
    *sreq = s.sreq;
    return 1;
}

/* The first piece of a pipelined message, len bytes at data: 1 with its header in *h and
 * the message's size in *size, its data at data + sizeof *h + sizeof(tw_mpi_first_t);
 * 0 when it is none of MPI's: an envelope tw_mpi_envelope_take refuses, a size of 0 or
 * past TW_MPI_PIPELINE_MOST, or data other than the first TW_MPI_FIRST_PIECE bytes of
 * the message (all of it when shorter). */
static inline int tw_mpi_first_take(const void *data, size_t len, tw_mpi_hdr_t *h, size_t *size) {
    tw_mpi_first_t f;
    if (!tw_mpi_envelope_take(data, len, h, NULL) || len - sizeof *h < sizeof f) return 0;
    memcpy(&f, (const unsigned char *)data + sizeof *h, sizeof f);
    if (!f.size || f.size > TW_MPI_PIPELINE_MOST) return 0;
    *size = (size_t)f.size;
    return len - sizeof *h - sizeof f == (*size < TW_MPI_FIRST_PIECE ? *size : TW_MPI_FIRST_PIECE);
}

/* A TW_MPI_MORE of len bytes for a pipelined message of size bytes of which at have
 * come (size 0: none is under way from that sender): 1 when it is the next piece,
 * TW_VELO_MAX_SIZE bytes or what is left. */
static inline int tw_mpi_piece_check(size_t at, size_t size, size_t len) {
    return at < size && len == (size - at < TW_VELO_MAX_SIZE ? size - at : TW_VELO_MAX_SIZE);
}

/* The first piece of a rendezvous by pieces, len bytes at data from world rank source:
 * the receive it names, with its data at data + sizeof(tw_mpi_pieces_t); 0 when it is
 * no piece that receive waits for (too short, no such request, not a receive of that
 * send from source whose CTS went, finished, or data other than the first
 * TW_MPI_FIRST_PIECE bytes of the message, all of it when shorter). */
static inline int tw_mpi_pieces_check(int source, const void *data, size_t len) {
    tw_mpi_pieces_t f;
    if (len < sizeof f) return 0;
    memcpy(&f, data, sizeof f);
    int i = tw_req_index((MPI_Request)f.rreq);
    if (i <= 0) return 0;
    const req_t *r = &tw_reqs[i];
    if (r->kind != REQ_RECV || r->proto != TW_PROTO_RNDV_PIECES || r->state != TW_STATE_CTS_SENT ||
        r->done || r->got_from != source || r->got.sreq != f.sreq || !r->got.size)
        return 0;
    size_t size = (size_t)r->got.size;
    return len - sizeof f == (size < TW_MPI_FIRST_PIECE ? size : TW_MPI_FIRST_PIECE) ? i : 0;
}

/* The send a CTS of len bytes from world rank source names, with the CTS in *c: its
 * request slot, or 0 when it is no CTS that send waits for (wrong length, no such
 * request, not a send of ours to source, one not waiting for its CTS, or finished, a
 * part outside its buffer, one not from 0 for a put of the whole message, or any part
 * for a rendezvous by pieces or a synchronous eager send). */
static inline int tw_mpi_cts_check(int source, const void *body, size_t len, tw_mpi_cts_t *c) {
    if (len != sizeof *c) return 0;
    memcpy(c, body, sizeof *c);
    int i = tw_req_index((MPI_Request)c->sreq);
    if (i <= 0) return 0;
    const req_t *r = &tw_reqs[i];
    if (r->kind != REQ_SEND || r->state != TW_STATE_WAIT_CTS || r->peer != source || r->done ||
        c->offset > r->bytes || c->len > r->bytes - c->offset ||
        ((r->proto == TW_PROTO_RNDV_PUT && c->offset) ||
         ((r->proto == TW_PROTO_RNDV_PIECES || r->proto == TW_PROTO_EAGER_SYNC) &&
          (c->offset || c->len))))
        return 0;
    return i;
}

/* The receive a READY of len bytes from world rank source names, with the READY in *m:
 * its request slot, or 0 when it is no READY that receive can take (wrong length, no
 * such request, not a chunked receive from source of that send, finished, or an
 * offset past the message). Whether its get waits already is the handler's to see. */
static inline int tw_mpi_ready_check(int source, const void *body, size_t len, tw_mpi_ready_t *m) {
    if (len != sizeof *m) return 0;
    memcpy(m, body, sizeof *m);
    int i = tw_req_index((MPI_Request)m->rreq);
    if (i <= 0) return 0;
    const req_t *r = &tw_reqs[i];
    if (r->kind != REQ_RECV || r->proto != TW_PROTO_RNDV_CHUNKED || r->done ||
        r->got_from != source || r->got.sreq != m->sreq || m->offset >= r->got.size)
        return 0;
    return i;
}

/* A send's cancel of len bytes at body (TW_MPI_CANCEL): 1 with it in *c, 0 when it is
 * none (wrong length, an unknown verdict). An ask names a message the receiver looks
 * for among those it keeps; an answer's request is tw_mpi_cancel_answer_check's. */
static inline int tw_mpi_cancel_take(const void *body, size_t len, tw_mpi_cancel_t *c) {
    if (len != sizeof *c) return 0;
    memcpy(c, body, sizeof *c);
    return c->verdict >= TW_CANCEL_ASK && c->verdict <= TW_CANCEL_MATCHED;
}

/* The send an answer c from world rank source names: its slot, or 0 when it is no
 * answer that send waits for (an ask, no such request, not a send of ours to source,
 * none asked of it, or finished). */
static inline int tw_mpi_cancel_answer_check(int source, const tw_mpi_cancel_t *c) {
    if (c->verdict == TW_CANCEL_ASK) return 0;
    int i = tw_req_index((MPI_Request)c->sreq);
    if (i <= 0) return 0;
    const req_t *r = &tw_reqs[i];
    if (r->kind != REQ_SEND || r->peer != source || r->cancel_asked != TW_CANCEL_ASKED || r->done)
        return 0;
    return i;
}

/* The rendezvous request a notification completes a part of: its slot, or 0 when it
 * is none (not a get or put, a cookie naming no request, or one awaiting no part, or
 * a peer other than the request's: another process must not complete a request of
 * this one by naming it in its own operation). The cookie holds the target side's
 * handle high, the initiator's low. Notifications of other units (cookie
 * TW_MPI_COOKIE_HOOKED) are the caller's to hand on first. */
static inline int tw_mpi_notified_check(const tw_notification_t *n) {
    if (n->op != TW_OP_GET && n->op != TW_OP_PUT) return 0;
    int at_target = n->cls == TW_NOTIFY_RESPONDER ||
                    (n->op == TW_OP_PUT && n->cls == TW_NOTIFY_COMPLETER && n->status == TW_OK);
    int i = tw_req_index(at_target ? (int)(n->cookie >> 32) : (int)(uint32_t)n->cookie);
    if (i <= 0 || !tw_reqs[i].parts) return 0;
    const req_t *r = &tw_reqs[i];
    if (n->peer != (r->kind == REQ_SEND ? r->peer : r->got_from)) return 0;
    return i;
}

#pragma GCC visibility pop

#endif
