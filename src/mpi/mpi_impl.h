/* Tollway MPI internals. The MPI layer stands on the native API only. */
#ifndef TW_MPI_IMPL_H
#define TW_MPI_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include <mpi.h>
#include <tollway/tollway.h>

/* Everything declared from here on stays inside libmpi: calls and data are reached
 * directly, not through the PLT and GOT. */
#pragma GCC visibility push(hidden)

/* VELO tags of the MPI protocols */
enum { TW_MPI_EAGER = 1, TW_MPI_RTS = 2, TW_MPI_CTS = 3 };

/* Communicator contexts: communicator k of the table uses context 2k for its
 * point-to-point traffic and 2k + 1 for its collectives, so the two never match. */
enum { TW_CTX_COLL = 1, TW_MPI_COMMS = 4096 };

/* The header in front of every MPI message. */
typedef struct tw_mpi_hdr {
    int32_t tag;
    uint32_t context;
} tw_mpi_hdr_t;

/* What a request-to-send carries after the header. */
typedef struct tw_mpi_rts {
    uint64_t size;
    uint64_t nla, key;
    uint32_t sreq;  /* the sender's request handle */
    uint32_t split; /* 1: the sender will put a part; the receiver answers with a CTS */
} tw_mpi_rts_t;

/* A split rendezvous's clear-to-send, receiver to sender: put [offset, offset + len)
 * of your buffer to nla (len 0: I get it all myself). */
typedef struct tw_mpi_cts {
    uint32_t sreq, rreq;
    uint64_t nla, key;
    uint64_t offset, len;
} tw_mpi_cts_t;

#define TW_MPI_EAGER_MAX (TW_VELO_MAX_SIZE - sizeof(tw_mpi_hdr_t))

typedef struct tw_mpi_comm {
    MPI_Comm handle;
    int rank, size;
    uint32_t context;
    int *world; /* world rank of each rank; NULL for MPI_COMM_WORLD itself */
    MPI_Errhandler errhandler;
    int inter;         /* an intercommunicator: size and world[] describe the remote group */
    uint32_t coll_seq; /* collectives started here so far: each takes the next as its tag */
} tw_mpi_comm_t;

/* The tag of the next collective on c, on c's collective context. Every member
 * starts c's collectives in the same order, so they agree on it; it is never 0,
 * the tag of the exchanges that create communicators. */
static inline int tw_mpi_coll_tag(tw_mpi_comm_t *c) {
    c->coll_seq = c->coll_seq % 0x7fffffffu + 1;
    return (int)c->coll_seq;
}

/* The world rank of a communicator rank (MPI_PROC_NULL and MPI_ANY_SOURCE pass). */
static inline int tw_mpi_world_rank(const tw_mpi_comm_t *c, int rank) {
    return rank < 0 || !c->world ? rank : c->world[rank];
}

/* The communicators; entry k has contexts 2k and 2k + 1, and handle 0x44000000 | k. */
extern tw_mpi_comm_t *tw_mpi_comm_table[TW_MPI_COMMS];

/* The communicator of a handle; NULL when it names none. */
static inline tw_mpi_comm_t *tw_mpi_comm_get(MPI_Comm comm) {
    unsigned i = (unsigned)comm & 0xffffff;
    return ((unsigned)comm >> 24) == 0x44 && i < TW_MPI_COMMS ? tw_mpi_comm_table[i] : NULL;
}

/* The communicator a context belongs to; NULL once it is freed. */
static inline tw_mpi_comm_t *tw_mpi_comm_of_context(uint32_t context) {
    return context / 2 < TW_MPI_COMMS ? tw_mpi_comm_table[context / 2] : NULL;
}

int tw_mpi_comm_rank_search(const tw_mpi_comm_t *c, int world);

/* The communicator rank of a world rank, or -1 (MPI_PROC_NULL and MPI_ANY_SOURCE pass). */
static inline int tw_mpi_comm_rank_of(const tw_mpi_comm_t *c, int world) {
    return world < 0 || !c->world ? world : tw_mpi_comm_rank_search(c, world);
}
int tw_mpi_comm_init(void); /* WORLD and SELF */

