/* The MPI-IO hints that act (ROMIO's and OMPIO's names), as one table: libmpi's I/O
 * chapter parses and reports them (src/mpi/io/hints.c), twinfo lists them. Here, below
 * both, for a tool may not include the MPI library's own headers. */
#ifndef TW_COMMON_IO_HINTS_H
#define TW_COMMON_IO_HINTS_H

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
      "accesses interleave and span nodes (rank 0's value)")                                       \
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

#endif
