/* Peer failure. The device puts a TW_VELO_TAG_LOST message into the mailbox when
 * the link declares a peer lost; the progress pass hands it here (off the paths of
 * the point-to-point kinds, so a healthy job pays nothing for it).
 *
 * Under MPI_COMM_WORLD's MPI_ERRORS_ARE_FATAL the job ends at once, with a message
 * naming this rank, the peer and the cause: no wait anywhere can hang on the peer.
 * Under MPI_ERRORS_RETURN (or a handler of the program's, which each failing call then
 * calls) the peer is recorded and a progress hook fails, with the
 * peer's error code, every operation that waits on it: sends to it, receives from
 * it, receives from MPI_ANY_SOURCE and collectives on a communicator that contains
 * it. The rank also tells every other rank (a TW_MPI_LOST notice), so that a rank
 * waiting in a collective only on healthy peers — which wait on the lost one — ends
 * too instead of waiting for them. A peer that had declared this rank lost (a
 * reset) is failed here the same way, but not announced: it is well, and announces
 * this rank. A peer that gave up data this rank never received (it took a forged
 * acknowledgement) is failed and announced as one that stopped answering is. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/comm/comm.h"
#include "mpi/env/errcode.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/tools/events.h"

#include <tollway/settings.h>

/* The error code of lost world rank r is CODE_BASE + r: far above the classes, below
 * MPI_ERR_LASTCODE. */
#define CODE_BASE 0x100000
/* and that of a collective world rank r gave up is GAVE_UP_BASE + r */
#define GAVE_UP_BASE 0x200000

_Atomic int tw_mpi_lost_count;
static int8_t *cause;    /* per world rank: 0, or TW_ERR_LOST / TW_ERR_RESET / TW_ERR_DESYNC */
static int *reporter;    /* per world rank: who found it lost (this rank: itself) */
static int *lost;        /* the lost world ranks, in the order they were found */
static int *notify_next; /* per rank found lost here: the next rank to tell */
/* Per channel (bit k): a new loss, for which its running requests are looked at once. */
static unsigned rescan;
/* Per channel: the losses (entries of lost) its state has taken in. Each channel takes
 * them in under its own lock (apply), at once when the thread that records the loss
 * holds it, else in the lost hook's next pass that can take it. */
static int applied[TW_CHANNELS_MOST];

int tw_mpi_is_lost(int world) {
    /* read by calls on a channel's traffic without the library's lock: a byte that
     * turns non-zero once */
    return world >= 0 && world < tw_mpi.size && __atomic_load_n(&cause[world], __ATOMIC_RELAXED);
}

/* Channel k takes in the losses it has not: sends to those ranks leave the fast path,
 * which sends only when nothing is pending to the peer, for the general one, which
 * fails them (its link may still take them: another rank found it lost); and after the
 * first, a blocking receive never waits on the mailbox alone (as when a rendezvous is
 * under way): it goes through the posted queue, which the hook looks at in every pass.
 * Under channel k's lock, and the library's. */
static void apply(int k) {
    tw_channel_t *ch = &tw_channels[k];
    for (; applied[k] < tw_mpi_lost_count; applied[k]++) {
        ch->pending_to[lost[applied[k]]] += 1 << 30;
        if (applied[k] == 0) ch->rendezvous++;
    }
}

int tw_mpi_lost_code(int world) {
    return CODE_BASE + world;
}

static int code_rank(int code) {
    int r = code - CODE_BASE;
    return code >= CODE_BASE && r < tw_mpi.size && cause && cause[r] ? r : -1;
}

int tw_mpi_gave_up_code(int world) {
    return GAVE_UP_BASE + world;
}

static int gave_up_rank(int code) {
    return code >= GAVE_UP_BASE && code - GAVE_UP_BASE < tw_mpi.size ? code - GAVE_UP_BASE : -1;
}

int tw_mpi_gave_up_class(int code, int *errclass) {
    if (gave_up_rank(code) < 0) return 0;
    *errclass = MPI_ERR_OTHER;
    return 1;
}

