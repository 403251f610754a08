/* The tuning table: for each blocking collective on a communicator whose ranks share
 * a node, and each range of rank counts, the ranges of call sizes (in bytes, as
 * tw_coll_tuned_shm counts them) that go through shared memory; calls no row
 * covers go by messages, whose algorithm coll.c picks.
 *
 * TW_COLL_<NAME>=shm sends one collective through shared memory wherever it can,
 * and any other algorithm named there keeps it to messages; for the collectives
 * whose setting is auto, TW_COLL_SHM=p2p keeps them to messages and TW_COLL_SHM=shm
 * sends them through shared memory wherever it can. */
#include <stdint.h>

#include "mpi/coll/coll_tuning.h"
#include "mpi/tools/tools.h"

#include <tollway/settings.h>

typedef struct tuning_row {
    tw_coll_kind_t kind;
    int min_ranks, max_ranks; /* inclusive */
    size_t least, most;       /* shared memory for calls of least to most bytes */
} tuning_row_t;

#define K    ((size_t)1 << 10)
#define ALL  0, SIZE_MAX
#define MANY (1 << 30)

/* bench/mpi/coll_tune.sh (collbench, TW_COLL_SHM=shm against TW_COLL_SHM=p2p: the
 * message algorithms auto picks), on 2 cores (docs/performance.md):
 *   - 4, 8 and 16 ranks: `ROUNDS=2 bench/mpi/coll_tune.sh build 4 8 16`, 8 B to 1 MiB,
 *     run again once slots had grown to 256 KiB, a publish woke only its waiters and a
 *     crowded node's messages no longer split (docs/bench/coll-tune-summary.csv).
 *     5 to 8 ranks take the rows measured on 8, 9 and more those measured on 16;
 *   - 3 ranks: the first run, three rounds, with the segment as it was then;
 *   - 2 ranks: the lines of coll_shm.c serve barrier, and every other collective of
 *     up to 56 bytes (a block), as measured when they were made (reduce: 0.10 us
 *     against the binomial tree's 0.17, 8 bytes, seven interleaved rounds; scatter
 *     0.42x Open MPI's time, alltoall 0.56x, where messages took 1.24x and 1.13x); the
 *     segment was measured later against messages, five interleaved rounds at 1, 8,
 *     16, 32 and 64 KiB (and 256 KiB and 1 MiB where it still won at 64 KiB): it takes
 *     about half the messages' time up to 8 KiB for every collective (1 KiB: Scatter
 *     0.36x Open MPI against 0.98x, Alltoall 0.49x against 1.06x), and the rows end
 *     where messages catch up. On an Intel Xeon (2026-12-01, osu_<name> with
 *     TW_COLL_SHM=shm and =p2p, two runs each) messages caught up by 16 KiB for
 *     bcast, gather, scatter, allgather and alltoall, where the AMD EPYC of the first
 *     runs had the segment ahead to 16 or 32 KiB: those rows now end at 8 KiB.
 * Sizes between two measured ones go the way of the nearer; a range that won by less
 * than a tenth either way is merged into its neighbours. */
