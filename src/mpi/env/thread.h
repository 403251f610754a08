/* MPI_THREAD_MULTIPLE: the library's lock, and a lock per channel (thread.c).
 *
 * Every public MPI function is a generated wrapper that, while tw_mpi_threads_on,
 * runs the library's own implementation between tw_mpi_lock_set() and
 * tw_mpi_unlock_set(): whatever the library keeps (requests, matching queues,
 * communicators, windows, the device endpoints) is touched only by a thread that holds
 * its lock. Lock 0 is the library's, and the first channel's (pt2pt/channel.h); lock k
 * is channel k's, when TW_CHANNELS runs more than one. A call on a communicator's
 * point-to-point traffic, or on requests of that traffic alone, takes its channel's
 * lock only; every other call takes the library's, and first the lock of the channel
 * of a communicator it names (its state may be touched: creating from it, freeing it).
 * A thread that calls MPI again from a callback it runs inside MPI (a user op, an
 * error handler, an attribute or generalized-request callback) holds the locks
 * already: nesting is counted. Blocking calls give their locks away between progress
 * passes (tw_mpi_relax), so other threads run while one waits; any state such a call
 * reads again after a pass is read under the lock once more. A wait that sleeps
 * (TW_WAIT) sleeps holding its locks, on the doorbells of their channels; a thread
 * that finds lock k taken rings channel k's doorbell first, so the sleeper wakes and
 * hands it over. A collective's
 * wait on its communicator's shared block is the exception: it holds its locks only
 * for its progress passes (tw_mpi_thread_pause_free), so collectives on other
 * communicators run meanwhile.
 *
 * Below MPI_THREAD_MULTIPLE the wrappers test tw_mpi_threads_on and nothing else. */
#ifndef TW_MPI_THREAD_H
#define TW_MPI_THREAD_H

#include <tollway/tollway.h>

#include "mpi/env/hooks.h"
#include "mpi/env/state.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* 1 once MPI_Init_thread provided MPI_THREAD_MULTIPLE (written before the program's
 * other threads may call MPI, never again). */
extern int tw_mpi_threads_on;

/* Locks: bit k of a set is lock k; TW_MPI_LOCK_LIBRARY the library's (channel 0's). */
enum { TW_MPI_LOCKS = 16, TW_MPI_LOCK_LIBRARY = 1u };

/* One call deeper, holding the locks of want: those this thread did not hold yet are
 * taken (in the order of thread.c) and returned, for tw_mpi_unlock_set. */
unsigned tw_mpi_lock_set(unsigned want);
/* The call ends: the locks it took (tw_mpi_lock_set's answer) are released. */
void tw_mpi_unlock_set(unsigned took);

/* The library's lock for a call of the library's own (an unlocked call's error). */
static inline unsigned tw_mpi_enter(void) {
    return tw_mpi_lock_set(TW_MPI_LOCK_LIBRARY);
}
static inline void tw_mpi_leave(unsigned took) {
    tw_mpi_unlock_set(took);
}

/* The locks this thread holds. */
unsigned tw_mpi_held(void);
/* Lock k, without waiting, out of the order: 1 when taken now, 0 when this thread
 * holds it already (or no lock is needed: below MPI_THREAD_MULTIPLE), -1 when another
 * does. tw_mpi_lock_untry gives back what was taken now. */
int tw_mpi_lock_try(int k);
void tw_mpi_lock_untry(int k);

/* Between two progress passes of a blocking call: when this thread holds the lock at
 * the outermost level and another thread waits for it, the other runs now. */
void tw_mpi_thread_yield(void);

/* tw_mpi_relax under MPI_THREAD_MULTIPLE: a pause that does not sleep through another
 * thread's wish for the lock, then the lock handed over when one waits for it. */
void tw_mpi_thread_relax(unsigned *spins, int (*ready)(void *ctx), void *ctx);

/* The pause of a wait on memory a peer writes (tw_ep_relax_until), over every channel's
 * endpoint, whose traffic any wait may need (a single thread owns them all; under
 * MPI_THREAD_MULTIPLE, those of the channels whose locks the thread holds). */
static inline void tw_mpi_relax_until(unsigned *spins, int (*ready)(void *ctx), void *ctx) {
    if (__builtin_expect(tw_mpi_threads_on, 0))
        tw_mpi_thread_relax(spins, ready, ctx);
    else if (__builtin_expect(tw_mpi.neps > 1, 0))
        tw_ep_relax_until_set(tw_mpi.eps, tw_mpi.neps, spins, ready, ctx);
    else
        tw_ep_relax_until(tw_mpi.ep, spins, ready, ctx);
}

/* The pause of every wait loop, between its progress passes (instead of tw_ep_relax);
 * before it sleeps, the hooks that poll memory look once more (tw_mpi_hooks_ready). */
static inline void tw_mpi_relax(unsigned *spins) {
    tw_mpi_relax_until(spins, tw_mpi_hooks_ready, NULL);
}

/* The pause of a wait on memory that only the waiting call reads and other processes
 * write (a collective's lines on its communicator's block, which no other thread may
 * use meanwhile): at a call's outermost level the lock is given back for the pause,
 * so threads on other communicators run their calls, and taken again before it
 * returns. moved(ctx) runs without the lock (it may read only such memory): non-zero
 * when the wait should look again. 0, with nothing done, inside a callback's call. */
int tw_mpi_thread_pause_free(unsigned *spins, int (*moved)(void *ctx), void *ctx);

/* tw_mpi_relax_until for such a wait: ready(ctx) runs with the lock as there (it may
 * wake peers), moved(ctx) without it. */
static inline void tw_mpi_relax_own(unsigned *spins, int (*ready)(void *ctx),
                                    int (*moved)(void *ctx), void *ctx) {
    if (__builtin_expect(tw_mpi_threads_on, 0) && tw_mpi_thread_pause_free(spins, moved, ctx))
        return;
    tw_mpi_relax_until(spins, ready, ctx);
}

/* Called by MPI_Init_thread: stores the level provided and the calling thread, and
 * switches the lock on for MPI_THREAD_MULTIPLE. */
void tw_mpi_thread_init(int provided);

#pragma GCC visibility pop

#endif
