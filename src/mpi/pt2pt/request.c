/* The request pool, request handles, and completion: wait, test, free, status. */
#include <sched.h>
#include <stdlib.h>

#include "mpi/comm/comm.h"
#include "mpi/pt2pt/channel.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/grequest.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/pt2pt/partitioned.h"
#include "mpi/pt2pt/request.h"
#include "mpi/pt2pt/request_hooks.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/status.h"

req_t *tw_reqs;

/* The first slot never used; past TW_MAX_REQUESTS: none. */
static _Atomic int fresh = 1;

void tw_req_pool_init(void) {
    tw_reqs = calloc(TW_MAX_REQUESTS + 1, sizeof *tw_reqs);
    if (!tw_reqs) tw_mpi_error(NULL, "MPI_Init", MPI_ERR_NO_MEM, NULL);
    if (!tw_channel_single()) return; /* the channels' shares fill as they need */
    /* one channel: every slot in its free list at once, lowest first */
    tw_req_share_t *share = &tw_channel_main()->reqs;
    for (int i = TW_MAX_REQUESTS; i >= 1; i--) {
        tw_reqs[i].next = share->free_head;
        share->free_head = (uint16_t)i;
    }
    atomic_store_explicit(&fresh, TW_MAX_REQUESTS + 1, memory_order_relaxed);
}

static int fresh_slot(void) {
    /* relaxed: the slot's contents are its taker's, under its channel's lock */
    int i = atomic_fetch_add_explicit(&fresh, 1, memory_order_relaxed);
    if (i <= TW_MAX_REQUESTS) return i;
    atomic_store_explicit(&fresh, TW_MAX_REQUESTS + 1, memory_order_relaxed);
    return 0;
}

/* Slots a channel lends at a time: enough that a share short of slots does not come
 * back for each request, few enough that the lender keeps most of a long list. */
enum { LEND_MOST = 64 };

/* Up to LEND_MOST of channel k's free slots moved to share for good, under k's lock:
 * tried only, as this call holds its own channel's lock and may not wait for another
 * out of order. The number moved; -1 when the lock was busy. */
static int lend(int k, tw_req_share_t *share) {
    int took = tw_mpi_lock_try(k);
    if (took < 0) return -1;
    tw_req_share_t *from = &tw_channels[k].reqs;
    int moved = 0;
    for (; from->free_head && moved < LEND_MOST; moved++) {
        int i = from->free_head;
        from->free_head = (uint16_t)tw_reqs[i].next;
        tw_reqs[i].channel = share->channel;
        tw_reqs[i].next = share->free_head;
        share->free_head = (uint16_t)i;
    }
    if (took > 0) tw_mpi_lock_untry(k);
    return moved;
}

/* A channel whose lock is busy may be its holder's for a moment only (a wait gives
 * its locks away between passes): the channels are asked again a bounded number of
 * times before the pool counts as exhausted. */
enum { LEND_ROUNDS = 1000 };

int tw_req_slot_for(tw_req_share_t *share) {
    int i = fresh_slot();
    if (i) {
        tw_reqs[i].channel = share->channel; /* for good: a freed slot goes back here */
        return i;
    }
    for (int round = 0; round < LEND_ROUNDS; round++) {
        int busy = 0;
        for (int k = 0; k < tw_channel_count(); k++) {
            if (k == share->channel) continue;
            int moved = lend(k, share);
            if (moved > 0) {
                i = share->free_head;
                share->free_head = (uint16_t)tw_reqs[i].next;
                return i;
            }
            busy |= moved < 0;
        }
        if (!busy) return 0;
        sched_yield();
    }
    return 0;
}

void tw_req_free(int i) {
    if (tw_reqs[i].kind == REQ_PSEND || tw_reqs[i].kind == REQ_PRECV) tw_mpi_part_release(i);
    tw_mpi_staged_free(tw_reqs[i].staged);
    tw_reqs[i].staged = NULL;
    tw_reqs[i].kind = REQ_FREE;
    tw_req_share_t *share = &tw_channel_of_req(i)->reqs; /* back to the share it came from */
    tw_reqs[i].next = share->free_head;
    share->free_head = (uint16_t)i;
}

int tw_req_list_find(const tw_req_list_t *l, int i, int *prev) {
    *prev = 0;
    for (int j = l->head; j; *prev = j, j = tw_reqs[j].next)
        if (j == i) return 1;
    return 0;
}

