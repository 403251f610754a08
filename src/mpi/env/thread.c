/* MPI_THREAD_MULTIPLE: the library's lock and the channels' (see thread.h).
 *
 * Each lock is a mutex and two counters that let a waiting call hand it over: how
 * many threads wait to take it, and how many times it was taken. A plain unlock
 * followed by a lock would mostly find the same thread taking it again before a woken
 * waiter runs; the yielding thread instead waits until another has taken it (or
 * nobody waits any more), so every waiting thread gets its progress passes in turn.
 *
 * A thread knows the locks it holds (held, thread-local) and how deep in calls it is
 * (a callback's call into MPI nests). Locks are taken in one order, channels' by
 * ascending number, the library's last. A nested call that needs a lock before one it
 * holds tries it until it gets it; so that its holder never waits meanwhile for a lock
 * the nested call holds, a thread taking a set in the order waits only for the set's
 * first lock: finding a later one busy, it lets go of the set's earlier ones, waits
 * until the busy one is free, and starts again. (A holder that took such a lock in an
 * outer call cannot let go of it: a callback that calls MPI on a lower channel while
 * its thread and another cross that way still waits for good.) */
#include "mpi/env/thread.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

int tw_mpi_threads_on;

typedef struct lock {
    pthread_mutex_t mutex;
    _Atomic unsigned waiting;    /* threads blocked taking it */
    _Atomic unsigned long taken; /* times it was taken */
} lock_t;

/* On lines of their own: threads on different channels share none. */
static _Alignas(64) struct {
    _Alignas(64) lock_t lock;
} locks[TW_MPI_LOCKS] = {[0 ... TW_MPI_LOCKS - 1] = {{PTHREAD_MUTEX_INITIALIZER, 0, 0}}};

static _Thread_local unsigned held; /* bit k: this thread holds lock k */
static _Thread_local int depth;     /* calls this thread is in */

unsigned tw_mpi_held(void) {
    return held;
}

/* Lock k if free now. */
static int take_now(int k) {
    lock_t *l = &locks[k].lock;
    if (pthread_mutex_trylock(&l->mutex) != 0) return 0;
    atomic_fetch_add_explicit(&l->taken, 1, memory_order_relaxed);
    return 1;
}

/* Lock k, waiting for it: blocked (in the order), or trying by turns (out of it). */
static void take(int k, int in_order) {
    if (take_now(k)) return;
    lock_t *l = &locks[k].lock;
    /* said before the ring: a holder asleep in a wait wakes, or, not yet asleep, sees it
     * in ready_or_wanted and does not sleep */
    atomic_fetch_add_explicit(&l->waiting, 1, memory_order_seq_cst);
    /* its holder sleeps on the doorbell of lock k's channel, among others */
    tw_ep_wake_self(k < tw_mpi.neps ? tw_mpi.eps[k] : tw_mpi.ep);
    if (in_order)
        pthread_mutex_lock(&l->mutex);
    else
        while (pthread_mutex_trylock(&l->mutex) != 0) sched_yield();
    atomic_fetch_sub_explicit(&l->waiting, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&l->taken, 1, memory_order_relaxed);
}

static void drop_set(unsigned set) {
    for (unsigned rest = set; rest; rest &= rest - 1)
        pthread_mutex_unlock(&locks[__builtin_ctz(rest)].lock.mutex);
}

/* Takes the locks of set in the order (channels ascending, the library's last), waiting
 * only for the first while holding others of the set (above). */
static void take_set(unsigned set) {
    int order[TW_MPI_LOCKS], n = 0;
    for (unsigned rest = set & ~1u; rest; rest &= rest - 1) order[n++] = __builtin_ctz(rest);
    if (set & 1u) order[n++] = 0;
    for (;;) {
        take(order[0], 1);
        unsigned got = 1u << order[0];
        int i = 1;
        while (i < n && take_now(order[i])) got |= 1u << order[i++];
        if (i == n) return;
        drop_set(got);
        take(order[i], 1); /* until the busy one is free, then from the first again */
        drop_set(1u << order[i]);
    }
}

/* A set's first and last lock in the order (channel k: k; the library's: 32). */
static int order_first(unsigned set) {
    return set & ~1u ? __builtin_ctz(set & ~1u) : 32;
}

static int order_last(unsigned set) {
    return set & 1u ? 32 : 31 - __builtin_clz(set);
}

unsigned tw_mpi_lock_set(unsigned want) {
    depth++;
    unsigned need = want & ~held;
    if (!need) return 0;
    /* a nested call that needs a lock before one held in the order (a channel call's
     * error handler calling a call on another channel) tries it until it gets it, said
     * as waiting, so that a holder in a wait hands it over between passes */
    if (held && order_first(need) < order_last(held)) {
        for (unsigned rest = need; rest; rest &= rest - 1) take(__builtin_ctz(rest), 0);
    } else {
        take_set(need);
    }
    held |= need;
    return need;
}

