/* The MPI point-to-point engine on the native API.
 *
 * Protocols, by size:
 *   eager (up to TW_EAGER_LIMIT bytes): header and payload in one VELO message, a
 *     single 64-byte slot up to 48 bytes, consecutive slots beyond;
 *   rendezvous (longer, and every synchronous send): a request-to-send names the
 *     sender's buffer by NLA and key; the receiver gets it straight into the user
 *     buffer, asking for completer and responder notifications, which complete both
 *     sides without another message;
 *   split rendezvous (from TW_RNDV_SPLIT bytes, on one node): the receiver answers
 *     the RTS with a clear-to-send naming the second half of its buffer, which the
 *     sender puts while the receiver gets the first half, so two cores copy half the
 *     data each. Each side is done when both its notifications have come: get
 *     completer and put completer at the receiver, get responder and put requester
 *     at the sender;
 *   put rendezvous (every rendezvous across nodes, see TW_RTS_PUT): the CTS names the
 *     whole buffer and the sender puts all of it; the put requester notification
 *     stands in for the get responder's.
 * Messages are matched in arrival order per sender (VELO keeps each sender's order),
 * so MPI's non-overtaking rule holds whatever the protocol mix. A message that
 * arrives before its receive is posted is copied out (eager) or remembered (RTS);
 * the copies are bounded, and past the bound the mailbox is left full, which holds
 * the senders back instead of exhausting memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include <tollway/settings.h>

/* REQ_MSG: a message matched by MPI_Improbe, waiting for its MPI_Mrecv; REQ_COLL: a
 * non-blocking collective, completed by its schedule (schedule.c) */
enum { REQ_FREE, REQ_SEND, REQ_RECV, REQ_MSG, REQ_COLL };
enum { MAX_REQUESTS = 65535 };
#define UNEXPECTED_BYTES_MAX ((size_t)64 << 20)
/* Unexpected messages of up to UNEXPECTED_SMALL bytes are kept in entries recycled
 * through a free list (up to UNEXPECTED_KEPT of them), not allocated each time. */
enum { UNEXPECTED_SMALL = 256 - 64, UNEXPECTED_KEPT = 4096 };

typedef struct unexpected unexpected_t;

typedef struct req {
    uint8_t kind, done, rts, pending;
    uint8_t orphan; /* freed by the user while running: freed when it finishes */
    uint8_t gen;
    uint8_t persistent, active; /* a persistent request is inactive between its runs */
    uint8_t mode, cancelled;    /* send: a TW_SEND_* mode */
    uint8_t parts;              /* rendezvous: notifications (or a CTS) still to come */
    uint8_t cts_sent;           /* split receive: the CTS has gone */
    uint8_t get_held;           /* receive: a refused get waits, holding its part */
    uint8_t split;     /* split or put send: the TW_RTS_* its CTS answers, until it comes */
    uint8_t put_whole; /* put send: the put stands for the get that is not coming */
    int error;
    int peer; /* send: destination; receive: source filter (world rank or ANY) */
    int tag;  /* send: tag; receive: filter */
    uint32_t context;
    void *buf;
    size_t bytes; /* send: size; receive: capacity */
    int st_source, st_tag;
    size_t st_bytes;
    tw_region_t region; /* rendezvous: the registered (part of the) buffer */
    tw_mpi_cts_t cts;   /* split send: the part to put, and where */
    tw_mpi_rts_t got;   /* rendezvous receive waiting to start its get */
    int got_from;
    unexpected_t *msg; /* REQ_MSG: the message */
    /* a derived datatype's data, moved through a packed window (buf): a send packs
     * into it when it starts (and chunk by chunk when chunked), a receive unpacks
     * from the message or from the window as each chunk lands */
    tw_mpi_staged_t *staged;
    /* chunked rendezvous: where in the stream the chunk in flight (or the next) starts */
    size_t chunk_at;
    uint8_t chunked;       /* send: one chunk of its stream in the window at a time */
    uint8_t ready;         /* receive: the sender's next chunk is there already */
    uint8_t ready_pending; /* send: its READY waits for room in the peer's mailbox */
    int next;              /* list link: posted receives, pending sends, pending gets */
} req_t;

struct unexpected {
    int source, tag;
    uint32_t context;
    int is_rts;
    tw_mpi_rts_t rts;
    size_t len;
    struct unexpected *next;
    unsigned char data[];
};

typedef struct list {
    int head, tail;
} list_t;

static req_t *reqs;
static int free_head;
static list_t posted, pending_sends, pending_gets;
static int *pending_to;      /* pending sends per destination, to keep their order */
static unsigned *refused_in; /* per destination: the last pass of post_pending_sends that it
                                refused a send in */
static unsigned passes;
static unexpected_t *unexp_head, *unexp_tail;
static size_t unexp_bytes;
static unexpected_t *unexp_spare; /* the free list of small entries */
static int unexp_spares;
static unsigned char sync_dummy; /* what a zero-byte synchronous send registers */
static size_t eager_max;         /* TW_EAGER_LIMIT */
static size_t split_min;         /* TW_RNDV_SPLIT; 0: never */
static int
    rendezvous; /* sends and gets waiting for a notification: the queue is polled only then */
static int rndv_sends; /* rendezvous sends under way: while this process sends too, its
                          receives do not split (see send_cts) */

/* ---- requests ---- */

static MPI_Request handle_of(int i) {
    return (MPI_Request)(0x2c000000 | reqs[i].gen << 16 | i);
}

/* The slot of a handle of the given kind (0x2c request, 0x6c message), or -1. */
static int slot_of(int h, int kind) {
    int i = h & 0xffff;
    if (((unsigned)h >> 24) != (unsigned)kind || i == 0 || i > MAX_REQUESTS) return -1;
    if (reqs[i].gen != ((h >> 16) & 0xff)) return -1;
    if (kind == 0x6c
            ? reqs[i].kind != REQ_MSG
            : reqs[i].kind != REQ_SEND && reqs[i].kind != REQ_RECV && reqs[i].kind != REQ_COLL)
        return -1;
    return i;
}

