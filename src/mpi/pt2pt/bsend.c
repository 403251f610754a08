/* Buffered sends: MPI_Buffer_attach/detach/flush, the communicators' buffers of
 * MPI-4.1, and the copies MPI_Bsend makes.
 *
 * A buffer is an object (tw_mpi_bbuf_t) that the process, a communicator or a session
 * owns. The program's memory is tiled by blocks, each a header (MPI_BSEND_OVERHEAD
 * bytes: its length and the send that reads it) followed by one message's data. A
 * block is free again once its send has completed; free neighbours merge. The headers
 * live in the user's buffer, so they are copied in and out, whatever its alignment,
 * and checked before they are followed: a program may write over them.
 *
 * An automatic buffer (MPI_BUFFER_AUTOMATIC) has no memory of the program's: each
 * message is copied into memory allocated for it, freed when its send completes. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/pt2pt/bsend.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/channel.h"

typedef struct block {
    uint64_t size;    /* of the whole block, header included */
    MPI_Request send; /* MPI_REQUEST_NULL: the block is free */
    uint32_t unused;
} block_t;

_Static_assert(sizeof(block_t) == MPI_BSEND_OVERHEAD, "a block header is MPI_BSEND_OVERHEAD");

/* an automatic buffer's message in flight */
typedef struct copy {
    MPI_Request send;
    struct copy *next;
} copy_t;

struct tw_mpi_bbuf {
    int automatic;
    unsigned char *base;
    size_t capacity; /* 0 when the buffer attached cannot hold a single block */
    MPI_Count attached_size;
    int damaged;    /* a header was found written over: the program wrote into the buffer */
    copy_t *copies; /* automatic: the messages in flight, each with its data after it */
};

static tw_mpi_bbuf_t *process_buffer;
tw_mpi_bbuf_t *(*tw_mpi_bbuf_of_session)(uint32_t context);

static void set_header(tw_mpi_bbuf_t *bb, size_t at, block_t b) {
    memcpy(bb->base + at, &b, sizeof b);
}

/* The block at offset at, when its header is one this file wrote: a size within
 * the buffer and a send that exists. Otherwise the buffer is marked damaged, and
 * every walk over it stops there rather than loop or follow garbage. */
static int block_at(tw_mpi_bbuf_t *bb, size_t at, block_t *b) {
    memcpy(b, bb->base + at, sizeof *b);
    if (b->size >= sizeof *b && b->size <= bb->capacity - at &&
        (b->send == MPI_REQUEST_NULL || tw_mpi_request_valid(b->send)))
        return 1;
    bb->damaged = 1;
    return 0;
}

/* Ends send when it is done: 1 when it ended (send is MPI_REQUEST_NULL now). A buffer
 * holds sends on every communicator, so on any channel: under MPI_THREAD_MULTIPLE one
 * is looked at under its channel's lock, when that is free now (or held already). */
static int finish_if_done(MPI_Request *send) {
    int k = tw_channel_index_of_request(*send);
    int t = k >= 0 ? tw_mpi_lock_try(k) : 0;
    if (t < 0) return 0; /* a later look */
    int done = tw_mpi_request_done(*send);
    if (done) tw_mpi_finish(send, NULL);
    if (t > 0) tw_mpi_lock_untry(k);
    return done;
}

/* Frees the blocks (or copies) whose sends have completed, and merges free
 * neighbours; 1 when no send of the buffer is in flight any more. */
