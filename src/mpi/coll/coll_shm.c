/* Collectives through shared memory, for communicators whose ranks share a node.
 *
 * Blocking calls (MPI never matches a blocking collective with a non-blocking one),
 * when the tuning table (coll_tuning.c) sends them here, go through a block of the
 * shared heap instead of messages (and so do the persistent forms of the calls on
 * the lines, below):
 *   - two cache lines per rank, used by turns (the protocol is in
 *     coll_shm_block.h): barrier, bcast on two ranks, reduce and allreduce of up to
 *     56 bytes, and the others whose line would hold up to 56 bytes (a gather's
 *     block, all blocks of a scatter's root or of an alltoall; a scan of up to 56
 *     bytes on two ranks). One cache line moves from each giver to each taker; on two
 *     ranks an allreduce or a barrier is one line each way, both at once;
 *   - the segment (below): everything larger, in steps, pipelined over two halves.
 *
 * The block is set up by the communicator's first such call, which is collective:
 * rank 0 allocates and clears it and broadcasts its address by messages, every rank
 * maps it, and an allreduce of the outcome makes all agree. A communicator that
 * cannot have one (a rank on another node, no heap) keeps to messages. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/stream_copy.h"
#include "mpi/coll/coll.h"
#include "mpi/coll/coll_shm_block.h"
#include "mpi/coll/op.h"
#include "mpi/coll/schedule.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/request.h"
#include "mpi/tools/tools.h"

#include <tollway/settings.h>

/* A rank's slot in each half of the segment: large steps take fewer waits (when
 * ranks outnumber cores each wait may cost a time slice per rank: an alltoall of
 * 64 KiB blocks on 4 ranks took 1.36x Open MPI's time with slots of 64 KiB, 0.45x
 * with 256 KiB), but a segment stays within 4 MiB or so of /dev/shm (slots of at
 * least 16 KiB); and the most a broadcast moves per step. */
enum { SLOT_MOST = 256 << 10, SLOT_LEAST = 16 << 10, SEGMENT_DATA = 4 << 20 };
enum { TW_COLL_BCAST_STEP = 32 << 10 };
/* Reductions of up to this many bytes a step are combined whole by each rank that
 * wants the result rather than cut in parts. */
enum { TW_COLL_REDUCE_WHOLE = 2 << 10 };
/* On 2 ranks, allreduces of up to this many bytes a step too: one wait instead of two
 * (osu_allreduce, cores apart: 4 KiB 1.93-2.17 us against 2.28-2.52 in parts, 16 KiB
 * 4.56-5.05 against 5.34-5.68; at 32 KiB either way, at 64 KiB 13-16 against 11-13). */
enum { TW_COLL_ALLREDUCE_WHOLE_2 = 16 << 10 };

static size_t slot_bytes(int size) {
    size_t b = (size_t)SEGMENT_DATA / 2 / (size_t)size / 4096 * 4096;
    return b > SLOT_MOST ? SLOT_MOST : b < SLOT_LEAST ? SLOT_LEAST : b;
}
/* A communicator's slot size, kept at set-up: a division by the rank count is no
 * cost to pay on every call (tens of cycles where a 2-rank allreduce takes 100 ns) */
#define SLOT(c) ((c)->shm->slot)

_Static_assert((int)TW_COLL_LINE_DATA == (int)TW_COLL_SHM_MAX,
               "a call's data fills one line at most");

/* A rank's flags in the segment, on a cache line of their own: the last step whose
 * input it published (in), whose reduced part it published (part), and which it
 * has finished reading (done); and, while its waits may sleep, the flag and rank it
 * waits for (wants, as wanted() makes it; 0: none), so that a publish wakes only the
 * ranks waiting for it. */
typedef struct tw_coll_flags {
    _Atomic uint64_t in, part, done, wants;
    unsigned char pad[TW_COLL_LINE - 4 * sizeof(uint64_t)];
} tw_coll_flags_t;
_Static_assert(sizeof(tw_coll_flags_t) == TW_COLL_LINE, "a rank's flags are one cache line");

enum { FLAG_IN, FLAG_PART, FLAG_DONE };

/* The block's state, on a line of its own after the flags: the member that gave a
 * call up (tw_coll_shm_give_up; its rank + 1, 0: none). Every wait on the block from
 * then on ends in an error (a member still in the call before too): the members'
 * counts of calls no longer agree. */
typedef struct tw_coll_state {
    _Atomic uint64_t gave_up;
    unsigned char pad[TW_COLL_LINE - sizeof(uint64_t)];
} tw_coll_state_t;
_Static_assert(sizeof(tw_coll_state_t) == TW_COLL_LINE, "the state is one cache line");

struct tw_coll_shm {
    tw_coll_line_t *lines;  /* 2 per rank */
    tw_coll_flags_t *flags; /* 1 per rank */
    tw_coll_state_t *state;
    unsigned char *data;    /* 2 halves of size slots (SLOT bytes each) */
    size_t slot;            /* slot_bytes(size) */
    size_t stream;          /* TW_COLL_STREAM */
    uint64_t stream_rate;   /* TW_COLL_STREAM_RATE */
    int streaming;          /* parts of stream bytes or more go streamed (give) */
    uint64_t given;         /* such parts given so far */
    uint64_t seq;           /* line operations so far */
    uint64_t step;          /* segment steps so far */
    int rings;              /* peers' waits may sleep: a publish wakes them */
    unsigned char *scratch; /* a slot's bytes: a non-commutative reduction's part */
    void *block;            /* rank 0: the heap block, freed with the communicator */
    /* persistent calls on the lines started at this rank and not finished, in the
     * order of their starts (of their operation numbers); while there are any, the
     * block is on the list of busy blocks, which the progress hook goes through */
    struct tw_coll_shm_op *first, *last;
    struct tw_coll_shm *next_busy;
    int listed; /* on that list (it leaves it at the hook's next pass once idle) */
};

/* The error of a call on c's block sh once a member gave a call up (the member's code,
 * tw_mpi_gave_up_code), or MPI_SUCCESS. */
static int given_up(const tw_mpi_comm_t *c, const tw_coll_shm_t *sh) {
    uint64_t word = atomic_load_explicit(&sh->state->gave_up, memory_order_relaxed);
    if (!word) return MPI_SUCCESS;
    int who = tw_coll_shm_gave_up_rank(word, c->size);
    return who < 0 ? MPI_ERR_OTHER : tw_mpi_gave_up_code(tw_mpi_world_rank(c, who));
}

/* Whether a wait on c's block sh must end: the code of a lost member, or of one that
 * gave a call up; MPI_SUCCESS: wait on. */
static int stop_waiting_on(const tw_mpi_comm_t *c, const tw_coll_shm_t *sh) {
    int lost = tw_mpi_lost_count ? tw_mpi_comm_lost_member(c) : -1;
    if (lost >= 0) return tw_mpi_lost_code(lost);
    return given_up(c, sh);
}

static int stop_waiting(tw_mpi_comm_t *c) {
    return stop_waiting_on(c, c->shm);
}

/* A call on the block as its wait sees it: ring, while this rank's line is still to
 * be published and peers may sleep (TW_WAIT=sleep), whose waits learn of it only
 * through their doorbells. */
typedef struct shm_wait {
    tw_mpi_comm_t *c;
    tw_coll_shm_run_t *x;
    const void *give;
    void *take;
    int done, ring;
} shm_wait_t;