static int index_of(MPI_Request h) {
    return slot_of(h, 0x2c);
}

int tw_mpi_request_valid(MPI_Request req) {
    return req == TW_MPI_REQUEST_SENT || index_of(req) > 0;
}

int tw_mpi_request_active(MPI_Request req) {
    int i = index_of(req);
    return req == TW_MPI_REQUEST_SENT || (i > 0 && reqs[i].active);
}

int tw_mpi_request_done(MPI_Request req) {
    int i = index_of(req);
    return req == TW_MPI_REQUEST_SENT || (i > 0 && reqs[i].active && reqs[i].done);
}

int tw_mpi_request_finished(MPI_Request req) {
    if (req == MPI_REQUEST_NULL || req == TW_MPI_REQUEST_SENT) return 1;
    const req_t *r = &reqs[req & 0xffff];
    return r->done || !r->active;
}

int tw_mpi_message_valid(MPI_Message msg) {
    return slot_of(msg, 0x6c) > 0;
}

tw_mpi_comm_t *tw_mpi_message_comm(MPI_Message msg) {
    int i = slot_of(msg, 0x6c);
    return i > 0 ? tw_mpi_comm_of_context(reqs[i].msg->context) : NULL;
}

/* A (re)started request: no result yet. */
static void req_reset(req_t *r) {
    r->chunk_at = 0;
    r->chunked = r->ready = r->ready_pending = 0;
    r->done = r->rts = r->pending = r->cancelled = r->parts = r->cts_sent = r->split = 0;
    r->get_held = r->put_whole = 0;
    r->region.nla = 0;
    r->active = 1;
    r->error = 0;
    r->st_source = r->st_tag = 0;
    r->st_bytes = 0;
}

static int req_alloc(int kind) {
    if (!free_head) return 0;
    int i = free_head;
    req_t *r = &reqs[i];
    free_head = r->next;
    r->gen++;
    r->kind = (uint8_t)kind;
    r->orphan = r->persistent = r->mode = 0;
    req_reset(r);
    r->msg = NULL;
    r->staged = NULL;
    r->next = 0;
    return i;
}

static void req_free(int i) {
    tw_mpi_staged_free(reqs[i].staged);
    reqs[i].staged = NULL;
    reqs[i].kind = REQ_FREE;
    reqs[i].next = free_head;
    free_head = i;
}

/* A request is finished: one the user already freed goes back to the pool now. */
static void req_done(int i) {
    reqs[i].done = 1;
    if (reqs[i].orphan) req_free(i);
}

static void list_push(list_t *l, int i) {
    reqs[i].next = 0;
    if (l->tail)
        reqs[l->tail].next = i;
    else
        l->head = i;
    l->tail = i;
}

static void list_remove(list_t *l, int i, int prev) {
    if (prev)
        reqs[prev].next = reqs[i].next;
    else
        l->head = reqs[i].next;
    if (l->tail == i) l->tail = prev;
}

void tw_mpi_p2p_init(void) {
    uint64_t eager_limit = tw_setting_unsigned(TW_SETTING_EAGER_LIMIT);
    eager_max = eager_limit < TW_MPI_EAGER_MAX ? (size_t)eager_limit : TW_MPI_EAGER_MAX;
    split_min = (size_t)tw_setting_unsigned(TW_SETTING_RNDV_SPLIT);
    reqs = calloc(MAX_REQUESTS + 1, sizeof *reqs);
    pending_to = calloc((size_t)tw_mpi.size, sizeof *pending_to);
    refused_in = calloc((size_t)tw_mpi.size, sizeof *refused_in);
    if (!reqs || !pending_to || !refused_in) tw_mpi_error(NULL, "MPI_Init", MPI_ERR_NO_MEM, NULL);
    for (int i = MAX_REQUESTS; i >= 1; i--) {
        reqs[i].next = free_head;
        free_head = i;
    }
}

/* ---- receiving ---- */

/* Fills a status; the source world rank becomes a rank of the context's communicator. */
static void set_status(MPI_Status *status, uint32_t context, int source, int tag, size_t bytes) {
    const tw_mpi_comm_t *c = source >= 0 ? tw_mpi_comm_of_context(context) : NULL;
    tw_mpi_status_fill(status, c ? tw_mpi_comm_rank_of(c, source) : source, tag, bytes, 0);
}

static int matches(const req_t *r, int source, int tag, uint32_t context) {
    return r->context == context && (r->peer == MPI_ANY_SOURCE || r->peer == source) &&
           (r->tag == MPI_ANY_TAG || r->tag == tag);
}

static void complete_recv(req_t *r, int source, int tag, size_t arrived) {
    r->st_source = source;
    r->st_tag = tag;
    r->st_bytes = arrived < r->bytes ? arrived : r->bytes;
    if (arrived > r->bytes) r->error = MPI_ERR_TRUNCATE;
}

static void start_get(int i);

static size_t min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

/* A chunk of a rendezvous receive has landed (in its window when staged): unpacked,
 * and the next one fetched, or awaited when the sender packs it chunk by chunk. 1
 * while more is to come. */
static int next_chunk(req_t *r, int i) {
    if (r->got.split == TW_RTS_CHUNKED) {
        size_t end = min_size(r->chunk_at + TW_PACK_CHUNK, (size_t)r->got.size);
        size_t lo = min_size(r->chunk_at, r->st_bytes), hi = min_size(end, r->st_bytes);
        if (r->staged && hi > lo) tw_mpi_staged_unpack_at(r->staged, r->buf, lo, hi - lo);
        r->chunk_at = end;
        if (end >= r->got.size) return 0;
        if (r->ready) {
            r->ready = 0;
            start_get(i);
        }
        return 1;
    }
    size_t total = r->st_bytes,
           n = total - r->chunk_at < TW_PACK_CHUNK ? total - r->chunk_at : TW_PACK_CHUNK;
    tw_mpi_staged_unpack_at(r->staged, r->buf, r->chunk_at, n);
    r->chunk_at += n;
    if (r->chunk_at >= total) return 0;
    start_get(i);
    return 1;
}

