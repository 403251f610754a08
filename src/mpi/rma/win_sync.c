/* MPI one-sided communication: synchronization. The lock words and flushes, the
 * PSCW messages, and every synchronization call: fence, post/start/complete/wait/
 * test, lock/unlock (all), flush, sync. */
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/comm.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/env/state.h"
#include "mpi/rma/win.h"
#include "mpi/rma/win_msg.h"
#include "mpi/pt2pt/wire.h"

/* ---- lock words and flushes ---- */

/* An atomic on lock word idx of world rank `world`; the old value once it is known. */
int tw_win_lock_atomic(win_t *w, int world, tw_atomic_op_t op, unsigned idx, uint64_t a, uint64_t b,
                       uint64_t *old) {
    unsigned spins = 0;
    int rc;
    uint64_t v = 0;
    /* without old nothing is fetched: across nodes the answer comes after we return */
    while ((rc = tw_atomic(tw_mpi.ep, world, op, 8, tw_lock_nla(idx), 0, a, b, old ? &v : NULL, 0,
                           cookie_of(w))) == TW_RETRY)
        relax(&spins);
    if (rc) return rc;
    if (old) {
        rc = tw_rma_flush(tw_mpi.ep, world); /* across nodes: the answer brings the value */
        /* an atomic the peer's loss ended completes too, with no value: not a lock */
        if (!rc) rc = tw_ep_peer_status(tw_mpi.ep, world);
        *old = v;
    }
    return rc;
}

static int flush_target(win_t *w, int r) {
    /* puts sent as messages first: that wait takes in messages, which the device's
     * flush alone does not (across nodes its answers could wait behind them) */
    int rc = w->t[r].puts_sent != w->t[r].puts_seen ? tw_win_put_wait(w, r) : TW_OK;
    if (!rc) rc = tw_rma_flush(tw_mpi.ep, w->t[r].dest);
    if (!rc && w->t[r].world != w->t[r].dest) rc = tw_rma_flush(tw_mpi.ep, w->t[r].world);
    return rc;
}

int tw_win_flush_all(win_t *w) {
    if (w->shm) return TW_OK; /* copies and CPU atomics: complete as they return */
    for (int r = 0; r < w->size; r++) {
        /* one found lost (by another rank, maybe) may never answer: its loss is the
         * caller's error */
        if (tw_win_lost(w, w->t[r].world)) continue;
        int rc = flush_target(w, r);
        if (rc) return rc;
    }
    return TW_OK;
}

/* ---- a lost peer ---- */

int tw_win_lost(const win_t *w, int peer) {
    if (!tw_mpi_lost_count) return 0;
    if (peer >= 0) return tw_mpi_is_lost(peer) ? tw_mpi_lost_code(peer) : 0;
    int m = tw_mpi_comm_lost_member(w->c);
    return m >= 0 ? tw_mpi_lost_code(m) : 0;
}

/* The code of world rank peer when MPI or the device knows it lost (recorded now if
 * only the device does); 0 when it is not. */
static int lost_code(int peer) {
    if (peer < 0) return 0;
    if (tw_mpi_lost_count && tw_mpi_is_lost(peer)) return tw_mpi_lost_code(peer);
    int why = tw_ep_peer_status(tw_mpi.ep, peer);
    return tw_status_peer_lost(why) ? tw_mpi_peer_error(peer, why) : 0;
}

int tw_win_device_error(const win_t *w, int peer, int rc) {
    switch (rc) {
    case TW_ERR_LOST:
    case TW_ERR_RESET:
    case TW_ERR_DESYNC: {
        /* the peer named, else the member that was lost (a lock word's holder, say) */
        int code = lost_code(peer);
        for (int r = 0; !code && w && r < w->size; r++) code = lost_code(w->t[r].world);
        return code ? code : MPI_ERR_OTHER;
    }
    case TW_ERR_KEY:
    case TW_ERR_BOUNDS:
    case TW_ERR_STALE:
    case TW_ERR_PERM:
    case TW_ERR_ALIGN:
        return MPI_ERR_RMA_RANGE;
    default:
        return MPI_ERR_OTHER;
    }
}