/* Whether this rank's line is out and the other members are still to be woken. */
static int ring_due(const shm_wait_t *w) {
    const tw_coll_shm_run_t *x = w->x;
    return w->ring && atomic_load_explicit(&tw_coll_shm_line(x, x->rank, x->k)->seq,
                                           memory_order_relaxed) == x->k;
}

/* Advances the call (never again once done: a taker would read a line reused by
 * then); touches the block and w only, so a thread that gave the library's lock back
 * may run it. 1 when something moved, or the members are to be woken. */
static int shm_moved(void *arg) {
    shm_wait_t *w = arg;
    if (w->done) return 1;
    tw_coll_shm_run_t *x = w->x;
    int step = x->step, next = x->next;
    w->done = tw_coll_shm_advance(x, w->give, w->take);
    return w->done || x->step != step || x->next != next || ring_due(w);
}

/* shm_moved, then the other members woken once this rank's line is out. */
static int shm_step(void *arg) {
    shm_wait_t *w = arg;
    int moved = shm_moved(w);
    if (ring_due(w)) {
        w->ring = 0;
        for (int r = 0; r < w->x->size; r++)
            if (r != w->x->rank) tw_ep_wake(tw_mpi.ep, tw_mpi_world_rank(w->c, r));
    }
    return moved;
}

static void shm_finish_started(tw_mpi_comm_t *c);

/* Runs the next call on c's block to its end; others may wait for this rank's
 * messages meanwhile. MPI_SUCCESS, or the code of a lost member of c (another rank
 * found it lost): the lines it would write may never show. */
static int run(tw_mpi_comm_t *c, tw_coll_shm_run_t *x, int kind, int root, size_t bytes,
               const void *give, void *take) {
    if (c->shm->first) shm_finish_started(c); /* persistent calls started before this one */
    *x = (tw_coll_shm_run_t){.lines = c->shm->lines, .size = c->size, .rank = c->rank};
    tw_coll_shm_start(x, ++c->shm->seq, kind, root, bytes);
    unsigned spins = 0;
    if (!c->shm->rings && !tw_mpi_threads_on) { /* a core per rank: nobody to wake */
        while (!tw_coll_shm_advance(x, give, take)) {
            tw_mpi_progress();
            int rc = stop_waiting(c);
            if (rc) return rc;
            tw_mpi_relax(&spins);
        }
        return MPI_SUCCESS;
    }
    shm_wait_t w = {c, x, give, take, 0, c->shm->rings};
    while ((void)shm_step(&w), !w.done) {
        tw_mpi_progress();
        int rc = stop_waiting(c);
        if (rc) return rc;
        tw_mpi_relax_own(&spins, shm_step, shm_moved, &w);
    }
    return MPI_SUCCESS;
}

/* ---- set-up ---- */

/* Whether every rank of c is on this process's node: the same answer at every rank. */
static int all_on_node(const tw_mpi_comm_t *c) {
    int mine = tw_mpi_node(tw_mpi_world_rank(c, c->rank));
    for (int r = 0; r < c->size; r++)
        if (tw_mpi_node(tw_mpi_world_rank(c, r)) != mine) return 0;
    return 1;
}

/* The collective set-up; leaves c->shm NULL when the communicator keeps to messages.
 * MPI_SUCCESS, or the error of a failed exchange. */
static int set_up(tw_mpi_comm_t *c) {
    c->shm_tried = 1;
    if (c->inter || c->size < 2 || !all_on_node(c)) return MPI_SUCCESS; /* same everywhere */
    size_t lines = (size_t)c->size * 2 * sizeof(tw_coll_line_t);
    size_t flags = (size_t)c->size * sizeof(tw_coll_flags_t) + sizeof(tw_coll_state_t);
    size_t slot = slot_bytes(c->size), bytes = lines + flags + (size_t)c->size * 2 * slot;
    tw_coll_shm_t *sh = calloc(1, sizeof *sh);
    if (sh) {
        sh->slot = slot;
        sh->stream = (size_t)tw_setting_unsigned(TW_SETTING_COLL_STREAM);
        sh->stream_rate = tw_setting_unsigned(TW_SETTING_COLL_STREAM_RATE);
    }
    if (sh && !(sh->scratch = malloc(slot))) {
        free(sh);
        sh = NULL;
    }
    uint64_t where[2] = {0, 0}; /* NLA and key of the block; 0: none */
    tw_region_t region;
    /* lazy: every communicator has one, and most never carry data large enough to
     * touch its slots (faulting in 1 MiB here and at each peer was most of the cost of
     * a communicator's first collective, and of MPI_File_open) */
    if (c->rank == 0 && sh && (sh->block = tw_heap_alloc_lazy(tw_mpi.ep, bytes, &region))) {
        memset(sh->block, 0, lines + flags); /* the data: written before read */
        where[0] = region.nla;
        where[1] = region.key;
        sh->lines = sh->block;
    }
    tw_sched_t s;
    tw_sched_init(&s, c, tw_mpi_coll_tag(c));
    tw_coll_bcast(&s, where, sizeof where, 1, 0);
    int rc = tw_sched_run(&s);
    if (!rc && c->rank && sh && where[0])
        sh->lines =
            tw_heap_local_addr(tw_mpi.ep, tw_mpi_world_rank(c, 0), where[0], where[1], bytes);
    if (sh && sh->lines) {
        sh->flags = (tw_coll_flags_t *)((unsigned char *)sh->lines + lines);
        sh->state = (tw_coll_state_t *)(sh->flags + c->size);
        sh->data = (unsigned char *)sh->flags + flags;
    }
    /* all[0]: every rank has the block; all[1]: no rank sleeps. TW_WAIT and the CPUs a
     * rank may use are each process's own: one that sleeps makes every writer ring. */
    int mine[2] = {!rc && sh && sh->lines, !tw_ep_sleeps(tw_mpi.ep)}, all[2] = {0, 0};
    tw_coll_red_t red = {MPI_MIN, MPI_INT, sizeof(int), 1};
    tw_sched_init(&s, c, tw_mpi_coll_tag(c));
    tw_coll_allreduce(&s, mine, all, 2, &red);
    int rc2 = tw_sched_run(&s);
    if (!rc) rc = rc2;
    if (!rc && all[0]) {
        sh->rings = !all[1];
        c->shm = sh;
        return MPI_SUCCESS;
    }
    if (sh && sh->block) tw_heap_free(tw_mpi.ep, sh->block);
    if (sh) free(sh->scratch);
    free(sh);
    return rc;
}

/* A member may return from the block's last call before the others have read its
 * lines. With one thread per process, the member that owns the block can free it and
 * give its memory to another communicator only after some later exchange with them,
 * which they join once that call has returned; another thread's exchange is no such
 * sign, so every member first passes a barrier that keeps off the block. */
void tw_coll_shm_quiesce(tw_mpi_comm_t *c) {
    if (!c->shm && !c->shm_given_up) return;
    tw_sched_t s;
    tw_sched_init(&s, c, tw_mpi_coll_tag(c));
    tw_coll_barrier(&s);
    (void)tw_sched_run(&s); /* a lost member: nobody is left to read the block */
}

static void shm_not_busy(tw_coll_shm_t *sh);

void tw_coll_shm_free(tw_mpi_comm_t *c) {
    tw_coll_shm_t *sh = c->shm ? c->shm : c->shm_given_up;
    if (!sh) return;
    shm_not_busy(sh); /* a persistent call still running: erroneous, but no dangling list */
    if (sh->block && tw_mpi.ep) tw_heap_free(tw_mpi.ep, sh->block); /* else closed */
    free(sh->scratch);
    free(sh);
    c->shm = c->shm_given_up = NULL;
}

