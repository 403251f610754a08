/* Which way a blocking collective on one node goes: through the shared-memory
 * segment (coll_shm.c) or by messages (coll.c), by the tuning table of
 * coll_tuning.c or as a TW_COLL_* setting forces it. */
#ifndef TW_MPI_COLL_TUNING_H
#define TW_MPI_COLL_TUNING_H

#include <stddef.h>

#include "mpi/tools/tools.h"

#include <tollway/settings.h>

#pragma GCC visibility push(hidden)

typedef enum tw_coll_kind {
    TW_COLL_KIND_BARRIER,
    TW_COLL_KIND_BCAST,
    TW_COLL_KIND_REDUCE,
    TW_COLL_KIND_ALLREDUCE,
    TW_COLL_KIND_SCAN, /* and exscan */
    TW_COLL_KIND_GATHER,
    TW_COLL_KIND_SCATTER,
    TW_COLL_KIND_ALLGATHER,
    TW_COLL_KIND_REDUCE_SCATTER,
    TW_COLL_KIND_ALLTOALL,
    TW_COLL_KINDS
} tw_coll_kind_t;

/* The most bytes a call's largest buffer may hold: one not contiguous is copied. */
#define TW_COLL_SHM_COPY_MOST ((size_t)4 << 20)

/* The settings as last read: a collective's call reads them again only after a tool
 * wrote a choice (the environment's stay as they were at start-up). */
typedef struct tw_coll_tuning {
    int loaded;
    unsigned writes;
    int all;                   /* TW_COLL_SHM */
    int forced[TW_COLL_KINDS]; /* TW_COLL_<NAME>: 0 auto, 1 shm, -1 another algorithm */
    /* the rows of each kind: table[first[k]] up to table[first[k + 1]] */
    unsigned char first[TW_COLL_KINDS + 1];
    /* on 2 ranks, the most common case, the one range of bytes of each kind that goes
     * through shared memory, the settings and the copy limit applied (pair_rows[k]
     * rows cover 2 ranks; when more than one, the answer is worked out every call) */
    unsigned char pair_rows[TW_COLL_KINDS];
    size_t pair_least[TW_COLL_KINDS], pair_most[TW_COLL_KINDS];
} tw_coll_tuning_t;
extern tw_coll_tuning_t tw_coll_tuning;
void tw_coll_tuning_load(void);
/* Whether a row of the table sends the call through shared memory. */
int tw_coll_tuned_rows(tw_coll_kind_t kind, int ranks, size_t bytes);

/* 1 when a call of kind on ranks ranks moving bytes (the buffer of a bcast or
 * reduction, one rank's block of the others) goes through shared memory. The same
 * answer at every rank: it depends on nothing else, and settings are the job's.
 * Inline: every blocking collective asks, and the smallest take 0.1 us. */
static inline int tw_coll_tuned_shm(tw_coll_kind_t kind, int ranks, size_t bytes) {
    if (__builtin_expect(!tw_coll_tuning.loaded || tw_coll_tuning.writes != tw_mpi_t_choice_writes,
                         0))
        tw_coll_tuning_load();
    if (ranks == 2 && tw_coll_tuning.pair_rows[kind] <= 1) /* settings and limit folded in */
        return bytes >= tw_coll_tuning.pair_least[kind] && bytes <= tw_coll_tuning.pair_most[kind];
    /* a non-contiguous buffer goes as a packed copy of it */
    size_t whole = kind >= TW_COLL_KIND_GATHER ? bytes * (size_t)ranks : bytes;
    if (whole > TW_COLL_SHM_COPY_MOST) return 0;
    if (tw_coll_tuning.forced[kind]) return tw_coll_tuning.forced[kind] > 0;
    if (tw_coll_tuning.all != TW_COLL_SHM_AUTO) return tw_coll_tuning.all == TW_COLL_SHM_SHM;
    return tw_coll_tuned_rows(kind, ranks, bytes);
}

#pragma GCC visibility pop

#endif
