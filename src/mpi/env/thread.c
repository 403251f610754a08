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
        atomic_fetch_add_explicit(&waiting, 1, memory_order_relaxed);
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

void tw_mpi_thread_init(int provided) {
    tw_mpi.thread_level = provided;
    tw_mpi.main_thread = pthread_self();
    tw_mpi_threads_on = provided == MPI_THREAD_MULTIPLE;
    /* a sleeping wait would hold the lock through its sleep */
    if (tw_mpi_threads_on) tw_ep_set_sleep(tw_mpi.ep, 0);
}
