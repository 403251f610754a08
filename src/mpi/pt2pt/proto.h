/* The protocols of the point-to-point engine and the state they share.
 *
 * Protocols, chosen by tw_proto_choose (engine.c):
 *   eager (up to TW_EAGER_LIMIT bytes; proto_eager.c): header and payload in one VELO
 *     message, a single 64-byte slot up to 48 bytes, consecutive slots beyond;
 *   pipelined (up to TW_PIPELINE_LIMIT bytes, to a peer on this node; proto_pipeline.c):
 *     eager pieces of a VELO message each, which the receiver copies out while the
 *     sender copies in the next: two copies, as eager, but no round trip and no system
 *     call, which is what a rendezvous of a few KiB costs most;
 *   rendezvous by get (longer; proto_rndv_get.c): a request-to-send names the
 *     sender's buffer by NLA and key; the receiver gets it straight into the user
 *     buffer, asking for completer and responder notifications, which complete both
 *     sides without another message. A staged send longer than a chunk runs it one
 *     packed chunk at a time (chunked, with a READY per chunk);
 *   split rendezvous (from TW_RNDV_SPLIT bytes, on one node; proto_rndv_split.c): the
 *     receiver answers the RTS with a clear-to-send naming the second half of its
 *     buffer, which the sender puts while the receiver gets the first half, so two
 *     cores copy half the data each. Each side is done when both its notifications
 *     have come: get completer and put completer at the receiver, get responder and
 *     put requester at the sender;
 *   rendezvous by put (every rendezvous across nodes; proto_rndv_split.c): the split
 *     rendezvous whose receiver keeps no part: the CTS names the whole buffer and the
 *     sender puts all of it; the put requester notification stands in for the get
 *     responder's;
 *   rendezvous by pieces (a staged message past what is pipelined at once, or a
 *     synchronous one past synchronous eager, contiguous up to 16 KiB, on one node;
 *     proto_pipeline.c): RTS and CTS, then the pipelined protocol's pieces, the first
 *     naming the receive, so nothing is kept before the receive comes and no window is
 *     packed first;
 *   synchronous eager (a synchronous send of up to TW_MPI_SYNC_MAX bytes and the eager
 *     limit; proto_eager.c): the eager message names the send, and the receiver's CTS,
 *     once a receive has taken it, completes the send;
 *   synchronous: every longer synchronous send is a rendezvous (by pieces, get, split or
 *     put as its size and peer say), so it completes only once the receiver has matched
 *     it.
 * Messages are matched in arrival order per sender (VELO keeps each sender's order),
 * so MPI's non-overtaking rule holds whatever the protocol mix. */
#ifndef TW_MPI_PROTO_H
#define TW_MPI_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <tollway/tollway.h>

#include "mpi/pt2pt/channel.h"
#include "mpi/pt2pt/match.h"
#include "mpi/pt2pt/request.h"
#include "mpi/pt2pt/wire.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The engine's limits, the same on every channel (TW_EAGER_LIMIT and its kin; MPI_T
 * may change them while the library runs). */
typedef struct tw_p2p {
    size_t eager_max;    /* TW_EAGER_LIMIT */
    size_t split_min;    /* TW_RNDV_SPLIT; 0: never */
    size_t pipeline_max; /* TW_PIPELINE_LIMIT; 0: never */
} tw_p2p_t;
extern tw_p2p_t tw_p2p;

static inline size_t tw_min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

/* eager (proto_eager.c) */
/* A blocking eager send straight into the mailbox, when nothing is queued to that
 * peer: MPI_SUCCESS, or 1 when the general path must take it. */
int tw_mpi_send_now(tw_channel_t *ch, const void *buf, size_t bytes, int dest_world, int tag,
                    uint32_t context);
/* A blocking receive taken straight from the mailbox when nothing else is under
 * way and the first message is an eager one that matches: MPI_SUCCESS or
 * MPI_ERR_TRUNCATE with the status filled, or 1 for the general path. */
int tw_mpi_recv_now(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                    MPI_Status *status);
/* Bytes [at, at + len) of send r behind a header, as one VELO message with velo_tag:
 * copied from its buffer, or packed straight into the mailbox when it is staged (a
 * derived datatype), so that an eager or pipelined one costs no copy in between. */