int tw_win_completion(win_t *w, int peer, int rc) {
    int err = rc ? tw_win_device_error(w, peer, rc) : MPI_SUCCESS;
    if (!err && !w->shm && take_faults(w)) err = MPI_ERR_RMA_RANGE;
    int lost = tw_win_lost(w, peer);
    return lost ? lost : err;
}

/* ---- PSCW messages ---- */

void tw_mpi_win_message(int source, const void *data, size_t len) {
    uint32_t kind = 0; /* after the context; each taker checks the whole message */
    if (len >= sizeof(win_msg_t)) memcpy(&kind, (const unsigned char *)data + 4, sizeof kind);
    if (kind == MSG_ACC)
        (void)tw_win_acc_take(tw_win_table, source, data, len);
    else if (kind == MSG_ACC_ANSWER)
        (void)tw_win_acc_answer_take(source, data, len);
    else if (len > sizeof(win_msg_t))
        (void)tw_win_put_take(tw_win_table, source, data, len);
    else
        (void)tw_win_msg_take(tw_win_table, source, data, len);
}

static int send_msg(win_t *w, int r, uint32_t kind) {
    win_msg_t m = {w->context, kind};
    unsigned spins = 0;
    int rc;
    while ((rc = tw_velo_send(tw_mpi.ep, w->t[r].world, TW_MPI_WIN, &m, sizeof m)) == TW_RETRY)
        relax(&spins);
    return rc;
}

/* ---- synchronization ---- */

static int any_lock(const win_t *w) {
    if (w->lock_all) return 1;
    for (int r = 0; r < w->size; r++)
        if (w->tacc[r] & (ACC_SHARED | ACC_EXCL | ACC_NOCHECK)) return 1;
    return 0;
}

int MPI_Win_fence(int assert, MPI_Win win) {
    GET_WIN("MPI_Win_fence", win);
    if (assert & ~(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED))
        return tw_win_error(w, "MPI_Win_fence", MPI_ERR_ASSERT, NULL);
    int lost = tw_win_lost(w, -1);
    if (any_lock(w) || w->started || w->posted)
        return tw_win_error(w, "MPI_Win_fence", lost ? lost : MPI_ERR_RMA_SYNC,
                            lost ? NULL : "inside another epoch");
    /* with a member lost: the healthy ones' operations are completed, the barrier fails
     * at once, and the epoch goes on as without the loss */
    int rc = MPI_SUCCESS;
    if (!(assert &MPI_MODE_NOPRECEDE)) rc = tw_win_completion(w, -1, tw_win_flush_all(w));
    int brc = MPI_Barrier(w->comm);
    w->fence = !(assert &MPI_MODE_NOSUCCEED);
    w->sync++;
    if (!rc) rc = brc;
    if ((lost = tw_win_lost(w, -1))) rc = lost; /* one met meanwhile */
    return rc ? tw_win_error(w, "MPI_Win_fence", rc, NULL) : MPI_SUCCESS;
}

/* The window ranks of a group's members; NULL (and the class in *rc) when one is
 * not in the window. */