/* One expected notification (or CTS) of rendezvous request i has come; the last
 * one completes it (or, for a receive in chunks, fetches the next chunk). */
static void part_done(int i) {
    req_t *r = &reqs[i];
    rendezvous--;
    if (--r->parts) return;
    if (r->kind == REQ_SEND) rndv_sends--;
    /* a truncated message still fetches (and unpacks) what fits */
    if ((r->staged || r->got.split == TW_RTS_CHUNKED) && r->kind == REQ_RECV && r->rts &&
        r->error != MPI_ERR_OTHER && next_chunk(r, i))
        return;
    if (r->region.nla) tw_dereg(tw_mpi.ep, &r->region);
    r->region.nla = 0;
    req_done(i);
}

/* A split or put receive's CTS: registers the part of the buffer the sender puts
 * (the second half, or all of it), or (nothing to put, nothing registrable) asks for
 * no put at all. TW_OK with the length the get must fetch in *get_len, or the VELO
 * send's error. */
static int send_cts(int i, size_t n, size_t *get_len) {
    req_t *r = &reqs[i];
    /* A staged receive gets its chunks in turn: no put into it. Nor, on one node,
     * while this process has rendezvous sends of its own under way: then the sender
     * is most likely busy as well (an exchange), and a put would only add a message
     * to the transfer. */
    size_t own = n; /* what the get fetches; the sender puts [own, n) */
    if (!r->staged && n && r->got.split == TW_RTS_PUT)
        own = 0;
    else if (!r->staged && split_min && n >= split_min && !rndv_sends && (n / 2) & ~(size_t)4095)
        own = (n / 2) & ~(size_t)4095;
    tw_mpi_cts_t cts = {r->got.sreq, (uint32_t)handle_of(i), 0, 0, 0, 0};
    if (own < n &&
        !tw_reg(tw_mpi.ep, (unsigned char *)r->buf + own, n - own, TW_PERM_WRITE, &r->region)) {
        cts = (tw_mpi_cts_t){r->got.sreq, cts.rreq, r->region.nla, r->region.key, own, n - own};
    } else {
        own = n;
        r->region.nla = 0;
    }
    int rc = tw_velo_send(tw_mpi.ep, r->got_from, TW_MPI_CTS, &cts, sizeof cts);
    if (rc != TW_OK) {
        if (r->region.nla) tw_dereg(tw_mpi.ep, &r->region);
        r->region.nla = 0;
        return rc;
    }
    r->cts_sent = 1;
    if (own < n) { /* the sender's put lands with a completer notification here */
        r->parts++;
        rendezvous++;
    }
    *get_len = own;
    return TW_OK;
}

static void start_get(int i) {
    req_t *r = &reqs[i];
    size_t n = r->got.size < r->bytes ? (size_t)r->got.size : r->bytes;
    if ((r->got.split == TW_RTS_SPLIT || r->got.split == TW_RTS_PUT) && !r->cts_sent) {
        int rc = send_cts(i, n, &n);
        if (rc == TW_RETRY) {
            list_push(&pending_gets, i);
            return;
        }
        if (rc) {
            r->error = MPI_ERR_OTHER;
            req_done(i);
            return;
        }
        r->got.size = n; /* a retried get fetches the same part */
    } else if (r->cts_sent) {
        n = (size_t)r->got.size;
    }
    if (r->cts_sent && !n && r->region.nla) return; /* the sender puts it all */
    uint64_t cookie = (uint64_t)r->got.sreq << 32 | (uint32_t)handle_of(i);
    size_t at = 0;
    unsigned char *to = r->buf;
    unsigned notify = TW_NOTIFY_COMPLETER | TW_NOTIFY_RESPONDER;
    if (r->got.split == TW_RTS_CHUNKED) {
        /* the sender's window holds its chunk; what lies past our buffer is fetched as
         * nothing, so that the sender still hears that each chunk was taken */
        size_t end = min_size(r->chunk_at + TW_PACK_CHUNK, (size_t)r->got.size);
        size_t lo = min_size(r->chunk_at, n);
        n = min_size(end, n) - lo;
        if (!r->staged && lo) to += lo;
    } else if (r->staged) { /* into the window, one chunk; the sender hears of the last only */
        at = r->chunk_at;
        n = n - at < TW_PACK_CHUNK ? n - at : TW_PACK_CHUNK;
        if (at + n < r->st_bytes) notify = TW_NOTIFY_COMPLETER;
    }
    int rc = tw_get(tw_mpi.ep, r->got_from, to, n, r->got.nla + at, r->got.key, notify, cookie);
    if (rc == TW_RETRY) {
        /* the waiting get counts as a part at once: else the other half of a split
         * message (the sender's put) could complete the receive before it ran */
        if (!r->get_held) {
            r->get_held = 1;
            r->parts++;
            rendezvous++;
        }
        list_push(&pending_gets, i);
        return;
    }
    if (r->get_held) { /* its part was counted when it was refused */
        r->get_held = 0;
        r->parts--;
        rendezvous--;
    }
    if (rc == TW_OK) {
        r->parts++;
        rendezvous++;
        return;
    }
    r->error = MPI_ERR_OTHER; /* the sender cannot be reached: nothing will complete this */
    if (r->region.nla) tw_dereg(tw_mpi.ep, &r->region);
    r->region.nla = 0;
    req_done(i);
}

