/* Progress hooks (hooks.c): the work of units other than the point-to-point engine that
 * each pass of MPI progress (pt2pt/engine.c) runs, while it is switched on. They are
 * kept here, below every unit that registers one, so the engine never calls those units
 * by name and they need not know the engine to switch their hook. */
#ifndef TW_MPI_HOOKS_H
#define TW_MPI_HOOKS_H

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Progress hooks: a fixed few, each run in every pass while it is switched on, so a
 * pass with none on pays one test. */
/* run in this order; TW_HOOK_EVENTS last: MPI_T callbacks see the pass's work done */
enum {
    TW_HOOK_LOST,
    TW_HOOK_SCHED,
    TW_HOOK_PAIRS,
    TW_HOOK_FLUSH,
    TW_HOOK_PART,
    TW_HOOK_COLL_SHM, /* persistent collectives on the shared-memory lines (coll_shm.c) */
    TW_HOOK_IO,       /* files' non-blocking accesses the I/O thread ran (io/progress.c) */
    TW_HOOK_EVENTS,
    TW_MPI_HOOKS
};
typedef void tw_mpi_hook_fn(void);
void tw_mpi_progress_hook(int hook, tw_mpi_hook_fn *fn);
extern tw_mpi_hook_fn *tw_mpi_hooks[TW_MPI_HOOKS]; /* hook k, NULL: none */
extern unsigned tw_mpi_hooks_on;                   /* bit k: hook k runs */
static inline void tw_mpi_hook_on(int hook) {
    tw_mpi_hooks_on |= 1u << hook;
}
static inline void tw_mpi_hook_off(int hook) {
    tw_mpi_hooks_on &= ~(1u << hook);
}

/* A hook whose unit finds its work by polling memory that other processes write (not
 * in the endpoint's rings, which wake a sleeping wait) names what a wait checks just
 * before it sleeps: it advances what it can and answers 1 when something moved, so a
 * write made just before the sleep is not missed (tw_ep_relax_until). */
typedef int tw_mpi_hook_ready_fn(void);
void tw_mpi_progress_hook_ready(int hook, tw_mpi_hook_ready_fn *fn);
/* That check for every hook switched on (the ready of tw_mpi_relax; ctx unused). */
int tw_mpi_hooks_ready(void *ctx);

#pragma GCC visibility pop

#endif