/* usable() but for a block set up already: set it up, or say why not. */
static __attribute__((noinline)) tw_coll_shm_t *set_up_first(tw_mpi_comm_t *c, int *rc) {
    if (c->shm_given_up) {
        *rc = given_up(c, c->shm_given_up);
        return NULL;
    }
    if (c->shm_tried || c->inter || c->size < 2) return NULL;
    *rc = set_up(c);
    return c->shm;
}

/* The communicator's block, set up on first use; NULL: messages, or (*rc the code
 * of given_up) none since this rank gave a call up on it. A member that did not give
 * up needs no look here: its next wait for the one that did ends in the error. */
static inline tw_coll_shm_t *usable(tw_mpi_comm_t *c, int *rc) {
    *rc = MPI_SUCCESS;
    return c->shm ? c->shm : set_up_first(c, rc);
}

void tw_coll_shm_give_up(tw_mpi_comm_t *c) {
    int rc;
    if (!usable(c, &rc)) return; /* messages, or given up already */
    tw_coll_shm_t *sh = c->shm;
    uint64_t none = 0;
    atomic_compare_exchange_strong(&sh->state->gave_up, &none, (uint64_t)c->rank + 1);
    for (int r = 0; r < c->size; r++) /* a waiter may sleep on its doorbell */
        if (r != c->rank) tw_ep_wake(tw_mpi.ep, tw_mpi_world_rank(c, r));
    /* this rank's count of calls lags the others' now: its own calls must fail, so
     * they find the block only through shm_given_up */
    c->shm_given_up = sh;
    c->shm = NULL;
}

/* ---- the segment: larger calls, a step at a time ----
 *
 * Beside its lines each rank owns a slot of SLOT bytes in each of the two
 * halves of the segment, and three flags. Step k of the communicator (counted over
 * all its calls on the segment, the same at every rank) uses half k mod 2, so a
 * rank may write step k + 1 while others still read step k:
 *   - a rank publishes in = k once its data for step k is in its slot (a root: in
 *     the slots it fills), part = k once its share of a reduction is, and done = k
 *     once it has finished step k;
 *   - before writing half k mod 2 for step k a rank waits until every rank has
 *     done = k - 2 (any of them may have read the half then, whatever it held).
 * A reduction splits each step's items in p parts; rank r combines part r of every
 * slot (all ranks at once, each a different part) and leaves it in its own slot,
 * from where the ranks that want the result copy the parts. */

static _Atomic uint64_t *flag(const tw_coll_shm_t *sh, int rank, int which) {
    tw_coll_flags_t *f = &sh->flags[rank];
    return which == FLAG_IN ? &f->in : which == FLAG_PART ? &f->part : &f->done;
}

static uint64_t wanted(int which, int rank) {
    return (uint64_t)(which + 1) << 32 | (uint32_t)rank;
}

/* Wakes, when waits may sleep (TW_WAIT=sleep), the members waiting for flag which
 * (or also, if another is not -1, flag another) of this rank: they poll the flags,
 * not their rings. Waking only those matters once ranks outnumber cores: a rank woken
 * for nothing costs a time slice (a scatter's every done woke every other rank,
 * waiting for the root). The fence pairs with the waiter's between its wants and
 * its last look at the flag before it sleeps: either it sees the flag, or this sees
 * its wants. */
static void wake_waiters(tw_mpi_comm_t *c, int which, int another) {
    if (!c->shm->rings) return;
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t one = wanted(which, c->rank), other = another < 0 ? one : wanted(another, c->rank);
    for (int r = 0; r < c->size; r++) {
        uint64_t w = atomic_load_explicit(&c->shm->flags[r].wants, memory_order_relaxed);
        if (r != c->rank && (w == one || w == other))
            tw_ep_wake(tw_mpi.ep, tw_mpi_world_rank(c, r));
    }
}

/* Publishes flag which of this rank as k. */
static void publish(tw_mpi_comm_t *c, int which, uint64_t k) {
    atomic_store_explicit(flag(c->shm, c->rank, which), k, memory_order_release);
    wake_waiters(c, which, -1);
}

/* publish of in and done at once, for a rank that only gives in step k (reads
 * nothing of it): one round of wake-ups, not two. */
static void publish_given(tw_mpi_comm_t *c, uint64_t k) {
    atomic_store_explicit(flag(c->shm, c->rank, FLAG_IN), k, memory_order_release);
    atomic_store_explicit(flag(c->shm, c->rank, FLAG_DONE), k, memory_order_release);
    wake_waiters(c, FLAG_IN, FLAG_DONE);
}

/* A wait for flag which of ranks [r, end) but skip to reach k. */
typedef struct flag_wait {
    const tw_coll_shm_t *sh;
    int r, end, skip, which;
    uint64_t k;
} flag_wait_t;

/* Moves w->r past the ranks whose flag has reached k; non-zero when it moved or all
 * have (tw_mpi_relax_until then does not sleep). */
static int flags_reached(void *arg) {
    flag_wait_t *w = arg;
    int moved = 0;
    for (; w->r < w->end; w->r++) {
        if (w->r == w->skip) continue;
        if (atomic_load_explicit(flag(w->sh, w->r, w->which), memory_order_acquire) < w->k)
            return moved;
        moved = 1;
    }
    return 1;
}

/* The segment's one wait: until flag which of ranks [from, end) but this one is k or
 * more. MPI_SUCCESS, or the code of a lost member. */
static int wait_flags(tw_mpi_comm_t *c, int from, int end, int which, uint64_t k) {
    flag_wait_t w = {c->shm, from, end, c->rank, which, k};
    unsigned spins = 0;
    _Atomic uint64_t *wants = &c->shm->flags[c->rank].wants;
    uint64_t said = 0; /* what wants holds */
    while ((void)flags_reached(&w), w.r < w.end) {
        tw_mpi_progress();
        int rc = stop_waiting(c);
        if (rc) return rc;
        /* the rank this wait may sleep for, said once per rank (a full fence):
         * relax_until returns once w.r moves */
        if (c->shm->rings && said != wanted(which, w.r))
            atomic_store(wants, said = wanted(which, w.r));
        tw_mpi_relax_own(&spins, flags_reached, flags_reached, &w);
    }
    if (said) atomic_store_explicit(wants, 0, memory_order_relaxed);
    return MPI_SUCCESS;
}

/* Until flag which of rank who (-1: of every other rank) is k or more. */
static int wait_flag(tw_mpi_comm_t *c, int who, int which, uint64_t k) {
    return who < 0 ? wait_flags(c, 0, c->size, which, k) : wait_flags(c, who, who + 1, which, k);
}

/* The next step, once every rank is done with the step before last, which used the
 * same half: whatever this rank writes there, any rank may have read before. */
static int next_step(tw_mpi_comm_t *c, uint64_t *k) {
    *k = ++c->shm->step;
    return *k > 2 ? wait_flag(c, -1, FLAG_DONE, *k - 2) : MPI_SUCCESS;
}

static unsigned char *slot(const tw_mpi_comm_t *c, uint64_t k, int rank) {
    return c->shm->data + ((size_t)(k & 1) * (size_t)c->size + (size_t)rank) * SLOT(c);
}

static size_t min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

