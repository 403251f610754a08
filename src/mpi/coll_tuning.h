/* Which way a blocking collective on one node goes: through the shared-memory
 * segment (coll_shm.c) or by messages (coll.c), by the tuning table of
 * coll_tuning.c or as a TW_COLL_* setting forces it. */
#ifndef TW_MPI_COLL_TUNING_H
#define TW_MPI_COLL_TUNING_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

typedef enum tw_coll_kind {
    TW_COLL_KIND_BARRIER,
    TW_COLL_KIND_BCAST,
    TW_COLL_KIND_REDUCE,
    TW_COLL_KIND_ALLREDUCE,
    TW_COLL_KIND_GATHER,
    TW_COLL_KIND_SCATTER,
    TW_COLL_KIND_ALLGATHER,
    TW_COLL_KIND_REDUCE_SCATTER,
    TW_COLL_KINDS
} tw_coll_kind_t;

/* 1 when a call of kind on ranks ranks moving bytes (the buffer of a bcast or
 * reduction, one rank's block of the others) goes through shared memory. The same
 * answer at every rank: it depends on nothing else, and settings are the job's. */
int tw_coll_tuned_shm(tw_coll_kind_t kind, int ranks, size_t bytes);

#pragma GCC visibility pop

#endif
