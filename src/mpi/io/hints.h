/* The I/O hints that act (ROMIO's and OMPIO's names): parsed at MPI_File_open,
 * MPI_File_set_view and MPI_File_set_info, reported by MPI_File_get_info with the
 * value in effect, defaults included. The table of hints: common/io_hints.h. */
#ifndef TW_MPI_IO_HINTS_H
#define TW_MPI_IO_HINTS_H

#include <mpi.h>

#include "common/io_hints.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* enable, disable, automatic */
typedef enum { TW_IO_AUTOMATIC, TW_IO_ENABLE, TW_IO_DISABLE } tw_io_switch_t;

typedef struct tw_io_hints {
    int cb_nodes_given;        /* 0: one aggregator per node */
    MPI_Offset cb_buffer_size; /* bytes of one round */
    int cb_read, cb_write;     /* tw_io_switch_t */
    int ds_read, ds_write;     /* tw_io_switch_t */
    MPI_Offset ind_rd_buffer_size, ind_wr_buffer_size;
    /* the aggregators: ranks of the file's communicator, in the order they take file
     * domains; from the ranks' nodes (MPI_COMM_TYPE_SHARED) */
    int *aggregators, naggregators;
    int *by_spread; /* every rank: the first rank of each node, then the second ... */
    int nodes;
    int local_rank; /* this rank's on its node (0: the node's first, which syncs the file) */
    int cb_shm;     /* tw_io_switch_t */
    /* two_phase.c's: the shared window the aggregators' buffers are in, and its size */
    MPI_Win cb_win;
    MPI_Offset cb_win_size;
    char **cb_bases; /* per aggregator */
    int cb_win_held; /* a non-blocking collective has it (tw_io_two_phase_start) */
    /* an aggregator's window and receive buffer, kept from one collective to the next */
    char *cb_buf, *cb_recv;
    MPI_Offset cb_buf_size, cb_recv_size;
} tw_io_hints_t;

struct tw_io_file;

/* At the open (collective): the nodes of the ranks, then the hints of f->info. */
void tw_io_hints_open(struct tw_io_file *f);

/* After f->info changed (collective): the hints in effect again. */
void tw_io_hints_apply(struct tw_io_file *f);

/* A new info: f->info's hints with the values in effect, defaults included. */
int tw_io_hints_report(struct tw_io_file *f, MPI_Info *info);

void tw_io_hints_free(tw_io_hints_t *h);

#pragma GCC visibility pop

#endif
