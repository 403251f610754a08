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

/* Whether a collective access of f may go through collective buffering: each rank
 * knows it alike, alone (the hints, atomic mode, the nodes); whether it does is then
 * the ranks' decision together. */
int tw_io_two_phase_may(const tw_io_file_t *f, int write);

/* Non-blocking (MPI_File_iwrite_all ...), where tw_io_two_phase_may: the same
 * collective buffering, moved on by progress while the program computes (the
 * aggregators' preads and pwrites on the I/O thread). Every rank of the file starts
 * it, a rank that failed at the call too (mine: its class; it moves nothing). packed
 * (the rank's stream bytes [first, first + len)) stays the caller's until end(arg,
 * ...) runs, once, in progress: declined when the ranks chose each its own access
 * (nothing moved: the caller moves its own), else the worst class of any rank, the
 * rank's stream bytes moved and what failed. */
typedef void tw_io_two_phase_end_fn(void *arg, int declined, int errclass, MPI_Offset done,
                                    const char *detail);
void tw_io_two_phase_start(tw_io_file_t *f, int write, MPI_Offset first, MPI_Offset len,
                           char *packed, int mine, tw_io_two_phase_end_fn *end, void *arg);

#pragma GCC visibility pop

#endif
