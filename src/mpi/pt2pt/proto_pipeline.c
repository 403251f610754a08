/* The pipelined protocol: a message longer than an eager one, to a peer on this node,
 * goes as eager pieces, one VELO message each (wire.h: TW_MPI_FIRST with the envelope
 * and the size, then TW_MPI_MORE). The receiver copies each piece out while the sender
 * copies in the next, so the message costs two copies, as an eager one, and neither a
 * round trip nor a system call, which is most of what a rendezvous of a few KiB costs.
 *
 * The sender puts as many pieces as the mailbox takes and waits, queued like any send
 * (its later sends to that peer wait behind it), for room for the rest. The receiver
 * keeps, per sender, where the pieces under way go: the receive that matched the
 * first one, or the unexpected entry that keeps the message until its receive comes
 * (which then completes with the last piece).
 *
 * A rendezvous by pieces (a derived datatype's message past what is pipelined at
 * once, or a synchronous one) sends its pieces the same way once the receiver's CTS has come: the
 * first names the receive (TW_MPI_PIECES), which alone waits for them, so nothing of the message is
 * kept before its receive comes. */
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/env/state.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/pt2pt/wire_check.h"

_Static_assert(TW_MPI_PIPELINE_MOST <= TW_PACK_CHUNK,
               "a staged send's window holds a whole pipelined message");

int tw_proto_pipeline_post(int i) {
    req_t *r = &tw_reqs[i];
    while (r->chunk_at < r->bytes) {
        size_t at = r->chunk_at, n;
        int rc;
        if (at) {
            n = tw_min_size(TW_VELO_MAX_SIZE, r->bytes - at);
            rc = tw_proto_send_piece(r, TW_MPI_MORE, NULL, 0, at, n);
        } else if (r->proto == TW_PROTO_RNDV_PIECES) {
            tw_mpi_pieces_t head = {.sreq = (uint32_t)tw_req_handle(i), .rreq = r->cts.rreq};
            n = tw_min_size(TW_MPI_FIRST_PIECE, r->bytes);
            rc = tw_proto_send_piece(r, TW_MPI_PIECES, &head, sizeof head, 0, n);
        } else {
            struct {
                tw_mpi_hdr_t h;
                tw_mpi_first_t f;
            } head = {.h = {r->tag, r->context}, .f = {.size = r->bytes}};
            n = tw_min_size(TW_MPI_FIRST_PIECE, r->bytes);
            rc = tw_proto_send_piece(r, TW_MPI_FIRST, &head, sizeof head, 0, n);
        }
        if (rc != TW_OK) return rc;
        r->chunk_at = at + n;
    }
    return TW_OK;
}

/* Bytes [at, at + len) of the message, at data, into receive r (what fits). */
static void land(req_t *r, const void *data, size_t at, size_t len) {
    if (at >= r->st_bytes) return; /* truncated: past the buffer */
    size_t n = tw_min_size(len, r->st_bytes - at);
    if (r->staged)
        tw_mpi_staged_unpack_at(r->staged, data, at, n);
    else
        memcpy((unsigned char *)r->buf + at, data, n);
}

void tw_proto_pipeline_deliver(int i, int source, int tag, size_t size, const void *data,
                               size_t len) {
    req_t *r = &tw_reqs[i];
    tw_req_complete_recv(r, source, tag, size);
    r->proto = TW_PROTO_PIPELINE;
    r->got_from = source;
    land(r, data, 0, len);
    if (len < size)
        tw_channel_of_req(i)->pieces[source] = (tw_pieces_t){tw_req_handle(i), NULL, len, size};
    else
        tw_req_done(i);
}

/* A send by pieces whose CTS has come: its pieces go now, or queued behind the
 * earlier sends to that peer (a pipelined one's pieces among them), as a send's first
 * message is (engine.c posts it with the others); its later sends then wait behind
 * it. Done with its last piece, the CTS's part. */