static int *ranks_of(win_t *w, MPI_Group group, int *n, int *rc) {
    *rc = MPI_Group_size(group, n);
    if (*rc) return NULL;
    int *in = malloc((size_t)(*n + 1) * sizeof *in), *out = malloc((size_t)(*n + 1) * sizeof *out);
    MPI_Group wg;
    if (!in || !out || MPI_Comm_group(w->comm, &wg)) {
        free(in);
        free(out);
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    for (int i = 0; i < *n; i++) in[i] = i;
    *rc = MPI_Group_translate_ranks(group, *n, in, wg, out);
    MPI_Group_free(&wg);
    free(in);
    for (int i = 0; !*rc && i < *n; i++)
        if (out[i] < 0) *rc = MPI_ERR_GROUP;
    if (*rc) {
        free(out);
        return NULL;
    }
    return out;
}

/* The code of a lost one among n window ranks r; 0: none. */
static int lost_among(const win_t *w, const int *r, int n) {
    for (int i = 0; tw_mpi_lost_count && i < n; i++) {
        int lost = tw_win_lost(w, w->t[r[i]].world);
        if (lost) return lost;
    }
    return 0;
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
    GET_WIN("MPI_Win_post", win);
    if (assert & ~(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT))
        return tw_win_error(w, "MPI_Win_post", MPI_ERR_ASSERT, NULL);
    int n, rc;
    int *r = ranks_of(w, group, &n, &rc);
    if (!r) return tw_win_error(w, "MPI_Win_post", rc, NULL);
    if (!(rc = lost_among(w, r, n)) && w->posted) {
        free(r);
        return tw_win_error(w, "MPI_Win_post", MPI_ERR_RMA_SYNC, "posted already");
    }
    for (int i = 0; i < n && !rc; i++) {
        int sent = send_msg(w, r[i], MSG_POST);
        if (sent) rc = tw_win_device_error(w, w->t[r[i]].world, sent);
    }
    free(r);
    if (rc) return tw_win_error(w, "MPI_Win_post", rc, NULL);
    w->posted = 1;
    w->npost = n;
    return MPI_SUCCESS;
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
    GET_WIN("MPI_Win_start", win);
    if (assert & ~MPI_MODE_NOCHECK) return tw_win_error(w, "MPI_Win_start", MPI_ERR_ASSERT, NULL);
    int n, rc;
    int *r = ranks_of(w, group, &n, &rc);
    if (!r) return tw_win_error(w, "MPI_Win_start", rc, NULL);
    int lost = lost_among(w, r, n);
    if (lost || w->started) {
        free(r);
        return lost ? tw_win_error(w, "MPI_Win_start", lost, NULL)
                    : tw_win_error(w, "MPI_Win_start", MPI_ERR_RMA_SYNC, "started already");
    }
    for (int i = 0; i < n; i++) { /* each target's post must have come */
        unsigned spins = 0;
        while (!w->posts_in[r[i]]) {
            relax(&spins);
            /* a member lost: the post may never come (its sender may have failed
             * for the loss); the window's posts that came are taken */
            lost = w->posts_in[r[i]] ? 0 : tw_win_lost(w, -1);
            if (lost) {
                free(r);
                return tw_win_error(w, "MPI_Win_start", lost, NULL);
            }
        }
        w->posts_in[r[i]]--;
        w->tacc[r[i]] |= ACC_STARTED;
    }
    free(r);
    w->started = 1;
    w->sync++;
    return MPI_SUCCESS;
}

int MPI_Win_complete(MPI_Win win) {
    GET_WIN("MPI_Win_complete", win);
    if (!w->started) { /* (a start a loss failed, perhaps) */
        int lost = tw_win_lost(w, -1);
        return tw_win_error(w, "MPI_Win_complete", lost ? lost : MPI_ERR_RMA_SYNC,
                            lost ? NULL : "no MPI_Win_start");
    }
    int rc = MPI_SUCCESS, lost = 0;
    for (int r = 0; r < w->size && !rc; r++)
        if ((w->tacc[r] & ACC_STARTED) && !w->shm && !tw_win_lost(w, w->t[r].world) &&
            (rc = flush_target(w, r)))
            rc = tw_win_device_error(w, w->t[r].world, rc);
    if (!rc && !w->shm && take_faults(w)) rc = MPI_ERR_RMA_RANGE;
    /* every target is told, the healthy ones wait for it; a lost one is the error */
    for (int r = 0; r < w->size; r++) {
        if (!(w->tacc[r] & ACC_STARTED)) continue;
        w->tacc[r] &= (uint8_t)~ACC_STARTED;
        int world = w->t[r].world, sent = tw_win_lost(w, world) ? TW_ERR_LOST : TW_OK;
        if (!sent) sent = send_msg(w, r, MSG_COMPLETE);
        if (sent && !rc) rc = tw_win_device_error(w, world, sent);
        if (!lost) lost = tw_win_lost(w, world);
    }
    w->started = 0;
    if (lost) rc = lost;
    return rc ? tw_win_error(w, "MPI_Win_complete", rc, NULL) : MPI_SUCCESS;
}

int MPI_Win_wait(MPI_Win win) {
    GET_WIN("MPI_Win_wait", win);
    if (!w->posted) { /* (a post a loss failed, perhaps) */
        int lost = tw_win_lost(w, -1);
        return tw_win_error(w, "MPI_Win_wait", lost ? lost : MPI_ERR_RMA_SYNC,
                            lost ? NULL : "no MPI_Win_post");
    }
    unsigned spins = 0;
    while (w->completes_in < w->npost) {
        relax(&spins);
        /* a member lost: some may never come (their senders may have failed for it) */
        int lost = w->completes_in < w->npost ? tw_win_lost(w, -1) : 0;
        if (lost) {
            w->completes_in = 0;
            w->posted = 0;
            return tw_win_error(w, "MPI_Win_wait", lost, NULL);
        }
    }
    w->completes_in -= w->npost;
    w->posted = 0;
    w->sync++;
    return MPI_SUCCESS;
}

int MPI_Win_test(MPI_Win win, int *flag) {
    GET_WIN("MPI_Win_test", win);
    if (!flag) return tw_win_error(w, "MPI_Win_test", MPI_ERR_ARG, NULL);
    int lost;
    if (!w->posted) {
        lost = tw_win_lost(w, -1);
        return tw_win_error(w, "MPI_Win_test", lost ? lost : MPI_ERR_RMA_SYNC,
                            lost ? NULL : "no MPI_Win_post");
    }
    if (w->completes_in < w->npost) tw_mpi_progress();
    lost = w->completes_in < w->npost ? tw_win_lost(w, -1) : 0;
    if (lost) {
        w->completes_in = 0;
        w->posted = 0;
        return tw_win_error(w, "MPI_Win_test", lost, NULL);
    }
    *flag = w->completes_in >= w->npost;
    if (*flag) {
        w->completes_in -= w->npost;
        w->posted = 0;
        w->sync++;
    }
    return MPI_SUCCESS;
}

/* Takes the lock word of window rank r: exclusive, CAS 0 -> WRITER; shared, FCAA
 * adding 1 while the word is below WRITER (no writer). */
static int lock_target(win_t *w, int r, int exclusive) {
    unsigned spins = 0;
    /* one found lost (by another rank, maybe) is not asked: its link may take the
     * request, and no answer would come */
    if (tw_win_lost(w, w->t[r].world)) return TW_ERR_LOST;
    for (;;) {
        uint64_t old = 0;
        int rc = exclusive ? tw_win_lock_atomic(w, w->t[r].world, TW_ATOMIC_CAS, w->lock_idx, 0,
                                                WRITER, &old)
                           : tw_win_lock_atomic(w, w->t[r].world, TW_ATOMIC_FCAA, w->lock_idx,
                                                WRITER - 1, 1, &old);
        if (rc) return rc;
        if (exclusive ? old == 0 : (int64_t)old <= (int64_t)(WRITER - 1)) return TW_OK;
        relax(&spins);
        /* its holder may be a member that was lost: it would never give it back */
        if (tw_win_lost(w, -1)) return TW_ERR_LOST;
    }
}

static int unlock_target(win_t *w, int r, int exclusive) {
    return tw_win_lock_atomic(w, w->t[r].world, TW_ATOMIC_FADD, w->lock_idx,
                              exclusive ? (uint64_t)0 - WRITER : (uint64_t)0 - 1, 0, NULL);
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
    GET_WIN("MPI_Win_lock", win);
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return tw_win_error(w, "MPI_Win_lock", MPI_ERR_LOCKTYPE, NULL);
    if (assert & ~MPI_MODE_NOCHECK) return tw_win_error(w, "MPI_Win_lock", MPI_ERR_ASSERT, NULL);
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size) return tw_win_error(w, "MPI_Win_lock", MPI_ERR_RANK, NULL);
    int world = w->t[rank].world, lost = tw_win_lost(w, world);
    if (lost) return tw_win_error(w, "MPI_Win_lock", lost, NULL);
    if (w->lock_all || (w->tacc[rank] & (ACC_SHARED | ACC_EXCL)))
        return tw_win_error(w, "MPI_Win_lock", MPI_ERR_RMA_SYNC, "locked already");
    if (w->started)
        return tw_win_error(w, "MPI_Win_lock", MPI_ERR_RMA_SYNC,
                            "inside the access epoch of MPI_Win_start");
    int excl = lock_type == MPI_LOCK_EXCLUSIVE, locked;
    if (!(assert &MPI_MODE_NOCHECK) && (locked = lock_target(w, rank, excl)))
        return tw_win_error(w, "MPI_Win_lock", tw_win_device_error(w, world, locked), NULL);
    w->tacc[rank] |=
        (uint8_t)((excl ? ACC_EXCL : ACC_SHARED) | (assert &MPI_MODE_NOCHECK ? ACC_NOCHECK : 0));
    w->fence = 0; /* epochs are disjoint: a fence's, which no access may have used, ends */
    w->sync++;
    return MPI_SUCCESS;
}

