/* MPI_Pack_external and its size (external32.c), for the int and the large-count
 * forms (MPI_Count counts). */
#ifndef TW_MPI_EXTERNAL32_H
#define TW_MPI_EXTERNAL32_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

int tw_mpi_pack_external(const char *call, int unpack, const char datarep[], void *user,
                         MPI_Count count, MPI_Datatype datatype, void *packed, MPI_Aint packed_size,
                         MPI_Aint *position);
int tw_mpi_pack_external_size(const char *call, const char datarep[], MPI_Count incount,
                              MPI_Datatype datatype, MPI_Aint *size);

/* One value of a predefined type: its external32 bytes (-1: not a predefined type), and
 * its conversion between the native packed form and external32 (out: to external32,
 * MPI_ERR_CONVERSION when the value does not fit; in: always MPI_SUCCESS). */
int tw_mpi_external32_basic_size(MPI_Datatype basic);
int tw_mpi_external32_value(MPI_Datatype basic, unsigned char *native, unsigned char *ext, int out);

#pragma GCC visibility pop

#endif
