/* Split rendezvous and rendezvous by put: the receiver answers the RTS with a
 * clear-to-send naming a part of its buffer, which the sender puts while the
 * receiver gets the rest. Split (on one node): the second half, so two cores copy
 * half the data each. By put (across nodes): the whole buffer, which the udp link
 * sends from the sender's buffer and lands in the receiver's, where a get's answer
 * would be copied aside for retransmission first. */
#include <string.h>

#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/env/state.h"
#include "mpi/pt2pt/wire_check.h"

/* The largest operand (TW_RECV_OPERAND) not split: where it and what it is combined with
 * still fit a core's cache, the receiver gains from holding all of it; beyond, the two
 * cores copying at once gain more (2-rank osu_reduce: 256 KiB 31-38 us split, 21-24
 * not; 1 MiB 109-141 split, 161-198 not). */
enum { TW_RNDV_OPERAND_WHOLE = 512 << 10 };

/* A split or put receive's CTS: registers the part of the buffer the sender puts
 * (the second half, or all of it), or (nothing to put, nothing registrable) asks for
 * no put at all. TW_OK with the length the get must fetch in *get_len, or the VELO
 * send's error. */
int tw_proto_cts_send(int i, size_t n, size_t *get_len) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    /* A staged receive gets its chunks in turn: no put into it. Nor, on one node,
     * while this process has rendezvous sends of its own under way: then the sender
     * is most likely busy as well (an exchange), and a put would only add a message
     * to the transfer; nor into a reduction's operand (engine.h, TW_RECV_OPERAND). */
    size_t own = n; /* what the get fetches; the sender puts [own, n) */
    if (!r->staged && n && r->proto == TW_PROTO_RNDV_PUT)
        own = 0;
    else if (!r->staged && tw_p2p.split_min && n >= tw_p2p.split_min && !ch->rndv_sends &&
             (r->mode != TW_RECV_OPERAND || n > TW_RNDV_OPERAND_WHOLE) && (n / 2) & ~(size_t)4095)
        own = (n / 2) & ~(size_t)4095;
    tw_mpi_cts_t cts = {r->got.sreq, (uint32_t)tw_req_handle(i), 0, 0, 0, 0};
    if (own < n &&
        !tw_reg(ch->ep, (unsigned char *)r->buf + own, n - own, TW_PERM_WRITE, &r->region)) {
        cts = (tw_mpi_cts_t){r->got.sreq, cts.rreq, r->region.nla, r->region.key, own, n - own};
        /* a fabric's own writes may carry the put: what they need goes ahead of the CTS */
        if (!own) tw_offer_put(ch->ep, r->got_from, &r->region);
    } else {
        own = n;
        r->region.nla = 0;
    }
    int rc = tw_velo_send(ch->ep, r->got_from, TW_MPI_CTS, &cts, sizeof cts);
    if (rc != TW_OK) {
        if (r->region.nla) tw_dereg(ch->ep, &r->region);
        r->region.nla = 0;
        return rc;
    }
    r->state = TW_STATE_CTS_SENT;
    if (own < n) { /* the sender's put lands with a completer notification here */
        r->parts++;
        ch->rendezvous++;
    }
    *get_len = own;
    return TW_OK;
}

int tw_proto_go_send(int i) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    tw_mpi_cts_t cts = {r->got.sreq, (uint32_t)tw_req_handle(i), 0, 0, 0, 0};
    int rc = tw_velo_send(ch->ep, r->got_from, TW_MPI_CTS, &cts, sizeof cts);
    if (rc == TW_RETRY) tw_req_list_push(&ch->pending_gets, i);
    return rc;
}

/* A split or put send puts the part its CTS names. */
void tw_proto_put_start(int i) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    const tw_mpi_cts_t *c = &r->cts;
    int whole = r->proto == TW_PROTO_RNDV_PUT; /* the put stands for the get that is not coming */
    uint64_t cookie = (uint64_t)c->rreq << 32 | (uint32_t)tw_req_handle(i);
    int rc = tw_put(ch->ep, r->peer, (unsigned char *)r->buf + c->offset, (size_t)c->len, c->nla,
                    c->key, TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER, cookie);
    if (rc == TW_RETRY) {
        tw_req_list_push(&ch->pending_gets, i);
        return;
    }
    if (rc == TW_OK && !whole) { /* the CTS's part becomes the put requester's */
        r->parts++;
        ch->rendezvous++;
    } else if (rc != TW_OK) {
        r->error = tw_mpi_peer_error(r->peer, rc); /* the receiver then waits for its part */
        if (whole) {                               /* and nothing else will come here */
            ch->rendezvous -= r->parts - 1;
            r->parts = 1;
        }
    }
    tw_proto_rndv_part_done(i);
}

/* A CTS from source for one of our split, put or pieces sends, checked against the send it
 * names. */
void tw_proto_cts_take(int source, const void *body, size_t len) {
    tw_mpi_cts_t c;
    int i = tw_mpi_cts_check(source, body, len, &c);
    if (!i) return; /* not a CTS a send waits for: dropped */
    req_t *r = &tw_reqs[i];
    r->state = TW_STATE_MOVING;
    if (r->proto == TW_PROTO_RNDV_PIECES) {
        r->cts = c;
        tw_proto_pieces_go(i);
        return;
    }
    if (!c.len) {
        tw_proto_rndv_part_done(i);
        return;
    }
    r->cts = c;
    tw_proto_put_start(i);
}