int MPI_Win_unlock(int rank, MPI_Win win) {
    GET_WIN("MPI_Win_unlock", win);
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size) return tw_win_error(w, "MPI_Win_unlock", MPI_ERR_RANK, NULL);
    uint8_t a = w->tacc[rank];
    int world = w->t[rank].world, lost = tw_win_lost(w, world);
    if (lost) { /* nothing to flush or give back: its epoch ends here */
        w->tacc[rank] &= (uint8_t) ~(ACC_SHARED | ACC_EXCL | ACC_NOCHECK);
        return tw_win_error(w, "MPI_Win_unlock", lost, NULL);
    }
    if (!(a & (ACC_SHARED | ACC_EXCL)))
        return tw_win_error(w, "MPI_Win_unlock", MPI_ERR_RMA_SYNC, "not locked");
    int rc = tw_win_completion(w, world, w->shm ? TW_OK : flush_target(w, rank));
    int unlocked =
        a & ACC_NOCHECK || tw_win_lost(w, world) ? TW_OK : unlock_target(w, rank, a & ACC_EXCL);
    if (unlocked && !rc) rc = tw_win_device_error(w, world, unlocked);
    w->tacc[rank] &= (uint8_t) ~(ACC_SHARED | ACC_EXCL | ACC_NOCHECK);
    return rc ? tw_win_error(w, "MPI_Win_unlock", rc, NULL) : MPI_SUCCESS;
}

