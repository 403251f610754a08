/* The MPI point-to-point engine on the native API: starting sends and receives, the
 * protocol choice, the progress pass (mailbox, notifications, waiting operations,
 * hooks), probes and matched probes. The protocols are in proto_*.c (see proto.h),
 * cancel in cancel.c, matching in match.c, the request pool in request.c.
 *
 * A message that arrives before its receive is posted is copied out (eager) or
 * remembered (RTS); the copies are bounded, and past the bound the mailbox is left
 * full, which holds the senders back instead of exhausting memory. */
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/cancel.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/tools/events.h"
#include "mpi/tools/tools.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/pt2pt/partitioned.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/wire_check.h"

#include <tollway/settings.h>

#define UNEXPECTED_BYTES_MAX ((size_t)64 << 20)

tw_p2p_t tw_p2p;
static tw_mpi_buffered_fn *buffered; /* bsend.c's */

/* What other units registered (progress.h). */
static tw_mpi_message_fn *message_handlers[TW_MPI_KINDS];
static tw_mpi_notification_fn *notification_handler;
static tw_mpi_notification_fn *part_notification_handler;
static tw_mpi_message_fn *lost_handler;
_Atomic int tw_mpi_notify_waiters;

void tw_mpi_progress_on_message(int kind, tw_mpi_message_fn *fn) {
    message_handlers[kind] = fn;
}

void tw_mpi_progress_on_lost(tw_mpi_message_fn *fn) {
    lost_handler = fn;
}

void tw_mpi_progress_on_notification(tw_mpi_notification_fn *fn) {
    notification_handler = fn;
}

void tw_mpi_progress_on_part_notification(tw_mpi_notification_fn *fn) {
    part_notification_handler = fn;
}

void tw_mpi_p2p_set_buffered(tw_mpi_buffered_fn *fn) {
    buffered = fn;
}

/* The queues' lengths, for MPI_T's performance variables (tools/tools.c). */
static uint64_t queue_level(int queue) {
    uint64_t n = 0;
    for (int k = 0; k < tw_channel_count(); k++) {
        const tw_match_t *m = &tw_channels[k].match;
        if (queue == TW_MPI_T_UNEXPECTED_BYTES)
            n += m->unexpected_bytes;
        else if (queue == TW_MPI_T_POSTED)
            for (const tw_posted_t *p = m->posted; p; p = p->next) n++;
        else
            for (const tw_unexpected_t *u = m->unexpected; u; u = u->next) n++;
    }
    return n;
}

static void comm_channel(tw_mpi_comm_t *c) {
    c->channel = tw_channel_of_context(c->context);
}

void tw_mpi_p2p_init(void) {
    uint64_t eager_limit = tw_setting_unsigned(TW_SETTING_EAGER_LIMIT);
    tw_p2p.eager_max = eager_limit < TW_MPI_EAGER_MAX ? (size_t)eager_limit : TW_MPI_EAGER_MAX;
    tw_p2p.split_min = (size_t)tw_setting_unsigned(TW_SETTING_RNDV_SPLIT);
    uint64_t pipeline_limit = tw_setting_unsigned(TW_SETTING_PIPELINE_LIMIT);
    tw_p2p.pipeline_max =
        pipeline_limit < TW_MPI_PIPELINE_MOST ? (size_t)pipeline_limit : TW_MPI_PIPELINE_MOST;
    /* a split puts the sender's core to half the copy, which pays when the sender has
     * a core of its own; on a crowded node it only serialises a root that sends to
     * many (Scatter of 1 MiB on 16 ranks, 2 cores: 1.96x Open MPI's time with splits,
     * 1.09x without) */
    if (tw_mpi.crowded && !tw_setting_is_set(TW_SETTING_RNDV_SPLIT)) tw_p2p.split_min = 0;
    tw_mpi_t_hold_setting(TW_SETTING_EAGER_LIMIT, &tw_p2p.eager_max, TW_MPI_EAGER_MAX);
    tw_mpi_t_hold_setting(TW_SETTING_RNDV_SPLIT, &tw_p2p.split_min, SIZE_MAX);
    tw_mpi_t_hold_setting(TW_SETTING_PIPELINE_LIMIT, &tw_p2p.pipeline_max, TW_MPI_PIPELINE_MOST);
    tw_mpi_t_read_queues(queue_level);
    if (tw_channels_init((int)tw_setting_unsigned(TW_SETTING_CHANNELS), tw_mpi.size,
                         UNEXPECTED_BYTES_MAX))
        tw_mpi_error(NULL, "MPI_Init", MPI_ERR_NO_MEM, NULL);
    tw_req_pool_init();
    tw_mpi_comm_on_new(comm_channel);
}

