/* Two-phase collective buffering (ROMIO's): the file range a collective access touches
 * is cut into one file domain per aggregator; in rounds of cb_buffer_size every rank
 * sends its pieces of a domain to the domain's aggregator, which makes one large pwrite
 * (or one large pread, and sends the pieces back). */
#ifndef TW_MPI_IO_TWO_PHASE_H
#define TW_MPI_IO_TWO_PHASE_H

#include "mpi/io/file.h"

#pragma GCC visibility push(hidden)

typedef struct tw_io_two_phase tw_io_two_phase_t;

/* Collective: whether this access (the rank's stream bytes [first, first + len)) goes
 * through collective buffering, by the hints and, when automatic, the ranks' accesses;
 * the plan when it does, NULL on every rank when it does not. */
tw_io_two_phase_t *tw_io_two_phase_plan(tw_io_file_t *f, int write, MPI_Offset first,
                                        MPI_Offset len);

/* Collective: moves the data of the plan between packed (the rank's stream bytes; NULL
 * when the rank failed before: it takes part, and mine is its class) and the file.
 * *done: the rank's stream bytes moved. Returns the worst class of any rank. */
int tw_io_two_phase_move(tw_io_two_phase_t *p, char *packed, int mine, MPI_Offset *done,
                         const char **detail);

void tw_io_two_phase_free(tw_io_two_phase_t *p);

#pragma GCC visibility pop

#endif
