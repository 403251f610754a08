/* Data sieving (ROMIO's): an independent access whose file pieces lie close together
 * moves whole spans of the file (up to ind_rd_buffer_size for reads, ind_wr_buffer_size
 * for writes) and copies the pieces in or out; a write reads, modifies and writes the
 * span under an fcntl write lock of it. */
#ifndef TW_MPI_IO_SIEVE_H
#define TW_MPI_IO_SIEVE_H

#include "mpi/io/file.h"

#pragma GCC visibility push(hidden)

/* Moves stream bytes [first, first + len) between the file and packed when data sieving
 * takes the access (*taken 1; the view is not contiguous, and the hints allow it);
 * *done: bytes moved. 0 or an errno. */
int tw_io_sieve(tw_io_file_t *f, int write, MPI_Offset first, char *packed, MPI_Offset len,
                MPI_Offset *done, int *taken);

#pragma GCC visibility pop

#endif