/* A split send puts the part its CTS names. */
static void start_put(int i) {
    req_t *r = &reqs[i];
    const tw_mpi_cts_t *c = &r->cts;
    uint64_t cookie = (uint64_t)c->rreq << 32 | (uint32_t)handle_of(i);
    int rc = tw_put(tw_mpi.ep, r->peer, (unsigned char *)r->buf + c->offset, (size_t)c->len, c->nla,
                    c->key, TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER, cookie);
    if (rc == TW_RETRY) {
        list_push(&pending_gets, i);
        return;
    }
    if (rc == TW_OK && !r->put_whole) { /* the CTS's part becomes the put requester's */
        r->parts++;
        rendezvous++;
    } else if (rc != TW_OK) {
        r->error = MPI_ERR_OTHER; /* the receiver then waits for its part */
        if (r->put_whole) {       /* and nothing else will come here */
            rendezvous -= r->parts - 1;
            r->parts = 1;
        }
    }
    part_done(i);
}

/* A CTS from source for one of our split sends, checked against the send it names. */
static void take_cts(int source, const void *body, size_t len) {
    tw_mpi_cts_t c;
    if (len != sizeof c) return;
    memcpy(&c, body, sizeof c);
    int i = index_of((MPI_Request)c.sreq);
    if (i <= 0) return;
    req_t *r = &reqs[i];
    if (r->kind != REQ_SEND || !r->rts || !r->split || r->peer != source || r->done ||
        c.offset > r->bytes || c.len > r->bytes - c.offset || (r->split == TW_RTS_PUT && c.offset))
        return; /* not a CTS this send waits for: dropped */
    r->put_whole = r->split == TW_RTS_PUT;
    r->split = 0;
    if (!c.len) {
        part_done(i);
        return;
    }
    r->cts = c;
    start_put(i);
}

/* The index of i in list l and its predecessor, or 0 when i is not there. */
static int list_find(const list_t *l, int i, int *prev);

/* A READY from source: the next chunk of a chunked rendezvous is in the sender's
 * window. Checked against the receive it names before anything is fetched. */
static void take_ready(int source, const void *body, size_t len) {
    tw_mpi_ready_t m;
    if (len != sizeof m) return;
    memcpy(&m, body, sizeof m);
    int i = index_of((MPI_Request)m.rreq), prev;
    if (i <= 0) return;
    req_t *r = &reqs[i];
    if (r->kind != REQ_RECV || !r->rts || r->got.split != TW_RTS_CHUNKED || r->done ||
        r->got_from != source || r->got.sreq != m.sreq || m.offset >= r->got.size ||
        list_find(&pending_gets, i, &prev))
        return;
    if (r->parts) { /* the chunk before it has not landed yet */
        if (m.offset == r->chunk_at + TW_PACK_CHUNK) r->ready = 1;
    } else if (m.offset == r->chunk_at) {
        start_get(i);
    }
}

static void deliver(int i, int source, int tag, int is_rts, const tw_mpi_rts_t *rts,
                    const void *data, size_t len) {
    req_t *r = &reqs[i];
    if (is_rts) {
        complete_recv(r, source, tag, (size_t)rts->size);
        r->got = *rts;
        r->got_from = source;
        r->rts = 1;
        start_get(i); /* done when its completer notification arrives */
        return;
    }
    complete_recv(r, source, tag, len);
    if (r->staged) /* unpacked straight from the message */
        tw_mpi_staged_unpack_at(r->staged, data, 0, r->st_bytes);
    else if (r->st_bytes) /* buf may be NULL for 0 */
        memcpy(r->buf, data, r->st_bytes);
    req_done(i);
}

static size_t kept_bytes(const unexpected_t *u) {
    return u->is_rts ? 0 : u->len;
}

static unexpected_t *unexpected_new(size_t keep) {
    if (keep > UNEXPECTED_SMALL) return malloc(sizeof(unexpected_t) + keep);
    unexpected_t *u = unexp_spare;
    if (!u) return malloc(sizeof(unexpected_t) + UNEXPECTED_SMALL);
    unexp_spare = u->next;
    unexp_spares--;
    return u;
}

static void unexpected_free(unexpected_t *u) {
    if (kept_bytes(u) > UNEXPECTED_SMALL || unexp_spares >= UNEXPECTED_KEPT) {
        free(u);
        return;
    }
    u->next = unexp_spare;
    unexp_spare = u;
    unexp_spares++;
}

/* One message from the mailbox. 0 when it cannot be taken now (the unexpected
 * buffers are full): it stays in the mailbox and holds its sender back. */
static int arrive(const tw_velo_msg_t *m) {
    if (m->tag == TW_MPI_CTS) {
        take_cts(m->source, m->data, m->length);
        return 1;
    }
    if (m->tag == TW_MPI_READY) {
        take_ready(m->source, m->data, m->length);
        return 1;
    }
    if (m->tag == TW_MPI_WIN) {
        tw_mpi_win_message(m->source, m->data, m->length);
        return 1;
    }
    tw_mpi_hdr_t h;
    if (m->length < sizeof h) return 1; /* not from an MPI peer: dropped */
    memcpy(&h, m->data, sizeof h);
    const unsigned char *body = (const unsigned char *)m->data + sizeof h;
    size_t len = m->length - sizeof h;
    int is_rts = m->tag == TW_MPI_RTS;
    tw_mpi_rts_t rts;
    if (is_rts) {
        if (len != sizeof rts) return 1;
        memcpy(&rts, body, sizeof rts);
    } else if (m->tag != TW_MPI_EAGER) {
        return 1;
    }
    for (int i = posted.head, prev = 0; i; prev = i, i = reqs[i].next) {
        if (!matches(&reqs[i], m->source, h.tag, h.context)) continue;
        list_remove(&posted, i, prev);
        deliver(i, m->source, h.tag, is_rts, &rts, body, len);
        return 1;
    }
    size_t keep = is_rts ? 0 : len;
    if (unexp_bytes + keep > UNEXPECTED_BYTES_MAX && unexp_head) return 0;
    unexpected_t *u = unexpected_new(keep);
    if (!u) return 0;
    *u = (unexpected_t){m->source, h.tag, h.context, is_rts, rts, len, NULL};
    memcpy(u->data, body, keep);
    if (unexp_tail)
        unexp_tail->next = u;
    else
        unexp_head = u;
    unexp_tail = u;
    unexp_bytes += keep;
    return 1;
}

