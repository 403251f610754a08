/* Tollway MPI internals. The MPI layer stands on the native API only. */
#ifndef TW_MPI_IMPL_H
#define TW_MPI_IMPL_H

#include <stddef.h>
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
    uint32_t split; /* 0; 1: the sender will put a part (TW_RTS_SPLIT), TW_RTS_CHUNKED or
                       TW_RTS_PUT: the receiver answers the last two with a CTS */
} tw_mpi_rts_t;

/* A split rendezvous's clear-to-send, receiver to sender: put [offset, offset + len)
 * of your buffer to nla (len 0: I get it all myself). After TW_RTS_PUT the offset is
 * 0 and len the whole receive (or 0). */
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
    /* An intercommunicator's own group (rank is a rank in it); unused otherwise. */
    int local_size;
    int *local_world;
    MPI_Group group, remote_group; /* made on first request (0 until then); held until freed */
    struct tw_mpi_attr *attrs;     /* cached attributes, in the order they were set */
    struct tw_coll_shm *shm;       /* the shared block of its collectives (coll_shm.c) */
    int shm_tried;                 /* its set-up ran (shm NULL: the ranks keep to messages) */
    char name[MPI_MAX_OBJECT_NAME];
} tw_mpi_comm_t;

/* The size of the group the calling process belongs to. */
static inline int tw_mpi_comm_local_size(const tw_mpi_comm_t *c) {
    return c->inter ? c->local_size : c->size;
}

/* The world rank of each rank of that group (NULL: rank r is world rank r). */
static inline const int *tw_mpi_comm_local_world(const tw_mpi_comm_t *c) {
    return c->inter ? c->local_world : c->world;
}

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
/* The table entries that MPI_Comm_idup calls under way hold (comm_idup.c); they
 * count as used (tw_mpi_used_entries). */
extern uint64_t tw_mpi_comm_held[TW_MPI_COMMS / 64];
/* Blocking creations (dup, split) under way here: an idup takes no entry meanwhile,
 * since the entry a creation will get is known only when it ends. */
extern int tw_mpi_comm_creating;

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

/* The node of a world rank, named by the lowest world rank on it (comm.c). */
int tw_mpi_node(int world);

/* ---- communicator creation (comm.c), shared with intercomm.c ---- */
enum { TW_MPI_USED_WORDS = TW_MPI_COMMS / 64 };
/* A new communicator in table entry index, its handlers MPI_ERRORS_ARE_FATAL; it
 * takes world (malloc'ed). NULL when out of memory. */
tw_mpi_comm_t *tw_mpi_comm_new(int index, int rank, int size, int *world);
/* Frees c and its table entry, without running attribute callbacks. */
void tw_mpi_comm_destroy(tw_mpi_comm_t *c);
void tw_coll_shm_free(tw_mpi_comm_t *c); /* its collectives' shared block (coll_shm.c) */
/* The table entries this process uses, and the lowest entry free in such a bitmap
 * (-1: none). */
void tw_mpi_used_entries(uint64_t used[TW_MPI_USED_WORDS]);
int tw_mpi_lowest_free(const uint64_t used[TW_MPI_USED_WORDS]);
/* Sends out to world rank to and/or receives into in from world rank from (-1: not),
 * on context and tag; the bytes received (0 when a longer message was cut). */
size_t tw_mpi_exchange(uint32_t context, int tag, int to, const void *out, size_t outlen, int from,
                       void *in, size_t inlen);
/* The tags of the creation exchanges that are not collective over the communicator
 * they run on: negative, so never a collective's or a split's, and apart by kind. A
 * user tag picks one of 2^29 (tags equal modulo 2^29 share one). */
enum { TW_MPI_TAG_CREATE_GROUP = 0, TW_MPI_TAG_INTERCOMM_CREATE = 1 };
static inline int tw_mpi_creation_tag(int kind, int tag) {
    return -2 - kind * 0x20000000 - (tag & 0x1fffffff);
}
/* The members of a split that chose color, as indices into n (color, key) pairs,
 * ordered by key then index; their number (0 for MPI_UNDEFINED). */
int tw_mpi_pick_color(int n, const int *color_key, int color, int *order);
/* MPI_SUCCESS when every one of n world ranks is in range and none repeats. */
int tw_mpi_check_worlds(int n, const int *world);

/* ---- intercommunicators (intercomm.c) ---- */
/* Checks the answer a member of MPI_Intercomm_create gets from its leader — len bytes
 * of: table entry, remote size n, n world ranks — before any of it is used. 1 when
 * the entry exists, n is 1..world_size, the ranks are in range, none repeats and
 * none is in the local group (local_n world ranks; NULL: 0..local_n-1). */
