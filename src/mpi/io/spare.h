/* The collective buffers an aggregator needs (its window of the file and the buffer
 * the exchange lands in), kept from one file to the next in the process.
 *
 * A program that opens, writes and closes a file at every checkpoint would otherwise
 * get fresh pages for them at each collective and fault every one in: across nodes,
 * where the exchange goes through them, that was the largest cost of a collective
 * read or write of a few MiB (about two thirds of its page faults). Up to two are
 * kept, each of at most TW_IO_SPARE_MOST bytes, until the library is finalised. */
#ifndef TW_MPI_IO_SPARE_H
#define TW_MPI_IO_SPARE_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

enum { TW_IO_SPARE_MOST = 64 << 20 };

/* A buffer of at least bytes (a kept one when one is large enough, else a new one),
 * its size in *have; NULL when there is no memory for it. */
char *tw_io_spare_take(MPI_Offset bytes, MPI_Offset *have);

/* buf (of size bytes, or NULL) is no longer used: kept for the next take, or freed. */
void tw_io_spare_give(char *buf, MPI_Offset bytes);

/* Frees what is kept (at the finalisation of the library). */
void tw_io_spare_fini(void);

#pragma GCC visibility pop

#endif