void tw_proto_pieces_go(int i) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    int rc = ch->pending_to[r->peer] ? TW_RETRY : tw_proto_pipeline_post(i);
    if (rc == TW_RETRY) {
        r->state = TW_STATE_QUEUED;
        ch->pending_to[r->peer]++;
        tw_req_list_push(&ch->pending_sends, i);
        return;
    }
    if (rc != TW_OK) r->error = tw_mpi_peer_error(r->peer, rc);
    tw_proto_rndv_part_done(i);
}

/* The receiver's side of a rendezvous by pieces: its CTS, the sender's go, and the
 * first piece, which names the receive. */
void tw_proto_pieces_cts_send(int i) {
    req_t *r = &tw_reqs[i];
    int rc = tw_proto_go_send(i);
    if (rc == TW_RETRY) {
        /* sent again from the pending gets */
    } else if (rc != TW_OK) {
        r->error = tw_mpi_peer_error(r->got_from, rc); /* nothing will come */
        tw_req_done(i);
    } else if (!r->got.size) { /* no piece will come (none an MPI peer sends so) */
        tw_req_done(i);
    } else {
        r->state = TW_STATE_CTS_SENT;
    }
}

void tw_proto_pieces_take(tw_channel_t *ch, int source, const void *data, size_t len) {
    int i;
    if (source < 0 || source >= tw_mpi.size || tw_proto_pieces_under_way(ch, source) ||
        !(i = tw_mpi_pieces_check(source, data, len)) || tw_channel_of_req(i) != ch)
        return; /* not a piece anything waits for (on another channel: not its thread's) */
    req_t *r = &tw_reqs[i];
    size_t n = len - sizeof(tw_mpi_pieces_t), size = (size_t)r->got.size;
    r->proto = TW_PROTO_PIPELINE; /* its later pieces come as a pipelined message's */
    land(r, (const unsigned char *)data + sizeof(tw_mpi_pieces_t), 0, n);
    if (n < size)
        ch->pieces[source] = (tw_pieces_t){tw_req_handle(i), NULL, n, size};
    else
        tw_req_done(i);
}

void tw_proto_pipeline_keep(tw_channel_t *ch, int source, tw_unexpected_t *u) {
    ch->pieces[source] = (tw_pieces_t){MPI_REQUEST_NULL, u, u->len - u->missing, u->len};
}

void tw_proto_pipeline_wait(int i, tw_unexpected_t *u) {
    req_t *r = &tw_reqs[i];
    r->proto = TW_PROTO_PIPELINE; /* matched: no longer a posted receive */
    r->got_from = u->source;
    u->waiter = tw_req_handle(i);
}

/* The receive a handle names, while it still waits for pieces; 0 when it is gone
 * (failed, say, and freed). */
static int waiting_recv(MPI_Request h) {
    int i = tw_req_index(h);
    if (i <= 0) return 0;
    const req_t *r = &tw_reqs[i];
    return r->kind == REQ_RECV && r->proto == TW_PROTO_PIPELINE && !r->done ? i : 0;
}

void tw_proto_piece_take(tw_channel_t *ch, int source, const void *data, size_t len) {
    if (source < 0 || source >= tw_mpi.size) return;
    tw_pieces_t *p = &ch->pieces[source];
    if (!tw_mpi_piece_check(p->at, p->size, len)) return; /* not a piece anything waits for */
    int i;
    if (p->kept) {
        memcpy(p->kept->data + p->at, data, len);
        p->kept->missing -= len;
    } else if ((i = waiting_recv(p->recv)))
        land(&tw_reqs[i], data, p->at, len);
    p->at += len;
    if (p->at < p->size) return;
    /* the last piece */
    tw_unexpected_t *u = p->kept;
    MPI_Request recv = p->recv;
    *p = (tw_pieces_t){MPI_REQUEST_NULL, NULL, 0, 0};
    if (!u) {
        if ((i = waiting_recv(recv))) tw_req_done(i);
        return;
    }
    if (u->waiter == MPI_REQUEST_NULL) return; /* still queued, whole now */
    if ((i = waiting_recv(u->waiter)))
        tw_proto_eager_deliver(i, u->source, u->tag, u->data, u->len);
    tw_match_release(&ch->match, u);
}
