/* MPI_Comm_split_type's hardware and resource guided splits (comm/split_hw.c). */
#ifndef TW_MPI_COMM_SPLIT_HW_H
#define TW_MPI_COMM_SPLIT_HW_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

struct tw_mpi_comm;
/* The split of p by split_type (MPI_COMM_TYPE_HW_GUIDED, _HW_UNGUIDED or
 * _RESOURCE_GUIDED); the error raised, or MPI_SUCCESS. */
int tw_mpi_split_hw(struct tw_mpi_comm *p, int split_type, int key, MPI_Info info,
                    MPI_Comm *newcomm);

#pragma GCC visibility pop

#endif