/* The first of every 64 such parts is copied plainly and timed, to choose for the rest. */
enum { STREAM_PROBE = 64 };

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* n bytes into the segment for other ranks to read. From TW_COLL_STREAM bytes on they
 * are streamed while a plain copy runs below TW_COLL_STREAM_RATE (0: always): a plain
 * copy into lines the other core read last takes them from it first, which between
 * cores that share no cache cost 73000 cycles for a 32 KiB part here, the streamed
 * copy 5600. Where the cores share a cache the plain copy runs at some 9 GB/s, and
 * streaming would make the reader take large parts from memory. osu_allreduce on two
 * ranks, plain / streamed / as chosen: cores apart, 16 KiB 9.5 / - / 3.3-3.5 us,
 * 64 KiB 35 / 7.9-8.0 / 8.4-8.8, 1 MiB 496-506 / 103-104 / 110-112; one cache, 64 KiB
 * 10.0-11.1 / 10.0 / 10.0-10.3, 1 MiB 85-87 / 142 / 84.5-85.8. */
static void give(const tw_mpi_comm_t *c, void *slot_at, const void *from, size_t n) {
    tw_coll_shm_t *sh = c->shm;
    if (!sh->stream || n < sh->stream) {
        memcpy(slot_at, from, n);
        return;
    }
    if (!sh->stream_rate || sh->given++ % STREAM_PROBE) {
        if (!sh->stream_rate || sh->streaming)
            tw_stream_copy(slot_at, from, n);
        else
            memcpy(slot_at, from, n);
        return;
    }
    uint64_t t0 = now_ns();
    memcpy(slot_at, from, n);
    /* slower than the rate: more than n * 1000 / rate ns */
    sh->streaming = (now_ns() - t0) * sh->stream_rate > (uint64_t)n * 1000u;
}

/* The bytes a broadcast of bytes moves per step: small steps let readers copy one
 * while the root writes the next; a large call takes eight or so, as each step
 * waits for every rank (a whole half at most). On a crowded node two: there a step's
 * wait costs every reader a time slice, and no reader copies beside the root anyway
 * (1 MiB on 8 ranks, 2 cores: 0.45x Open MPI's time in two steps, 0.96x in eight;
 * 16 ranks 0.19x against 0.51x; 256 KiB on 8 ranks 0.59x against 1.52x). */
static size_t bcast_step(const tw_mpi_comm_t *c, size_t bytes) {
    size_t part = bytes / (tw_mpi.crowded ? 2 : 8);
    size_t step = part > TW_COLL_BCAST_STEP ? part : TW_COLL_BCAST_STEP;
    return min_size((size_t)c->size * SLOT(c), step);
}

static int seg_bcast(tw_mpi_comm_t *c, unsigned char *buf, size_t bytes, int root) {
    size_t most = bcast_step(c, bytes);
    int rc = MPI_SUCCESS;
    for (size_t first = 0; first < bytes && !rc; first += most) {
        size_t n = min_size(most, bytes - first);
        uint64_t k = c->shm->step + 1;
        if (c->rank == root) {
            if ((rc = next_step(c, &k))) break;
            /* streamed while the cores share no cache (give): osu_bcast on 4 ranks of
             * 2 cores then took 3.4, 8.9, 27 and 95 us at 16 KiB, 64 KiB, 256 KiB and
             * 1 MiB, against 10, 36, 128 and 491 plain; with a shared cache the medians
             * of four interleaved runs on 2, 4 and 8 ranks stayed within 0.85-1.14 */
            give(c, slot(c, k, 0), buf + first, n);
            publish_given(c, k);
        } else {
            c->shm->step = k;
            if ((rc = wait_flag(c, root, FLAG_IN, k))) break;
            memcpy(buf + first, slot(c, k, 0), n);
            publish(c, FLAG_DONE, k);
        }
    }
    return rc;
}

/* Items [lo, hi) of n are part r of p: whole cache lines where items fit in one,
 * so no two ranks write one line, and a user op sees runs of whole lines. */
static void part_of(size_t n, size_t item, int r, int p, size_t *lo, size_t *hi) {
    size_t unit = item < TW_COLL_LINE ? TW_COLL_LINE / item : 1, units = (n + unit - 1) / unit;
    *lo = min_size(n, units * (size_t)r / (size_t)p * unit);
    *hi = min_size(n, units * (size_t)(r + 1) / (size_t)p * unit);
}

/* Combines this rank's part (len bytes of items items at offset off of the step's
 * data) of step k into acc, in rank order (slot 0's op (slot 1's op (...))), its own
 * contribution read from its input (in, the step's), the others' from their slots.
 * acc may be the part's place in in (a commutative op, in place). */
static int combine_own(tw_mpi_comm_t *c, uint64_t k, const unsigned char *in, size_t off,
                       size_t len, size_t items, const tw_coll_red_t *red, unsigned char *acc) {
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    int last = red->commute ? r : p - 1; /* whose contribution acc starts from */
    const unsigned char *start = last == r ? in + off : slot(c, k, last) + off;
    if (acc != start) memcpy(acc, start, len);
    for (int j = p - 1; j >= 0 && !rc; j--)
        if (j != last)
            rc = tw_mpi_op_apply(red->op, j == r ? in + off : slot(c, k, j) + off, acc,
                                 (MPI_Count)items, red->type);
    return rc;
}

/* Combines the n items of step k in the slots of ranks [0, upto) straight into out,
 * in rank order (slot 0's op (slot 1's op (...))): a small reduction's whole result,
 * or a scan's. own, when not NULL, is this rank's contribution where it is instead of
 * in its slot: out itself (in place) only when this rank's comes last, or for a reduce's
 * root (the one result) when the op commutes, the others then combined into it. */
static int combine_whole(tw_mpi_comm_t *c, uint64_t k, unsigned char *out, size_t n,
                         const tw_coll_red_t *red, int upto, const unsigned char *own) {
    int rc = MPI_SUCCESS, r = c->rank;
    if (own == out && red->commute) { /* the others' combined into it, in any order */
        for (int j = upto - 1; j >= 0 && !rc; j--)
            if (j != r) rc = tw_mpi_op_apply(red->op, slot(c, k, j), out, (MPI_Count)n, red->type);
        return rc;
    }
    const unsigned char *last = own && r == upto - 1 ? own : slot(c, k, upto - 1);
    if (last != out) memcpy(out, last, n * red->item);
    for (int j = upto - 2; j >= 0 && !rc; j--)
        rc = tw_mpi_op_apply(red->op, own && j == r ? own : slot(c, k, j), out, (MPI_Count)n,
                             red->type);
    return rc;
}

