/* MPI one-sided communication: the target side of an operation (where its bytes
 * lie, the tables of dynamic windows), put and get, and their request-based forms,
 * with the notifications that complete those and count the device's faults. */
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/env/state.h"
#include "mpi/rma/win.h"
#include "mpi/rma/win.h"

/* ---- notifications ---- */

/* The request-based puts and gets waiting for their last notification, with the
 * rank they went to: a notification completes one only when it names it and comes
 * from the initiator's side of an operation to that rank, so no other process can
 * complete our requests by naming them in a cookie of its own. */
typedef struct armed {
    MPI_Request req;
    int peer;
} armed_t;
static armed_t *armed_reqs;
static int narmed, armed_cap;

static int arm(MPI_Request req, int peer) {
    if (narmed == armed_cap) {
        int cap = armed_cap ? 2 * armed_cap : 64;
        armed_t *a = realloc(armed_reqs, (size_t)cap * sizeof *a);
        if (!a) return MPI_ERR_NO_MEM;
        armed_reqs = a;
        armed_cap = cap;
    }
    armed_reqs[narmed++] = (armed_t){req, peer};
    tw_mpi_notify_waiters++;
    return MPI_SUCCESS;
}

static void disarm(MPI_Request req) {
    for (int k = 0; k < narmed; k++)
        if (armed_reqs[k].req == req) {
            armed_reqs[k] = armed_reqs[--narmed];
            tw_mpi_notify_waiters--;
            return;
        }
}

void tw_mpi_win_notification(const tw_notification_t *n) {
    /* ours as initiator: a put's requester, a get's completer, or a fault (which
     * always comes as a requester notification) */
    int initiator =
        n->cls == TW_NOTIFY_REQUESTER || (n->op == TW_OP_GET && n->cls == TW_NOTIFY_COMPLETER);
    if (!initiator) return;
    unsigned i = (unsigned)(n->cookie & 0xffff);
    win_t *w = i < WIN_MAX ? tw_win_table[i] : NULL;
    if (n->cookie & REQ_COOKIE) { /* the last piece of a request-based put or get */
        MPI_Request req = (MPI_Request)(uint32_t)(n->cookie >> 16);
        for (int k = 0; k < narmed; k++) {
            if (armed_reqs[k].req != req || armed_reqs[k].peer != n->peer) continue;
            armed_reqs[k] = armed_reqs[--narmed];
            tw_mpi_notify_waiters--;
            tw_mpi_coll_request_done(
                req, n->status == TW_OK ? MPI_SUCCESS : tw_win_device_error(w, n->peer, n->status));
            return;
        }
        return;
    }
    if (n->status == TW_OK) return;
    if (tw_status_peer_lost(n->status))
        (void)tw_win_device_error(w, n->peer, n->status); /* recorded: tw_win_lost says it */
    else if (w)
        w->faults++;
}

/* Request-based puts and gets through the device: the last piece asks for the
 * notification that completes the request (requester for a put: the origin buffer
 * may be reused; completer for a get: the data is in place), with a cookie naming
 * the request. Operations to one target complete in order, so it comes last. */
static inline uint64_t request_cookie(const win_t *w, MPI_Request req) {
    return cookie_of(w) | REQ_COOKIE | (uint64_t)(uint32_t)req << 16;
}

/* Reads len bytes at (nla, key) of window rank r into dst and waits for them while
 * the whole MPI progress runs (window messages taken in too: across nodes a flush
 * of the device alone could wait behind messages no one takes). MPI_SUCCESS or an
 * error class. */
