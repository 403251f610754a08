/* Progress hooks (hooks.h). */
#include "mpi/env/hooks.h"

tw_mpi_hook_fn *tw_mpi_hooks[TW_MPI_HOOKS];
unsigned tw_mpi_hooks_on;

void tw_mpi_progress_hook(int hook, tw_mpi_hook_fn *fn) {
    tw_mpi_hooks[hook] = fn;
}