/* Reduce (root) or allreduce (root -1) of count items. */
static int seg_reduce(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out, size_t count,
                      const tw_coll_red_t *red, int root) {
    /* rc: a lost member, which ends the call; err: an op's error, after which the
     * steps go on, so no other rank waits for this one in vain */
    int p = c->size, r = c->rank, rc = MPI_SUCCESS, err = MPI_SUCCESS,
        wants = root < 0 || r == root;
    size_t item = red->item, most = SLOT(c) / item;
    for (size_t first = 0; first < count && !rc; first += most) {
        size_t n = min_size(most, count - first), lo, hi;
        uint64_t k;
        if ((rc = next_step(c, &k))) break;
        if (n * item <= TW_COLL_REDUCE_WHOLE ||
            (p == 2 && (root >= 0 || n * item <= TW_COLL_ALLREDUCE_WHOLE_2))) {
            /* a rank that wants the result reads its own input where it is (the root
             * of a reduce gives none: on 2 ranks at every size the other rank gives
             * all of its input and leaves, and the root combines it with its own in
             * one pass, where parts take two waits and a copy each way: 16 KiB 2.8-3.4
             * us against 4.2-4.5), unless the result would overwrite it before it is
             * read */
            const unsigned char *own = wants ? in + first * item : NULL;
            /* in place, unless this rank's contribution comes last it goes to its slot
             * too: the result would overwrite it, and (an allreduce) combined into it in
             * another order each rank's result could round to other bits */
            if (own == out + first * item && r != p - 1 && (!red->commute || root < 0)) own = NULL;
            if (!own || root < 0) give(c, slot(c, k, r), in + first * item, n * item);
            if (!wants) {
                publish_given(c, k);
                continue;
            }
            /* a rank that wants the result (the root, or every rank) combines all
             * of it; the others only gave. One wait instead of two */
            publish(c, FLAG_IN, k);
            if (!(rc = wait_flag(c, -1, FLAG_IN, k)) && !err)
                err = combine_whole(c, k, out + first * item, n, red, p, own);
            publish(c, FLAG_DONE, k);
            continue;
        }
        /* rank j combines part j: this rank gives the others' parts of its input,
         * combines its own from its input in place, and gives the result where the
         * part was (for the root, or for every rank): each byte written to the segment
         * once, and no rank's own part copied in and out */
        for (int j = 0; j < p; j++) {
            part_of(n, item, j, p, &lo, &hi);
            if (j != r)
                give(c, slot(c, k, r) + lo * item, in + (first + lo) * item, (hi - lo) * item);
        }
        publish(c, FLAG_IN, k);
        if ((rc = wait_flag(c, -1, FLAG_IN, k))) break;
        part_of(n, item, r, p, &lo, &hi);
        size_t off = lo * item, len = (hi - lo) * item;
        /* a commutative op combines into out itself (in place: the input is there) */
        unsigned char *acc = wants && red->commute ? out + first * item + off : c->shm->scratch;
        if (len && !err) err = combine_own(c, k, in + first * item, off, len, hi - lo, red, acc);
        if (len && root != r) give(c, slot(c, k, r) + off, acc, len);
        publish(c, FLAG_PART, k);
        if (wants) {
            if ((rc = wait_flag(c, -1, FLAG_PART, k))) break;
            for (int j = 0; j < p; j++) {
                part_of(n, item, j, p, &lo, &hi);
                unsigned char *to = out + (first + lo) * item;
                if (j != r)
                    memcpy(to, slot(c, k, j) + lo * item, (hi - lo) * item);
                else if (acc != to)
                    memcpy(to, acc, (hi - lo) * item);
            }
        }
        publish(c, FLAG_DONE, k);
    }
    return rc ? rc : err;
}

/* Scan (exclusive 0) or exscan (exclusive 1) of count items: every rank gives its
 * input a slot at a time, and rank r combines those of ranks 0 to r (r - 1) straight
 * into out, waiting for no rank after it. Rank 0's exscan result is left as it was. */
static int seg_scan(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out, size_t count,
                    const tw_coll_red_t *red, int exclusive) {
    int r = c->rank, upto = r + 1 - exclusive, rc = MPI_SUCCESS, err = MPI_SUCCESS; /* as reduce */
    size_t item = red->item, most = SLOT(c) / item;
    for (size_t first = 0; first < count && !rc; first += most) {
        size_t n = min_size(most, count - first);
        uint64_t k;
        if ((rc = next_step(c, &k))) break;
        memcpy(slot(c, k, r), in + first * item, n * item);
        if (!upto) { /* rank 0 of an exscan only gives */
            publish_given(c, k);
            continue;
        }
        publish(c, FLAG_IN, k);
        if (!(rc = wait_flags(c, 0, upto, FLAG_IN, k)) && !err)
            err = combine_whole(c, k, out + first * item, n, red, upto, NULL);
        publish(c, FLAG_DONE, k);
    }
    return rc ? rc : err;
}

/* The same as a chain, for many steps on many ranks, where the above's p^2 / 2
 * combinations cost more than its parallel start saves: rank r combines its input
 * with rank r - 1's prefix in the slot of rank r - 1, leaves its own prefix in its
 * own slot for rank r + 1, and copies its result out. p - 1 combinations a step in
 * all, and the steps pipeline along the chain. */
static int seg_scan_chain(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out,
                          size_t count, const tw_coll_red_t *red, int exclusive) {
    int r = c->rank, rc = MPI_SUCCESS, err = MPI_SUCCESS; /* as seg_reduce */
    size_t item = red->item, most = SLOT(c) / item;
    for (size_t first = 0; first < count && !rc; first += most) {
        size_t n = min_size(most, count - first), len = n * item;
        uint64_t k;
        if ((rc = next_step(c, &k))) break;
        unsigned char *mine = slot(c, k, r), *o = out + first * item;
        memcpy(mine, in + first * item, len); /* before out: in place, in is out */
        if (r) {
            if ((rc = wait_flag(c, r - 1, FLAG_PART, k))) break;
            const unsigned char *before = slot(c, k, r - 1);
            if (!err) err = tw_mpi_op_apply(red->op, before, mine, (MPI_Count)n, red->type);
            if (exclusive) memcpy(o, before, len);
        }
        if (r + 1 < c->size) publish(c, FLAG_PART, k);
        if (!exclusive && mine != o) memcpy(o, mine, len);
        publish(c, FLAG_DONE, k);
    }
    return rc ? rc : err;
}

/* Gather (root) or allgather (root -1) of bytes per rank into out, rank j's at
 * j * bytes; in NULL: this rank's block is in out already. */
static int seg_gather(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out, size_t bytes,
                      int root) {
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    int reads = root < 0 || r == root;
    const unsigned char *own = in ? in : out + (size_t)r * bytes;
    for (size_t first = 0; first < bytes && !rc; first += SLOT(c)) {
        size_t n = min_size(SLOT(c), bytes - first);
        uint64_t k;
        if ((rc = next_step(c, &k))) break;
        if (root < 0 || r != root) memcpy(slot(c, k, r), own + first, n);
        publish(c, FLAG_IN, k);
        if (reads) {
            if ((rc = wait_flag(c, -1, FLAG_IN, k))) break;
            for (int j = 0; j < p; j++)
                if (j != r) memcpy(out + (size_t)j * bytes + first, slot(c, k, j), n);
            if (in) memcpy(out + (size_t)r * bytes + first, in + first, n);
        }
        publish(c, FLAG_DONE, k);
    }
    return rc;
}

/* Scatter of bytes per rank from the root's in (rank j's at j * bytes); out NULL at
 * the root: its block stays in place. */
static int seg_scatter(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out, size_t bytes,
                       int root) {
    int p = c->size, r = c->rank, rc = MPI_SUCCESS;
    for (size_t first = 0; first < bytes && !rc; first += SLOT(c)) {
        size_t n = min_size(SLOT(c), bytes - first);
        uint64_t k;
        if (r == root) {
            if ((rc = next_step(c, &k))) break;
            for (int j = 0; j < p; j++)
                if (j != r) memcpy(slot(c, k, j), in + (size_t)j * bytes + first, n);
            publish(c, FLAG_IN, k);
            if (out) memcpy(out + first, in + (size_t)r * bytes + first, n);
        } else {
            k = ++c->shm->step;
            if ((rc = wait_flag(c, root, FLAG_IN, k))) break;
            memcpy(out + first, slot(c, k, r), n);
        }
        publish(c, FLAG_DONE, k);
    }
    return rc;
}

