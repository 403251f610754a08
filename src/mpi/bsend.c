/* Buffered sends: MPI_Buffer_attach/detach and the copies MPI_Bsend makes.
 *
 * The attached buffer is tiled by blocks, each a header (MPI_BSEND_OVERHEAD bytes:
 * its length and the send that reads it) followed by one message's data. A block
 * is free again once its send has completed; free neighbours merge. The headers
 * live in the user's buffer, so they are copied in and out, whatever its alignment. */
#include <string.h>

#include "mpi/mpi_impl.h"

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

static block_t header_at(size_t at) {
    block_t b;
    memcpy(&b, base + at, sizeof b);
    return b;
}

static void set_header(size_t at, block_t b) {
    memcpy(base + at, &b, sizeof b);
}

/* Frees the blocks whose sends have completed, and merges free neighbours. */
static void reclaim(void) {
    size_t at = 0, free_at = 0;
    int in_free = 0;
    while (at < capacity) {
        block_t b = header_at(at);
        if (b.send != MPI_REQUEST_NULL) {
            int flag = 0;
            MPI_Status st;
            tw_mpi_test(&b.send, &flag, &st);
            if (flag) set_header(at, b); /* b.send is MPI_REQUEST_NULL now */
        }
        if (b.send != MPI_REQUEST_NULL) {
            in_free = 0;
        } else if (in_free) { /* merge into the free block before it */
            block_t f = header_at(free_at);
            f.size += b.size;
            set_header(free_at, f);
        } else {
            in_free = 1;
            free_at = at;
        }
        at += b.size;
    }
}

/* The offset of a free block of at least need bytes, split to size; or -1. */
static long long take(size_t need) {
    for (size_t at = 0; at < capacity;) {
        block_t b = header_at(at);
        if (b.send == MPI_REQUEST_NULL && b.size >= need) {
            if (b.size - need >= sizeof(block_t)) { /* the rest stays a free block */
                set_header(at + need, (block_t){b.size - need, MPI_REQUEST_NULL, 0});
                b.size = need;
                set_header(at, b);
            }
            return (long long)at;
        }
        at += b.size;
    }
    return -1;
}

int tw_mpi_bsend(const void *buf, size_t bytes, int dest, int tag, uint32_t context) {
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    if (!capacity) return MPI_ERR_BUFFER;
    size_t need = bytes + sizeof(block_t);
    reclaim();
    long long at = take(need);
    if (at < 0) { /* sends that finish now give their space back */
        tw_mpi_progress();
        reclaim();
        at = take(need);
    }
    if (at < 0) return MPI_ERR_BUFFER;
    block_t b = header_at((size_t)at);
    unsigned char *copy = base + at + sizeof b;
    if (bytes) memcpy(copy, buf, bytes);
    int rc = tw_mpi_isend(copy, bytes, dest, tag, context, TW_SEND_STANDARD, &b.send);
    if (rc) return rc; /* the block stays free */
    set_header((size_t)at, b);
    return MPI_SUCCESS;
}

/* Waits for every buffered send to complete. */
void tw_mpi_bsend_fini(void) {
    for (size_t at = 0; at < capacity;) {
        block_t b = header_at(at);
        if (b.send != MPI_REQUEST_NULL) {
            tw_mpi_wait(&b.send, MPI_STATUS_IGNORE);
            set_header(at, b);
        }
        at += b.size;
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
    attached = 0;
    base = NULL;
    capacity = 0;
    return MPI_SUCCESS;
}