/* Takes u out of the unexpected queue (prev: the entry before it, or NULL). */
static void unexpected_unlink(unexpected_t *u, unexpected_t *prev) {
    if (prev)
        prev->next = u->next;
    else
        unexp_head = u->next;
    if (unexp_tail == u) unexp_tail = prev;
}

/* Hands an unlinked unexpected message to receive request i, and lets it go. */
static void unexpected_deliver(int i, unexpected_t *u) {
    unexp_bytes -= kept_bytes(u);
    deliver(i, u->source, u->tag, u->is_rts, &u->rts, u->data, u->len);
    unexpected_free(u);
}

/* The oldest unexpected message that r matches (its predecessor in *prev), or NULL. */
static unexpected_t *unexpected_find(const req_t *r, unexpected_t **prev) {
    *prev = NULL;
    for (unexpected_t *u = unexp_head; u; *prev = u, u = u->next)
        if (matches(r, u->source, u->tag, u->context)) return u;
    return NULL;
}

static void status_of_unexpected(const unexpected_t *u, MPI_Status *status) {
    if (status)
        set_status(status, u->context, u->source, u->tag, u->is_rts ? (size_t)u->rts.size : u->len);
}

static void drain_mailbox(void) {
    tw_velo_msg_t m;
    while (tw_velo_peek(tw_mpi.ep, &m) == TW_OK) {
        if (!arrive(&m)) { /* no room to take it: it waits, and holds its sender back */
            tw_velo_unpeek(tw_mpi.ep, &m);
            break;
        }
        tw_velo_release(tw_mpi.ep, &m);
    }
}

/* ---- notifications: rendezvous completions ---- */

/* Tells the receiver that the next chunk of chunked send i is in its window. */
static void send_ready(int i) {
    req_t *r = &reqs[i];
    tw_mpi_ready_t m = {(uint32_t)handle_of(i), r->cts.rreq, r->chunk_at};
    int rc = tw_velo_send(tw_mpi.ep, r->peer, TW_MPI_READY, &m, sizeof m);
    r->ready_pending = rc == TW_RETRY;
    if (rc == TW_RETRY) {
        list_push(&pending_gets, i);
    } else if (rc) {
        r->error = MPI_ERR_OTHER; /* the receiver will never ask again */
        part_done(i);
    }
}

static void drain_notifications(void) {
    tw_notification_t n;
    while (tw_nq_poll(tw_mpi.ep, &n) == TW_OK) {
        if (n.cookie & TW_WIN_COOKIE) { /* a window operation's */
            tw_mpi_win_notification(&n);
            continue;
        }
        if (n.op != TW_OP_GET && n.op != TW_OP_PUT) continue;
        /* the cookie holds the target side's handle high, the initiator's low */
        int at_target = n.cls == TW_NOTIFY_RESPONDER ||
                        (n.op == TW_OP_PUT && n.cls == TW_NOTIFY_COMPLETER && n.status == TW_OK);
        int i = index_of(at_target ? (int)(n.cookie >> 32) : (int)(uint32_t)n.cookie);
        if (i <= 0 || !reqs[i].parts) continue;
        req_t *r = &reqs[i];
        /* a cookie is only as good as the peer that names it: another process must
         * not complete this request by naming it in its own operation */
        if (n.peer != (r->kind == REQ_SEND ? r->peer : r->got_from)) continue;
        if (n.status == TW_OK && r->kind == REQ_SEND && r->chunked &&
            r->chunk_at + TW_PACK_CHUNK < r->bytes) {
            /* the receiver has taken the window's chunk: the next one takes its place */
            r->chunk_at += TW_PACK_CHUNK;
            tw_mpi_staged_pack_at(r->staged, r->chunk_at);
            r->cts.rreq = (uint32_t)n.cookie;
            send_ready(i);
            continue;
        }
        if (n.status != TW_OK) {
            /* a fault: the request ends now, whatever else it waited for. Its buffer
             * is deregistered, so a late put or get into it faults too. */
            r->error = MPI_ERR_OTHER;
            rendezvous -= r->parts - 1;
            r->parts = 1;
        }
        part_done(i);
    }
}

/* ---- sending ---- */

static int post(int i) {
    req_t *r = &reqs[i];
    tw_mpi_hdr_t h = {r->tag, r->context};
    if (!r->rts)
        return tw_velo_sendv(tw_mpi.ep, r->peer, TW_MPI_EAGER, &h, sizeof h, r->buf, r->bytes);
    unsigned char m[sizeof h + sizeof(tw_mpi_rts_t)];
    tw_mpi_rts_t rts = {r->bytes, r->region.nla, r->region.key, (uint32_t)handle_of(i),
                        r->chunked ? TW_RTS_CHUNKED : r->split};
    memcpy(m, &h, sizeof h);
    memcpy(m + sizeof h, &rts, sizeof rts);
    return tw_velo_send(tw_mpi.ep, r->peer, TW_MPI_RTS, m, sizeof m);
}

static void posted_ok(int i) {
    if (!reqs[i].rts) req_done(i); /* eager: the data is in the peer's mailbox */
}

/* One pass over the pending sends, in order. A send waits while an earlier one to
 * the same peer still does: once a peer refuses one in this pass, its later ones are
 * not tried (so a pass costs one step per pending send, however many wait). */