/* Reduce-scatter (red) or alltoall (red NULL) of p blocks of count items of item
 * bytes each; rank r's result goes to out (in may be out). Each step takes a piece of
 * every block: a slot holds p pieces, and rank r takes piece r of every slot straight
 * into out: combined in rank order, or, for an alltoall, slot j's to block j. */
static int seg_exchange(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out, size_t count,
                        size_t item, const tw_coll_red_t *red) {
    int p = c->size, r = c->rank, rc = MPI_SUCCESS, err = MPI_SUCCESS; /* as seg_reduce */
    size_t most = SLOT(c) / (size_t)p / item;
    size_t unit = item < TW_COLL_LINE ? TW_COLL_LINE / item : 1;
    if (most > unit) most -= most % unit; /* pieces of whole lines, as part_of */
    for (size_t first = 0; first < count && !rc; first += most) {
        size_t n = min_size(most, count - first), len = n * item;
        uint64_t k;
        if ((rc = next_step(c, &k))) break;
        unsigned char *mine = slot(c, k, r);
        for (int i = 0; i < p; i++)
            memcpy(mine + (size_t)i * len, in + ((size_t)i * count + first) * item, len);
        publish(c, FLAG_IN, k);
        if ((rc = wait_flag(c, -1, FLAG_IN, k))) break;
        size_t off = (size_t)r * len;
        if (!red) {
            for (int j = 0; j < p; j++)
                memcpy(out + ((size_t)j * count + first) * item, slot(c, k, j) + off, len);
            publish(c, FLAG_DONE, k);
            continue;
        }
        unsigned char *o = out + first * item;
        memmove(o, slot(c, k, p - 1) + off, len);
        for (int j = p - 2; j >= 0 && !err; j--)
            err = tw_mpi_op_apply(red->op, slot(c, k, j) + off, o, (MPI_Count)n, red->type);
        publish(c, FLAG_DONE, k);
    }
    return rc ? rc : err;
}

/* ---- the operations ---- */

int tw_coll_shm_barrier(tw_mpi_comm_t *c, int *rc) {
    tw_coll_shm_t *sh = usable(c, rc);
    if (!sh) return 0;
    tw_mpi_coll_tag(c); /* the tags of later calls stay as without the block */
    tw_coll_shm_run_t x;
    *rc = run(c, &x, TW_COLL_SHM_BARRIER, 0, 0, NULL, NULL);
    return 1;
}

int tw_coll_shm_bcast(tw_mpi_comm_t *c, void *buf, size_t bytes, int root, int *rc) {
    tw_coll_shm_t *sh = usable(c, rc);
    if (!sh) return 0;
    tw_mpi_coll_tag(c);
    /* lines on two ranks, each waiting on one; on more the segment measured faster
     * (the lines' bcast of 8 B 1.14x on 3 ranks and 1.15x on 8, medians of five
     * interleaved rounds) */
    if (bytes > TW_COLL_LINE_DATA || c->size > 2) {
        *rc = seg_bcast(c, buf, bytes, root);
        return 1;
    }
    tw_coll_shm_run_t x;
    *rc = run(c, &x, TW_COLL_SHM_BCAST, root, bytes, buf, buf);
    return 1;
}

static const unsigned char *line_of(const tw_coll_shm_run_t *x, int rank) {
    return tw_coll_shm_line(x, rank, x->k)->data;
}

/* Combines count items at offset at of the lines of ranks [0, upto) of call x into
 * dst, in rank order: line 0's op (line 1's op (... line upto-1's)), MPI's order for
 * an op that does not commute; every rank that combines the same lines gets the same
 * bits. */
static int combine_lines(const tw_coll_shm_run_t *x, int upto, size_t at, unsigned char *dst,
                         size_t count, const tw_coll_red_t *red) {
    int rc = MPI_SUCCESS;
    if (count) memcpy(dst, line_of(x, upto - 1) + at, count * red->item);
    for (int j = upto - 2; j >= 0 && !rc; j--)
        rc = tw_mpi_op_apply(red->op, line_of(x, j) + at, dst, (MPI_Count)count, red->type);
    return rc;
}

int tw_coll_shm_reduce(tw_mpi_comm_t *c, const void *in, void *out, size_t count,
                       const tw_coll_red_t *red, int root, int *rc) {
    size_t bytes = count * red->item;
    tw_coll_shm_t *sh = usable(c, rc);
    if (!sh || red->item > sh->slot) return 0;
    tw_mpi_coll_tag(c);
    if (bytes > TW_COLL_LINE_DATA) {
        *rc = seg_reduce(c, in, out, count, red, root);
        return 1;
    }
    tw_coll_shm_run_t x;
    int kind = root < 0 ? TW_COLL_SHM_ALLREDUCE : TW_COLL_SHM_REDUCE;
    *rc = run(c, &x, kind, root < 0 ? 0 : root, bytes, in, NULL);
    if (*rc || (root >= 0 && c->rank != root)) return 1; /* a reduce's giver: done */
    *rc = combine_lines(&x, c->size, 0, out, count, red);
    return 1;
}

/* Whether a scan of bytes goes along the chain: collbench, 3 interleaved rounds
 * against Open MPI, chain / whole: 1 MiB 0.79 / 1.83 on 8 ranks, 1.15 / 1.73 on 16,
 * 1.01 / 2.25 on 4; 256 KiB 0.85 / 1.39 on 4, 0.91 / 1.85 on 16; 128 KiB 0.48 / 0.96
 * on 8; 64 KiB about even. */
static int chain(const tw_mpi_comm_t *c, size_t bytes) {
    int forced = tw_mpi_t_choice(TW_SETTING_COLL_SCAN);
    if (forced == TW_SCAN_SHM_CHAIN || forced == TW_SCAN_SHM_WHOLE)
        return forced == TW_SCAN_SHM_CHAIN;
    return c->size >= 4 && bytes >= (128 << 10);
}

int tw_coll_shm_scan(tw_mpi_comm_t *c, const void *in, void *out, size_t count,
                     const tw_coll_red_t *red, int exclusive, int *rc) {
    size_t bytes = count * red->item;
    if (!usable(c, rc) || red->item > SLOT(c)) return 0;
    if (c->size > 2 || bytes > TW_COLL_LINE_DATA) {
        tw_mpi_coll_tag(c);
        *rc = chain(c, bytes) ? seg_scan_chain(c, in, out, count, red, exclusive)
                              : seg_scan(c, in, out, count, red, exclusive);
        return 1;
    }
    /* on two ranks one line moves: a scan is a reduce to rank 1 (rank 0's result is
     * its input), an exscan a bcast from rank 0 (whose result is none) */
    if (!exclusive) {
        if (tw_coll_shm_reduce(c, in, out, count, red, 1, rc) && !*rc && !c->rank && in != out)
            memcpy(out, in, bytes);
        return 1;
    }
    tw_mpi_coll_tag(c);
    tw_coll_shm_run_t x;
    *rc = run(c, &x, TW_COLL_SHM_BCAST, 0, bytes, in, out);
    return 1;
}

/* ---- calls whose data fit in a line ----
 *
 * Each rank gives what the others need in its line, in one call on the lines (run),
 * and reads the others' lines for the call: they stay as they are until this rank
 * begins its next call. One wait, where the segment takes two (its step, then the
 * others' inputs). */