/* Checks the answer a communicator split gets from the parent's rank 0 — len bytes
 * of: table entry (-1: none free), new size n, new rank, n world ranks — before any
 * of it is used. 1 when every field is in range and this process is where it says. */
static inline int tw_mpi_split_answer_ok(const int *a, size_t len, int parent_size, int world_size,
                                         int my_world) {
    if (len < 3 * sizeof *a) return 0;
    int entry = a[0], n = a[1], me = a[2];
    if (entry < -1 || entry >= TW_MPI_COMMS) return 0;
    if (n < 0 || n > parent_size || len != ((size_t)n + 3) * sizeof *a) return 0;
    if (entry == -1 || n == 0) return n == 0 && me == -1;
    if (me < 0 || me >= n || a[3 + me] != my_world) return 0;
    for (int k = 0; k < n; k++)
        if (a[3 + k] < 0 || a[3 + k] >= world_size) return 0;
    return 1;
}
void tw_mpi_comm_fini(void);

typedef struct tw_mpi_state {
    int initialized, finalized;
    tw_ep_t *ep;
    int rank, size;
} tw_mpi_state_t;

extern tw_mpi_state_t tw_mpi;

/* Reports an error as comm's error handler says: returns the class for
 * MPI_ERRORS_RETURN, ends the job for MPI_ERRORS_ARE_FATAL. */
int tw_mpi_error(tw_mpi_comm_t *comm, const char *call, int errclass, const char *detail);
enum { TW_MPI_TYPE_IDS = 42 }; /* predefined datatypes are ids 1..42 */

/* Bytes one item of a datatype spans in a buffer; -1: not a datatype. */
static inline int tw_mpi_type_extent(MPI_Datatype type) {
    unsigned id = (unsigned)type & 0xff;
    if (((unsigned)type >> 24) != 0x4c || id == 0 || id > TW_MPI_TYPE_IDS) return -1;
    return ((unsigned)type >> 8) & 0xff;
}

/* The layout of any datatype, predefined or derived. */
typedef struct tw_mpi_type_layout {
    MPI_Count size;                /* bytes of one item packed (its data; the MINLOC/MAXLOC
                                      pairs keep their padding, as on the wire) */
    MPI_Aint lb, extent;           /* where one item starts and how far the next one is */
    MPI_Aint true_lb, true_extent; /* the bytes one item really touches */
    int contiguous;       /* one item's data fills [lb, lb + size) and extent == size, so count
                             items are count * size contiguous bytes from buf + lb */
    MPI_Datatype element; /* the one predefined type all its basic elements are (what
                             a reduction applies its op to); MPI_DATATYPE_NULL if mixed */
} tw_mpi_type_layout_t;

/* MPI_SUCCESS, or MPI_ERR_TYPE when type names no datatype, or one not committed. */
int tw_mpi_type_layout(MPI_Datatype type, tw_mpi_type_layout_t *layout);
/* Copies the data of count items at buf into packed, contiguous and in type order,
 * and back. The type was checked by tw_mpi_type_layout. */
void tw_mpi_type_pack(const void *buf, MPI_Count count, MPI_Datatype type, void *packed);
void tw_mpi_type_unpack(const void *packed, MPI_Count count, MPI_Datatype type, void *buf);
/* The same for bytes [first, first + len) of the packed stream only (packed holds
 * just those bytes): a stream can be moved in pieces of bounded size. */
void tw_mpi_type_pack_range(const void *buf, MPI_Count count, MPI_Datatype type, size_t first,
                            size_t len, void *packed);
void tw_mpi_type_unpack_range(const void *packed, MPI_Count count, MPI_Datatype type, size_t first,
                              size_t len, void *buf);

/* Where count items of a type lie for a transfer: bytes of packed data, and either
 * their one contiguous span (at; NULL when bytes is 0 and buf was) or, when staged,
 * none (the data must be packed and unpacked through a copy). */
