/* MPI_Comm_idup's entry for the faces (comm_idup.c). Without mpi.h: a face's C takes
 * its names from the face's own header, and native handles are ints. */
#ifndef TW_MPI_COMM_IDUP_H
#define TW_MPI_COMM_IDUP_H

#pragma GCC visibility push(hidden)

/* Writes handle, a native communicator, where slot says. */
typedef void tw_mpi_handle_deliver_fn(void *slot, int handle);

/* MPI_Comm_idup (info NULL) and MPI_Comm_idup_with_info, locked as the calls are: the
 * new handle is made only when the request completes, so it is not written through a
 * native handle's address but given to deliver with slot (MPI_COMM_NULL at once, the
 * duplicate later), which a face converts into the program's. */
int tw_mpi_comm_idup_deliver(int comm, const int *info, tw_mpi_handle_deliver_fn *deliver,
                             void *slot, int *request);

#pragma GCC visibility pop

#endif