/* Whether a call whose line would hold bytes goes by the lines: whenever they fit
 * (8 B, three interleaved rounds, time over Open MPI's, segment / lines: Alltoall on 4
 * ranks 1.65 / 0.87, Gather 1.26 / 0.85, Reduce_scatter 0.56 / 0.44, Scatter on 16
 * ranks 0.32 / 0.20; Allgather on 4 0.86 / 0.97, on 8 0.66 / 0.69). */
static int on_lines(size_t bytes) {
    return bytes <= TW_COLL_LINE_DATA;
}

/* Gather (root) or allgather (root -1): rank j's block at j * bytes of out. */
static int line_gather(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out, size_t bytes,
                       int root) {
    int r = c->rank;
    tw_coll_shm_run_t x;
    const unsigned char *own = in ? in : out + (size_t)r * bytes;
    int rc = run(c, &x, root < 0 ? TW_COLL_SHM_ALLREDUCE : TW_COLL_SHM_REDUCE, root < 0 ? 0 : root,
                 bytes, own, NULL);
    if (rc || (root >= 0 && r != root) || !bytes) return rc;
    for (int j = 0; j < c->size; j++) /* this rank's own too, from its line: a copy */
        memcpy(out + (size_t)j * bytes, line_of(&x, j), bytes);
    return MPI_SUCCESS;
}

/* Scatter: the root's line holds every block. */
static int line_scatter(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out, size_t bytes,
                        int root) {
    size_t all = (size_t)c->size * bytes;
    _Alignas(max_align_t) unsigned char got[TW_COLL_LINE_DATA];
    tw_coll_shm_run_t x;
    int rc = run(c, &x, TW_COLL_SHM_BCAST, root, all, in, got);
    if (rc || !out || !bytes) return rc; /* out NULL: the root's block stays in place */
    memcpy(out, (c->rank == root ? in : got) + (size_t)c->rank * bytes, bytes);
    return MPI_SUCCESS;
}

/* Alltoall (red NULL) or reduce-scatter of p blocks of len bytes (count items): each
 * rank gives all its blocks, and takes block r of every line (in may be out: the
 * lines are copies). */
static int line_exchange(tw_mpi_comm_t *c, const unsigned char *in, unsigned char *out,
                         size_t count, size_t len, const tw_coll_red_t *red) {
    int p = c->size, r = c->rank;
    size_t piece = (size_t)r * len;
    tw_coll_shm_run_t x;
    int rc = run(c, &x, TW_COLL_SHM_ALLREDUCE, 0, (size_t)p * len, in, NULL);
    if (rc || !len) return rc;
    if (!red) {
        for (int j = 0; j < p; j++) memcpy(out + (size_t)j * len, line_of(&x, j) + piece, len);
        return MPI_SUCCESS;
    }
    return combine_lines(&x, p, piece, out, count, red);
}

int tw_coll_shm_gather(tw_mpi_comm_t *c, const void *in, void *out, size_t bytes, int root,
                       int *rc) {
    if (!usable(c, rc)) return 0;
    tw_mpi_coll_tag(c);
    *rc = on_lines(bytes) ? line_gather(c, in, out, bytes, root)
                          : seg_gather(c, in, out, bytes, root);
    return 1;
}

int tw_coll_shm_scatter(tw_mpi_comm_t *c, const void *in, void *out, size_t bytes, int root,
                        int *rc) {
    if (!usable(c, rc)) return 0;
    tw_mpi_coll_tag(c);
    *rc = on_lines((size_t)c->size * bytes) ? line_scatter(c, in, out, bytes, root)
                                            : seg_scatter(c, in, out, bytes, root);
    return 1;
}

int tw_coll_shm_reduce_scatter(tw_mpi_comm_t *c, const void *in, void *out, size_t count,
                               const tw_coll_red_t *red, int *rc) {
    if (!usable(c, rc) || red->item * (size_t)c->size > SLOT(c)) return 0;
    tw_mpi_coll_tag(c);
    size_t len = count * red->item;
    *rc = on_lines((size_t)c->size * len) ? line_exchange(c, in, out, count, len, red)
                                          : seg_exchange(c, in, out, count, red->item, red);
    return 1;
}

int tw_coll_shm_alltoall(tw_mpi_comm_t *c, const void *in, void *out, size_t bytes, int *rc) {
    if (!usable(c, rc)) return 0;
    tw_mpi_coll_tag(c);
    *rc = on_lines((size_t)c->size * bytes) ? line_exchange(c, in, out, bytes, bytes, NULL)
                                            : seg_exchange(c, in, out, bytes, 1, NULL);
    return 1;
}

/* ---- persistent calls on the lines ----
 *
 * A persistent Barrier, Reduce, Allreduce (or 2-rank Bcast) whose blocking call takes
 * the lines takes them too, as the same steps (tw_coll_shm_advance) driven without
 * waiting: MPI_Start takes the call's operation number, gives this rank's line when
 * every other rank has begun the call before (at once, as a rule) and returns; the
 * progress hook goes on from there and, once every line it reads is in, combines them
 * and completes the request. Everything a blocking call works out at each call (the
 * block, the line, where the data comes from and goes, the reduction) the init works
 * out once.
 *
 * A rank must not begin call k + 1 on the lines while it still reads those of call k:
 * the others could then begin k + 2 and write over them. So the calls of a block run
 * one after the other at each rank, in the order of their numbers: a started call
 * waits behind those started before it (first .. last), and a blocking call first
 * finishes those (shm_finish_started). Members start persistent collectives in the
 * same order as the other collectives (MPI-4.1 section 6.13), so every member gives
 * every call the same number. */

struct tw_coll_shm_op {
    tw_mpi_comm_t *c;
    tw_coll_shm_t *sh; /* the block of its last start */
    tw_coll_shm_run_t x;
    shm_wait_t w; /* the call as shm_step drives it: x, and where its data comes and goes */
    int kind, root;
    size_t bytes;
    MPI_Request request;
    struct tw_coll_shm_op *next; /* started after it on the same block */
    /* what the finish does: combine the lines into result, and unpack that into the
     * user's out when its type is not contiguous; a start packs the user's in */
    int combine, pack_in, unpack_out;
    tw_coll_red_t red;
    tw_mpi_op_fn *fn; /* the reduction worked out (tw_mpi_op_resolve), or NULL */
    int code;
    size_t elements;
    MPI_Count count;
    MPI_Datatype type;
    const void *in;
    void *out;
    unsigned char *result;
    _Alignas(max_align_t) unsigned char in_copy[TW_COLL_LINE_DATA];
    _Alignas(max_align_t) unsigned char out_copy[TW_COLL_LINE_DATA];
};

static tw_coll_shm_t *busy; /* blocks with started persistent calls, through next_busy */

/* combine_lines with the reduction worked out at init: the same order, the same bits */
static int combine_resolved(const tw_coll_shm_op_t *op) {
    const tw_coll_shm_run_t *x = &op->x;
    unsigned char *to = op->result;
    const unsigned char *from = line_of(x, x->size - 1);
    size_t i = 0;
    for (; i + 8 <= op->bytes; i += 8) memcpy(to + i, from + i, 8); /* a line's few words */
    for (; i < op->bytes; i++) to[i] = from[i];
    int rc = MPI_SUCCESS;
    for (int j = x->size - 2; j >= 0 && !rc; j--)
        rc = op->fn(op->code, line_of(x, j), to, op->elements);
    return rc;
}

