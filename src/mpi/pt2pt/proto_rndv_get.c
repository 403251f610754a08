/* Rendezvous by get, and what every rendezvous variant shares: the sender registers
 * its buffer and sends a request-to-send naming it; the receiver gets the data
 * straight into its buffer, asking for completer and responder notifications, which
 * complete both sides without another message. A staged send longer than a chunk
 * (chunked) exposes one packed chunk at a time and tells the receiver with a READY
 * when the next is there. */
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/env/state.h"
#include "mpi/tools/events.h"
#include "mpi/pt2pt/wire_check.h"

int tw_proto_rndv_setup(int i) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    if (r->proto == TW_PROTO_RNDV_PIECES || r->proto == TW_PROTO_EAGER_SYNC) {
        /* nothing to register: done once the CTS has come (and the last piece is in) */
        r->cts.rreq = 0;
        r->parts = 1;
    } else {
        /* (no message of 0 bytes comes here: it goes eager, synchronous or not) */
        size_t len = r->proto == TW_PROTO_RNDV_CHUNKED ? TW_PACK_CHUNK : r->bytes;
        if (tw_reg(ch->ep, r->buf, len, TW_PERM_READ, &r->region)) {
            r->active = 0;
            return MPI_ERR_NO_MEM;
        }
        /* done when the receiver's (last) get tells us, and when split, our put; across
         * nodes, when our put of the whole message (or, if the CTS says so, the get) does */
        int cts = r->proto == TW_PROTO_RNDV_SPLIT || r->proto == TW_PROTO_RNDV_PUT;
        r->parts = (uint8_t)(1 + cts);
    }
    ch->rendezvous += r->parts;
    ch->rndv_sends++;
    if (r->proto != TW_PROTO_EAGER_SYNC && tw_mpi_t_event_wanted(TW_EVENT_RNDV_BEGIN))
        tw_mpi_t_event_rndv_begin(r->peer, r->tag, r->bytes, r->context,
                                  r->proto == TW_PROTO_RNDV_CHUNKED  ? 1
                                  : r->proto == TW_PROTO_RNDV_SPLIT  ? 2
                                  : r->proto == TW_PROTO_RNDV_PUT    ? 3
                                  : r->proto == TW_PROTO_RNDV_PIECES ? 4
                                                                     : 0);
    return MPI_SUCCESS;
}

void tw_proto_rndv_undo(req_t *r) {
    tw_channel_t *ch = tw_channel_of(r);
    if (r->region.nla) tw_dereg(ch->ep, &r->region);
    ch->rendezvous -= r->parts;
    r->parts = 0;
    ch->rndv_sends--;
}

int tw_proto_rts_post(int i) {
    static const uint32_t variant[] = {[TW_PROTO_RNDV_CHUNKED] = TW_RTS_CHUNKED,
                                       [TW_PROTO_RNDV_SPLIT] = TW_RTS_SPLIT,
                                       [TW_PROTO_RNDV_PUT] = TW_RTS_PUT,
                                       [TW_PROTO_RNDV_PIECES] = TW_RTS_PIECES};
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    tw_mpi_hdr_t h = {r->tag, r->context};
    unsigned char m[sizeof h + sizeof(tw_mpi_rts_t)];
    tw_mpi_rts_t rts = {r->bytes, r->region.nla, r->region.key, (uint32_t)tw_req_handle(i),
                        variant[r->proto]};
    memcpy(m, &h, sizeof h);
    memcpy(m + sizeof h, &rts, sizeof rts);
    return tw_velo_send(ch->ep, r->peer, TW_MPI_RTS, m, sizeof m);
}

void tw_proto_rndv_deliver(int i, int source, int tag, const tw_mpi_rts_t *rts) {
    req_t *r = &tw_reqs[i];
    tw_req_complete_recv(r, source, tag, (size_t)rts->size);
    r->got = *rts;
    r->got_from = source;
    r->proto = rts->split == TW_RTS_CHUNKED  ? TW_PROTO_RNDV_CHUNKED
               : rts->split == TW_RTS_SPLIT  ? TW_PROTO_RNDV_SPLIT
               : rts->split == TW_RTS_PUT    ? TW_PROTO_RNDV_PUT
               : rts->split == TW_RTS_PIECES ? TW_PROTO_RNDV_PIECES
                                             : TW_PROTO_RNDV_GET;
    tw_proto_rndv_get(i); /* done when its completer notification arrives */
}

