/* The shared-memory collective block (coll_shm.c) as one rank runs a call on it:
 * which line it writes, which of its peers' lines it reads and when. A call advances
 * as far as it can without waiting (tw_coll_shm_advance); coll_shm.c runs it to the
 * end between progress passes, and tests/fuzz/fuzz_coll_shm.c runs the same steps for
 * several ranks in every order.
 *
 * Each rank owns two cache lines of the block and uses them by turns: operation k of
 * the communicator takes line k mod 2. A line is a sequence word and 56 bytes of data.
 *   - A rank that gives data writes it into its line, then k into the word.
 *   - A rank that takes data waits until the giver's word is k or more, reads, and
 *     then writes k into its own word (nothing else of the line).
 *   - Before writing data for operation k, a rank waits until every other rank's
 *     word for operation k - 1 is k - 1 or more: each has begun k - 1, so each is
 *     done reading what the line held for k - 2.
 * A rank reads only lines of ranks below size, and at most a line's data. */
#ifndef TW_MPI_COLL_SHM_BLOCK_H
#define TW_MPI_COLL_SHM_BLOCK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#pragma GCC visibility push(hidden)

enum { TW_COLL_LINE = 64, TW_COLL_LINE_DATA = TW_COLL_LINE - 8 };

typedef struct tw_coll_line {
    _Atomic uint64_t seq;
    unsigned char data[TW_COLL_LINE_DATA];
} tw_coll_line_t;
_Static_assert(sizeof(tw_coll_line_t) == TW_COLL_LINE, "a line is one cache line");

/* A reduce runs as an allreduce whose givers other than the root are done once their
 * line is out, as a broadcast's root: only the root waits for the others' lines. */
enum { TW_COLL_SHM_BARRIER, TW_COLL_SHM_BCAST, TW_COLL_SHM_ALLREDUCE, TW_COLL_SHM_REDUCE };

/* One call on the block at one rank: the block (2 lines per rank), the call, and how
 * far it got. */
typedef struct tw_coll_shm_run {
    tw_coll_line_t *lines;
    int size, rank;
    uint64_t k; /* the call's operation number, from 1 */
    int kind, root;
    size_t bytes; /* at most TW_COLL_LINE_DATA */
    int step, next;
} tw_coll_shm_run_t;

static inline tw_coll_line_t *tw_coll_shm_line(const tw_coll_shm_run_t *x, int rank, uint64_t k) {
    return &x->lines[2 * rank + (int)(k & 1)];
}

/* Whether every rank other than this one, from x->next on, has its word for operation
 * k at k or more; x->next moves past those that have. */
static inline int tw_coll_shm_all_at(tw_coll_shm_run_t *x, uint64_t k) {
    for (; x->next < x->size; x->next++)
        if (x->next != x->rank &&
            atomic_load_explicit(&tw_coll_shm_line(x, x->next, k)->seq, memory_order_acquire) < k)
            return 0;
    x->next = 0;
    return 1;
}

static inline void tw_coll_shm_publish(tw_coll_line_t *l, uint64_t k) {
    atomic_store_explicit(&l->seq, k, memory_order_release);
}

static inline void tw_coll_shm_start(tw_coll_shm_run_t *x, uint64_t k, int kind, int root,
                                     size_t bytes) {
    x->k = k;
    x->kind = kind;
    x->root = root;
    x->bytes = bytes;
    x->step = x->next = 0;
}

/* Advances call x as far as it goes without waiting for a peer: 1 when it is done,
 * 0 when it waits. give: the data this rank gives (a broadcast's root, an allreduce,
 * a reduce); take: where a broadcast's data goes. An allreduce (a reduce at its root)
 * is done when every rank's data is in its line for k, which the caller then combines
 * (tw_coll_shm_line); until this rank begins its next call no line of operation k is
 * written again. */
static inline int tw_coll_shm_advance(tw_coll_shm_run_t *x, const void *give, void *take) {
    uint64_t k = x->k;
    tw_coll_line_t *mine = tw_coll_shm_line(x, x->rank, k);
    for (;;) {
        switch (x->step) {
        case 0: /* before writing data: every other rank has begun k - 1 */
            if (x->kind == TW_COLL_SHM_BARRIER) {
                tw_coll_shm_publish(mine, k);
                x->step = 2;
                break;
            }
            if (x->kind == TW_COLL_SHM_BCAST && x->rank != x->root) {
                x->step = 3;
                break;
            }
            if (!tw_coll_shm_all_at(x, k - 1)) return 0;
            if (x->bytes) memcpy(mine->data, give, x->bytes); /* give: NULL when empty */
            tw_coll_shm_publish(mine, k);
            if (x->kind == TW_COLL_SHM_BCAST ||
                (x->kind == TW_COLL_SHM_REDUCE && x->rank != x->root))
                return 1;
            x->step = 2;
            break;
        case 2: /* a barrier, allreduce or reduce's root: every other rank's word is k */
            return tw_coll_shm_all_at(x, k);
        case 3: { /* a broadcast's taker: the root's data, then done with its line */
            const tw_coll_line_t *from = tw_coll_shm_line(x, x->root, k);
            if (atomic_load_explicit(&from->seq, memory_order_acquire) < k) return 0;
            if (x->bytes) memcpy(take, from->data, x->bytes);
            tw_coll_shm_publish(mine, k);
            return 1;
        }
        default:
            return 1;
        }
    }
}

/* The member a block's gave-up word names (what coll_shm.c's tw_coll_shm_give_up
 * writes: its rank + 1), or -1 for 0 and for a word that names no rank below size,
 * which only a peer's stray write leaves: a peer writes it, and it indexes tables. */
static inline int tw_coll_shm_gave_up_rank(uint64_t word, int size) {
    return word >= 1 && word <= (uint64_t)size ? (int)word - 1 : -1;
}

#pragma GCC visibility pop

#endif