int MPI_Win_lock_all(int assert, MPI_Win win) {
    GET_WIN("MPI_Win_lock_all", win);
    if (assert & ~MPI_MODE_NOCHECK)
        return tw_win_error(w, "MPI_Win_lock_all", MPI_ERR_ASSERT, NULL);
    int lost = tw_win_lost(w, -1);
    if (lost) return tw_win_error(w, "MPI_Win_lock_all", lost, NULL);
    if (any_lock(w)) return tw_win_error(w, "MPI_Win_lock_all", MPI_ERR_RMA_SYNC, "locked already");
    if (w->started)
        return tw_win_error(w, "MPI_Win_lock_all", MPI_ERR_RMA_SYNC,
                            "inside the access epoch of MPI_Win_start");
    int locked;
    if (!(assert &MPI_MODE_NOCHECK))
        for (int r = 0; r < w->size; r++)
            if ((locked = lock_target(w, r, 0))) {
                int err = tw_win_device_error(w, w->t[r].world, locked);
                while (r--)
                    if (!tw_win_lost(w, w->t[r].world)) unlock_target(w, r, 0);
                return tw_win_error(w, "MPI_Win_lock_all", err, NULL);
            }
    w->lock_all = assert &MPI_MODE_NOCHECK ? 2 : 1;
    w->fence = 0; /* as in MPI_Win_lock */
    w->sync++;
    return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win win) {
    GET_WIN("MPI_Win_unlock_all", win);
    if (!w->lock_all) {
        int lost = tw_win_lost(w, -1);
        return tw_win_error(w, "MPI_Win_unlock_all", lost ? lost : MPI_ERR_RMA_SYNC,
                            lost ? NULL : "not locked");
    }
    /* the healthy members' locks are given back whatever the others' fate */
    int rc = tw_win_completion(w, -1, tw_win_flush_all(w)), unlocked;
    if (w->lock_all == 1)
        for (int r = 0; r < w->size; r++)
            if (!tw_win_lost(w, w->t[r].world) && (unlocked = unlock_target(w, r, 0)) && !rc)
                rc = tw_win_device_error(w, w->t[r].world, unlocked);
    w->lock_all = 0;
    int lost = tw_win_lost(w, -1);
    if (lost) rc = lost;
    return rc ? tw_win_error(w, "MPI_Win_unlock_all", rc, NULL) : MPI_SUCCESS;
}