/* A chunk of a rendezvous receive has landed (in its window when staged): unpacked,
 * and the next one fetched, or awaited when the sender packs it chunk by chunk. 1
 * while more is to come. */
static int next_chunk(req_t *r, int i) {
    if (r->proto == TW_PROTO_RNDV_CHUNKED) {
        size_t end = tw_min_size(r->chunk_at + TW_PACK_CHUNK, (size_t)r->got.size);
        size_t lo = tw_min_size(r->chunk_at, r->st_bytes), hi = tw_min_size(end, r->st_bytes);
        if (r->staged && hi > lo) tw_mpi_staged_unpack_at(r->staged, r->buf, lo, hi - lo);
        r->chunk_at = end;
        if (end >= r->got.size) return 0;
        if (r->ready) {
            r->ready = 0;
            tw_proto_rndv_get(i);
        }
        return 1;
    }
    size_t total = r->st_bytes,
           n = total - r->chunk_at < TW_PACK_CHUNK ? total - r->chunk_at : TW_PACK_CHUNK;
    tw_mpi_staged_unpack_at(r->staged, r->buf, r->chunk_at, n);
    r->chunk_at += n;
    if (r->chunk_at >= total) return 0;
    tw_proto_rndv_get(i);
    return 1;
}

void tw_proto_rndv_part_done(int i) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    ch->rendezvous--;
    if (--r->parts) return;
    if (r->kind == REQ_SEND) ch->rndv_sends--;
    /* a truncated message still fetches (and unpacks) what fits */
    if (r->kind == REQ_RECV && r->proto != TW_PROTO_EAGER &&
        (r->staged || r->proto == TW_PROTO_RNDV_CHUNKED) &&
        (!r->error || r->error == MPI_ERR_TRUNCATE) && next_chunk(r, i))
        return;
    if (r->region.nla) tw_dereg(ch->ep, &r->region);
    r->region.nla = 0;
    tw_req_done(i);
}

void tw_proto_rndv_get(int i) {
    req_t *r = &tw_reqs[i];
    if (r->proto == TW_PROTO_RNDV_PIECES) { /* nothing to get: the sender's go */
        tw_proto_pieces_cts_send(i);
        return;
    }
    if (r->proto == TW_PROTO_EAGER_SYNC) { /* the data came: the sender's answer */
        tw_proto_sync_ack(i);
        return;
    }
    tw_channel_t *ch = tw_channel_of_req(i);
    size_t n = r->got.size < r->bytes ? (size_t)r->got.size : r->bytes;
    int cts = r->proto == TW_PROTO_RNDV_SPLIT || r->proto == TW_PROTO_RNDV_PUT;
    if (cts && r->state != TW_STATE_CTS_SENT) {
        int rc = tw_proto_cts_send(i, n, &n);
        if (rc == TW_RETRY) {
            tw_req_list_push(&ch->pending_gets, i);
            return;
        }
        if (rc) {
            r->error = tw_mpi_peer_error(r->got_from, rc);
            tw_req_done(i);
            return;
        }
        r->got.size = n; /* a retried get fetches the same part */
    } else if (r->state == TW_STATE_CTS_SENT) {
        n = (size_t)r->got.size;
    }
    if (r->state == TW_STATE_CTS_SENT && !n && r->region.nla) return; /* the sender puts it all */
    uint64_t cookie = (uint64_t)r->got.sreq << 32 | (uint32_t)tw_req_handle(i);
    size_t at = 0;
    unsigned char *to = r->buf;
    unsigned notify = TW_NOTIFY_COMPLETER | TW_NOTIFY_RESPONDER;
    if (r->proto == TW_PROTO_RNDV_CHUNKED) {
        /* the sender's window holds its chunk; what lies past our buffer is fetched as
         * nothing, so that the sender still hears that each chunk was taken */
        size_t end = tw_min_size(r->chunk_at + TW_PACK_CHUNK, (size_t)r->got.size);
        size_t lo = tw_min_size(r->chunk_at, n);
        n = tw_min_size(end, n) - lo;
        if (!r->staged && lo) to += lo;
    } else if (r->staged) { /* into the window, one chunk; the sender hears of the last only */
        at = r->chunk_at;
        n = n - at < TW_PACK_CHUNK ? n - at : TW_PACK_CHUNK;
        if (at + n < r->st_bytes) notify = TW_NOTIFY_COMPLETER;
    }
    int rc = tw_get(ch->ep, r->got_from, to, n, r->got.nla + at, r->got.key, notify, cookie);
    if (rc == TW_RETRY) {
        /* the waiting get counts as a part at once: else the other half of a split
         * message (the sender's put) could complete the receive before it ran */
        if (!r->get_held) {
            r->get_held = 1;
            r->parts++;
            ch->rendezvous++;
        }
        tw_req_list_push(&ch->pending_gets, i);
        return;
    }
    if (r->get_held) { /* its part was counted when it was refused */
        r->get_held = 0;
        r->parts--;
        ch->rendezvous--;
    }
    if (rc == TW_OK) {
        r->parts++;
        ch->rendezvous++;
        return;
    }
    r->error = tw_mpi_peer_error(r->got_from, rc); /* the sender cannot be reached: nothing
                                                      will complete this */
    if (r->region.nla) tw_dereg(ch->ep, &r->region);
    r->region.nla = 0;
    tw_req_done(i);
}

