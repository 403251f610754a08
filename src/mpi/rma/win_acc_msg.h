/* The accumulate messages of windows (win_acc.c): an accumulate to a rank on another
 * node, whose device executes RMA only when it makes progress anyway, travels as one
 * message that the target applies in place under its own accumulate lock word and
 * answers, the former contents in the answer when asked for. One round trip, where the
 * lock word taken over the network, a read, a write back and the unlock were four.
 *
 * The checks a target makes of a peer's bytes are here, apart, so that the fuzz target
 * (tests/fuzz/fuzz_win_acc.c) runs the very code that stands between them and the
 * window's memory. */
#ifndef TW_MPI_WIN_ACC_MSG_H
#define TW_MPI_WIN_ACC_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/rma/win.h" /* MSG_ACC, MSG_ACC_ANSWER */

#pragma GCC visibility push(hidden)

enum {
    TW_WIN_ACC_BYTES_MAX = 2048, /* the most bytes of target an accumulate message covers */
    TW_WIN_ACC_FETCH = 1,        /* the former contents come back */
    TW_WIN_ACC_SWAP = 2,         /* compare-and-swap: operand, then the compare value */
    TW_WIN_ACC_BUSY = -1,        /* an answer's status: the lock word was held, ask again */
};

typedef struct acc_msg {
    uint32_t context, kind; /* the window's; MSG_ACC */
    int64_t off;            /* the first byte of the target range, into the window */
    uint64_t len;           /* bytes of the target range */
    uint64_t id;            /* the origin's, in the answer */
    int32_t op, type;       /* a predefined op (ignored with TW_WIN_ACC_SWAP), the element */
    uint32_t flags;         /* TW_WIN_ACC_FETCH, TW_WIN_ACC_SWAP */
    uint32_t unused;
} acc_msg_t; /* then the operand (len bytes, none for MPI_NO_OP), then the compare value */

typedef struct acc_answer {
    uint32_t context, kind; /* MSG_ACC_ANSWER */
    uint64_t id;            /* the message's */
    int32_t status;         /* MPI_SUCCESS, TW_WIN_ACC_BUSY or an MPI error class */
    uint32_t unused;
    uint64_t len; /* bytes of the former contents that follow */
} acc_answer_t;

/* The operand bytes an accumulate message of h carries. */
static inline uint64_t tw_win_acc_operands(const acc_msg_t *h) {
    if (h->flags & TW_WIN_ACC_SWAP) return 2 * h->len;
    return h->op == MPI_NO_OP ? 0 : h->len;
}

/* The header of an accumulate message of len bytes: 0 when it is not one, or its
 * lengths disagree, or its range could not lie in any window, or its element is no
 * predefined type whose items fill their extent, or the range holds no whole number
 * of them (a compare-and-swap exactly one). */
static inline int tw_win_acc_header(const void *data, size_t len, acc_msg_t *h) {
    if (len < sizeof *h) return 0;
    memcpy(h, data, sizeof *h);
    if (h->kind != MSG_ACC || (h->flags & ~(uint32_t)(TW_WIN_ACC_FETCH | TW_WIN_ACC_SWAP)) ||
        h->off < 0 || !h->len || h->len > TW_WIN_ACC_BYTES_MAX)
        return 0;
    int es = tw_mpi_type_contiguous_size((MPI_Datatype)h->type);
    if (es <= 0 || h->len % (uint64_t)es ||
        ((h->flags & TW_WIN_ACC_SWAP) && h->len != (uint64_t)es))
        return 0;
    return len - sizeof *h == tw_win_acc_operands(h);
}

/* Whether the message's range lies inside a window of bytes bytes. */
static inline int tw_win_acc_inside(const acc_msg_t *h, int64_t bytes) {
    return h->off <= bytes && (int64_t)h->len <= bytes - h->off;
}

/* The header of an answer of len bytes: 0 when it is not one or its length disagrees. */
static inline int tw_win_acc_answer_header(const void *data, size_t len, acc_answer_t *a) {
    if (len < sizeof *a) return 0;
    memcpy(a, data, sizeof *a);
    return a->kind == MSG_ACC_ANSWER && a->len <= TW_WIN_ACC_BYTES_MAX && len - sizeof *a == a->len;
}

#pragma GCC visibility pop

#endif