static int reclaim(tw_mpi_bbuf_t *bb) {
    if (bb->automatic) {
        for (copy_t **c = &bb->copies; *c;) {
            copy_t *done = *c;
            if (!finish_if_done(&done->send)) {
                c = &done->next;
                continue;
            }
            *c = done->next;
            free(done);
        }
        return !bb->copies;
    }
    size_t free_at = 0;
    int in_free = 0, in_flight = 0;
    block_t b;
    for (size_t at = 0; at < bb->capacity && block_at(bb, at, &b); at += b.size) {
        if (b.send != MPI_REQUEST_NULL && finish_if_done(&b.send)) set_header(bb, at, b);
        if (b.send != MPI_REQUEST_NULL) {
            in_free = 0;
            in_flight = 1;
        } else if (in_free) { /* merge into the free block before it */
            block_t f;
            memcpy(&f, bb->base + free_at, sizeof f);
            f.size += b.size;
            set_header(bb, free_at, f);
        } else {
            in_free = 1;
            free_at = at;
        }
    }
    return !in_flight || bb->damaged;
}

/* The offset of a free block of at least need bytes, split to size; or -1. */
static long long take(tw_mpi_bbuf_t *bb, size_t need) {
    block_t b;
    for (size_t at = 0; at < bb->capacity && block_at(bb, at, &b); at += b.size) {
        if (b.send == MPI_REQUEST_NULL && b.size >= need) {
            if (b.size - need >= sizeof(block_t)) { /* the rest stays a free block */
                set_header(bb, at + need, (block_t){b.size - need, MPI_REQUEST_NULL, 0});
                b.size = need;
                set_header(bb, at, b);
            }
            return (long long)at;
        }
    }
    return -1;
}

/* The buffer a buffered send on context uses: its communicator's, else its
 * session's, else the process's; NULL: none attached. */
static tw_mpi_bbuf_t *buffer_of(uint32_t context) {
    const tw_mpi_comm_t *c = tw_mpi_comm_of_context(context);
    if (c && c->buffer) return c->buffer;
    tw_mpi_bbuf_t *s = tw_mpi_bbuf_of_session ? tw_mpi_bbuf_of_session(context) : NULL;
    return s ? s : process_buffer;
}

/* An automatic buffer's send: the data copied into memory of its own. */
static int bsend_automatic(tw_mpi_bbuf_t *bb, const void *buf, const tw_mpi_staged_t *st,
                           size_t bytes, int dest, int tag, uint32_t context) {
    reclaim(bb);
    copy_t *c = malloc(sizeof *c + (bytes ? bytes : 1));
    if (!c) return MPI_ERR_NO_MEM;
    unsigned char *copy = (unsigned char *)(c + 1);
    if (st)
        tw_mpi_staged_pack_range(st, 0, bytes, copy);
    else if (bytes && buf)
        memcpy(copy, buf, bytes);
    int rc = tw_mpi_isend(copy, bytes, dest, tag, context, TW_SEND_STANDARD, &c->send);
    if (rc) {
        free(c);
        return rc;
    }
    c->next = bb->copies;
    bb->copies = c;
    return MPI_SUCCESS;
}

/* A buffered send of bytes from buf, or packed from st. */
static int bsend(const void *buf, const tw_mpi_staged_t *st, size_t bytes, int dest, int tag,
                 uint32_t context) {
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    tw_mpi_bbuf_t *bb = buffer_of(context);
    if (!bb) return MPI_ERR_BUFFER;
    if (bb->automatic) return bsend_automatic(bb, buf, st, bytes, dest, tag, context);
    if (!bb->capacity) return MPI_ERR_BUFFER;
    size_t need = bytes + sizeof(block_t);
    reclaim(bb);
    long long at = take(bb, need);
    if (at < 0 && !bb->damaged) { /* sends that finish now give their space back */
        tw_mpi_progress();
        reclaim(bb);
        at = take(bb, need);
    }
    if (at < 0 || bb->damaged) return MPI_ERR_BUFFER;
    block_t b;
    memcpy(&b, bb->base + at, sizeof b);
    unsigned char *copy = bb->base + at + sizeof b;
    if (st)
        tw_mpi_staged_pack_range(st, 0, bytes, copy);
    else if (bytes && buf)
        memcpy(copy, buf, bytes);
    int rc = tw_mpi_isend(copy, bytes, dest, tag, context, TW_SEND_STANDARD, &b.send);
    if (rc) return rc; /* the block stays free */
    set_header(bb, (size_t)at, b);
    return MPI_SUCCESS;
}