int tw_mpi_gave_up_string(int code, char *string, int *resultlen) {
    int r = gave_up_rank(code);
    if (r < 0) return 0;
    *resultlen = snprintf(string, MPI_MAX_ERROR_STRING,
                          "collective given up: rank %d (of MPI_COMM_WORLD) could not take part "
                          "in a collective on this communicator (no memory for a packed copy of "
                          "its buffer); the communicator's shared-memory collectives fail from "
                          "then on, its messages still go",
                          r);
    return 1;
}

int tw_mpi_lost_class(int code, int *errclass) {
    if (code_rank(code) < 0) return 0;
    *errclass = MPIX_ERR_PROC_FAILED;
    return 1;
}

int tw_mpi_lost_string(int code, char *string, int *resultlen) {
    int r = code_rank(code);
    if (r < 0) return 0;
    unsigned long long ms = (unsigned long long)tw_setting_unsigned(TW_SETTING_UDP_TIMEOUT);
    char by[32] = ""; /* who found it lost, when another rank did */
    if (reporter[r] != tw_mpi.rank) snprintf(by, sizeof by, "rank %d", reporter[r]);
    if (cause[r] == TW_ERR_RESET)
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING,
                              "process failed: rank %d lost: it had declared %s lost (its "
                              "TW_UDP_TIMEOUT passed without an answer from it, or it found "
                              "data it never received given up)",
                              r, *by ? by : "this rank");
    else if (cause[r] == TW_ERR_DESYNC)
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING,
                              "process failed: rank %d lost: it gave up data %s never received "
                              "(it took an acknowledgement of it that was never sent: forged "
                              "with the job's secret)",
                              r, *by ? by : "this rank");
    else
        *resultlen = snprintf(string, MPI_MAX_ERROR_STRING,
                              "process failed: rank %d lost: it did not answer %s%sfor %llu ms "
                              "(TW_UDP_TIMEOUT)",
                              r, by, *by ? " " : "", ms);
    if (*resultlen >= MPI_MAX_ERROR_STRING) *resultlen = MPI_MAX_ERROR_STRING - 1;
    return 1;
}

int tw_mpi_comm_lost_member(const tw_mpi_comm_t *c) {
    if (!c) return -1;
    for (int k = 0; k < tw_mpi_lost_count; k++) {
        int w = lost[k];
        if (!c->world || tw_mpi_comm_rank_search(c, w) >= 0) return w;
        if (c->inter && c->local_world)
            for (int j = 0; j < c->local_size; j++)
                if (c->local_world[j] == w) return w;
    }
    return -1;
}

/* Under MPI_ERRORS_ARE_FATAL: the message, and the job ends through the launcher. */
static _Noreturn void end_job(int world) {
    char what[MPI_MAX_ERROR_STRING], msg[MPI_MAX_ERROR_STRING + 128];
    int len;
    tw_mpi_lost_string(tw_mpi_lost_code(world), what, &len);
    snprintf(msg, sizeof msg, "tollway MPI: rank %d: %s (error class %d); ending the job",
             tw_mpi.rank, what, MPIX_ERR_PROC_FAILED);
    int status = tw_mpi_fatal_status(MPIX_ERR_PROC_FAILED);
    if (tw_mpi.ep) tw_ep_abort(tw_mpi.ep, status, msg);
    fprintf(stderr, "%s\n", msg);
    _exit(status);
}

/* Records world rank world lost for cause, as rank by found. */
static void record(int world, int why, int by) {
    if (world < 0 || world >= tw_mpi.size || world == tw_mpi.rank || cause[world]) return;
    if (why != TW_ERR_RESET && why != TW_ERR_DESYNC) why = TW_ERR_LOST;
    __atomic_store_n(&cause[world], (int8_t)why, __ATOMIC_RELAXED);
    reporter[world] = by;
    lost[tw_mpi_lost_count++] = world;
    if (tw_mpi_t_event_wanted(TW_EVENT_PEER_LOST))
        tw_mpi_t_event_peer_lost(world, tw_mpi_lost_code(world), by);
    for (int k = 0; k < tw_channel_count(); k++)
        if (!tw_mpi_threads_on || (tw_mpi_held() & (1u << k))) apply(k);
    if (tw_mpi_lost_count == 1) tw_mpi_hook_on(TW_HOOK_LOST);
    const tw_mpi_comm_t *w = tw_mpi_comm_get(MPI_COMM_WORLD);
    if (!w || w->errhandler == MPI_ERRORS_ARE_FATAL || w->errhandler == MPI_ERRORS_ABORT)
        end_job(world);
    rescan = (1u << tw_channel_count()) - 1;
    /* the others are told of a peer that stopped answering here, or gave up data; not
     * of one that declared this rank lost: that one is well, and tells them about this
     * rank */
    notify_next[world] = by == tw_mpi.rank && why != TW_ERR_RESET ? 0 : tw_mpi.size;
}

