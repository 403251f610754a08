/* Process creation and management (dynamic.c): what the rest of the library asks. */
#ifndef TW_MPI_DYNAMIC_H
#define TW_MPI_DYNAMIC_H

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* At the end of MPI_Init: a job that twrun spawned connects to its parents. */
void tw_mpi_dynamic_init(void);

#pragma GCC visibility pop

#endif
