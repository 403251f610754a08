/* MPI_THREAD_MULTIPLE: the library's lock (see thread.h).
 *
 * A mutex, the depth this thread holds it at (thread-local, so a callback's call into
 * MPI nests without a test of the owner), and two counters that let a waiting call
 * hand the lock over: how many threads wait to take it, and how many times it was
 * taken. A plain unlock followed by a lock would mostly find the same thread taking
 * it again before a woken waiter runs; the yielding thread instead waits until
 * another has taken it (or nobody waits any more), so every waiting thread gets its
 * progress passes in turn. */
#include "mpi/env/thread.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

int tw_mpi_threads_on;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int depth;     /* levels this thread holds the lock at */
static _Atomic unsigned waiting;    /* threads blocked taking the lock */
static _Atomic unsigned long taken; /* times the lock was taken */

static void take(void) {
    if (pthread_mutex_trylock(&lock) != 0) {
        /* said before the ring: a holder asleep in a wait wakes, or, not yet asleep,
         * sees it in ready_or_wanted and does not sleep */
        atomic_fetch_add_explicit(&waiting, 1, memory_order_seq_cst);
        tw_ep_wake_self(tw_mpi.ep);
        pthread_mutex_lock(&lock);
        atomic_fetch_sub_explicit(&waiting, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&taken, 1, memory_order_relaxed);
}

void tw_mpi_enter(void) {
    if (depth++) return;
    take();
}

void tw_mpi_leave(void) {
    if (--depth) return;
    pthread_mutex_unlock(&lock);
}

void tw_mpi_thread_yield(void) {
    /* deeper, this thread runs a callback of a call that holds the lock: the state
     * that call works on may be half-way, so nobody else may look at it */
    if (depth != 1 || !atomic_load_explicit(&waiting, memory_order_relaxed)) return;
    unsigned long t = atomic_load_explicit(&taken, memory_order_relaxed);
    pthread_mutex_unlock(&lock);
    while (atomic_load_explicit(&waiting, memory_order_relaxed) &&
           atomic_load_explicit(&taken, memory_order_relaxed) == t)
        sched_yield();
    take();
}

typedef struct wait {
    int (*ready)(void *ctx);
    void *ctx;
} wait_t;

/* What a wait checks before it sleeps: another thread asked for the lock, or what
 * the wait itself waits for moved. */
static int ready_or_wanted(void *arg) {
    const wait_t *w = arg;
    return atomic_load_explicit(&waiting, memory_order_seq_cst) || (w->ready && w->ready(w->ctx));
}

void tw_mpi_thread_relax(unsigned *spins, int (*ready)(void *ctx), void *ctx) {
    wait_t w = {ready, ctx};
    tw_ep_relax_until(tw_mpi.ep, spins, ready_or_wanted, &w);
    tw_mpi_thread_yield();
}

/* Before a sleep without the lock: stay up when what the wait waits for moved, when
 * another thread holds the lock (it polls the rings meanwhile), or when a progress
 * pass has work (a send to retry among it), which only the lock lets this thread see. */
static int awake_unlocked(void *arg) {
    const wait_t *w = arg;
    if (w->ready(w->ctx)) return 1;
    if (pthread_mutex_trylock(&lock) != 0) return 1;
    depth = 1; /* held: a call made from a hook's check nests rather than deadlocks */
    int work = tw_ep_has_work(tw_mpi.ep) || tw_mpi_hooks_ready(NULL);
    depth = 0;
    pthread_mutex_unlock(&lock);
    return work;
}

int tw_mpi_thread_pause_free(unsigned *spins, int (*moved)(void *ctx), void *ctx) {
    /* deeper, the call below this one holds state another thread must not see */
    if (depth != 1) return 0;
    wait_t w = {moved, ctx};
    depth = 0;
    pthread_mutex_unlock(&lock);
    if (!moved(ctx)) tw_ep_relax_shared(tw_mpi.ep, spins, awake_unlocked, &w);
    take();
    depth = 1;
    return 1;
}

void tw_mpi_thread_init(int provided) {
    tw_mpi.thread_level = provided;
    tw_mpi.main_thread = pthread_self();
    tw_mpi_threads_on = provided == MPI_THREAD_MULTIPLE;
}