int tw_mpi_peer_error(int peer, int rc) {
    if (!tw_status_peer_lost(rc) || peer < 0 || peer >= tw_mpi.size || !cause)
        return MPI_ERR_OTHER; /* (no cause: before MPI_Init set this unit up) */
    int why = tw_ep_peer_status(tw_mpi.ep, peer);
    /* a call on a channel's traffic holds its lock alone: the tables are the library's,
     * whose lock comes after it in the order */
    unsigned took = tw_mpi_threads_on ? tw_mpi_lock_set(TW_MPI_LOCK_LIBRARY) : 0;
    record(peer, why == TW_ERR_RESET || why == TW_ERR_DESYNC ? why : rc, tw_mpi.rank);
    if (tw_mpi_threads_on) tw_mpi_unlock_set(took);
    return tw_mpi_lost_code(peer);
}

/* The device's notice: source is lost; the cause in 4 bytes. */
static void on_device_notice(int source, const void *data, size_t len) {
    int32_t why = TW_ERR_LOST;
    if (len >= sizeof why) memcpy(&why, data, sizeof why);
    record(source, why, tw_mpi.rank);
}

/* A peer's notice: it found a rank lost. Not believed about this rank itself, nor
 * from a peer already lost here. */
static void on_peer_notice(int source, const void *data, size_t len) {
    tw_mpi_lost_notice_t n;
    if (len != sizeof n || source < 0 || source >= tw_mpi.size || cause[source]) return;
    memcpy(&n, data, sizeof n);
    if (n.rank < 0 || n.rank >= tw_mpi.size || n.rank == tw_mpi.rank) return;
    if (!tw_status_peer_lost(n.cause)) return;
    record(n.rank, n.cause, source);
}

/* A receive still in the posted queue: not matched yet (a match sets its protocol,
 * or completes it). */
static int is_posted(const req_t *r) {
    return r->kind == REQ_RECV && r->state == TW_STATE_START && r->proto == TW_PROTO_EAGER;
}

/* The peer a request waits on that is lost: its code; 0 when it waits on none. */
static int lost_dependency(const req_t *r) {
    int posted = is_posted(r);
    int peer = r->kind == REQ_SEND || posted ? r->peer : r->got_from;
    if (peer >= 0 && peer < tw_mpi.size && cause[peer]) return tw_mpi_lost_code(peer);
    /* a collective's step, or a receive from anyone: any lost member counts */
    if ((r->context & TW_CTX_COLL) || (posted && r->peer == MPI_ANY_SOURCE)) {
        int w = tw_mpi_comm_lost_member(tw_mpi_comm_of_context(r->context));
        if (w >= 0) return tw_mpi_lost_code(w);
    }
    return 0;
}

/* Ends running request i with error code. */
static void fail_request(int i, int code) {
    req_t *r = &tw_reqs[i];
    tw_channel_t *ch = tw_channel_of_req(i);
    int prev;
    r->error = code;
    if (is_posted(r) && tw_match_unpost(&ch->match, &r->posted)) {
        /* withdrawn */
    } else if (r->kind == REQ_SEND && r->state == TW_STATE_QUEUED) {
        if (tw_req_list_find(&ch->pending_sends, i, &prev)) {
            tw_req_list_remove(&ch->pending_sends, i, prev);
            ch->pending_to[r->peer]--;
        }
        r->state = TW_STATE_START;
        if (tw_proto_is_rndv(r->proto)) tw_proto_rndv_undo(r);
    } else {
        if (tw_req_list_find(&ch->pending_gets, i, &prev))
            tw_req_list_remove(&ch->pending_gets, i, prev);
        if (r->parts) { /* what it waits for will not come: its last part ends it */
            ch->rendezvous -= r->parts - 1;
            r->parts = 1;
            r->get_held = 0;
            tw_proto_rndv_part_done(i);
            return;
        }
        if (r->region.nla) tw_dereg(ch->ep, &r->region);
        r->region.nla = 0;
    }
    tw_req_done(i);
}