/* ---- queries ---- */

int tw_mpi_request_valid(MPI_Request req) {
    return req == TW_MPI_REQUEST_SENT || tw_req_index(req) > 0;
}

int tw_mpi_request_active(MPI_Request req) {
    int i = tw_req_index(req);
    return req == TW_MPI_REQUEST_SENT || (i > 0 && tw_reqs[i].active);
}

int tw_mpi_request_done(MPI_Request req) {
    int i = tw_req_index(req);
    return req == TW_MPI_REQUEST_SENT || (i > 0 && tw_reqs[i].active && tw_reqs[i].done);
}

int tw_mpi_request_finished(MPI_Request req) {
    if (req == MPI_REQUEST_NULL || req == TW_MPI_REQUEST_SENT) return 1;
    const req_t *r = &tw_reqs[req & 0xffff];
    return r->done || !r->active;
}

tw_mpi_comm_t *tw_mpi_request_comm(MPI_Request req) {
    int i = tw_req_index(req);
    return i > 0 ? tw_mpi_comm_of_context(tw_reqs[i].context) : NULL;
}

tw_mpi_sched_start_fn *tw_mpi_sched_start;
static tw_mpi_sched_free_fn *sched_free;

void tw_mpi_persistent_colls(tw_mpi_sched_start_fn *start, tw_mpi_sched_free_fn *free_fn) {
    tw_mpi_sched_start = start;
    sched_free = free_fn;
}

int tw_mpi_coll_request(uint32_t context, MPI_Request *req) {
    int i = tw_req_alloc(&tw_channel_main()->reqs, REQ_COLL); /* its schedule's channel */
    if (!i) return MPI_ERR_NO_MEM;
    tw_reqs[i].context = context; /* its errors go to the communicator */
    *req = tw_req_handle(i);
    return MPI_SUCCESS;
}

tw_request_hooks_t *tw_req_hooks;

__attribute__((visibility("default"))) int tw_mpifort_request_hooks(MPI_Request req,
                                                                    const tw_request_hooks_t *h) {
    unsigned took = tw_mpi_threads_on ? tw_mpi_enter() : 0;
    int rc = MPI_SUCCESS, i = tw_req_index(req);
    if (i <= 0 || tw_reqs[i].kind != REQ_COLL) {
        /* a non-blocking collective done at once may be a finished receive already */
        if (i > 0 && tw_reqs[i].done && !tw_reqs[i].persistent) {
            h->after(h->arg);
            h->release(h->arg);
        } else
            rc = MPI_ERR_REQUEST;
    } else if (!tw_req_hooks &&
               !(tw_req_hooks = calloc(TW_MAX_REQUESTS + 1, sizeof *tw_req_hooks))) {
        rc = MPI_ERR_NO_MEM;
    } else if (tw_req_hooks[i].release) {
        rc = MPI_ERR_REQUEST;
    } else if (tw_reqs[i].done && !tw_reqs[i].persistent) {
        h->after(h->arg);
        h->release(h->arg);
    } else
        tw_req_hooks[i] = *h;
    if (tw_mpi_threads_on) tw_mpi_leave(took);
    return rc;
}

/* out of line: the hot completion path keeps no registers for it */
__attribute__((noinline, cold)) static void run_after(int i) {
    tw_request_hooks_t h = tw_req_hooks[i];
    h.after(h.arg);
    if (!tw_reqs[i].persistent) {
        tw_req_hooks[i] = (tw_request_hooks_t){0};
        h.release(h.arg);
    }
}

__attribute__((cold)) void tw_req_run_before(int i) {
    tw_req_hooks[i].before(tw_req_hooks[i].arg);
}

static void release_hooks(int i) {
    if (!tw_req_hooks || !tw_req_hooks[i].release) return;
    tw_request_hooks_t h = tw_req_hooks[i];
    tw_req_hooks[i] = (tw_request_hooks_t){0};
    h.release(h.arg);
}

void tw_mpi_coll_request_done(MPI_Request req, int error) {
    int i = req & 0xffff;
    if (tw_req_hooks && tw_req_hooks[i].after) run_after(i);
    tw_reqs[i].error = error;
    tw_req_done(i);
}

