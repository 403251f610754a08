/* Buffered sends: MPI_Buffer_attach/detach and the copies MPI_Bsend makes.
 *
 * The attached buffer is tiled by blocks, each a header (MPI_BSEND_OVERHEAD bytes:
 * its length and the send that reads it) followed by one message's data. A block
 * is free again once its send has completed; free neighbours merge. The headers
 * live in the user's buffer, so they are copied in and out, whatever its alignment,
 * and checked before they are followed: a program may write over them. */
#include <string.h>

#include "mpi/bsend.h"
#include "mpi/datatype.h"
#include "mpi/error.h"
#include "mpi/p2p.h"
#include "mpi/p2p_progress.h"
#include "mpi/state.h"

typedef struct block {
    uint64_t size;    /* of the whole block, header included */
    MPI_Request send; /* MPI_REQUEST_NULL: the block is free */
    uint32_t unused;
} block_t;

_Static_assert(sizeof(block_t) == MPI_BSEND_OVERHEAD, "a block header is MPI_BSEND_OVERHEAD");

static int attached;
static unsigned char *base;
static size_t capacity; /* 0 when the buffer attached cannot hold a single block */
static int attached_size;

static int damaged; /* a header was found written over: the program wrote into the buffer */

static void set_header(size_t at, block_t b) {
    memcpy(base + at, &b, sizeof b);
}

/* The block at offset at, when its header is one this file wrote: a size within
 * the buffer and a send that exists. Otherwise the buffer is marked damaged, and
 * every walk over it stops there rather than loop or follow garbage. */
static int block_at(size_t at, block_t *b) {
    memcpy(b, base + at, sizeof *b);
    if (b->size >= sizeof *b && b->size <= capacity - at &&
        (b->send == MPI_REQUEST_NULL || tw_mpi_request_valid(b->send)))
        return 1;
    damaged = 1;
    return 0;
}

/* Frees the blocks whose sends have completed, and merges free neighbours. */
static void reclaim(void) {
    size_t free_at = 0;
    int in_free = 0;
    block_t b;
    for (size_t at = 0; at < capacity && block_at(at, &b); at += b.size) {
        if (b.send != MPI_REQUEST_NULL && tw_mpi_request_done(b.send)) {
            tw_mpi_finish(&b.send, NULL); /* b.send is MPI_REQUEST_NULL now */
            set_header(at, b);
        }
        if (b.send != MPI_REQUEST_NULL) {
            in_free = 0;
        } else if (in_free) { /* merge into the free block before it */
            block_t f;
            memcpy(&f, base + free_at, sizeof f);
            f.size += b.size;
            set_header(free_at, f);
        } else {
            in_free = 1;
            free_at = at;
        }
    }
}

/* The offset of a free block of at least need bytes, split to size; or -1. */
static long long take(size_t need) {
    block_t b;
    for (size_t at = 0; at < capacity && block_at(at, &b); at += b.size) {
        if (b.send == MPI_REQUEST_NULL && b.size >= need) {
            if (b.size - need >= sizeof(block_t)) { /* the rest stays a free block */
                set_header(at + need, (block_t){b.size - need, MPI_REQUEST_NULL, 0});
                b.size = need;
                set_header(at, b);
            }
            return (long long)at;
        }
    }
    return -1;
}

/* A buffered send of bytes from buf, or packed from st. */
static int bsend(const void *buf, const tw_mpi_staged_t *st, size_t bytes, int dest, int tag,
                 uint32_t context) {
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    if (!capacity) return MPI_ERR_BUFFER;
    size_t need = bytes + sizeof(block_t);
    reclaim();
    long long at = take(need);
    if (at < 0 && !damaged) { /* sends that finish now give their space back */
        tw_mpi_progress();
        reclaim();
        at = take(need);
    }
    if (at < 0 || damaged) return MPI_ERR_BUFFER;
    block_t b;
    memcpy(&b, base + at, sizeof b);
    unsigned char *copy = base + at + sizeof b;
    if (st)
        tw_mpi_staged_pack_all(st, copy);
    else if (bytes && buf)
        memcpy(copy, buf, bytes);
    int rc = tw_mpi_isend(copy, bytes, dest, tag, context, TW_SEND_STANDARD, &b.send);
    if (rc) return rc; /* the block stays free */
    set_header((size_t)at, b);
    return MPI_SUCCESS;
}

int tw_mpi_bsend(const void *buf, size_t bytes, int dest, int tag, uint32_t context) {
    return bsend(buf, NULL, bytes, dest, tag, context);
}

int tw_mpi_bsend_staged(const tw_mpi_staged_t *st, int dest, int tag, uint32_t context) {
    return bsend(NULL, st, tw_mpi_staged_bytes(st), dest, tag, context);
}

/* Persistent buffered sends start through the point-to-point engine, which hands
 * them here. */
void tw_mpi_bsend_init(void) {
    tw_mpi_p2p_set_buffered(bsend);
}

/* Waits for every buffered send to complete (as far as the headers can be trusted). */
void tw_mpi_bsend_fini(void) {
    block_t b;
    for (size_t at = 0; at < capacity && block_at(at, &b); at += b.size) {
        if (b.send == MPI_REQUEST_NULL) continue;
        tw_mpi_wait(&b.send, MPI_STATUS_IGNORE);
        set_header(at, b);
    }
}

int MPI_Buffer_attach(void *buffer, int size) {
    NEED_INIT("MPI_Buffer_attach");
    if (size < 0) return tw_mpi_error(NULL, "MPI_Buffer_attach", MPI_ERR_ARG, "negative size");
    if (!buffer && size)
        return tw_mpi_error(NULL, "MPI_Buffer_attach", MPI_ERR_BUFFER, "NULL buffer");
    if (attached)
        return tw_mpi_error(NULL, "MPI_Buffer_attach", MPI_ERR_BUFFER,
                            "a buffer is attached already; detach it first");
    attached = 1;
    base = buffer;
    attached_size = size;
    /* one smaller than a block header is attached, but holds no message */
    capacity = (size_t)size >= sizeof(block_t) ? (size_t)size : 0;
    if (capacity) set_header(0, (block_t){capacity, MPI_REQUEST_NULL, 0});
    return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size) {
    NEED_INIT("MPI_Buffer_detach");
    if (!buffer_addr || !size) return tw_mpi_error(NULL, "MPI_Buffer_detach", MPI_ERR_ARG, NULL);
    if (!attached) { /* nothing attached: as MPICH and Open MPI, an empty buffer back */
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    tw_mpi_bsend_fini();
    *(void **)buffer_addr = base;
    *size = attached_size;
    int was_damaged = damaged;
    attached = damaged = 0;
    base = NULL;
    capacity = 0;
    /* detached all the same, so the program can attach another */
    return was_damaged ? tw_mpi_error(NULL, "MPI_Buffer_detach", MPI_ERR_BUFFER,
                                      "the buffer was written into while attached; buffered "
                                      "sends in it may be lost")
                       : MPI_SUCCESS;
}