static int passive(const win_t *w, int r) {
    return w->lock_all || (w->tacc[r] & (ACC_SHARED | ACC_EXCL));
}

static int flush_call(const char *call, int rank, MPI_Win win) {
    GET_WIN(call, win);
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size) return tw_win_error(w, call, MPI_ERR_RANK, NULL);
    int world = w->t[rank].world, rc = tw_win_lost(w, world);
    if (!rc && !passive(w, rank))
        return tw_win_error(w, call, MPI_ERR_RMA_SYNC, "no passive epoch");
    if (!rc) rc = tw_win_completion(w, world, w->shm ? TW_OK : flush_target(w, rank));
    return rc ? tw_win_error(w, call, rc, NULL) : MPI_SUCCESS;
}

static int flush_all_call(const char *call, MPI_Win win) {
    GET_WIN(call, win);
    if (!any_lock(w)) {
        int lost = tw_win_lost(w, -1);
        return tw_win_error(w, call, lost ? lost : MPI_ERR_RMA_SYNC,
                            lost ? NULL : "no passive epoch");
    }
    /* the healthy members' operations complete; a lost one is the error */
    int rc = tw_win_completion(w, -1, tw_win_flush_all(w));
    return rc ? tw_win_error(w, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Win_flush(int rank, MPI_Win win) {
    return flush_call("MPI_Win_flush", rank, win);
}

int MPI_Win_flush_local(int rank, MPI_Win win) {
    return flush_call("MPI_Win_flush_local", rank, win);
}

int MPI_Win_flush_all(MPI_Win win) {
    return flush_all_call("MPI_Win_flush_all", win);
}

int MPI_Win_flush_local_all(MPI_Win win) {
    return flush_all_call("MPI_Win_flush_local_all", win);
}

int MPI_Win_sync(MPI_Win win) {
    GET_WIN("MPI_Win_sync", win);
    (void)w;
    /* a full memory barrier: a locked read-modify-write (what a seq_cst fence
     * compiles to, and one that ThreadSanitizer understands) */
    static int barrier_word;
    __atomic_fetch_add(&barrier_word, 0, __ATOMIC_SEQ_CST);
    tw_mpi_progress();
    return MPI_SUCCESS;
}
