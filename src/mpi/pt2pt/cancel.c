/* MPI_Cancel (tw_mpi_cancel): a receive still posted, or a send still queued, is
 * withdrawn where it is; a send whose RTS or synchronous eager message went is asked
 * back from its receiver (TW_MPI_CANCEL, wire.h), which drops the message if no
 * receive has taken it. */
#include "mpi/pt2pt/cancel.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/pt2pt/wire_check.h"

/* Whether send r's message may wait unmatched at its receiver, which a cancel then
 * asks to drop: an RTS or synchronous eager message that went, and no CTS or get says
 * a receive took it yet (a pieces send's go, a chunked one's first chunk taken). */
static int send_held_at_peer(const req_t *r) {
    if (r->kind != REQ_SEND || !tw_proto_is_rndv(r->proto) || r->cancel_asked) return 0;
    if (r->state == TW_STATE_WAIT_CTS) return !tw_proto_pieces_go_on(r);
    return r->state == TW_STATE_MOVING && !r->chunk_at &&
           (r->proto == TW_PROTO_RNDV_GET || r->proto == TW_PROTO_RNDV_CHUNKED);
}

void tw_proto_cancel_ask(int i) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    tw_mpi_cancel_t c = {(uint32_t)tw_req_handle(i), TW_CANCEL_ASK};
    int rc = tw_velo_send(ch->ep, r->peer, TW_MPI_CANCEL, &c, sizeof c);
    if (rc == TW_RETRY) {
        r->cancel_asked = TW_CANCEL_TO_ASK;
        tw_req_list_push(&ch->pending_gets, i);
    } else if (rc) { /* the receiver cannot be reached: the send ends as its other parts do */
        r->cancel_asked = 0;
        tw_proto_rndv_part_done(i);
    } else {
        r->cancel_asked = TW_CANCEL_ASKED;
    }
}

/* MPI_Cancel: a receive not yet matched, or a send not yet handed to the peer, is
 * withdrawn at once; a send whose message the receiver may hold unmatched is asked
 * back (send_held_at_peer), so that a wait on it returns whatever the receiver does.
 * Anything further along completes as it would have: an eager send, done when its
 * message is in the peer's mailbox, among them. */
int tw_mpi_cancel(MPI_Request req) {
    if (req == TW_MPI_REQUEST_SENT) return MPI_SUCCESS; /* delivered already */
    int i = tw_req_index(req);
    if (i <= 0 || !tw_reqs[i].active) return MPI_ERR_REQUEST;
    req_t *r = &tw_reqs[i];
    if (r->done) return MPI_SUCCESS;
    tw_channel_t *ch = tw_channel_of_req(i);
    int prev;
    if (r->kind == REQ_RECV && tw_match_unpost(&ch->match, &r->posted)) {
        /* withdrawn */
    } else if (r->kind == REQ_SEND && r->state == TW_STATE_QUEUED && !r->chunk_at &&
               !tw_proto_pieces_go_on(r) && tw_req_list_find(&ch->pending_sends, i, &prev)) {
        /* (a pipelined send some of whose pieces went is under way, and a send by pieces
         * whose receive has matched: not withdrawn) */
        tw_req_list_remove(&ch->pending_sends, i, prev);
        ch->pending_to[r->peer]--;
        r->state = TW_STATE_START;
        if (tw_proto_is_rndv(r->proto)) tw_proto_rndv_undo(r);
    } else {
        if (send_held_at_peer(r)) {
            r->parts++;
            ch->rendezvous++;
            tw_proto_cancel_ask(i);
        }
        return MPI_SUCCESS;
    }
    r->cancelled = 1;
    tw_req_done(i);
    return MPI_SUCCESS;
}

int tw_proto_cancel_take(tw_channel_t *ch, const tw_velo_msg_t *m) {
    tw_mpi_cancel_t c;
    if (!tw_mpi_cancel_take(m->data, m->length, &c)) return 1;
    if (c.verdict == TW_CANCEL_ASK) {
        tw_unexpected_t *u = tw_match_find_send(&ch->match, m->source, c.sreq);
        tw_mpi_cancel_t a = {c.sreq, u ? TW_CANCEL_WITHDRAWN : TW_CANCEL_MATCHED};
        int rc = tw_velo_send(ch->ep, m->source, TW_MPI_CANCEL, &a, sizeof a);
        if (rc == TW_RETRY) return 0;
        if (u && rc == TW_OK) tw_match_withdraw(&ch->match, u);
        return 1;
    }
    int i = tw_mpi_cancel_answer_check(m->source, &c);
    if (!i) return 1;
    req_t *r = &tw_reqs[i];
    r->cancel_asked = 0;
    if (c.verdict == TW_CANCEL_MATCHED) { /* it completes as it would have */
        tw_proto_rndv_part_done(i);
        return 1;
    }
    tw_proto_rndv_undo(r); /* nothing more comes for it */
    r->cancelled = 1;
    tw_req_done(i);
    return 1;
}