static void fail_posted(int k) {
    for (tw_posted_t *p = tw_channels[k].match.posted, *next; p; p = next) {
        next = p->next;
        int i = tw_req_of_posted(p), code = lost_dependency(&tw_reqs[i]);
        if (code) fail_request(i, code);
    }
}

static void fail_running(int k) {
    for (int i = 1; i <= TW_MAX_REQUESTS; i++) {
        req_t *r = &tw_reqs[i];
        if ((r->kind != REQ_SEND && r->kind != REQ_RECV) || r->channel != k || !r->active ||
            r->done)
            continue;
        int code = lost_dependency(r);
        if (code) fail_request(i, code);
    }
}

/* Tells the other ranks about the ranks found lost here, as far as their mailboxes
 * take it now; the rest in a later pass. */
static void tell_others(void) {
    for (int k = 0; k < tw_mpi_lost_count; k++) {
        int w = lost[k];
        if (reporter[w] != tw_mpi.rank) continue;
        tw_mpi_lost_notice_t n = {w, cause[w]};
        for (; notify_next[w] < tw_mpi.size; notify_next[w]++) {
            int to = notify_next[w];
            if (to == tw_mpi.rank || cause[to]) continue;
            if (tw_velo_send(tw_mpi.ep, to, TW_MPI_LOST, &n, sizeof n) == TW_RETRY) break;
        }
    }
}

static void lost_progress(void) {
    static int busy; /* a failed request's completion may make a pass of its own */
    if (busy) return;
    busy = 1;
    tell_others();
    /* each channel under its lock; one another thread holds now, at a later pass */
    for (int k = 0; k < tw_channel_count(); k++) {
        int t = tw_mpi_threads_on ? tw_mpi_lock_try(k) : 0;
        if (t < 0) continue;
        apply(k);
        if (rescan & (1u << k)) {
            rescan &= ~(1u << k);
            fail_running(k);
        }
        fail_posted(k);
        if (t > 0) tw_mpi_lock_untry(k);
    }
    busy = 0;
}

int tw_mpi_failure_grow(int n) {
    int8_t *c = realloc(cause, (size_t)n * sizeof *c);
    if (c) cause = c;
    int *rep = c ? realloc(reporter, (size_t)n * sizeof *rep) : NULL;
    if (rep) reporter = rep;
    int *l = rep ? realloc(lost, (size_t)n * sizeof *l) : NULL;
    if (l) lost = l;
    int *nn = l ? realloc(notify_next, (size_t)n * sizeof *nn) : NULL;
    if (!nn) return MPI_ERR_NO_MEM;
    notify_next = nn;
    for (int r = tw_mpi.size; r < n; r++) {
        cause[r] = 0;
        reporter[r] = 0;
        notify_next[r] = 0;
    }
    return MPI_SUCCESS;
}

void tw_mpi_failure_init(void) {
    size_t n = (size_t)tw_mpi.size;
    cause = calloc(n, sizeof *cause);
    reporter = calloc(n, sizeof *reporter);
    lost = calloc(n, sizeof *lost);
    notify_next = calloc(n, sizeof *notify_next);
    if (!cause || !reporter || !lost || !notify_next)
        tw_mpi_error(NULL, "MPI_Init", MPI_ERR_NO_MEM, NULL);
    tw_mpi_progress_on_lost(on_device_notice);
    tw_mpi_progress_on_message(TW_MPI_LOST, on_peer_notice);
    tw_mpi_progress_hook(TW_HOOK_LOST, lost_progress);
    tw_mpi_error_codes(TW_CODES_LOST, tw_mpi_lost_class, tw_mpi_lost_string);
    tw_mpi_error_codes(TW_CODES_GAVE_UP, tw_mpi_gave_up_class, tw_mpi_gave_up_string);
}