void tw_mpi_unlock_set(unsigned took) {
    depth--;
    if (!took) return;
    held &= ~took;
    drop_set(took);
}

int tw_mpi_lock_try(int k) {
    if (!tw_mpi_threads_on || (held & (1u << k))) return 0;
    if (!take_now(k)) return -1;
    held |= 1u << k;
    return 1;
}

void tw_mpi_lock_untry(int k) {
    held &= ~(1u << k);
    pthread_mutex_unlock(&locks[k].lock.mutex);
}

/* Whether another thread waits for a lock of set. */
static int wanted(unsigned set) {
    for (unsigned rest = set; rest; rest &= rest - 1)
        if (atomic_load_explicit(&locks[__builtin_ctz(rest)].lock.waiting, memory_order_seq_cst))
            return 1;
    return 0;
}

void tw_mpi_thread_yield(void) {
    /* deeper, this thread runs a callback of a call that holds the locks: the state
     * that call works on may be half-way, so nobody else may look at it */
    if (depth != 1 || !wanted(held)) return;
    unsigned set = held;
    unsigned long t[TW_MPI_LOCKS];
    for (unsigned rest = set; rest; rest &= rest - 1) {
        int k = __builtin_ctz(rest);
        t[k] = atomic_load_explicit(&locks[k].lock.taken, memory_order_relaxed);
    }
    held = 0;
    drop_set(set);
    /* until every lock that was wanted has been taken by another, or is wanted no more */
    for (unsigned rest = set; rest;) {
        int k = __builtin_ctz(rest);
        const lock_t *l = &locks[k].lock;
        if (atomic_load_explicit(&l->waiting, memory_order_relaxed) &&
            atomic_load_explicit(&l->taken, memory_order_relaxed) == t[k])
            sched_yield();
        else
            rest &= rest - 1;
    }
    take_set(set);
    held = set;
}

typedef struct wait {
    int (*ready)(void *ctx);
    void *ctx;
} wait_t;

/* What a wait checks before it sleeps: another thread asked for a lock it holds, or
 * what the wait itself waits for moved. */
static int ready_or_wanted(void *arg) {
    const wait_t *w = arg;
    return wanted(held) || (w->ready && w->ready(w->ctx));
}

void tw_mpi_thread_relax(unsigned *spins, int (*ready)(void *ctx), void *ctx) {
    /* what ready looks at (the progress hooks, a window's or a collective's state) is
     * the library's: a thread on a channel's lock alone leaves it to the lock's holder */
    wait_t w = {held & TW_MPI_LOCK_LIBRARY ? ready : NULL, ctx};
    /* over the endpoints of the channels whose locks this thread holds (lock k is
     * channel k's): only they are this thread's to look at */
    tw_ep_t *mine[TW_EP_WAIT_SET_MOST];
    int n = 0;
    for (unsigned rest = held; rest && tw_mpi.neps > 1; rest &= rest - 1) {
        int k = __builtin_ctz(rest);
        if (k < tw_mpi.neps) mine[n++] = tw_mpi.eps[k];
    }
    if (n)
        tw_ep_relax_until_set(mine, n, spins, ready_or_wanted, &w);
    else
        tw_ep_relax_until(tw_mpi.ep, spins, ready_or_wanted, &w);
    tw_mpi_thread_yield();
}

/* Before a sleep without the locks: stay up when what the wait waits for moved, when
 * another thread holds the library's lock (it polls the rings meanwhile), or when a
 * progress pass has work (a send to retry among it), which only the lock lets this
 * thread see. */
static int awake_unlocked(void *arg) {
    const wait_t *w = arg;
    if (w->ready(w->ctx)) return 1;
    if (pthread_mutex_trylock(&locks[0].lock.mutex) != 0) return 1;
    /* held: a call made from a hook's check nests rather than deadlocks */
    held = 1u;
    depth = 1;
    int work = tw_ep_has_work(tw_mpi.ep) || tw_mpi_hooks_ready(NULL);
    held = 0;
    depth = 0;
    pthread_mutex_unlock(&locks[0].lock.mutex);
    return work;
}

int tw_mpi_thread_pause_free(unsigned *spins, int (*moved)(void *ctx), void *ctx) {
    /* deeper, the call below this one holds state another thread must not see */
    if (depth != 1) return 0;
    wait_t w = {moved, ctx};
    unsigned set = held;
    held = 0;
    depth = 0;
    drop_set(set);
    if (!moved(ctx)) tw_ep_relax_shared(tw_mpi.ep, spins, awake_unlocked, &w);
    take_set(set);
    held = set;
    depth = 1;
    return 1;
}

void tw_mpi_thread_init(int provided) {
    tw_mpi.thread_level = provided;
    tw_mpi.main_thread = pthread_self();
    tw_mpi_threads_on = provided == MPI_THREAD_MULTIPLE;
}