static void post_pending_sends(void) {
    unsigned pass = ++passes;
    for (int i = pending_sends.head, prev = 0; i;) {
        int next = reqs[i].next;
        int dest = reqs[i].peer;
        int rc = refused_in[dest] == pass ? TW_RETRY : post(i);
        if (rc == TW_RETRY) {
            refused_in[dest] = pass;
            prev = i;
        } else {
            list_remove(&pending_sends, i, prev);
            pending_to[dest]--;
            reqs[i].pending = 0;
            if (rc == TW_OK)
                posted_ok(i);
            else {
                reqs[i].error = MPI_ERR_OTHER;
                req_done(i);
            }
        }
        i = next;
    }
}

static void start_pending_gets(void) {
    list_t l = pending_gets;
    pending_gets = (list_t){0, 0};
    for (int i = l.head; i;) {
        int next = reqs[i].next;
        if (reqs[i].kind == REQ_SEND && reqs[i].ready_pending)
            send_ready(i);
        else if (reqs[i].kind == REQ_SEND)
            start_put(i);
        else
            start_get(i);
        i = next;
    }
}

void tw_mpi_progress(void) {
    if (pending_sends.head) post_pending_sends();
    drain_mailbox();
    if (rendezvous || tw_mpi_win_waiting) drain_notifications();
    if (pending_gets.head) start_pending_gets();
    if (tw_mpi_scheds_active) tw_mpi_sched_progress();
}

int tw_mpi_coll_request(uint32_t context, MPI_Request *req) {
    int i = req_alloc(REQ_COLL);
    if (!i) return MPI_ERR_NO_MEM;
    reqs[i].context = context; /* its errors go to the communicator */
    *req = handle_of(i);
    return MPI_SUCCESS;
}

void tw_mpi_coll_request_done(MPI_Request req, int error) {
    int i = req & 0xffff;
    reqs[i].error = error;
    req_done(i);
}

/* Starts send request i: the data goes now, or waits its turn behind earlier sends
 * to the same peer. An error class when it cannot start at all. */