typedef struct tw_mpi_buffer {
    unsigned char *at;
    size_t bytes;
    int staged;
} tw_mpi_buffer_t;
/* MPI_SUCCESS, MPI_ERR_TYPE (not a committed datatype) or MPI_ERR_COUNT (too many
 * bytes). Predefined types never take this path in the hot calls. */
int tw_mpi_type_buffer(MPI_Datatype type, const void *buf, MPI_Count count, tw_mpi_buffer_t *out);

/* A non-contiguous buffer moved through a packed window by a send or receive
 * request, which owns it: a send packs into the window when it starts, a receive
 * unpacks what arrives as it arrives; the request frees it with itself. It keeps
 * the datatype alive meanwhile (MPI_Type_free of a type in use is safe). */
typedef struct tw_mpi_staged tw_mpi_staged_t;
/* Staging keeps a window of TW_PACK_CHUNK bytes at most: a receive unpacks eager
 * data straight from the message and gets a rendezvous one chunk at a time; a send
 * longer than a chunk packs one chunk into its window at a time, and tells the
 * receiver (TW_MPI_READY) each time a new one is there to get. */
enum { TW_PACK_CHUNK = 256 << 10 };
/* window: the bytes of packed copy to keep (at most the whole stream) */
int tw_mpi_staged_new(void *buf, MPI_Count count, MPI_Datatype type, size_t window,
                      tw_mpi_staged_t **out);
void *tw_mpi_staged_data(const tw_mpi_staged_t *s);   /* the window */
size_t tw_mpi_staged_bytes(const tw_mpi_staged_t *s); /* the whole packed stream */
/* Packs the stream from byte first into the window, as much as it holds. */
void tw_mpi_staged_pack_at(tw_mpi_staged_t *s, size_t first);
void tw_mpi_staged_pack_all(const tw_mpi_staged_t *s, void *to); /* the whole stream, to to */
/* Unpacks bytes [first, first + len) of the stream, held at from. */
void tw_mpi_staged_unpack_at(tw_mpi_staged_t *s, const void *from, size_t first, size_t len);
void tw_mpi_staged_free(tw_mpi_staged_t *s);

/* point-to-point engine (p2p.c) */
void tw_mpi_p2p_init(void);
void tw_mpi_progress(void);
/* The handle of every eager send that left at once: complete from the start, it
 * takes no request slot (as MPICH's lightweight requests). Its index bits are 0, so
 * it is never a slot's handle. */
#define TW_MPI_REQUEST_SENT ((MPI_Request)0x2c7f0000)

/* send modes; a ready send is a standard one */
enum { TW_SEND_STANDARD, TW_SEND_SYNC, TW_SEND_BUFFERED };
int tw_mpi_isend(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context, int mode,
                 MPI_Request *req);
/* A blocking eager send straight into the mailbox, when nothing is queued to that
 * peer: MPI_SUCCESS, or 1 when the general path must take it. */
int tw_mpi_send_now(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context);
/* A blocking receive taken straight from the mailbox when nothing else is under
 * way and the first message is an eager one that matches: MPI_SUCCESS or
 * MPI_ERR_TRUNCATE with the status filled, or 1 for the general path. */
int tw_mpi_recv_now(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                    MPI_Status *status);
int tw_mpi_irecv(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                 MPI_Request *req);
/* Persistent requests, created inactive; tw_mpi_start runs one once more. */
int tw_mpi_send_init(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context,
                     int mode, MPI_Request *req);
int tw_mpi_recv_init(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                     MPI_Request *req);
int tw_mpi_start(MPI_Request req);
/* Statuses name the source by its rank in the request's communicator. */
/* Waits for one request and fills status; frees it, or makes a persistent one
 * inactive. Returns the request's error class. */
int tw_mpi_wait(MPI_Request *req, MPI_Status *status);
int tw_mpi_test(MPI_Request *req, int *flag, MPI_Status *status);
/* tw_mpi_test of a request known valid and finished (tw_mpi_request_finished). */
int tw_mpi_finish(MPI_Request *req, MPI_Status *status);
/* MPI_Request_get_status: the status of a finished request, which stays as it is. */
int tw_mpi_request_status(MPI_Request req, int *flag, MPI_Status *status);
int tw_mpi_iprobe(int source_world, int tag, uint32_t context, int *flag, MPI_Status *status);
int tw_mpi_improbe(int source_world, int tag, uint32_t context, int *flag, MPI_Message *msg,
                   MPI_Status *status);
