/* Progress hooks (hooks.h). */
#include "mpi/env/hooks.h"

tw_mpi_hook_fn *tw_mpi_hooks[TW_MPI_HOOKS];
unsigned tw_mpi_hooks_on;

void tw_mpi_progress_hook(int hook, tw_mpi_hook_fn *fn) {
    tw_mpi_hooks[hook] = fn;
}

static tw_mpi_hook_ready_fn *readies[TW_MPI_HOOKS];

void tw_mpi_progress_hook_ready(int hook, tw_mpi_hook_ready_fn *fn) {
    readies[hook] = fn;
}

int tw_mpi_hooks_ready(void *ctx) {
    (void)ctx;
    for (int k = 0; k < TW_MPI_HOOKS; k++)
        if ((tw_mpi_hooks_on & (1u << k)) && readies[k] && readies[k]()) return 1;
    return 0;
}