int tw_mpi_p2p_grow(int n) {
    return tw_channels_grow(tw_mpi.size, n) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

/* A staged (non-contiguous) message is pipelined up to this size whatever
 * TW_PIPELINE_LIMIT (unless 0): its pieces are packed straight into the mailbox while
 * the receiver unpacks the last ones, where a rendezvous by get packs it all into a
 * window first, the receiver gets it into its own and only then unpacks (64 KiB of every
 * other double: 21-26 us so, 10-12 pipelined). Past it, and when synchronous, the same
 * pieces go after a rendezvous (RTS, CTS): a pipelined message that comes before its
 * receive is kept whole, and past the 64 MiB a receiver keeps the senders' later
 * messages wait behind it (256 sends of 256 KiB ahead of their receives held back a
 * message of another tag for good; a rendezvous keeps nothing). */
#define STAGED_PIPELINE_MOST ((size_t)64 << 10)

/* A synchronous send of up to this many bytes on one node goes by pieces too: its RTS,
 * the receiver's CTS and the pieces take less time than a get, which costs the
 * receiver a system call (MPI_Ssend ping-pong, 8 B: 1.09-1.18 us against 1.82-1.99 by
 * get; 4 KiB 2.2-2.4 against 3.1-3.2; 16 KiB 4.7-4.8 against 5.6-5.7; 64 KiB
 * 12.2-13.3 against 9.4-9.6). */
#define SYNC_PIECES_MOST ((size_t)16 << 10)

/* The one place a send's protocol is chosen. Pipelined only on one node, where the
 * sender writes the receiver's mailbox itself (the initiator of an RMA moves its bytes):
 * up to TW_PIPELINE_LIMIT, a staged message up to STAGED_PIPELINE_MOST; a longer (or
 * synchronous) staged one by pieces, as a synchronous one up to SYNC_PIECES_MOST past
 * what goes synchronous eager. A split only on one node too: it puts two cores to the
 * copy; across nodes the sender puts the whole message. */
tw_proto_t tw_proto_choose(const req_t *r) {
    if (r->bytes <= tw_p2p.eager_max) {
        if (r->mode != TW_SEND_SYNC) return TW_PROTO_EAGER;
        if (r->bytes <= TW_MPI_SYNC_MAX) return TW_PROTO_EAGER_SYNC;
    }
    tw_link_caps_t caps;
    tw_ep_link_caps(tw_channel_of(r)->ep, r->peer, &caps); /* zeroed when unknown: none */
    size_t pipelined =
        r->staged && tw_p2p.pipeline_max && tw_p2p.pipeline_max < STAGED_PIPELINE_MOST
            ? STAGED_PIPELINE_MOST
            : tw_p2p.pipeline_max;
    if (r->mode != TW_SEND_SYNC && r->bytes <= pipelined && caps.rma_by_initiator)
        return TW_PROTO_PIPELINE;
    if ((r->staged || (r->mode == TW_SEND_SYNC && r->bytes <= SYNC_PIECES_MOST)) && pipelined &&
        caps.rma_by_initiator)
        return TW_PROTO_RNDV_PIECES;
    return r->staged && r->bytes > TW_PACK_CHUNK ? TW_PROTO_RNDV_CHUNKED
           : caps.put_cheaper && r->bytes        ? TW_PROTO_RNDV_PUT
           : caps.shared_copy && tw_p2p.split_min && r->bytes >= tw_p2p.split_min
               ? TW_PROTO_RNDV_SPLIT
               : TW_PROTO_RNDV_GET;
}

/* ---- receiving ---- */

static void deliver(int i, int source, int tag, int is_rts, const tw_mpi_rts_t *rts,
                    const void *data, size_t len) {
    if (is_rts)
        tw_proto_rndv_deliver(i, source, tag, rts);
    else
        tw_proto_eager_deliver(i, source, tag, data, len);
}

/* Hands a taken unexpected message to receive request i, and lets it go (a pipelined
 * one whose last pieces are still to come: once they have). */
static void deliver_unexpected(int i, tw_unexpected_t *u) {
    if (u->missing) {
        tw_proto_pipeline_wait(i, u);
        return;
    }
    if (u->sync)
        tw_proto_eager_sync_deliver(i, u->source, u->tag, u->data, u->len, u->sync);
    else
        deliver(i, u->source, u->tag, u->is_rts, &u->rts, u->data, u->len);
    tw_match_release(&tw_channel_of_req(i)->match, u);
}

/* The first piece of a pipelined message: to the receive it matches, or kept (0: no
 * room to keep it now). Dropped when it is none of MPI's, or comes while its sender's
 * previous one is still under way (which no MPI peer sends). */
static int first_arrive(tw_channel_t *ch, const tw_velo_msg_t *m) {
    tw_mpi_hdr_t h;
    size_t size;
    if (!tw_mpi_first_take(m->data, m->length, &h, &size) || m->source < 0 ||
        m->source >= tw_mpi.size || tw_proto_pieces_under_way(ch, m->source))
        return 1;
    const unsigned char *body = (const unsigned char *)m->data + sizeof h + sizeof(tw_mpi_first_t);
    size_t len = m->length - sizeof h - sizeof(tw_mpi_first_t);
    tw_posted_t *p = tw_match_arrival(&ch->match, m->source, h.tag, h.context);
    if (p) {
        tw_proto_pipeline_deliver(tw_req_of_posted(p), m->source, h.tag, size, body, len);
        return 1;
    }
    tw_unexpected_t *u =
        tw_match_keep_first(&ch->match, m->source, h.tag, h.context, body, len, size);
    if (!u) return 0;
    if (u->missing) tw_proto_pipeline_keep(ch, m->source, u);
    if (tw_mpi_t_event_wanted(TW_EVENT_UNEXPECTED))
        tw_mpi_t_event_unexpected(m->source, h.tag, size, h.context);
    return 1;
}

/* A synchronous eager message: to the receive it matches, which answers it, or kept
 * (0: no room to keep it now). Dropped when it is none of MPI's. */
static __attribute__((noinline)) int sync_arrive(tw_channel_t *ch, const tw_velo_msg_t *m) {
    tw_mpi_hdr_t h;
    uint32_t sreq;
    if (!tw_mpi_sync_take(m->data, m->length, &h, &sreq)) return 1;
    size_t skip = sizeof h + sizeof(tw_mpi_sync_t), len = m->length - skip;
    const unsigned char *body = (const unsigned char *)m->data + skip;
    tw_posted_t *p = tw_match_arrival(&ch->match, m->source, h.tag, h.context);
    if (p) {
        tw_proto_eager_sync_deliver(tw_req_of_posted(p), m->source, h.tag, body, len, sreq);
        return 1;
    }
    tw_unexpected_t *u = tw_match_keep(&ch->match, m->source, h.tag, h.context, NULL, body, len);
    if (!u) return 0;
    u->sync = sreq;
    if (tw_mpi_t_event_wanted(TW_EVENT_UNEXPECTED))
        tw_mpi_t_event_unexpected(m->source, h.tag, len, h.context);
    return 1;
}

/* A message of another unit (the device's notice of a lost peer among them), whose
 * state the library's lock guards: a call on a channel's traffic, holding that
 * channel's lock alone, takes it (it comes after in the order). */
static __attribute__((noinline, cold)) void other_arrive(const tw_channel_t *ch,
                                                         const tw_velo_msg_t *m) {
    int lock = tw_mpi_threads_on && ch != &tw_channels[0];
    unsigned took = lock ? tw_mpi_lock_set(TW_MPI_LOCK_LIBRARY) : 0;
    if (m->tag < TW_MPI_KINDS && message_handlers[m->tag])
        message_handlers[m->tag](m->source, m->data, m->length);
    else if (m->tag == TW_VELO_TAG_LOST && lost_handler) /* the device's: a peer lost */
        lost_handler(m->source, m->data, m->length);
    if (lock) tw_mpi_unlock_set(took);
}

/* Not inlined into the drain loop: a poll that finds nothing then sets up nothing
 * for it. */
__attribute__((noinline)) int tw_p2p_arrive(tw_channel_t *ch, const tw_velo_msg_t *m) {
    if (m->tag != TW_MPI_EAGER && m->tag != TW_MPI_RTS) { /* the envelopes first: most messages */
        switch (m->tag) {
        case TW_MPI_MORE:
            tw_proto_piece_take(ch, m->source, m->data, m->length);
            return 1;
        case TW_MPI_FIRST:
            return first_arrive(ch, m);
        case TW_MPI_CTS:
            tw_proto_cts_take(m->source, m->data, m->length);
            return 1;
        case TW_MPI_PIECES:
            tw_proto_pieces_take(ch, m->source, m->data, m->length);
            return 1;
        case TW_MPI_SYNC:
            return sync_arrive(ch, m);
        case TW_MPI_READY:
            tw_proto_ready_take(m->source, m->data, m->length);
            return 1;
        case TW_MPI_CANCEL:
            return tw_proto_cancel_take(ch, m);
        }
        /* another unit's, or nobody's */
        other_arrive(ch, m);
        return 1;
    }
    tw_mpi_hdr_t h;
    int is_rts = m->tag == TW_MPI_RTS;
    tw_mpi_rts_t rts;
    if (!tw_mpi_envelope_take(m->data, m->length, &h, is_rts ? &rts : NULL))
        return 1; /* not from an MPI peer: dropped */
    const unsigned char *body = (const unsigned char *)m->data + sizeof h;
    size_t len = m->length - sizeof h;
    tw_posted_t *p = tw_match_arrival(&ch->match, m->source, h.tag, h.context);
    if (p) {
        deliver(tw_req_of_posted(p), m->source, h.tag, is_rts, &rts, body, len);
        return 1;
    }
    if (!tw_match_keep(&ch->match, m->source, h.tag, h.context, is_rts ? &rts : NULL, body, len))
        return 0;
    if (tw_mpi_t_event_wanted(TW_EVENT_UNEXPECTED))
        tw_mpi_t_event_unexpected(m->source, h.tag, is_rts ? (size_t)rts.size : len, h.context);
    return 1;
}

static void drain_mailbox(tw_channel_t *ch) {
    tw_velo_msg_t m;
    while (tw_velo_peek(ch->ep, &m) == TW_OK) {
        if (!tw_p2p_arrive(ch, &m)) { /* no room to take it: it waits, and holds its sender back */
            tw_velo_unpeek(ch->ep, &m);
            break;
        }
        tw_velo_release(ch->ep, &m);
    }
}

/* ---- notifications: rendezvous completions ---- */

static void drain_notifications(tw_channel_t *ch) {
    tw_notification_t n;
    while (tw_nq_poll(ch->ep, &n) == TW_OK) {
        if (n.cookie & TW_MPI_COOKIE_HOOKED) { /* another unit's operation (a window's) */
            if (notification_handler) notification_handler(&n);
            continue;
        }
        if (n.cookie & TW_MPI_COOKIE_PART) { /* a partitioned request's put */
            if (part_notification_handler) part_notification_handler(&n);
            continue;
        }
        int i = tw_mpi_notified_check(&n);
        if (i) tw_proto_rndv_notified(i, &n);
    }
}

/* ---- sending ---- */

static int post(int i) {
    req_t *r = &tw_reqs[i];
    return r->proto == TW_PROTO_EAGER                                  ? tw_proto_eager_post(r)
           : r->proto == TW_PROTO_PIPELINE || tw_proto_pieces_go_on(r) ? tw_proto_pipeline_post(i)
           : r->proto == TW_PROTO_EAGER_SYNC                           ? tw_proto_eager_sync_post(i)
                                                                       : tw_proto_rts_post(i);
}

/* Its message (eager, every piece, or RTS) is in the peer's mailbox. */
static void posted_ok(int i) {
    req_t *r = &tw_reqs[i];
    if (!tw_proto_is_rndv(r->proto))
        tw_req_done(i); /* the data is there */
    else if (tw_proto_pieces_go_on(r))
        tw_proto_rndv_part_done(i); /* its last piece: the CTS's part */
    else
        r->state = r->proto == TW_PROTO_RNDV_SPLIT || r->proto == TW_PROTO_RNDV_PUT ||
                           r->proto == TW_PROTO_RNDV_PIECES || r->proto == TW_PROTO_EAGER_SYNC
                       ? TW_STATE_WAIT_CTS
                       : TW_STATE_MOVING;
}

/* One pass over the pending sends, in order. A send waits while an earlier one to
 * the same peer still does: once a peer refuses one in this pass, its later ones are
 * not tried (so a pass costs one step per pending send, however many wait). */
static void post_pending_sends(tw_channel_t *ch) {
    unsigned pass = ++ch->passes;
    for (int i = ch->pending_sends.head, prev = 0; i;) {
        int next = tw_reqs[i].next;
        int dest = tw_reqs[i].peer;
        int rc = ch->refused_in[dest] == pass ? TW_RETRY : post(i);
        if (rc == TW_RETRY) {
            ch->refused_in[dest] = pass;
            prev = i;
        } else {
            tw_req_list_remove(&ch->pending_sends, i, prev);
            ch->pending_to[dest]--;
            tw_reqs[i].state = TW_STATE_START;
            if (rc == TW_OK)
                posted_ok(i);
            else {
                tw_reqs[i].error = tw_mpi_peer_error(dest, rc);
                if (tw_proto_is_rndv(tw_reqs[i].proto)) tw_proto_rndv_undo(&tw_reqs[i]);
                tw_req_done(i);
            }
        }
        i = next;
    }
}

/* Gets, puts, CTSs, READYs and cancels' asks that were refused, in order, once more. */
static void start_pending_gets(tw_channel_t *ch) {
    tw_req_list_t l = ch->pending_gets;
    ch->pending_gets = (tw_req_list_t){0, 0};
    for (int i = l.head; i;) {
        int next = tw_reqs[i].next;
        if (tw_reqs[i].kind != REQ_SEND)
            tw_proto_rndv_get(i);
        else if (tw_reqs[i].cancel_asked == TW_CANCEL_TO_ASK)
            tw_proto_cancel_ask(i);
        else if (tw_reqs[i].proto == TW_PROTO_RNDV_CHUNKED)
            tw_proto_ready_send(i);
        else
            tw_proto_put_start(i);
        i = next;
    }
}

static void run_hooks(void) {
    for (int k = 0; k < TW_MPI_HOOKS; k++)
        if (tw_mpi_hooks_on & (1u << k)) tw_mpi_hooks[k]();
}

static inline __attribute__((always_inline)) void progress_channel(tw_channel_t *ch) {
    if (ch->pending_sends.head) post_pending_sends(ch);
    drain_mailbox(ch);
    if (ch->rendezvous || tw_mpi_notify_waiters) drain_notifications(ch);
    if (ch->pending_gets.head) start_pending_gets(ch);
}

/* A pass with several channels. Under MPI_THREAD_MULTIPLE a thread passes over the
 * channels whose locks it holds, and over the others whose locks are free when it
 * holds the library's (which the hooks need too). A call on one channel's traffic so
 * leaves the rest to the threads on them; that nothing is left behind when there are
 * none (MPI's progress rule: a receive posted on one channel while this thread waits
 * on another), every FAIR_PASSES-th of its passes takes the library's lock if free
 * and passes over everything. */
enum { FAIR_PASSES = 64 };
static _Thread_local unsigned passes_alone;

static __attribute__((noinline)) void progress_channels(void) {
    int n = tw_channel_count();
    unsigned took = 0;
    if (tw_mpi_threads_on) {
        unsigned held = tw_mpi_held();
        if (!(held & TW_MPI_LOCK_LIBRARY)) {
            if (++passes_alone % FAIR_PASSES || tw_mpi_lock_try(0) != 1) {
                for (unsigned rest = held; rest; rest &= rest - 1)
                    progress_channel(&tw_channels[__builtin_ctz(rest)]);
                return;
            }
            took = TW_MPI_LOCK_LIBRARY;
        }
    }
    for (int k = 0; k < n; k++) {
        int t = tw_mpi_lock_try(k);
        if (t < 0) continue; /* its holder passes over it */
        progress_channel(&tw_channels[k]);
        if (t > 0) tw_mpi_lock_untry(k);
    }
    if (tw_mpi_hooks_on) run_hooks();
    if (took) tw_mpi_lock_untry(0);
}

void tw_mpi_progress(void) {
    if (!tw_channel_single()) {
        progress_channels();
        return;
    }
    progress_channel(&tw_channels[0]);
    if (tw_mpi_hooks_on) run_hooks();
}

/* Starts send request i: the data goes now, or waits its turn behind earlier sends
 * to the same peer. An error class when it cannot start at all. */
static int send_start(tw_channel_t *ch, int i) {
    req_t *r = &tw_reqs[i];
    tw_req_reset(r);
    if (r->peer == MPI_PROC_NULL) {
        tw_req_done(i);
        return MPI_SUCCESS;
    }
    if (r->mode == TW_SEND_BUFFERED) { /* the data is copied aside: the send is done */
        r->error =
            buffered(r->staged ? NULL : r->buf, r->staged, r->bytes, r->peer, r->tag, r->context);
        tw_req_done(i);
        return MPI_SUCCESS;
    }
    r->proto = tw_proto_choose(r);
    if (tw_proto_is_rndv(r->proto)) {
        /* a staged send packs at every start (persistent ones run again), one window;
         * an eager, pipelined or by pieces one packs each piece straight into the
         * mailbox */
        if (r->staged && tw_proto_packs_window(r->proto)) tw_mpi_staged_pack_at(r->staged, 0);
        int err = tw_proto_rndv_setup(i);
        if (err) return err;
    }
    int rc = ch->pending_to[r->peer] ? TW_RETRY : post(i);
    if (rc == TW_OK) {
        posted_ok(i);
    } else if (rc == TW_RETRY && tw_mpi_lost_count && tw_mpi_is_lost(r->peer)) {
        if (tw_proto_is_rndv(r->proto)) tw_proto_rndv_undo(r);
        r->active = 0;
        return tw_mpi_lost_code(r->peer);
    } else if (rc == TW_RETRY) {
        r->state = TW_STATE_QUEUED;
        ch->pending_to[r->peer]++;
        tw_req_list_push(&ch->pending_sends, i);
        tw_mpi_progress();
    } else {
        if (tw_proto_is_rndv(r->proto)) tw_proto_rndv_undo(r);
        r->active = 0;
        return tw_mpi_peer_error(r->peer, rc);
    }
    return MPI_SUCCESS;
}

static int send_setup(tw_channel_t *ch, const void *buf, size_t bytes, int dest, int tag,
                      uint32_t context, int mode, int persistent) {
    int i = tw_req_alloc(&ch->reqs, REQ_SEND);
    if (!i) return 0;
    req_t *r = &tw_reqs[i];
    r->peer = dest;
    r->tag = tag;
    r->context = context;
    r->buf = (void *)(uintptr_t)buf;
    r->bytes = bytes;
    r->mode = (uint8_t)mode;
    r->persistent = (uint8_t)persistent;
    r->active = (uint8_t)!persistent;
    return i;
}

int tw_mpi_isend(const void *buf, size_t bytes, int dest, int tag, uint32_t context, int mode,
                 MPI_Request *req) {
    tw_channel_t *ch = tw_channel_of_context(context);
    int i = send_setup(ch, buf, bytes, dest, tag, context, mode, 0);
    if (!i) return MPI_ERR_NO_MEM;
    int rc = send_start(ch, i);
    if (rc) {
        tw_req_free(i);
        return rc;
    }
    *req = tw_req_handle(i);
    return MPI_SUCCESS;
}

int tw_mpi_send_staged(tw_mpi_staged_t *st, int dest, int tag, uint32_t context, int mode,
                       int persistent, MPI_Request *req) {
    tw_channel_t *ch = tw_channel_of_context(context);
    int i = send_setup(ch, tw_mpi_staged_data(st), tw_mpi_staged_bytes(st), dest, tag, context,
                       mode, persistent);
    if (!i) {
        tw_mpi_staged_free(st);
        return MPI_ERR_NO_MEM;
    }
    tw_reqs[i].staged = st;
    int rc = persistent ? (tw_reqs[i].done = 1, MPI_SUCCESS) : send_start(ch, i);
    if (rc) {
        tw_req_free(i);
        return rc;
    }
    *req = tw_req_handle(i);
    return MPI_SUCCESS;
}

int tw_mpi_send_init(const void *buf, size_t bytes, int dest, int tag, uint32_t context, int mode,
                     MPI_Request *req) {
    int i = send_setup(tw_channel_of_context(context), buf, bytes, dest, tag, context, mode, 1);
    if (!i) return MPI_ERR_NO_MEM;
    tw_reqs[i].done = 1;
    *req = tw_req_handle(i);
    return MPI_SUCCESS;
}

/* Starts receive request i: older arrivals first; otherwise it is posted, so that
 * newer ones match it directly instead of being copied aside. The mailbox is not
 * drained here: messages still in it match the receives posted in the meantime
 * straight into their buffers, where draining now would set aside those whose
 * receives come next. */
static void recv_start(tw_channel_t *ch, int i) {
    req_t *r = &tw_reqs[i];
    tw_req_reset(r);
    if (r->peer == MPI_PROC_NULL) {
        tw_req_complete_recv(r, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        tw_req_done(i);
        return;
    }
    tw_match_t *match = &ch->match;
    tw_unexpected_t *u = tw_match_take(match, r->peer, r->tag, r->context);
    if (u) {
        deliver_unexpected(i, u);
        return;
    }
    r->posted = (tw_posted_t){NULL, r->peer, r->tag, r->context};
    tw_match_post(match, &r->posted);
}

static int recv_setup(tw_channel_t *ch, void *buf, size_t bytes, int source, int tag,
                      uint32_t context, int persistent) {
    int i = tw_req_alloc(&ch->reqs, REQ_RECV);
    if (!i) return 0;
    req_t *r = &tw_reqs[i];
    r->peer = source;
    r->tag = tag;
    r->context = context;
    r->buf = buf;
    r->bytes = bytes;
    r->persistent = (uint8_t)persistent;
    r->active = (uint8_t)!persistent;
    return i;
}

static inline int irecv(void *buf, size_t bytes, int source, int tag, uint32_t context, int mode,
                        MPI_Request *req) {
    tw_channel_t *ch = tw_channel_of_context(context);
    int i = recv_setup(ch, buf, bytes, source, tag, context, 0);
    if (!i) return MPI_ERR_NO_MEM;
    if (mode) tw_reqs[i].mode = (uint8_t)mode; /* a new request's is TW_RECV_STANDARD */
    *req = tw_req_handle(i);
    recv_start(ch, i);
    return MPI_SUCCESS;
}

int tw_mpi_irecv(void *buf, size_t bytes, int source, int tag, uint32_t context, MPI_Request *req) {
    return irecv(buf, bytes, source, tag, context, TW_RECV_STANDARD, req);
}

int tw_mpi_irecv_as(void *buf, size_t bytes, int source, int tag, uint32_t context, int mode,
                    MPI_Request *req) {
    return irecv(buf, bytes, source, tag, context, mode, req);
}

int tw_mpi_recv_staged(tw_mpi_staged_t *st, int source, int tag, uint32_t context, int persistent,
                       MPI_Request *req) {
    tw_channel_t *ch = tw_channel_of_context(context);
    int i = recv_setup(ch, tw_mpi_staged_data(st), tw_mpi_staged_bytes(st), source, tag, context,
                       persistent);
    if (!i) {
        tw_mpi_staged_free(st);
        return MPI_ERR_NO_MEM;
    }
    tw_reqs[i].staged = st;
    *req = tw_req_handle(i);
    if (persistent)
        tw_reqs[i].done = 1;
    else
        recv_start(ch, i);
    return MPI_SUCCESS;
}

int tw_mpi_recv_init(void *buf, size_t bytes, int source, int tag, uint32_t context,
                     MPI_Request *req) {
    int i = recv_setup(tw_channel_of_context(context), buf, bytes, source, tag, context, 1);
    if (!i) return MPI_ERR_NO_MEM;
    tw_reqs[i].done = 1;
    *req = tw_req_handle(i);
    return MPI_SUCCESS;
}

int tw_mpi_start(MPI_Request req) {
    int i = tw_req_index(req);
    if (i <= 0 || !tw_reqs[i].persistent || tw_reqs[i].active) return MPI_ERR_REQUEST;
    if (tw_reqs[i].kind == REQ_PSEND || tw_reqs[i].kind == REQ_PRECV) return tw_mpi_part_start(i);
    if (tw_reqs[i].kind == REQ_COLL) { /* a persistent collective: its schedule again */
        tw_req_reset(&tw_reqs[i]);
        tw_mpi_request_before_start(i);
        return tw_mpi_sched_start(tw_reqs[i].buf, req);
    }
    if (tw_reqs[i].kind == REQ_RECV) {
        recv_start(tw_channel_of_req(i), i);
        return MPI_SUCCESS;
    }
    return send_start(tw_channel_of_req(i), i);
}

/* ---- probes and matched probes ---- */

static void status_of_unexpected(const tw_unexpected_t *u, MPI_Status *status) {
    if (status) tw_req_set_status(status, u->context, u->source, u->tag, tw_unexpected_size(u));
}

int tw_mpi_iprobe(int source, int tag, uint32_t context, int *flag, MPI_Status *status) {
    tw_mpi_progress();
    tw_match_t *match = &tw_channel_of_context(context)->match;
    /* nothing kept: no call into matching */
    tw_unexpected_t *u = match->unexpected ? tw_match_probe(match, source, tag, context) : NULL;
    *flag = u != NULL;
    if (u) status_of_unexpected(u, status);
    return MPI_SUCCESS;
}

int tw_mpi_improbe(int source, int tag, uint32_t context, int *flag, MPI_Message *msg,
                   MPI_Status *status) {
    tw_mpi_progress();
    tw_channel_t *ch = tw_channel_of_context(context);
    tw_unexpected_t *u = tw_match_probe(&ch->match, source, tag, context);
    *flag = u != NULL;
    if (!u) return MPI_SUCCESS;
    int i = tw_req_alloc(&ch->reqs, REQ_MSG);
    if (!i) return MPI_ERR_NO_MEM;
    /* the message is this probe's alone: no other receive or probe can match it */
    u = tw_match_take(&ch->match, source, tag, context);
    tw_reqs[i].msg = u;
    status_of_unexpected(u, status);
    *msg = (MPI_Message)(0x6c000000 | tw_reqs[i].gen << 16 | i);
    return MPI_SUCCESS;
}

int tw_mpi_message_valid(MPI_Message msg) {
    return tw_req_slot(msg, 0x6c) > 0;
}

tw_mpi_comm_t *tw_mpi_message_comm(MPI_Message msg) {
    int i = tw_req_slot(msg, 0x6c);
    return i > 0 ? tw_mpi_comm_of_context(tw_reqs[i].msg->context) : NULL;
}

int tw_mpi_imrecv_staged(tw_mpi_staged_t *st, MPI_Message *msg, MPI_Request *req) {
    int i = tw_req_slot(*msg, 0x6c);
    if (i <= 0) {
        tw_mpi_staged_free(st);
        return MPI_ERR_REQUEST;
    }
    tw_reqs[i].staged = st;
    return tw_mpi_imrecv(tw_mpi_staged_data(st), tw_mpi_staged_bytes(st), msg, req);
}

int tw_mpi_imrecv(void *buf, size_t bytes, MPI_Message *msg, MPI_Request *req) {
    int i = tw_req_slot(*msg, 0x6c);
    if (i <= 0) return MPI_ERR_REQUEST;
    req_t *r = &tw_reqs[i];
    tw_unexpected_t *u = r->msg;
    r->kind = REQ_RECV;
    r->msg = NULL;
    r->buf = buf;
    r->bytes = bytes;
    r->peer = u->source;
    r->tag = u->tag;
    r->context = u->context;
    *msg = MPI_MESSAGE_NULL;
    *req = tw_req_handle(i);
    deliver_unexpected(i, u);
    return MPI_SUCCESS;
}