int tw_mpi_imrecv(void *buf, size_t bytes, MPI_Message *msg, MPI_Request *req);
/* The same for a buffer staged through a packed copy (a non-contiguous derived
 * datatype): the request takes st over, and frees it even when starting fails. */
int tw_mpi_send_staged(tw_mpi_staged_t *st, int dest_world, int tag, uint32_t context, int mode,
                       int persistent, MPI_Request *req);
int tw_mpi_recv_staged(tw_mpi_staged_t *st, int source_world, int tag, uint32_t context,
                       int persistent, MPI_Request *req);
int tw_mpi_imrecv_staged(tw_mpi_staged_t *st, MPI_Message *msg, MPI_Request *req);
/* A buffered send of a staged buffer: packed straight into the attached buffer. */
int tw_mpi_bsend_staged(const tw_mpi_staged_t *st, int dest_world, int tag, uint32_t context);

/* A chunked rendezvous (tw_mpi_rts_t.split == TW_RTS_CHUNKED): the sender's NLA
 * names a window holding TW_PACK_CHUNK bytes of its stream at a time, from 0. The
 * receiver gets each chunk (nothing of what lies past its buffer) asking for a
 * responder notification; the sender then packs the next chunk into the window and
 * says so, sender to receiver: */
enum { TW_RTS_CHUNKED = 2, TW_MPI_READY = 4 };
typedef struct tw_mpi_ready {
    uint32_t sreq, rreq;
    uint64_t offset; /* the stream offset of the chunk now in the window */
} tw_mpi_ready_t;
int tw_mpi_cancel(MPI_Request req);
int tw_mpi_request_valid(MPI_Request req);
int tw_mpi_request_active(MPI_Request req); /* valid, and not an inactive persistent one */
int tw_mpi_request_done(MPI_Request req);   /* active and complete */
/* Null, inactive or complete; req must be null or valid (not checked). */
int tw_mpi_request_finished(MPI_Request req);
int tw_mpi_request_free(MPI_Request *req);
/* The communicator of a request, for its errors (NULL: MPI_COMM_WORLD's handler). */
tw_mpi_comm_t *tw_mpi_request_comm(MPI_Request req);
int tw_mpi_message_valid(MPI_Message msg);
/* The communicator of a matched message, for its errors (NULL: none). */
tw_mpi_comm_t *tw_mpi_message_comm(MPI_Message msg);

/* buffered sends (bsend.c) */
int tw_mpi_bsend(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context);
void tw_mpi_bsend_fini(void); /* waits for every buffered send */

/* Fills a status. Its MPI_ERROR field is left alone: MPI sets it only where a call
 * returns MPI_ERR_IN_STATUS (MPI-3.1 section 3.2.5). */
static inline void tw_mpi_status_fill(MPI_Status *s, int source, int tag, size_t bytes,
                                      int cancelled) {
    s->MPI_SOURCE = source;
    s->MPI_TAG = tag;
    s->tw_count_lo = (int)(uint32_t)bytes;
    s->tw_count_hi = (int)(bytes >> 32);
    s->tw_cancelled = cancelled;
}

/* The status of a null or inactive request, or of an empty receive. */
static inline void tw_mpi_status_empty(MPI_Status *s, int source) {
    if (s) tw_mpi_status_fill(s, source, MPI_ANY_TAG, 0, 0);
}

/* Every call but a few needs an initialised, not yet finalised library. */
#define NEED_INIT(call)                                                                            \
    do {                                                                                           \
        if (!tw_mpi.initialized || tw_mpi.finalized) {                                             \
            fprintf(stderr, "tollway MPI: %s called %s\n", call,                                   \
                    tw_mpi.finalized ? "after MPI_Finalize" : "before MPI_Init");                  \
            return MPI_ERR_OTHER;                                                                  \
        }                                                                                          \
    } while (0)

#pragma GCC visibility pop

#endif