int tw_win_get_waiting(win_t *w, int r, void *dst, size_t len, uint64_t nla, uint64_t key) {
    MPI_Request req;
    int peer = w->t[r].world, rc = tw_mpi_coll_request(w->context, &req);
    if (rc) return rc;
    if (!(rc = arm(req, peer))) {
        rc = rma_get_n(w, peer, dst, len, nla, key, TW_NOTIFY_COMPLETER, request_cookie(w, req));
        if (rc) { /* not issued: nothing will complete it */
            disarm(req);
            rc = tw_win_device_error(w, peer, rc);
        }
    }
    if (rc) {
        tw_mpi_coll_request_done(req, rc);
        MPI_Request_free(&req);
        return rc;
    }
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* ---- the target side of an operation ---- */

/* One read of rank r's table of attached regions: its header, then its entries
 * where the header says. MPI_SUCCESS, or an error (the table moved meanwhile: a
 * read failed). */
static int read_table(win_t *w, target_t *t) {
    dyn_table_t h;
    int rc = rma_get(w, t->world, &h, sizeof h, t->tab_nla, t->tab_key);
    if (!rc) rc = tw_rma_flush(tw_mpi.ep, t->world);
    if ((rc = tw_win_completion(w, t->world, rc))) return rc;
    if (h.n > (1u << 24)) return MPI_ERR_OTHER;
    if (h.n > t->tab_cap) {
        dyn_entry_t *e = realloc(t->tab, (size_t)h.n * sizeof *e);
        if (!e) return MPI_ERR_NO_MEM;
        t->tab = e;
        t->tab_cap = h.n;
    }
    if (h.n) rc = rma_get(w, t->world, t->tab, (size_t)h.n * sizeof *t->tab, h.nla, h.key);
    if (!rc && h.n) rc = tw_rma_flush(tw_mpi.ep, t->world);
    if ((rc = tw_win_completion(w, t->world, rc))) return rc;
    t->tab_n = h.n;
    return MPI_SUCCESS;
}

/* Fetches rank r's table (dynamic windows); a read that crossed the table's move
 * to a larger block is tried again, one that met the rank's loss is not. */
static int fetch_table(win_t *w, int r) {
    target_t *t = &w->t[r];
    int rc = MPI_SUCCESS;
    for (int tries = 0; tries < 3; tries++) {
        if (!(rc = read_table(w, t))) {
            t->tab_sync = w->sync + 1;
            return MPI_SUCCESS;
        }
        if (tw_win_lost(w, t->world)) break;
    }
    t->tab_sync = 0;
    t->tab_n = 0;
    int lost = tw_win_lost(w, t->world);
    return lost ? lost : MPI_ERR_OTHER;
}

static const dyn_entry_t *table_find(const target_t *t, uint64_t lo, uint64_t hi) {
    for (uint64_t i = 0; i < t->tab_n; i++)
        if (lo >= t->tab[i].base && hi <= t->tab[i].base + t->tab[i].len) return &t->tab[i];
    return NULL;
}

/* Checks that count items of a type (layout l) at target_disp lie inside rank r's
 * window, and says where they are. MPI_SUCCESS or an error class. */
int tw_win_resolve(win_t *w, int r, MPI_Aint disp, MPI_Count count, const tw_mpi_type_layout_t *l,
                   where_t *at) {
    target_t *t = &w->t[r];
    if (disp < 0 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC) return MPI_ERR_DISP;
    /* in 64-bit arithmetic that refuses to overflow: a displacement whose offset
     * wraps lies outside every window */
    int64_t off, lo, hi, span;
    if (__builtin_mul_overflow((int64_t)disp,
                               (int64_t)(w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : t->disp_unit),
                               &off) ||
        __builtin_add_overflow(off, (int64_t)l->true_lb, &lo))
        return MPI_ERR_RMA_RANGE;
    hi = lo;
    if (count > 0 && (__builtin_mul_overflow((int64_t)(count - 1), (int64_t)l->extent, &span) ||
                      __builtin_add_overflow(lo, span, &hi) ||
                      __builtin_add_overflow(hi, (int64_t)l->true_extent, &hi)))
        return MPI_ERR_RMA_RANGE;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        if (hi == lo) {
            *at = (where_t){t->world, 0, 0, NULL};
            return MPI_SUCCESS;
        }
        const dyn_entry_t *e = NULL;
        if (t->tab_sync == w->sync + 1) e = table_find(t, (uint64_t)lo, (uint64_t)hi);
        if (!e) { /* attached since we looked: look again */
            int rc = fetch_table(w, r);
            if (rc) return rc;
            e = table_find(t, (uint64_t)lo, (uint64_t)hi);
        }
        if (!e) return MPI_ERR_RMA_RANGE;
        *at = (where_t){t->world, e->nla + (uint64_t)(off - (int64_t)e->base), e->key, NULL};
        return MPI_SUCCESS;
    }
    if (hi > lo && (lo < 0 || hi > t->size)) return MPI_ERR_RMA_RANGE;
    *at = (where_t){t->dest, t->nla + (uint64_t)off, t->key, t->local ? t->local + off : NULL};
    return MPI_SUCCESS;
}

/* ---- put and get ---- */

/* req (not MPI_REQUEST_NULL): a request-based put, armed (*armed = 1) when the
 * notification of its last piece will complete it. */
/* Moves the data between buf (the origin's packed bytes) and the window, one piece
 * of the target's layout at a time: put, or get. When the origin's own buffer is
 * used (not a staged copy), the last piece of a request-based call asks for the
 * notification that completes its request. */
