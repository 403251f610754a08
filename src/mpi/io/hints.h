/* The I/O hints that act (ROMIO's and OMPIO's names): parsed at MPI_File_open,
 * MPI_File_set_view and MPI_File_set_info, reported by MPI_File_get_info with the
 * value in effect, defaults included. The table of hints is also twinfo's. */
#ifndef TW_MPI_IO_HINTS_H
#define TW_MPI_IO_HINTS_H

#include <mpi.h>

/* Each hint: name, default (as get_info reports it; "" when reported only if given),
 * values taken, what it does. twinfo lists them from here. */
#define TW_IO_HINTS(X)                                                                             \
    X("cb_nodes", "nodes", "a positive integer (capped at the ranks)",                             \
      "aggregators of collective buffering; default one per node (rank 0's value)")                \
    X("cb_buffer_size", "16777216", "a positive integer",                                          \
      "bytes an aggregator moves per round of collective buffering (rank 0's value)")              \
    X("romio_cb_read", "automatic", "enable, disable, automatic",                                  \
      "two-phase collective buffering of collective reads; automatic: when the ranks' "            \
      "accesses interleave and span nodes (rank 0's value)")                                       \
    X("romio_cb_write", "automatic", "enable, disable, automatic",                                 \
      "two-phase collective buffering of collective writes; automatic: when the ranks' "           \
      "accesses interleave in runs under 256 bytes, or span nodes (rank 0's value)")               \
    X("collective_buffering", "true", "true, false",                                               \
      "false: romio_cb_read and romio_cb_write disable; true: enable")                             \
    X("romio_ds_read", "automatic", "enable, disable, automatic",                                  \
      "data sieving of independent non-contiguous reads; automatic: across holes up to 8 KiB")     \
    X("romio_ds_write", "automatic", "enable, disable, automatic",                                 \
      "data sieving of independent non-contiguous writes (read-modify-write under a lock); "       \
      "automatic: 4 runs or more across holes up to 4 KiB")                                        \
    X("ind_rd_buffer_size", "4194304", "a positive integer", "bytes of one sieved read")           \
    X("ind_wr_buffer_size", "524288", "a positive integer", "bytes of one sieved write")           \
    X("tw_cb_shm", "automatic", "enable, disable, automatic",                                      \
      "Tollway's: collective buffering on one node through a shared-memory window the ranks "      \
      "copy into (automatic, enable), or by an exchange of messages (disable; rank 0's value)")    \
    X("cb_config_list", "*:1", "ROMIO's list of hosts", "recorded and reported")                   \
    X("romio_no_indep_rw", "false", "true, false", "recorded and reported")                        \
    X("striping_factor", "", "a positive integer", "recorded and reported when given")             \
    X("striping_unit", "", "a positive integer", "recorded and reported when given")               \
    X("access_style", "", "MPI's list of styles", "recorded and reported when given")

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
