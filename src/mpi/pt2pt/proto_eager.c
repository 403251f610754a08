/* The eager protocol: header and payload in the receiver's mailbox; a receive that
 * is posted already takes it straight from there, a later one from the copy set
 * aside. Also the two fast paths of the blocking calls, which bypass requests when
 * nothing else is under way. */
#include <string.h>

#include "common/small_copy.h"
#include "mpi/datatype/datatype.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/wire_check.h"

/* Where a staged send's piece is packed from. */
typedef struct piece_source {
    const tw_mpi_staged_t *staged;
    size_t at;
} piece_source_t;

static void pack_piece(void *source, void *to, size_t len) {
    const piece_source_t *p = source;
    tw_mpi_staged_pack_range(p->staged, p->at, len, to);
}

int tw_proto_send_piece(const req_t *r, unsigned velo_tag, const void *hdr, size_t hlen, size_t at,
                        size_t len) {
    tw_ep_t *ep = tw_channel_of(r)->ep;
    if (!r->staged)
        return tw_velo_sendv(ep, r->peer, velo_tag, hdr, hlen, (const unsigned char *)r->buf + at,
                             len);
    piece_source_t source = {r->staged, at};
    return tw_velo_send_fill(ep, r->peer, velo_tag, hdr, hlen, len, pack_piece, &source);
}

int tw_proto_eager_post(req_t *r) {
    tw_mpi_hdr_t h = {r->tag, r->context};
    return tw_proto_send_piece(r, TW_MPI_EAGER, &h, sizeof h, 0, r->bytes);
}

/* The message into receive r. */
static void eager_land(req_t *r, int source, int tag, const void *data, size_t len) {
    tw_req_complete_recv(r, source, tag, len);
    if (r->staged) /* unpacked straight from the message */
        tw_mpi_staged_unpack_at(r->staged, data, 0, r->st_bytes);
    else /* buf may be NULL for 0 */
        tw_copy(r->buf, data, r->st_bytes);
}

void tw_proto_eager_deliver(int i, int source, int tag, const void *data, size_t len) {
    eager_land(&tw_reqs[i], source, tag, data, len);
    tw_req_done(i);
}

int tw_proto_eager_sync_post(int i) {
    req_t *r = &tw_reqs[i];
    struct {
        tw_mpi_hdr_t h;
        tw_mpi_sync_t s;
    } head = {{r->tag, r->context}, {(uint32_t)tw_req_handle(i), 0}};
    return tw_proto_send_piece(r, TW_MPI_SYNC, &head, sizeof head, 0, r->bytes);
}

void tw_proto_eager_sync_deliver(int i, int source, int tag, const void *data, size_t len,
                                 uint32_t sreq) {
    req_t *r = &tw_reqs[i];
    eager_land(r, source, tag, data, len);
    r->proto = TW_PROTO_EAGER_SYNC;
    r->got.sreq = sreq;
    r->got_from = source;
    tw_proto_sync_ack(i);
}

/* The CTS that completes the sender's synchronous eager send; the receive completes
 * once it is in the sender's mailbox (until then it waits with the refused gets). */
void tw_proto_sync_ack(int i) {
    int rc = tw_proto_go_send(i);
    if (rc == TW_RETRY) return;
    if (rc != TW_OK)
        tw_reqs[i].error = tw_mpi_peer_error(tw_reqs[i].got_from, rc); /* its data came */
    tw_req_done(i);
}

int tw_mpi_send_now(tw_channel_t *ch, const void *buf, size_t bytes, int dest, int tag,
                    uint32_t context) {
    if (bytes > tw_p2p.eager_max || dest < 0 || ch->pending_to[dest]) return 1;
    tw_mpi_hdr_t h = {tag, context};
    int rc = tw_velo_sendv(ch->ep, dest, TW_MPI_EAGER, &h, sizeof h, buf, bytes);
    return rc == TW_OK ? MPI_SUCCESS : 1;
}

/* Empty looks at its own channel's mailbox a blocking receive makes before it leaves
 * the other channels to the general path's progress: a few microseconds, within which a
 * ping-pong's answer comes (8 bytes, one thread under MPI_THREAD_MULTIPLE, 4 channels:
 * 0.45-0.51 us a message going to the general path at once, 0.25-0.33 with 1 channel). */
enum { RECV_NOW_ALONE_POLLS = 1024 };

/* One test of all of it (a bitwise or): the fields are a channel's, all readable. */
static int busy(const tw_channel_t *ch) {
    return !tw_match_idle(&ch->match) ||
           (ch->pending_sends.head | ch->pending_gets.head | ch->rendezvous) != 0;
}

int tw_mpi_recv_now(void *buf, size_t bytes, int source, int tag, uint32_t context,
                    MPI_Status *status) {
    /* only when nothing else is under way: otherwise the general path keeps order */
    tw_channel_t *ch = tw_channel_of_context(context);
    if (__builtin_expect(busy(ch), 0)) return 1;
    tw_velo_msg_t m;
    unsigned spins = 0, alone = 0;
    int rc;
    while ((rc = tw_velo_peek(ch->ep, &m)) == TW_EMPTY) {
        /* a wait keeps every endpoint going (a peer's RMA on another channel's, a send
         * queued there, over a link the device polls): with several channels, after a
         * few microseconds of this one's mailbox alone, that is the general path's */
        if (!tw_channel_single() && ++alone > RECV_NOW_ALONE_POLLS) return 1;
        tw_mpi_relax(&spins);
        /* other threads ran meanwhile (MPI_THREAD_MULTIPLE): what they posted, or
         * took from the mailbox into the queues, is the general path's */
        if (tw_mpi_threads_on && busy(ch)) return 1;
    }
    if (rc != TW_OK) return 1;
    tw_mpi_hdr_t h;
    if (m.tag == TW_MPI_EAGER && tw_mpi_header_take(m.data, m.length, &h)) {
        if (tw_match_accepts(source, tag, context, m.source, h.tag, h.context)) {
            size_t len = m.length - sizeof h, n = len < bytes ? len : bytes;
            tw_copy(buf, (const unsigned char *)m.data + sizeof h, n); /* buf may be NULL for 0 */
            int err = len > bytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
            if (status) tw_req_set_status(status, context, m.source, h.tag, n);
            tw_velo_release(ch->ep, &m);
            return err;
        }
    }
    /* the first piece of a pipelined message for this receive, or a synchronous one:
     * left where it is, for the general path, which posts the receive first, so that
     * the pieces go straight into its buffer rather than into a copy set aside (and the
     * synchronous one is answered) */
    if ((m.tag == TW_MPI_FIRST || m.tag == TW_MPI_SYNC) &&
        tw_mpi_header_take(m.data, m.length, &h) &&
        tw_match_accepts(source, tag, context, m.source, h.tag, h.context)) {
        tw_velo_unpeek(ch->ep, &m);
        return 1;
    }
    /* not ours, or not eager: it goes where the general path will find it */
    if (tw_p2p_arrive(ch, &m))
        tw_velo_release(ch->ep, &m);
    else
        tw_velo_unpeek(ch->ep, &m);
    return 1;
}