int tw_mpi_bsend(const void *buf, size_t bytes, int dest, int tag, uint32_t context) {
    return bsend(buf, NULL, bytes, dest, tag, context);
}

int tw_mpi_bsend_staged(const tw_mpi_staged_t *st, int dest, int tag, uint32_t context) {
    return bsend(NULL, st, tw_mpi_staged_bytes(st), dest, tag, context);
}

/* ---- non-blocking flushes: requests a progress hook completes ---- */

typedef struct iflush {
    MPI_Request request;
    tw_mpi_bbuf_t *buffer;
    struct iflush *next;
} iflush_t;
static iflush_t *iflushes;

static void iflush_progress(void) {
    for (iflush_t **at = &iflushes; *at;) {
        iflush_t *f = *at;
        if (!reclaim(f->buffer)) {
            at = &f->next;
            continue;
        }
        tw_mpi_coll_request_done(f->request, MPI_SUCCESS);
        *at = f->next;
        free(f);
    }
    if (!iflushes) tw_mpi_hook_off(TW_HOOK_FLUSH);
}

/* Persistent buffered sends start through the point-to-point engine, which hands
 * them here. */
static void free_buffer(tw_mpi_comm_t *c) {
    tw_mpi_bbuf_release(&c->buffer); /* its buffered sends are delivered first */
}

void tw_mpi_bsend_init(void) {
    tw_mpi_p2p_set_buffered(bsend);
    tw_mpi_comm_on_destroy(TW_COMM_PART_BUFFER, free_buffer);
    tw_mpi_progress_hook(TW_HOOK_FLUSH, iflush_progress);
}

/* ---- the buffer objects ---- */

void tw_mpi_bbuf_flush(tw_mpi_bbuf_t *bb) {
    if (!bb) return;
    if (bb->automatic) {
        for (copy_t *c = bb->copies; c; c = c->next) tw_mpi_wait(&c->send, MPI_STATUS_IGNORE);
        for (copy_t *c = bb->copies, *next; c; c = next) {
            next = c->next;
            free(c);
        }
        bb->copies = NULL;
        return;
    }
    block_t b;
    for (size_t at = 0; at < bb->capacity && block_at(bb, at, &b); at += b.size) {
        if (b.send == MPI_REQUEST_NULL) continue;
        tw_mpi_wait(&b.send, MPI_STATUS_IGNORE);
        set_header(bb, at, b);
    }
}

int tw_mpi_bbuf_iflush(tw_mpi_bbuf_t *bb, uint32_t context, MPI_Request *request) {
    iflush_t *f = malloc(sizeof *f);
    int rc = f ? tw_mpi_coll_request(context, &f->request) : MPI_ERR_NO_MEM;
    if (rc) {
        free(f);
        return rc;
    }
    *request = f->request;
    if (!bb || reclaim(bb)) { /* nothing in flight: complete at once */
        tw_mpi_coll_request_done(f->request, MPI_SUCCESS);
        free(f);
        return MPI_SUCCESS;
    }
    f->buffer = bb;
    f->next = iflushes;
    iflushes = f;
    tw_mpi_hook_on(TW_HOOK_FLUSH);
    return MPI_SUCCESS;
}