static const tuning_row_t table[] = {
    /* in the order of tw_coll_kind_t */
    {TW_COLL_KIND_BARRIER, 2, MANY, ALL},
    {TW_COLL_KIND_BCAST, 2, 2, 0, 8 * K}, /* 16 KiB: messages 1.75-3.83 us, shm 3.44-3.51 */
    {TW_COLL_KIND_BCAST, 3, 3, 0, 8 * K},
    {TW_COLL_KIND_BCAST, 3, 3, 48 * K, 512 * K},
    {TW_COLL_KIND_BCAST, 4, 4, 3 * K, SIZE_MAX}, /* up to 2 KiB: 1.1 to 1.35x */
    {TW_COLL_KIND_BCAST, 5, MANY, ALL},
    {TW_COLL_KIND_REDUCE, 2, 2, 0, 32 * K},
    {TW_COLL_KIND_REDUCE, 3, 3, 48 * K, 512 * K},
    {TW_COLL_KIND_REDUCE, 4, MANY, ALL}, /* 0.07 to 0.76x */
    /* on 2 ranks the segment at every size since its parts may be streamed
     * (TW_COLL_STREAM): 512 KiB 55 us against messages' 181, 1 MiB 110 against 350 (cores
     * sharing no cache), 41-42 against 82 and 84-86 against 117 (sharing one) */
    {TW_COLL_KIND_ALLREDUCE, 2, 2, ALL},
    {TW_COLL_KIND_ALLREDUCE, 3, 3, 256, 256 * K},
    /* the tuning run had messages ahead on 4 ranks up to 2 KiB (the segment 0.9 to 1.4x
     * their time, two rounds); five interleaved rounds against Open MPI disagreed:
     * shm / messages 0.90 / 2.01 at 8 B, 0.43 / 0.80 at 1 KiB */
    {TW_COLL_KIND_ALLREDUCE, 4, MANY, ALL},
    /* scan and exscan: 0.12 to 0.6x from 4 ranks (on 4 ranks up to 2 KiB 0.9x); on 3
     * measured against TW_COLL_SCAN=recursive-doubling, 2 to 10 times faster */
    {TW_COLL_KIND_SCAN, 2, 2, 0, 32 * K},
    {TW_COLL_KIND_SCAN, 3, MANY, ALL},
    {TW_COLL_KIND_GATHER, 2, 2, 0, 8 * K}, /* 16 KiB: messages 2.25-2.89, shm 3.22-3.46 */
    {TW_COLL_KIND_GATHER, 3, 3, 0, 256 * K},
    {TW_COLL_KIND_GATHER, 4, MANY, ALL}, /* 0.06 to 0.8x, but for ties at 1.06-1.08 */
    /* scatter: on 4 ranks messages (shm 1.1 to 1.5x, but 0.85 to 0.96 at 2 to 8 KiB);
     * on 8 and 16 shm up to 1 KiB (0.2 to 0.6x; 2 and 4 KiB even), messages from 8 KiB
     * (shm 1.2 to 2x) */
    {TW_COLL_KIND_SCATTER, 2, 2, 0, 8 * K}, /* 16 KiB: messages 2.15-2.44, shm 3.33-3.69 */
    {TW_COLL_KIND_SCATTER, 3, 3, 0, 4 * K},
    {TW_COLL_KIND_SCATTER, 5, MANY, 0, 4 * K},
    {TW_COLL_KIND_ALLGATHER, 2, 2, 0, 8 * K}, /* 16 KiB: messages 4.32-4.90, shm 4.55-6.30 */
    {TW_COLL_KIND_ALLGATHER, 3, 3, 0, 128 * K},
    {TW_COLL_KIND_ALLGATHER, 4, 4, ALL},         /* 0.24 to 0.98x, up to 128 B even */
    {TW_COLL_KIND_ALLGATHER, 5, 8, 0, 512 * K},  /* 1 MiB: 1.32x */
    {TW_COLL_KIND_ALLGATHER, 9, MANY, ALL},      /* 512 KiB and 1 MiB even */
    {TW_COLL_KIND_REDUCE_SCATTER, 2, MANY, ALL}, /* 0.07 to 0.92x; 16 ranks 512 KiB 1.09 */
    /* alltoall (bytes: one block): beyond these sizes the messages' one copy wins
     * (4 ranks 512 KiB 1.38x; 8 ranks 128 KiB 1.03, 512 KiB 1.33; 16 ranks 32 KiB to
     * 256 KiB 1.4 to 1.8x); on 3 ranks measured against TW_COLL_ALLTOALL=auto */
    {TW_COLL_KIND_ALLTOALL, 2, 2, 0, 8 * K},
    {TW_COLL_KIND_ALLTOALL, 3, 3, 0, 64 * K},
    {TW_COLL_KIND_ALLTOALL, 4, 4, 0, 256 * K},
    {TW_COLL_KIND_ALLTOALL, 5, 8, 0, 64 * K},
    {TW_COLL_KIND_ALLTOALL, 9, MANY, 0, 16 * K},
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
    case TW_COLL_KIND_SCAN:
        *id = TW_SETTING_COLL_SCAN, *shm = TW_SCAN_SHM;
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
    case TW_COLL_KIND_ALLTOALL:
        *id = TW_SETTING_COLL_ALLTOALL, *shm = TW_ALLTOALL_SHM;
        return;
    default:
        *id = TW_SETTING_COUNT, *shm = 0;
        return;
    }
}

tw_coll_tuning_t tw_coll_tuning;
#define settings tw_coll_tuning

void tw_coll_tuning_load(void) {
    settings.writes = tw_mpi_t_choice_writes;
    settings.all = tw_setting_choice(TW_SETTING_COLL_SHM);
    for (int k = 0; k < TW_COLL_KINDS; k++) {
        tw_setting_id_t id;
        int shm;
        forcing((tw_coll_kind_t)k, &id, &shm);
        int forced = id == TW_SETTING_COUNT ? 0 : tw_mpi_t_choice(id);
        /* 0 is every auto; shared memory's choices come last */
        settings.forced[k] = !forced ? 0 : forced >= shm ? 1 : -1;
    }
    size_t i = 0, n = sizeof table / sizeof table[0];
    for (int k = 0; k <= TW_COLL_KINDS; k++) {
        while (i < n && (int)table[i].kind < k) i++;
        settings.first[k] = (unsigned char)i;
    }
    for (int k = 0; k < TW_COLL_KINDS; k++) {
        settings.pair_rows[k] = 0;
        settings.pair_least[k] = 1; /* no row: no bytes */
        settings.pair_most[k] = 0;
    }
    for (i = 0; i < n; i++) {
        const tuning_row_t *t = &table[i];
        if (t->min_ranks > 2 || t->max_ranks < 2) continue;
        settings.pair_rows[t->kind]++;
        settings.pair_least[t->kind] = t->least;
        settings.pair_most[t->kind] = t->most;
    }
    /* a setting overrides the row, and the copy limit caps it, as on more ranks */
    for (int k = 0; k < TW_COLL_KINDS; k++) {
        int shm = settings.forced[k]                ? settings.forced[k] > 0
                  : settings.all == TW_COLL_SHM_SHM ? 1
                  : settings.all == TW_COLL_SHM_P2P ? 0
                                                    : -1; /* -1: the row's */
        if (shm >= 0) {
            settings.pair_least[k] = shm ? 0 : 1;
            settings.pair_most[k] = shm ? SIZE_MAX : 0;
        }
        size_t most = k >= TW_COLL_KIND_GATHER ? TW_COLL_SHM_COPY_MOST / 2 : TW_COLL_SHM_COPY_MOST;
        if (settings.pair_most[k] > most) settings.pair_most[k] = most;
    }
    settings.loaded = 1;
}

int tw_coll_tuned_rows(tw_coll_kind_t kind, int ranks, size_t bytes) {
    for (int i = settings.first[kind]; i < settings.first[kind + 1]; i++) {
        const tuning_row_t *t = &table[i];
        if (ranks >= t->min_ranks && ranks <= t->max_ranks && bytes >= t->least && bytes <= t->most)
            return 1;
    }
    return 0;
}