static int move_pieces(win_t *w, int put, unsigned char *buf, int staged, const side_t *t,
                       const where_t *at, MPI_Request req, int *armed) {
    pieces_t p;
    pieces_init(&p, t->type, t->count, &t->l);
    MPI_Aint off = 0, noff = 0;
    size_t len = 0, pos = 0, nlen = 0, npos = 0;
    int rc = 0, more = pieces_next(&p, &off, &len, &pos);
    while (!rc && more) {
        int last = !(more = pieces_next(&p, &noff, &nlen, &npos));
        uint64_t nla = at->nla + (uint64_t)off;
        if (at->local) {
            if (put)
                memcpy(at->local + off, buf + pos, len);
            else
                memcpy(buf + pos, at->local + off, len);
        } else if (last && req != MPI_REQUEST_NULL && !staged && !(rc = arm(req, at->dest))) {
            uint64_t cookie = request_cookie(w, req);
            rc = put ? rma_put_n(w, at->dest, buf + pos, len, nla, at->key, TW_NOTIFY_REQUESTER,
                                 cookie)
                     : rma_get_n(w, at->dest, buf + pos, len, nla, at->key, TW_NOTIFY_COMPLETER,
                                 cookie);
            if (rc) /* not issued: nothing will complete it */
                disarm(req);
            else
                *armed = 1;
        } else {
            rc = put ? rma_put(w, at->dest, buf + pos, len, nla, at->key)
                     : rma_get(w, at->dest, buf + pos, len, nla, at->key);
        }
        off = noff;
        len = nlen;
        pos = npos;
    }
    return rc;
}

static int do_put(win_t *w, int r, const side_t *o, const side_t *t, const where_t *at,
                  MPI_Request req, int *armed) {
    if (!side_bytes(o)) return MPI_SUCCESS; /* nothing moves: the buffer may be NULL */
    int taken, brc = tw_win_put_batched(w, r, o, t, at, &taken);
    if (brc || taken) return brc; /* many small pieces: as messages the target applies */
    unsigned char *tmp;
    const unsigned char *src = packed_of(o, &tmp);
    if (!src) return MPI_ERR_NO_MEM;
    int rc = move_pieces(w, 1, (unsigned char *)(uintptr_t)src, tmp != NULL, t, at, req, armed);
    if (tmp) { /* the copy goes once the data has left it */
        if (!rc && !at->local) rc = tw_rma_flush(tw_mpi.ep, at->dest);
        free(tmp);
    }
    return rc ? tw_win_device_error(w, at->dest, rc) : MPI_SUCCESS;
}

static int do_get(win_t *w, const side_t *o, const side_t *t, const where_t *at, MPI_Request req,
                  int *armed) {
    unsigned char *tmp = NULL, *dst;
    size_t n = side_bytes(o);
    if (o->l.contiguous)
        dst = (unsigned char *)(uintptr_t)o->buf + o->l.lb;
    else if (!(dst = tmp = malloc(n ? n : 1)))
        return MPI_ERR_NO_MEM;
    int rc = move_pieces(w, 0, dst, tmp != NULL, t, at, req, armed);
    if (tmp) { /* unpacked once the data is there */
        if (!rc && !at->local) rc = tw_rma_flush(tw_mpi.ep, at->dest);
        if (!rc) tw_mpi_type_unpack(tmp, o->count, o->type, (void *)(uintptr_t)o->buf);
        free(tmp);
    }
    return rc ? tw_win_device_error(w, at->dest, rc) : MPI_SUCCESS;
}

/* The common front of put and get. MPI_SUCCESS with the sides and target resolved,
 * 1 for MPI_PROC_NULL (nothing to do), or an error class. */
static int rma_front(win_t *w, const void *obuf, MPI_Count ocount, MPI_Datatype otype, int trank,
                     MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, side_t *o, side_t *t,
                     where_t *at) {
    if (trank == MPI_PROC_NULL) return 1;
    if (trank < 0 || trank >= w->size) return MPI_ERR_RANK;
    int rc = side_of(o, obuf, ocount, otype);
    if (!rc) rc = side_of(t, NULL, tcount, ttype);
    if (rc) return rc;
    if (side_bytes(o) != side_bytes(t)) return MPI_ERR_TYPE;
    /* a lost target before the epoch: the loss may be why there is none */
    if ((rc = tw_win_lost(w, w->t[trank].world))) return rc;
    if (!access_ok(w, trank)) return MPI_ERR_RMA_SYNC;
    return tw_win_resolve(w, trank, tdisp, t->count, &t->l, at);
}

/* A request complete from the start. */
static int done_request(win_t *w, MPI_Request *request) {
    int rc = tw_mpi_coll_request(w->context, request);
    if (!rc) tw_mpi_coll_request_done(*request, MPI_SUCCESS);
    return rc;
}

/* A put or get, and its request when request is not NULL: complete at once when the
 * data moved with the call (or through a copy, flushed first), else completed by
 * the notification of its last piece. */
static int with_req(win_t *w, int r, const side_t *o, const side_t *t, const where_t *at,
                    MPI_Request *request, int get) {
    MPI_Request req = MPI_REQUEST_NULL;
    int rc, armed = 0;
    if (request && (rc = tw_mpi_coll_request(w->context, &req))) return rc;
    rc = get ? do_get(w, o, t, at, req, &armed) : do_put(w, r, o, t, at, req, &armed);
    if (!request) return rc;
    if (rc && !armed) {
        tw_mpi_coll_request_done(req, rc);
        MPI_Request_free(&req);
        return rc;
    }
    if (!armed) tw_mpi_coll_request_done(req, MPI_SUCCESS);
    *request = req;
    return rc;
}