/* A READY from source: the next chunk of a chunked rendezvous is in the sender's
 * window. Checked against the receive it names before anything is fetched. */
void tw_proto_ready_take(int source, const void *body, size_t len) {
    tw_mpi_ready_t m;
    int i = tw_mpi_ready_check(source, body, len, &m), prev;
    if (!i || tw_req_list_find(&tw_channel_of_req(i)->pending_gets, i, &prev)) return;
    req_t *r = &tw_reqs[i];
    if (r->parts) { /* the chunk before it has not landed yet */
        if (m.offset == r->chunk_at + TW_PACK_CHUNK) r->ready = 1;
    } else if (m.offset == r->chunk_at) {
        tw_proto_rndv_get(i);
    }
}

/* Tells the receiver that the next chunk of chunked send i is in its window. */
void tw_proto_ready_send(int i) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    tw_mpi_ready_t m = {(uint32_t)tw_req_handle(i), r->cts.rreq, r->chunk_at};
    int rc = tw_velo_send(ch->ep, r->peer, TW_MPI_READY, &m, sizeof m);
    if (rc == TW_RETRY) {
        tw_req_list_push(&ch->pending_gets, i);
    } else if (rc) {
        r->error = tw_mpi_peer_error(r->peer, rc); /* the receiver will never ask again */
        tw_proto_rndv_part_done(i);
    }
}

void tw_proto_rndv_notified(int i, const tw_notification_t *n) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    if (n->status == TW_OK && r->kind == REQ_SEND && r->proto == TW_PROTO_RNDV_CHUNKED &&
        r->chunk_at + TW_PACK_CHUNK < r->bytes) {
        /* the receiver has taken the window's chunk: the next one takes its place */
        r->chunk_at += TW_PACK_CHUNK;
        tw_mpi_staged_pack_at(r->staged, r->chunk_at);
        r->cts.rreq = (uint32_t)n->cookie;
        tw_proto_ready_send(i);
        return;
    }
    if (n->status != TW_OK) {
        /* a fault: the request ends now, whatever else it waited for. Its buffer is
         * deregistered, so a late put or get into it faults too. A refused get, READY or
         * cancel's ask waiting for room leaves the pending list with it: a finished
         * request may be freed, and the free list runs through the same link. */
        int prev;
        if (tw_req_list_find(&ch->pending_gets, i, &prev))
            tw_req_list_remove(&ch->pending_gets, i, prev);
        r->get_held = r->cancel_asked = 0;
        r->error = tw_mpi_peer_error(n->peer, n->status);
        ch->rendezvous -= r->parts - 1;
        r->parts = 1;
    }
    tw_proto_rndv_part_done(i);
}