int tw_mpi_bbuf_attach(tw_mpi_bbuf_t **owner, void *buffer, MPI_Count size, tw_mpi_comm_t *comm,
                       const char *call) {
    int automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (!automatic && size < 0) return tw_mpi_error(comm, call, MPI_ERR_ARG, "negative size");
    if (!automatic && !buffer && size)
        return tw_mpi_error(comm, call, MPI_ERR_BUFFER, "NULL buffer");
    if (*owner)
        return tw_mpi_error(comm, call, MPI_ERR_BUFFER,
                            "a buffer is attached already; detach it first");
    tw_mpi_bbuf_t *bb = calloc(1, sizeof *bb);
    if (!bb) return tw_mpi_error(comm, call, MPI_ERR_NO_MEM, NULL);
    bb->automatic = automatic;
    if (!automatic) {
        bb->base = buffer;
        bb->attached_size = size;
        /* one smaller than a block header is attached, but holds no message */
        bb->capacity = (uint64_t)size >= sizeof(block_t) ? (size_t)size : 0;
        if (bb->capacity) set_header(bb, 0, (block_t){bb->capacity, MPI_REQUEST_NULL, 0});
    }
    *owner = bb;
    return MPI_SUCCESS;
}

/* An iflush still watching a buffer that goes: it is complete (detach flushed). */
static void forget_iflushes(tw_mpi_bbuf_t *bb) {
    for (iflush_t **at = &iflushes; *at;) {
        iflush_t *f = *at;
        if (f->buffer != bb) {
            at = &f->next;
            continue;
        }
        tw_mpi_coll_request_done(f->request, MPI_SUCCESS);
        *at = f->next;
        free(f);
    }
}

int tw_mpi_bbuf_detach(tw_mpi_bbuf_t **owner, void *buffer_addr, MPI_Count *size,
                       tw_mpi_comm_t *comm, const char *call) {
    if (!buffer_addr || !size)
        return tw_mpi_error(comm, call, MPI_ERR_ARG, "buffer_addr or size is NULL");
    tw_mpi_bbuf_t *bb = *owner;
    if (!bb) { /* nothing attached: as MPICH and Open MPI, an empty buffer back */
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    tw_mpi_bbuf_flush(bb);
    forget_iflushes(bb);
    *(void **)buffer_addr = bb->automatic ? MPI_BUFFER_AUTOMATIC : bb->base;
    *size = bb->automatic ? 0 : bb->attached_size;
    int was_damaged = bb->damaged;
    free(bb);
    *owner = NULL;
    /* detached all the same, so the program can attach another */
    return was_damaged ? tw_mpi_error(comm, call, MPI_ERR_BUFFER,
                                      "the buffer was written into while attached; buffered "
                                      "sends in it may be lost")
                       : MPI_SUCCESS;
}

void tw_mpi_bbuf_release(tw_mpi_bbuf_t **owner) {
    if (!*owner) return;
    tw_mpi_bbuf_flush(*owner);
    forget_iflushes(*owner);
    free(*owner);
    *owner = NULL;
}

/* Waits for every buffered send of the process's buffer (MPI_Finalize). */
void tw_mpi_bsend_fini(void) {
    tw_mpi_bbuf_flush(process_buffer);
}

int tw_mpi_bbuf_detach_int(tw_mpi_bbuf_t **owner, void *buffer_addr, int *size, tw_mpi_comm_t *comm,
                           const char *call) {
    if (!buffer_addr || !size)
        return tw_mpi_error(comm, call, MPI_ERR_ARG, "buffer_addr or size is NULL");
    MPI_Count n = 0;
    int rc = tw_mpi_bbuf_detach(owner, buffer_addr, &n, comm, call);
    *size = n <= INT_MAX ? (int)n : MPI_UNDEFINED; /* detached all the same */
    if (!rc && n > INT_MAX)
        rc = tw_mpi_error(comm, call, MPI_ERR_VALUE_TOO_LARGE,
                          "the buffer's size does not fit an int: detach it with the _c form");
    return rc;
}

/* ---- the calls ---- */

int MPI_Buffer_attach(void *buffer, int size) {
    NEED_INIT("MPI_Buffer_attach");
    return tw_mpi_bbuf_attach(&process_buffer, buffer, size, NULL, "MPI_Buffer_attach");
}

int MPI_Buffer_detach(void *buffer_addr, int *size) {
    NEED_INIT("MPI_Buffer_detach");
    return tw_mpi_bbuf_detach_int(&process_buffer, buffer_addr, size, NULL, "MPI_Buffer_detach");
}

int MPI_Buffer_attach_c(void *buffer, MPI_Count size) {
    NEED_INIT("MPI_Buffer_attach_c");
    return tw_mpi_bbuf_attach(&process_buffer, buffer, size, NULL, "MPI_Buffer_attach_c");
}

int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size) {
    NEED_INIT("MPI_Buffer_detach_c");
    return tw_mpi_bbuf_detach(&process_buffer, buffer_addr, size, NULL, "MPI_Buffer_detach_c");
}