static inline int tw_mpi_intercomm_answer_ok(const int *a, size_t len, int world_size, int local_n,
                                             const int *local) {
    if (len < 2 * sizeof *a) return 0;
    int entry = a[0], n = a[1];
    if (entry < 0 || entry >= TW_MPI_COMMS) return 0;
    if (n < 1 || n > world_size || len != ((size_t)n + 2) * sizeof *a) return 0;
    for (int k = 0; k < n; k++) {
        int w = a[2 + k];
        if (w < 0 || w >= world_size) return 0;
        for (int j = 0; j < k; j++)
            if (a[2 + j] == w) return 0;
        for (int j = 0; j < local_n; j++)
            if ((local ? local[j] : j) == w) return 0; /* the groups must be disjoint */
    }
    return 1;
}

/* Duplicates intercommunicator p (no attributes yet). Collective over both groups. */
int tw_mpi_intercomm_dup(tw_mpi_comm_t *p, MPI_Comm *out);
/* Splits intercommunicator c: each color's members in both groups, ordered by key,
 * form a new intercommunicator; a color missing from either group gets MPI_COMM_NULL. */
int tw_mpi_intercomm_split(tw_mpi_comm_t *c, int color, int key, MPI_Comm *out);

/* ---- groups (group.c) ---- */
typedef struct tw_mpi_group {
    int refs; /* handles and communicators holding it */
    int size;
    int *world; /* world rank of each rank */
} tw_mpi_group_t;
tw_mpi_group_t *tw_mpi_group_get(MPI_Group group); /* NULL: not a group */
/* A new group of n world ranks (copied) with one reference. */
int tw_mpi_group_new(int n, const int *world, MPI_Group *out);
void tw_mpi_group_release(MPI_Group group);
/* A new reference to the group of n world ranks world (NULL: 0..n-1) that *cached
 * holds, made on first use. */
int tw_mpi_group_of(MPI_Group *cached, int n, const int *world, MPI_Group *out);
/* MPI_IDENT (same ranks in the same order), MPI_SIMILAR (same ranks) or MPI_UNEQUAL;
 * NULL lists are 0..n-1. */
int tw_mpi_compare_worlds(int na, const int *a, int nb, const int *b);

/* ---- attribute caching (attr.c) ---- */
/* Runs the copy callbacks of from's attributes for its duplicate to. */
int tw_mpi_attr_copy_all(tw_mpi_comm_t *from, tw_mpi_comm_t *to);
/* Runs the delete callbacks of c's attributes and removes them; stops at the first
 * that fails, and returns its error. */
int tw_mpi_attr_delete_all(tw_mpi_comm_t *c);
/* Removes c's attributes without callbacks (at finalize). */
void tw_mpi_attr_drop_all(tw_mpi_comm_t *c);

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
enum { TW_RTS_SPLIT = 1, TW_RTS_CHUNKED = 2, TW_MPI_READY = 4 };
/* A rendezvous across nodes (tw_mpi_rts_t.split == TW_RTS_PUT): the receiver's CTS
 * names its whole buffer and the sender puts the message into it, which the udp link
 * sends from the sender's buffer and lands in the receiver's; a get's answer would be
 * copied aside for retransmission first. A receive that is unpacked from a window
 * (a derived datatype) answers with len 0 and gets the message as usual. */
enum { TW_RTS_PUT = 3 };
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

/* one-sided communication (win.c). Window control messages travel as VELO messages
 * with their own tag, handed over by the point-to-point engine; notifications of
 * window operations carry TW_WIN_COOKIE and are handed over too, drained while
 * tw_mpi_win_waiting is non-zero. */
enum { TW_MPI_WIN = 5 };
#define TW_WIN_COOKIE ((uint64_t)1 << 63)
extern int tw_mpi_win_waiting;
void tw_mpi_win_message(int source, const void *data, size_t len);
void tw_mpi_win_notification(const tw_notification_t *n);
/* The map of a committed or predefined datatype (datatype.c), or NULL. */
struct tw_typemap;
const struct tw_typemap *tw_mpi_type_map(MPI_Datatype type);

/* reduction operations (op.c) */
/* MPI_SUCCESS when op applies to type's elements, else MPI_ERR_OP (MPI_ERR_TYPE: no type). */
int tw_mpi_op_check(MPI_Op op, MPI_Datatype type);
int tw_mpi_op_commutative(MPI_Op op);
int tw_mpi_op_predefined(MPI_Op op); /* one of MPI's own ops, not a user op */
/* inout = in op inout over count items of type in packed form (a contiguous type's
 * items as they are in memory, from lb on). The op was checked against the type. */
int tw_mpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype type);

/* Schedules (schedule.c): what one collective call does, as a list of steps — sends,
 * receives, local reductions and copies — cut into rounds by fences. A step after a
 * fence starts once everything before the fence has completed. A blocking call runs
 * its schedule to the end at once, on the stack; a non-blocking one hands it to a
 * request, and tw_mpi_progress() moves it on. Buffers in steps are packed bytes. */
