/* The message of a put of many small pieces (win_put.c) and the checks its target
 * makes of it, apart so that the fuzz target (tests/fuzz/fuzz_win_put.c) runs the
 * very code that stands between a peer's bytes and the window's memory. */
#ifndef TW_MPI_WIN_PUT_MSG_H
#define TW_MPI_WIN_PUT_MSG_H

#include <stdint.h>
#include <string.h>

#include "mpi/datatype/typemap.h"
#include "mpi/rma/win.h" /* MSG_PUT */

#pragma GCC visibility push(hidden)

/* The most blocks a put message's map may have. */
enum { TW_WIN_PUT_BLOCKS_MAX = 32 };

typedef struct put_msg {
    uint32_t context, kind; /* MSG_PUT */
    int64_t off;            /* where item 0's origin is, bytes into the target's window */
    int64_t count, extent;  /* items of the target type, and their extent */
    uint64_t first, len;    /* bytes [first, first + len) of the packed stream follow */
    uint32_t nblocks, last; /* the map's blocks follow, then the data; last: the put's end */
} put_msg_t;

/* lo + k * step for k in [0, n): the least and the greatest, or 0 on overflow. */
static inline int tw_win_put_span(int64_t lo, int64_t step, int64_t n, int64_t *min, int64_t *max) {
    int64_t last;
    if (__builtin_mul_overflow(step, n - 1, &last) || __builtin_add_overflow(lo, last, &last))
        return 0;
    *min = lo < last ? lo : last;
    *max = lo < last ? last : lo;
    return 1;
}

/* The map a message carries, checked: blocks that follow one another in the packed
 * item, pieces that land inside [0, bytes) for every one of count items from off. */
static inline int tw_win_put_map_ok(const put_msg_t *h, const tw_typemap_block_t *blocks,
                                    int64_t bytes, tw_typemap_t *m) {
    if (!h->nblocks || h->nblocks > TW_WIN_PUT_BLOCKS_MAX || h->count <= 0) return 0;
    uint64_t pos = 0;
    int64_t items_lo, items_hi;
    if (!tw_win_put_span(h->off, h->extent, h->count, &items_lo, &items_hi)) return 0;
    for (uint32_t b = 0; b < h->nblocks; b++) {
        const tw_typemap_block_t *k = &blocks[b];
        int64_t lo, hi, end, a, z;
        uint64_t n;
        if (!k->len || !k->reps || k->pos != pos || k->len > (uint64_t)INT64_MAX ||
            k->reps > (uint64_t)INT64_MAX || __builtin_mul_overflow(k->len, k->reps, &n) ||
            __builtin_add_overflow(pos, n, &pos) ||
            !tw_win_put_span(k->disp, k->stride, (int64_t)k->reps, &lo, &hi) ||
            __builtin_add_overflow(hi, (int64_t)k->len, &end) ||
            __builtin_add_overflow(items_lo, lo, &a) || __builtin_add_overflow(items_hi, end, &z) ||
            a < 0 || z > bytes)
            return 0;
    }
    uint64_t total;
    if (pos > (uint64_t)INT64_MAX || __builtin_mul_overflow(pos, (uint64_t)h->count, &total) ||
        h->first > total || h->len > total - h->first)
        return 0;
    tw_typemap_init(m);
    m->blocks = (tw_typemap_block_t *)(uintptr_t)blocks;
    m->nblocks = h->nblocks;
    m->size = (MPI_Count)pos;
    m->lb = 0;
    m->ub = h->extent;
    return 1;
}

/* The header of a put message of len bytes, and where its data starts: 0 when the
 * message is not one or its lengths disagree. */
static inline int tw_win_put_header(const void *data, size_t len, put_msg_t *h, size_t *head) {
    if (len < sizeof *h) return 0;
    memcpy(h, data, sizeof *h);
    if (h->kind != MSG_PUT || h->nblocks > TW_WIN_PUT_BLOCKS_MAX) return 0;
    *head = sizeof *h + h->nblocks * sizeof(tw_typemap_block_t);
    return len >= *head && len - *head == h->len;
}

/* The map of a put message whose header h was taken, copied into blocks and checked
 * against a window of bytes bytes: 1 with m set to it, 0 when a piece of it would land
 * outside the window. */
static inline int tw_win_put_map(const put_msg_t *h, const void *data, int64_t bytes,
                                 tw_typemap_block_t *blocks, tw_typemap_t *m) {
    memcpy(blocks, (const unsigned char *)data + sizeof *h, h->nblocks * sizeof *blocks);
    return tw_win_put_map_ok(h, blocks, bytes, m);
}

#pragma GCC visibility pop

#endif