int tw_proto_send_piece(const req_t *r, unsigned velo_tag, const void *hdr, size_t hlen, size_t at,
                        size_t len);
int tw_proto_eager_post(req_t *r);
void tw_proto_eager_deliver(int i, int source, int tag, const void *data, size_t len);
/* Synchronous eager: send i's message (TW_MPI_SYNC), TW_OK or the VELO send's; one
 * delivered to receive i, which answers it (sreq: the sender's handle); that answer
 * (again after TW_RETRY, from the pending gets). */
int tw_proto_eager_sync_post(int i);
void tw_proto_eager_sync_deliver(int i, int source, int tag, const void *data, size_t len,
                                 uint32_t sreq);
void tw_proto_sync_ack(int i);

/* pipelined (proto_pipeline.c) */
/* Puts the pieces of send i the peer's mailbox takes now, from where the last call
 * stopped: TW_OK once the last is in, TW_RETRY when the mailbox is full (call again),
 * or the VELO send's error. */
int tw_proto_pipeline_post(int i);
/* The first piece (len bytes at data) of a message of size bytes from source, for
 * receive i, which matched it. */
void tw_proto_pipeline_deliver(int i, int source, int tag, size_t size, const void *data,
                               size_t len);
/* The same for an unexpected entry that keeps it (tw_match_keep_first). */
void tw_proto_pipeline_keep(tw_channel_t *ch, int source, tw_unexpected_t *u);
/* Receive i takes unexpected entry u, whose last pieces are still to come: it
 * completes when they have. */
void tw_proto_pipeline_wait(int i, tw_unexpected_t *u);
/* A rendezvous by pieces: the receive's CTS (or TW_RETRY queued), the send's pieces
 * once its CTS has come (queued as a send is), and the receive's first piece (dropped
 * unless it is the one a receive waits for). */
void tw_proto_pieces_cts_send(int i);
void tw_proto_pieces_go(int i);
void tw_proto_pieces_take(tw_channel_t *ch, int source, const void *data, size_t len);
/* 1 when send r goes by pieces and its receiver's CTS has come: its pieces go. */
static inline int tw_proto_pieces_go_on(const req_t *r) {
    return r->proto == TW_PROTO_RNDV_PIECES && r->cts.rreq;
}
/* A TW_MPI_MORE from source; dropped unless it is the next piece of its message. */
void tw_proto_piece_take(tw_channel_t *ch, int source, const void *data, size_t len);
/* 1 when a pipelined message from source is under way on ch (its first piece came). */
static inline int tw_proto_pieces_under_way(const tw_channel_t *ch, int source) {
    return ch->pieces[source].size != 0;
}

/* rendezvous by get, and the rendezvous steps every variant shares (proto_rndv_get.c) */
/* Registers a rendezvous send's buffer (or its first chunk): MPI_SUCCESS or an error. */
int tw_proto_rndv_setup(int i);
int tw_proto_rts_post(int i);      /* the RTS, or TW_RETRY */
void tw_proto_rndv_undo(req_t *r); /* a send that will not run: its counts */
void tw_proto_rndv_deliver(int i, int source, int tag, const tw_mpi_rts_t *rts);
void tw_proto_rndv_get(int i);       /* the receive's get (its next one) */
void tw_proto_rndv_part_done(int i); /* one awaited notification came */
void tw_proto_rndv_notified(int i, const tw_notification_t *n);     /* one notification for i */
void tw_proto_ready_take(int source, const void *body, size_t len); /* a READY */
void tw_proto_ready_send(int i);

/* split rendezvous and rendezvous by put (proto_rndv_split.c) */
/* The receive's CTS: TW_OK with the length its own get must fetch in *get_len. */
int tw_proto_cts_send(int i, size_t n, size_t *get_len);
void tw_proto_cts_take(int source, const void *body, size_t len); /* a CTS */
/* A CTS of no part to the sender of receive i's message (got.sreq, got_from): the go
 * of a rendezvous by pieces, the answer to a synchronous eager one. TW_OK, or the VELO
 * send's error; on TW_RETRY receive i waits with the refused gets, which send it again
 * (tw_proto_rndv_get). */
int tw_proto_go_send(int i);
void tw_proto_put_start(int i);

#pragma GCC visibility pop

#endif