void tw_mpi_coll_request_done_as_recv(MPI_Request req, int error, const MPI_Status *status) {
    int i = req & 0xffff;
    req_t *r = &tw_reqs[i];
    const tw_mpi_comm_t *c = tw_mpi_comm_of_context(r->context);
    if (tw_req_hooks && tw_req_hooks[i].after) run_after(i); /* as tw_mpi_coll_request_done */
    r->kind = REQ_RECV; /* done: no queue holds it, and its status is a receive's */
    r->st_source = c ? tw_mpi_world_rank(c, status->MPI_SOURCE) : status->MPI_SOURCE;
    r->st_tag = status->MPI_TAG;
    r->st_bytes = (size_t)(uint32_t)status->tw_count_lo | (size_t)(uint32_t)status->tw_count_hi
                                                              << 32;
    r->cancelled = (uint8_t)status->tw_cancelled;
    r->error = error;
    tw_req_done(i);
}

/* ---- completion ---- */

static void fill_status(const req_t *r, MPI_Status *status) {
    if (!status) return;
    if ((r->kind == REQ_RECV || r->kind == REQ_PRECV) && !r->cancelled)
        tw_req_set_status(status, r->context, r->st_source, r->st_tag, r->st_bytes);
    else
        tw_mpi_status_fill(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, r->cancelled);
}

/* A send that left at once: complete, successful; its status as any send's (fill_status:
 * the error field left alone) */
static int complete_sent(MPI_Request *req, MPI_Status *status) {
    if (status) tw_mpi_status_fill(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* The result of a finished request: its status, and the request freed (or, when
 * persistent, made inactive). An inactive one reports an empty status. */
static int complete(int i, MPI_Request *req, MPI_Status *status) {
    req_t *r = &tw_reqs[i];
    if (!r->active) {
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
        return MPI_SUCCESS;
    }
    if (r->kind == REQ_GREQ) return tw_mpi_greq_complete(i, req, status);
    int err = r->error;
    fill_status(r, status);
    if (r->persistent) {
        r->active = 0;
    } else {
        tw_req_free(i);
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
    int i = tw_req_index(*req);
    if (i <= 0) return MPI_ERR_REQUEST;
    if (!tw_reqs[i].done) tw_mpi_progress();
    *flag = tw_reqs[i].done;
    return *flag ? complete(i, req, status) : MPI_SUCCESS;
}

int tw_mpi_wait(MPI_Request *req, MPI_Status *status) {
    if (*req == TW_MPI_REQUEST_SENT) return complete_sent(req, status);
    int i = tw_req_index(*req);
    if (i <= 0) return MPI_ERR_REQUEST;
    unsigned spins = 0;
    while (!tw_reqs[i].done) {
        tw_mpi_progress();
        if (!tw_reqs[i].done) tw_mpi_relax(&spins);
    }
    return complete(i, req, status);
}

int tw_mpi_request_status(MPI_Request req, int *flag, MPI_Status *status) {
    if (req == TW_MPI_REQUEST_SENT) {
        *flag = 1;
        if (status) tw_mpi_status_fill(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
        return MPI_SUCCESS;
    }
    int i = tw_req_index(req);
    if (i <= 0) return MPI_ERR_REQUEST;
    if (!tw_reqs[i].done) tw_mpi_progress();
    *flag = tw_reqs[i].done;
    if (*flag && tw_reqs[i].kind == REQ_GREQ) return tw_mpi_greq_status(i, status);
    if (*flag && !tw_reqs[i].active && status)
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
    else if (*flag)
        fill_status(&tw_reqs[i], status);
    return MPI_SUCCESS;
}

/* MPI_Request_free: a finished or inactive request goes now; one still running is
 * left to finish on its own and goes back to the pool then. */
int tw_mpi_request_free(MPI_Request *req) {
    if (*req == TW_MPI_REQUEST_SENT) {
        *req = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    int i = tw_req_index(*req);
    if (i <= 0) return MPI_ERR_REQUEST;
    if (tw_reqs[i].kind == REQ_GREQ) {
        *req = MPI_REQUEST_NULL;
        return tw_mpi_greq_free(i);
    }
    if (tw_reqs[i].kind == REQ_COLL && tw_reqs[i].persistent) {
        if (tw_reqs[i].active) return MPI_ERR_REQUEST; /* its caller names the error */
        sched_free(tw_reqs[i].buf);
        release_hooks(i);
        tw_req_free(i);
    } else if (tw_reqs[i].done)
        tw_req_free(i);
    else
        tw_reqs[i].orphan = 1; /* tw_req_done releases it */
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