/* Put (get 0) or get (get 1) through the general path. */
static int rma_call(const char *call, int get, const void *origin_addr, MPI_Count origin_count,
                    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                    MPI_Request *request) {
    win_t *w = win_get(win);
    if (!w) return tw_mpi_error(NULL, call, MPI_ERR_WIN, NULL);
    side_t o, t;
    where_t at;
    int rc = rma_front(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, &o, &t, &at);
    if (rc == 1) /* MPI_PROC_NULL: nothing to move */
        rc = request ? done_request(w, request) : MPI_SUCCESS;
    else if (!rc)
        rc = with_req(w, target_rank, &o, &t, &at, request, get);
    return rc ? tw_win_error(w, call, rc, NULL) : MPI_SUCCESS;
}

/* The common case of a put or get: a predefined type, the same on both sides, to a
 * window mapped here. Where the n bytes lie in the target's memory, or NULL for the
 * general path (which also reports every error). */
static inline unsigned char *mapped_place(MPI_Win win, MPI_Datatype origin_datatype,
                                          MPI_Count origin_count, int target_rank,
                                          MPI_Aint target_disp, MPI_Count target_count,
                                          MPI_Datatype target_datatype, size_t *n) {
    win_t *w = win_get(win);
    int ext = tw_mpi_type_contiguous_size(origin_datatype);
    if (!w || !w->shm || tw_mpi_lost_count || ext <= 0 || origin_datatype != target_datatype ||
        origin_count != target_count || origin_count < 0 ||
        (unsigned)target_rank >= (unsigned)w->size || target_disp < 0 || !access_ok(w, target_rank))
        return NULL;
    target_t *t = &w->t[target_rank];
    size_t off;
    *n = (size_t)origin_count * (size_t)ext;
    return win_offset(target_disp, t->disp_unit, t->size, *n, &off) ? t->local + off : NULL;
}

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win) {
    NEED_INIT("MPI_Put");
    size_t n;
    unsigned char *at = mapped_place(win, origin_datatype, origin_count, target_rank, target_disp,
                                     target_count, target_datatype, &n);
    if (at) {
        if (n) memcpy(at, origin_addr, n);
        return MPI_SUCCESS;
    }
    return rma_call("MPI_Put", 0, origin_addr, origin_count, origin_datatype, target_rank,
                    target_disp, target_count, target_datatype, win, NULL);
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    NEED_INIT("MPI_Get");
    size_t n;
    unsigned char *at = mapped_place(win, origin_datatype, origin_count, target_rank, target_disp,
                                     target_count, target_datatype, &n);
    if (at) {
        if (n) memcpy(origin_addr, at, n);
        return MPI_SUCCESS;
    }
    return rma_call("MPI_Get", 1, origin_addr, origin_count, origin_datatype, target_rank,
                    target_disp, target_count, target_datatype, win, NULL);
}

/* ---- request-based put and get ----
 * Through the device they complete with the notification of their last piece
 * (above); on a shm window they are complete before the call returns. */

int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request *request) {
    NEED_INIT("MPI_Rput");
    if (!request) return tw_mpi_error(NULL, "MPI_Rput", MPI_ERR_ARG, NULL);
    return rma_call("MPI_Rput", 0, origin_addr, origin_count, origin_datatype, target_rank,
                    target_disp, target_count, target_datatype, win, request);
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request) {
    NEED_INIT("MPI_Rget");
    if (!request) return tw_mpi_error(NULL, "MPI_Rget", MPI_ERR_ARG, NULL);
    return rma_call("MPI_Rget", 1, origin_addr, origin_count, origin_datatype, target_rank,
                    target_disp, target_count, target_datatype, win, request);
}

/* ---- the way in of the large-count calls (rma/large_count.c) ---- */

int tw_mpi_rma_put_get(const char *call, int get, void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                       MPI_Request *request) {
    NEED_INIT(call);
    if (request) /* request-based: through the general path, as MPI_Rput and MPI_Rget */
        return rma_call(call, get, origin_addr, origin_count, origin_datatype, target_rank,
                        target_disp, target_count, target_datatype, win, request);
    size_t n;
    unsigned char *at = mapped_place(win, origin_datatype, origin_count, target_rank, target_disp,
                                     target_count, target_datatype, &n);
    if (at) {
        if (n && get) memcpy(origin_addr, at, n);
        if (n && !get) memcpy(at, origin_addr, n);
        return MPI_SUCCESS;
    }
    return rma_call(call, get, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype, win, NULL);
}