/* Ends call op, which has read every line it reads (rc MPI_SUCCESS) or failed: its
 * result, then its request. Not inlined, so that a count of instructions outside the
 * waits (bench/hotpath/coll_instructions.sh) counts it wherever it runs. */
static __attribute__((noinline)) void shm_started_finish(tw_coll_shm_op_t *op, int rc) {
    if (!rc && op->combine)
        rc = op->fn ? combine_resolved(op)
                    : combine_lines(&op->x, op->x.size, 0, op->result, (size_t)op->count, &op->red);
    if (!rc && op->unpack_out) tw_mpi_type_unpack(op->out_copy, op->count, op->type, op->out);
    tw_mpi_coll_request_done(op->request, rc);
}

/* Moves the started calls of block sh on, in order, as far as they go without
 * waiting; a call that must stop waiting (a lost member, one that gave up) fails. */
static void advance_started(tw_coll_shm_t *sh) {
    for (tw_coll_shm_op_t *op; (op = sh->first);) {
        int rc = MPI_SUCCESS;
        (void)shm_step(&op->w);
        if (!op->w.done && !(rc = stop_waiting_on(op->c, op->sh))) return;
        sh->first = op->next;
        shm_started_finish(op, rc);
    }
}

/* The progress hook: every busy block's started calls, on as far as they go. */
static void shm_started_progress(void) {
    static int running; /* a finish may not come back here, but be sure */
    if (running) return;
    running = 1;
    for (tw_coll_shm_t **at = &busy; *at;) {
        tw_coll_shm_t *sh = *at;
        advance_started(sh);
        if (sh->first) {
            at = &sh->next_busy;
        } else {
            *at = sh->next_busy;
            sh->listed = 0;
        }
    }
    if (!busy) tw_mpi_hook_off(TW_HOOK_COLL_SHM);
    running = 0;
}

/* The ready of the progress hook, which a wait asks just before it sleeps: the first
 * started call of every busy block one step on (the others wait their turn); 1 when
 * one moved, so a line written just before the sleep is not slept through. */
static int shm_started_moved(void) {
    int moved = 0;
    for (tw_coll_shm_t *sh = busy; sh; sh = sh->next_busy)
        if (sh->first && shm_step(&sh->first->w)) moved = 1;
    return moved;
}

/* Before a blocking call on c's lines: the persistent calls started before it, to
 * their end (each ends in an error rather than waiting for ever). */
static __attribute__((noinline)) void shm_finish_started(tw_mpi_comm_t *c) {
    tw_coll_shm_t *sh = c->shm;
    unsigned spins = 0;
    for (;;) {
        advance_started(sh);
        if (!sh->first) return;
        tw_mpi_progress();
        tw_mpi_relax(&spins);
    }
}

static void shm_not_busy(tw_coll_shm_t *sh) {
    for (tw_coll_shm_t **at = &busy; *at && sh->listed; at = &(*at)->next_busy)
        if (*at == sh) {
            *at = sh->next_busy;
            break;
        }
    sh->first = sh->last = NULL;
    sh->listed = 0;
}

int tw_coll_shm_persistent(tw_sched_t *s, int kind, int root, const void *in, void *out,
                           MPI_Count count, MPI_Datatype type, const tw_mpi_type_layout_t *l,
                           const tw_coll_red_t *red) {
    tw_mpi_comm_t *c = s->comm;
    size_t bytes = l ? (size_t)count * (size_t)l->size : 0;
    int rc;
    tw_coll_shm_t *sh = usable(c, &rc);
    if (rc) s->error = rc;
    if (rc || !sh) return rc != MPI_SUCCESS;
    if (bytes > TW_COLL_LINE_DATA || (kind == TW_COLL_SHM_BCAST && c->size > 2)) return 0;
    tw_coll_shm_op_t *op = tw_sched_scratch(s, sizeof *op);
    if (!op) return 1; /* s->error says why */
    memset(op, 0, sizeof *op);
    op->c = c;
    op->x = (tw_coll_shm_run_t){.lines = sh->lines, .size = c->size, .rank = c->rank};
    op->kind = kind;
    op->root = root;
    op->bytes = bytes;
    op->count = count;
    op->type = type;
    if (red) op->red = *red;
    int am_root = c->rank == root;
    /* what this rank gives: a broadcast's root its buffer, a reduction its input (in
     * place: out); and where the result goes: a broadcast's takers' buffer, the
     * combined lines of an allreduce and of a reduce's root */
    const void *gives = kind == TW_COLL_SHM_BARRIER ? NULL
                        : kind == TW_COLL_SHM_BCAST ? (am_root ? out : NULL)
                        : in                        ? in
                                                    : out;
    int takes = (kind == TW_COLL_SHM_BCAST && !am_root) || kind == TW_COLL_SHM_ALLREDUCE ||
                (kind == TW_COLL_SHM_REDUCE && am_root);
    op->combine = kind == TW_COLL_SHM_ALLREDUCE || kind == TW_COLL_SHM_REDUCE;
    const unsigned char *give = NULL;
    if (gives && l->contiguous) {
        give = (const unsigned char *)gives + l->lb;
    } else if (gives) {
        give = op->in_copy;
        op->in = gives;
        op->pack_in = 1;
    }
    if (takes && l->contiguous) {
        op->result = (unsigned char *)out + l->lb;
    } else if (takes) {
        op->result = op->out_copy;
        op->out = out;
        op->unpack_out = 1;
    }
    op->combine &= takes;
    if (op->combine) op->fn = tw_mpi_op_resolve(red->op, type, count, &op->code, &op->elements);
    op->w = (shm_wait_t){c, &op->x, give, op->result, 1, 0};
    tw_mpi_progress_hook(TW_HOOK_COLL_SHM, shm_started_progress);
    tw_mpi_progress_hook_ready(TW_HOOK_COLL_SHM, shm_started_moved);
    s->shm_op = op;
    return 1;
}

/* A start that finds the block given up, or a member lost: the code (0: none). */
static __attribute__((noinline)) int start_refused(const tw_mpi_comm_t *c) {
    if (!c->shm) return c->shm_given_up ? given_up(c, c->shm_given_up) : MPI_ERR_OTHER;
    return stop_waiting_on(c, c->shm);
}

int tw_coll_shm_persistent_start(tw_coll_shm_op_t *op, MPI_Request r) {
    tw_mpi_comm_t *c = op->c;
    tw_coll_shm_t *sh = c->shm;
    op->request = r;
    if (__builtin_expect(!sh || tw_mpi_lost_count, 0)) {
        int rc = start_refused(c); /* as a blocking call would: it fails at once */
        if (rc) {
            tw_mpi_coll_request_done(r, rc);
            return MPI_SUCCESS;
        }
    }
    if (op->pack_in) tw_mpi_type_pack(op->in, op->count, op->type, op->in_copy);
    op->sh = sh;
    tw_coll_shm_start(&op->x, ++sh->seq, op->kind, op->root, op->bytes);
    op->w.done = 0;
    op->w.ring = sh->rings;
    op->next = NULL;
    if (sh->first) { /* behind calls started before: the progress hook runs them */
        sh->last->next = op;
        sh->last = op;
        return MPI_SUCCESS;
    }
    (void)shm_step(&op->w);
    if (op->w.done) {
        shm_started_finish(op, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    sh->first = sh->last = op;
    if (!sh->listed) {
        sh->listed = 1;
        sh->next_busy = busy;
        busy = sh;
    }
    tw_mpi_hook_on(TW_HOOK_COLL_SHM);
    return MPI_SUCCESS;
}