enum {
    TW_STEP_SEND,
    TW_STEP_RECV,
    TW_STEP_REDUCE,
    TW_STEP_COPY,
    TW_STEP_UNPACK,
    TW_STEP_CALL,
    TW_STEP_FENCE
};
struct tw_sched;
/* A local step that runs a function; it may add steps to the schedule. */
typedef void tw_sched_fn(struct tw_sched *s, void *arg);
typedef struct tw_step {
    uint8_t kind;
    uint8_t deferred; /* a small receive of a blocking schedule, not posted yet */
    uint8_t typed;    /* send, receive: count items of type at src / dst, staged */
    int peer;         /* send, receive: world rank */
    const void *src;
    void *dst;
    size_t bytes;    /* send, receive, copy */
    MPI_Count count; /* reduce, unpack: items of type */
    MPI_Datatype type;
    MPI_Op op;
    MPI_Request req;
    tw_sched_fn *fn; /* call: fn(schedule, dst) */
} tw_step_t;

enum { TW_SCHED_STEPS = 48, TW_SCHED_SCRATCH = 1536 };
typedef struct tw_sched {
    tw_mpi_comm_t *comm;
    uint32_t context;
    int tag;
    int error;
    tw_step_t *steps;
    int nsteps, cap;
    int next;    /* the first step not started */
    int waiting; /* the first started step not known complete */
    int heap;    /* allocated by tw_sched_new: freed when it ends */
    MPI_Request request;
    struct tw_sched *next_active;
    void *blocks; /* scratch beyond the inline one, chained */
    size_t scratch_used;
    tw_step_t inline_steps[TW_SCHED_STEPS];
    _Alignas(max_align_t) unsigned char scratch[TW_SCHED_SCRATCH];
} tw_sched_t;

/* Non-blocking schedules still running; tw_mpi_progress() looks at them only then. */
extern int tw_mpi_scheds_active;
void tw_mpi_sched_progress(void);
/* A schedule for the next collective on c (its tag is taken now). */
void tw_sched_init(tw_sched_t *s, tw_mpi_comm_t *c);
tw_sched_t *tw_sched_new(tw_mpi_comm_t *c); /* NULL: no memory */
/* Scratch that lives as long as the schedule (NULL when out of memory: s->error set). */
void *tw_sched_scratch(tw_sched_t *s, size_t bytes);
/* A point in a schedule's scratch, and giving back everything taken after it: for
 * work written in parts, each part once the steps using the last one's scratch are
 * done. */
typedef struct tw_sched_mark {
    size_t used;
    void *blocks;
} tw_sched_mark_t;
tw_sched_mark_t tw_sched_mark(const tw_sched_t *s);
void tw_sched_release(tw_sched_t *s, tw_sched_mark_t mark);
/* Steps; peers are ranks of the schedule's communicator. */
void tw_sched_send(tw_sched_t *s, const void *buf, size_t bytes, int peer);
void tw_sched_recv(tw_sched_t *s, void *buf, size_t bytes, int peer);
void tw_sched_reduce(tw_sched_t *s, const void *in, void *inout, MPI_Count count, MPI_Datatype type,
                     MPI_Op op);
void tw_sched_copy(tw_sched_t *s, const void *src, void *dst, size_t bytes);
void tw_sched_unpack(tw_sched_t *s, const void *packed, MPI_Count count, MPI_Datatype type,
                     void *buf);
void tw_sched_call(tw_sched_t *s, tw_sched_fn *fn, void *arg);
void tw_sched_fence(tw_sched_t *s);

/* A block of a collective's data: bytes of packed data, either contiguous at `at`,
 * or (at NULL) count items of a non-contiguous type at buf, which the steps move
 * through the point-to-point engine's staging, in pieces of bounded size, never
 * packing it whole. */
typedef struct tw_sched_block {
    char *at;
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    size_t bytes;
} tw_sched_block_t;
void tw_sched_send_block(tw_sched_t *s, const tw_sched_block_t *b, int peer);
void tw_sched_recv_block(tw_sched_t *s, const tw_sched_block_t *b, int peer);
/* Copies one block's data into another of as many bytes. */
void tw_sched_copy_block(tw_sched_t *s, const tw_sched_block_t *from, const tw_sched_block_t *to);
/* Runs s to its end and releases it; the error class of the first failed step. */
int tw_sched_run(tw_sched_t *s);
/* Hands a tw_sched_new schedule to a new request, which completes when it ends. */
int tw_sched_start(tw_sched_t *s, MPI_Request *req);
void tw_sched_free(tw_sched_t *s);

/* Requests of non-blocking collectives (p2p.c): a slot in the request pool that
 * completes when tw_mpi_coll_request_done says so. */
int tw_mpi_coll_request(uint32_t context, MPI_Request *req);
void tw_mpi_coll_request_done(MPI_Request req, int error);

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