int MPI_Buffer_flush(void) {
    NEED_INIT("MPI_Buffer_flush");
    tw_mpi_bbuf_flush(process_buffer);
    return MPI_SUCCESS;
}

int MPI_Buffer_iflush(MPI_Request *request) {
    NEED_INIT("MPI_Buffer_iflush");
    if (!request)
        return tw_mpi_error(NULL, "MPI_Buffer_iflush", MPI_ERR_REQUEST, "request is NULL");
    int rc = tw_mpi_bbuf_iflush(process_buffer, tw_mpi_comm_get(MPI_COMM_WORLD)->context, request);
    return rc ? tw_mpi_error(NULL, "MPI_Buffer_iflush", rc, NULL) : MPI_SUCCESS;
}

/* A communicator's buffer serves the buffered sends on it (MPI-4.1 section 3.6). */
static tw_mpi_comm_t *comm_of(const char *call, MPI_Comm comm, int *rc) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    *rc = c ? MPI_SUCCESS : tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    return c;
}

int MPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size) {
    NEED_INIT("MPI_Comm_attach_buffer");
    int rc;
    tw_mpi_comm_t *c = comm_of("MPI_Comm_attach_buffer", comm, &rc);
    return c ? tw_mpi_bbuf_attach(&c->buffer, buffer, size, c, "MPI_Comm_attach_buffer") : rc;
}

int MPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size) {
    NEED_INIT("MPI_Comm_detach_buffer");
    int rc;
    tw_mpi_comm_t *c = comm_of("MPI_Comm_detach_buffer", comm, &rc);
    return c ? tw_mpi_bbuf_detach_int(&c->buffer, buffer_addr, size, c, "MPI_Comm_detach_buffer")
             : rc;
}

int MPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size) {
    NEED_INIT("MPI_Comm_attach_buffer_c");
    int rc;
    tw_mpi_comm_t *c = comm_of("MPI_Comm_attach_buffer_c", comm, &rc);
    return c ? tw_mpi_bbuf_attach(&c->buffer, buffer, size, c, "MPI_Comm_attach_buffer_c") : rc;
}

int MPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size) {
    NEED_INIT("MPI_Comm_detach_buffer_c");
    int rc;
    tw_mpi_comm_t *c = comm_of("MPI_Comm_detach_buffer_c", comm, &rc);
    return c ? tw_mpi_bbuf_detach(&c->buffer, buffer_addr, size, c, "MPI_Comm_detach_buffer_c")
             : rc;
}

int MPI_Comm_flush_buffer(MPI_Comm comm) {
    NEED_INIT("MPI_Comm_flush_buffer");
    int rc;
    tw_mpi_comm_t *c = comm_of("MPI_Comm_flush_buffer", comm, &rc);
    if (c) tw_mpi_bbuf_flush(c->buffer);
    return rc;
}

int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request) {
    const char *call = "MPI_Comm_iflush_buffer";
    NEED_INIT(call);
    int rc;
    tw_mpi_comm_t *c = comm_of(call, comm, &rc);
    if (!c) return rc;
    if (!request) return tw_mpi_error(c, call, MPI_ERR_REQUEST, "request is NULL");
    rc = tw_mpi_bbuf_iflush(c->buffer, c->context, request);
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}
