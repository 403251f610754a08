/* The tuning table: for each blocking collective on a communicator whose ranks share
 * a node, and each range of rank counts, the largest call (in bytes, as
 * tw_coll_tuned_shm counts them) that goes through the shared-memory segment;
 * larger calls, and calls a row does not cover, go by messages, whose algorithm
 * coll.c picks. The figures are from bench/mpi/collbench against the message
 * algorithms (docs/performance.md says how they were measured).
 *
 * TW_COLL_<NAME>=shm sends one collective through shared memory wherever it can,
 * and any other algorithm named there keeps it to messages; for the collectives
 * whose setting is auto, TW_COLL_SHM=p2p keeps them to messages and TW_COLL_SHM=shm
 * sends them through shared memory wherever it can. */
#include <stdint.h>

#include "mpi/coll_tuning.h"
#include "mpi/tools.h"

#include <tollway/settings.h>

/* The most bytes a call's largest buffer may hold: one not contiguous is copied. */
#define TW_COLL_SHM_COPY_MOST ((size_t)4 << 20)

typedef struct tuning_row {
    tw_coll_kind_t kind;
    int min_ranks, max_ranks; /* inclusive */
    size_t shm_most;          /* shared memory up to this many bytes */
} tuning_row_t;

#define ANY SIZE_MAX
#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

static const tuning_row_t table[] = {
    {TW_COLL_KIND_BARRIER, 2, 1 << 30, 0},     {TW_COLL_KIND_BCAST, 2, 2, 56},
    {TW_COLL_KIND_BCAST, 3, 1 << 30, ANY},     {TW_COLL_KIND_REDUCE, 3, 1 << 30, ANY},
    {TW_COLL_KIND_ALLREDUCE, 2, 2, 56},        {TW_COLL_KIND_ALLREDUCE, 3, 1 << 30, ANY},
    {TW_COLL_KIND_GATHER, 3, 1 << 30, ANY},    {TW_COLL_KIND_SCATTER, 3, 1 << 30, ANY},
    {TW_COLL_KIND_ALLGATHER, 3, 1 << 30, ANY}, {TW_COLL_KIND_REDUCE_SCATTER, 3, 1 << 30, ANY},
};

/* The setting that forces an algorithm of kind, and its value naming shared memory;
 * TW_SETTING_COUNT: none. */
static void forcing(tw_coll_kind_t kind, tw_setting_id_t *id, int *shm) {
    switch (kind) {
    case TW_COLL_KIND_BCAST:
        *id = TW_SETTING_COLL_BCAST, *shm = TW_BCAST_SHM;
        return;
    case TW_COLL_KIND_REDUCE:
        *id = TW_SETTING_COLL_REDUCE, *shm = TW_REDUCE_SHM;
        return;
    case TW_COLL_KIND_ALLREDUCE:
        *id = TW_SETTING_COLL_ALLREDUCE, *shm = TW_ALLREDUCE_SHM;
        return;
    case TW_COLL_KIND_GATHER:
    case TW_COLL_KIND_SCATTER:
        *id = TW_SETTING_COLL_GATHER, *shm = TW_GATHER_SHM;
        return;
    case TW_COLL_KIND_ALLGATHER:
        *id = TW_SETTING_COLL_ALLGATHER, *shm = TW_ALLGATHER_SHM;
        return;
    case TW_COLL_KIND_BARRIER:
        *id = TW_SETTING_COLL_BARRIER, *shm = TW_BARRIER_SHM;
        return;
    case TW_COLL_KIND_REDUCE_SCATTER:
        *id = TW_SETTING_COLL_REDUCE_SCATTER, *shm = TW_REDUCE_SCATTER_SHM;
        return;
    default:
        *id = TW_SETTING_COUNT, *shm = 0;
        return;
    }
}

int tw_coll_tuned_shm(tw_coll_kind_t kind, int ranks, size_t bytes) {
    /* a non-contiguous buffer goes as a packed copy of it */
    size_t whole = kind >= TW_COLL_KIND_GATHER ? bytes * (size_t)ranks : bytes;
    if (whole > TW_COLL_SHM_COPY_MOST) return 0;
    tw_setting_id_t id;
    int shm;
    forcing(kind, &id, &shm);
    int forced = id == TW_SETTING_COUNT ? 0 : tw_mpi_t_choice(id);
    if (forced) return forced == shm; /* 0 is every setting's auto */
    int all = tw_setting_choice(TW_SETTING_COLL_SHM);
    if (all != TW_COLL_SHM_AUTO) return all == TW_COLL_SHM_SHM;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const tuning_row_t *t = &table[i];
        if (t->kind == kind && ranks >= t->min_ranks && ranks <= t->max_ranks)
            return bytes <= t->shm_most;
    }
    return 0;
}