static int send_start(int i) {
    req_t *r = &reqs[i];
    req_reset(r);
    if (r->peer == MPI_PROC_NULL) {
        req_done(i);
        return MPI_SUCCESS;
    }
    if (r->mode == TW_SEND_BUFFERED) { /* the data is copied aside: the send is done */
        r->error = r->staged ? tw_mpi_bsend_staged(r->staged, r->peer, r->tag, r->context)
                             : tw_mpi_bsend(r->buf, r->bytes, r->peer, r->tag, r->context);
        req_done(i);
        return MPI_SUCCESS;
    }
    /* a staged send packs at every start (persistent ones run again), one window */
    if (r->staged) tw_mpi_staged_pack_at(r->staged, 0);
    r->chunked = r->staged && r->bytes > TW_PACK_CHUNK;
    if (r->mode == TW_SEND_SYNC || r->bytes > eager_max) {
        r->rts = 1;
        void *at = r->bytes ? r->buf : &sync_dummy;
        size_t len = r->chunked ? TW_PACK_CHUNK : r->bytes;
        if (tw_reg(tw_mpi.ep, at, len ? len : 1, TW_PERM_READ, &r->region)) {
            r->active = 0;
            return MPI_ERR_NO_MEM;
        }
        /* done when the receiver's (last) get tells us, and when split, our put; across
         * nodes, when our put of the whole message (or, if the CTS says so, the get)
         * does. A split only on one node: there it puts two cores to the copy. */
        tw_link_caps_t caps;
        tw_ep_link_caps(tw_mpi.ep, r->peer, &caps); /* zeroed when unknown: neither */
        r->split = r->chunked                                               ? 0
                   : caps.put_cheaper && r->bytes                           ? TW_RTS_PUT
                   : caps.shared_copy && split_min && r->bytes >= split_min ? TW_RTS_SPLIT
                                                                            : 0;
        r->parts = (uint8_t)(1 + !!r->split);
        rendezvous += r->parts;
        rndv_sends++;
    }
    int rc = pending_to[r->peer] ? TW_RETRY : post(i);
    if (rc == TW_OK) {
        posted_ok(i);
    } else if (rc == TW_RETRY) {
        r->pending = 1;
        pending_to[r->peer]++;
        list_push(&pending_sends, i);
        tw_mpi_progress();
    } else {
        if (r->rts) {
            tw_dereg(tw_mpi.ep, &r->region);
            rendezvous -= r->parts;
            r->parts = 0;
            rndv_sends--;
        }
        r->active = 0;
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

static int send_setup(const void *buf, size_t bytes, int dest, int tag, uint32_t context, int mode,
                      int persistent) {
    int i = req_alloc(REQ_SEND);
    if (!i) return 0;
    req_t *r = &reqs[i];
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
    int i = send_setup(buf, bytes, dest, tag, context, mode, 0);
    if (!i) return MPI_ERR_NO_MEM;
    int rc = send_start(i);
    if (rc) {
        req_free(i);
        return rc;
    }
    *req = handle_of(i);
    return MPI_SUCCESS;
}

int tw_mpi_send_staged(tw_mpi_staged_t *st, int dest, int tag, uint32_t context, int mode,
                       int persistent, MPI_Request *req) {
    int i = send_setup(tw_mpi_staged_data(st), tw_mpi_staged_bytes(st), dest, tag, context, mode,
                       persistent);
    if (!i) {
        tw_mpi_staged_free(st);
        return MPI_ERR_NO_MEM;
    }
    reqs[i].staged = st;
    int rc = persistent ? (reqs[i].done = 1, MPI_SUCCESS) : send_start(i);
    if (rc) {
        req_free(i);
        return rc;
    }
    *req = handle_of(i);
    return MPI_SUCCESS;
}

int tw_mpi_send_init(const void *buf, size_t bytes, int dest, int tag, uint32_t context, int mode,
                     MPI_Request *req) {
    int i = send_setup(buf, bytes, dest, tag, context, mode, 1);
    if (!i) return MPI_ERR_NO_MEM;
    reqs[i].done = 1;
    *req = handle_of(i);
    return MPI_SUCCESS;
}

int tw_mpi_recv_now(void *buf, size_t bytes, int source, int tag, uint32_t context,
                    MPI_Status *status) {
    /* only when nothing else is under way: otherwise the general path keeps order */
    if (posted.head || unexp_head || pending_sends.head || pending_gets.head || rendezvous)
        return 1;
    req_t want = {.peer = source, .tag = tag, .context = context};
    tw_velo_msg_t m;
    unsigned spins = 0;
    int rc;
    while ((rc = tw_velo_peek(tw_mpi.ep, &m)) == TW_EMPTY) tw_ep_relax(tw_mpi.ep, &spins);
    if (rc != TW_OK) return 1;
    tw_mpi_hdr_t h;
    if (m.tag == TW_MPI_EAGER && m.length >= sizeof h) {
        memcpy(&h, m.data, sizeof h);
        if (matches(&want, m.source, h.tag, h.context)) {
            size_t len = m.length - sizeof h, n = len < bytes ? len : bytes;
            if (n) memcpy(buf, (const unsigned char *)m.data + sizeof h, n);
            int err = len > bytes ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
            if (status) set_status(status, context, m.source, h.tag, n);
            tw_velo_release(tw_mpi.ep, &m);
            return err;
        }
    }
    /* not ours, or not eager: it goes where the general path will find it */
    if (arrive(&m))
        tw_velo_release(tw_mpi.ep, &m);
    else
        tw_velo_unpeek(tw_mpi.ep, &m);
    return 1;
}

int tw_mpi_send_now(const void *buf, size_t bytes, int dest, int tag, uint32_t context) {
    if (bytes > eager_max || dest < 0 || pending_to[dest]) return 1;
    tw_mpi_hdr_t h = {tag, context};
    int rc = tw_velo_sendv(tw_mpi.ep, dest, TW_MPI_EAGER, &h, sizeof h, buf, bytes);
    return rc == TW_OK ? MPI_SUCCESS : 1;
}

/* Starts receive request i: older arrivals first; otherwise it is posted, so that
 * newer ones match it directly instead of being copied aside. The mailbox is not
 * drained here: messages still in it match the receives posted in the meantime
 * straight into their buffers, where draining now would set aside those whose
 * receives come next. */
static void recv_start(int i) {
    req_t *r = &reqs[i];
    req_reset(r);
    if (r->peer == MPI_PROC_NULL) {
        complete_recv(r, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        req_done(i);
        return;
    }
    unexpected_t *prev, *u = unexpected_find(r, &prev);
    if (u) {
        unexpected_unlink(u, prev);
        unexpected_deliver(i, u);
        return;
    }
    list_push(&posted, i);
}

static int recv_setup(void *buf, size_t bytes, int source, int tag, uint32_t context,
                      int persistent) {
    int i = req_alloc(REQ_RECV);
    if (!i) return 0;
    req_t *r = &reqs[i];
    r->peer = source;
    r->tag = tag;
    r->context = context;
    r->buf = buf;
    r->bytes = bytes;
    r->persistent = (uint8_t)persistent;
    r->active = (uint8_t)!persistent;
    return i;
}

int tw_mpi_irecv(void *buf, size_t bytes, int source, int tag, uint32_t context, MPI_Request *req) {
    int i = recv_setup(buf, bytes, source, tag, context, 0);
    if (!i) return MPI_ERR_NO_MEM;
    *req = handle_of(i);
    recv_start(i);
    return MPI_SUCCESS;
}

int tw_mpi_recv_staged(tw_mpi_staged_t *st, int source, int tag, uint32_t context, int persistent,
                       MPI_Request *req) {
    int i = recv_setup(tw_mpi_staged_data(st), tw_mpi_staged_bytes(st), source, tag, context,
                       persistent);
    if (!i) {
        tw_mpi_staged_free(st);
        return MPI_ERR_NO_MEM;
    }
    reqs[i].staged = st;
    *req = handle_of(i);
    if (persistent)
        reqs[i].done = 1;
    else
        recv_start(i);
    return MPI_SUCCESS;
}

int tw_mpi_recv_init(void *buf, size_t bytes, int source, int tag, uint32_t context,
                     MPI_Request *req) {
    int i = recv_setup(buf, bytes, source, tag, context, 1);
    if (!i) return MPI_ERR_NO_MEM;
    reqs[i].done = 1;
    *req = handle_of(i);
    return MPI_SUCCESS;
}

int tw_mpi_start(MPI_Request req) {
    int i = index_of(req);
    if (i <= 0 || !reqs[i].persistent || reqs[i].active) return MPI_ERR_REQUEST;
    if (reqs[i].kind == REQ_RECV) {
        recv_start(i);
        return MPI_SUCCESS;
    }
    return send_start(i);
}

static void fill_status(const req_t *r, MPI_Status *status) {
    if (!status) return;
    if (r->kind == REQ_RECV && !r->cancelled)
        set_status(status, r->context, r->st_source, r->st_tag, r->st_bytes);
    else
        tw_mpi_status_fill(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, r->cancelled);
}

/* A send that left at once: complete, successful. */
static int complete_sent(MPI_Request *req, MPI_Status *status) {
    tw_mpi_status_empty(status, MPI_ANY_SOURCE);
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* The result of a finished request: its status, and the request freed (or, when
 * persistent, made inactive). An inactive one reports an empty status. */
static int complete(int i, MPI_Request *req, MPI_Status *status) {
    req_t *r = &reqs[i];
    if (!r->active) {
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
        return MPI_SUCCESS;
    }
    int err = r->error;
    fill_status(r, status);
    if (r->persistent) {
        r->active = 0;
    } else {
        req_free(i);
        *req = MPI_REQUEST_NULL;
    }
    return err;
}

int tw_mpi_finish(MPI_Request *req, MPI_Status *status) {
    if (*req == TW_MPI_REQUEST_SENT) return complete_sent(req, status);
    return complete(*req & 0xffff, req, status);
}

int tw_mpi_test(MPI_Request *req, int *flag, MPI_Status *status) {
    if (*req == TW_MPI_REQUEST_SENT) {
        *flag = 1;
        return complete_sent(req, status);
    }
    int i = index_of(*req);
    if (i <= 0) return MPI_ERR_REQUEST;
    if (!reqs[i].done) tw_mpi_progress();
    *flag = reqs[i].done;
    return *flag ? complete(i, req, status) : MPI_SUCCESS;
}

int tw_mpi_wait(MPI_Request *req, MPI_Status *status) {
    if (*req == TW_MPI_REQUEST_SENT) return complete_sent(req, status);
    int i = index_of(*req);
    if (i <= 0) return MPI_ERR_REQUEST;
    unsigned spins = 0;
    while (!reqs[i].done) {
        tw_mpi_progress();
        if (!reqs[i].done) tw_ep_relax(tw_mpi.ep, &spins);
    }
    return complete(i, req, status);
}

int tw_mpi_request_status(MPI_Request req, int *flag, MPI_Status *status) {
    if (req == TW_MPI_REQUEST_SENT) {
        *flag = 1;
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
        return MPI_SUCCESS;
    }
    int i = index_of(req);
    if (i <= 0) return MPI_ERR_REQUEST;
    if (!reqs[i].done) tw_mpi_progress();
    *flag = reqs[i].done;
    if (*flag && !reqs[i].active && status)
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
    else if (*flag)
        fill_status(&reqs[i], status);
    return MPI_SUCCESS;
}

tw_mpi_comm_t *tw_mpi_request_comm(MPI_Request req) {
    int i = index_of(req);
    return i > 0 ? tw_mpi_comm_of_context(reqs[i].context) : NULL;
}

/* MPI_Request_free: a finished or inactive request goes now; one still running is
 * left to finish on its own and goes back to the pool then. */
int tw_mpi_request_free(MPI_Request *req) {
    if (*req == TW_MPI_REQUEST_SENT) {
        *req = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    int i = index_of(*req);
    if (i <= 0) return MPI_ERR_REQUEST;
    if (reqs[i].done)
        req_free(i);
    else
        reqs[i].orphan = 1; /* req_done releases it */
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* The index of i in list l and its predecessor, or 0 when i is not there. */
static int list_find(const list_t *l, int i, int *prev) {
    *prev = 0;
    for (int j = l->head; j; *prev = j, j = reqs[j].next)
        if (j == i) return 1;
    return 0;
}

/* MPI_Cancel: a receive not yet matched, or a send not yet handed to the peer, is
 * withdrawn; anything further along completes as it would have. */
int tw_mpi_cancel(MPI_Request req) {
    if (req == TW_MPI_REQUEST_SENT) return MPI_SUCCESS; /* delivered already */
    int i = index_of(req);
    if (i <= 0 || !reqs[i].active) return MPI_ERR_REQUEST;
    req_t *r = &reqs[i];
    if (r->done) return MPI_SUCCESS;
    int prev;
    if (r->kind == REQ_RECV && list_find(&posted, i, &prev)) {
        list_remove(&posted, i, prev);
    } else if (r->kind == REQ_SEND && r->pending && list_find(&pending_sends, i, &prev)) {
        list_remove(&pending_sends, i, prev);
        pending_to[r->peer]--;
        r->pending = 0;
        if (r->rts) {
            tw_dereg(tw_mpi.ep, &r->region);
            rendezvous -= r->parts;
            r->parts = 0;
            rndv_sends--;
        }
    } else {
        return MPI_SUCCESS;
    }
    r->cancelled = 1;
    req_done(i);
    return MPI_SUCCESS;
}

int tw_mpi_iprobe(int source, int tag, uint32_t context, int *flag, MPI_Status *status) {
    tw_mpi_progress();
    req_t probe = {.peer = source, .tag = tag, .context = context};
    unexpected_t *prev, *u = unexpected_find(&probe, &prev);
    *flag = u != NULL;
    if (u) status_of_unexpected(u, status);
    return MPI_SUCCESS;
}

int tw_mpi_improbe(int source, int tag, uint32_t context, int *flag, MPI_Message *msg,
                   MPI_Status *status) {
    tw_mpi_progress();
    req_t probe = {.peer = source, .tag = tag, .context = context};
    unexpected_t *prev, *u = unexpected_find(&probe, &prev);
    *flag = u != NULL;
    if (!u) return MPI_SUCCESS;
    int i = req_alloc(REQ_MSG);
    if (!i) return MPI_ERR_NO_MEM;
    /* the message is this probe's alone: no other receive or probe can match it */
    unexpected_unlink(u, prev);
    reqs[i].msg = u;
    status_of_unexpected(u, status);
    *msg = (MPI_Message)(0x6c000000 | reqs[i].gen << 16 | i);
    return MPI_SUCCESS;
}

int tw_mpi_imrecv_staged(tw_mpi_staged_t *st, MPI_Message *msg, MPI_Request *req) {
    int i = slot_of(*msg, 0x6c);
    if (i <= 0) {
        tw_mpi_staged_free(st);
        return MPI_ERR_REQUEST;
    }
    reqs[i].staged = st;
    return tw_mpi_imrecv(tw_mpi_staged_data(st), tw_mpi_staged_bytes(st), msg, req);
}

int tw_mpi_imrecv(void *buf, size_t bytes, MPI_Message *msg, MPI_Request *req) {
    int i = slot_of(*msg, 0x6c);
    if (i <= 0) return MPI_ERR_REQUEST;
    req_t *r = &reqs[i];
    unexpected_t *u = r->msg;
    r->kind = REQ_RECV;
    r->msg = NULL;
    r->buf = buf;
    r->bytes = bytes;
    r->peer = u->source;
    r->tag = u->tag;
    r->context = u->context;
    *msg = MPI_MESSAGE_NULL;
    *req = handle_of(i);
    unexpected_deliver(i, u);
    return MPI_SUCCESS;
}
