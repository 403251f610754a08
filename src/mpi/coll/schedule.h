/* Collective schedules (schedule.c). */
#ifndef TW_MPI_SCHEDULE_H
#define TW_MPI_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_comm tw_mpi_comm_t;

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
    TW_STEP_PACK,
    TW_STEP_CALL,
    TW_STEP_WAIT,
    TW_STEP_FENCE
};
struct tw_sched;
/* A local step that runs a function; it may add steps to the schedule. */
typedef void tw_sched_fn(struct tw_sched *s, void *arg);
typedef struct tw_step {
    uint8_t kind;
    uint8_t deferred; /* a small receive of a blocking schedule, not posted yet */
    uint8_t typed;    /* send, receive: count items of type at src / dst, staged */
    uint8_t operand;  /* receive: combined by this rank next (TW_RECV_OPERAND) */
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
    /* a receive got more than its buffer takes (ranks that disagree on the counts):
     * the steps go on, since later ranks of the algorithm wait for this one's sends,
     * and it becomes the error once they have run */
    int truncated;
    tw_step_t *steps;
    int nsteps, cap;
    int next;    /* the first step not started */
    int waiting; /* the first started step not known complete */
    int heap;    /* allocated by tw_sched_new: freed when it ends */
    /* persistent (coll/persistent.c): kept when it ends, and run again from its
     * first step; sealed once written, the steps and scratch of that moment are
     * what every run starts from */
    uint8_t keep, sealed;
    int sealed_steps;
    size_t sealed_used;
    void *sealed_blocks;
    struct tw_sched_snapshot *snapshots;
    MPI_Request request;
    /* tw_sched_start_then's: runs when the schedule ends, in place of its request */
    tw_sched_fn *ended;
    void *ended_arg;
    /* persistent: a call that runs on the shared-memory lines instead of the steps
     * (coll_shm.c), NULL for one that runs its steps */
    struct tw_coll_shm_op *shm_op;
    struct tw_sched *next_active;
    void *blocks; /* scratch beyond the inline one, chained */
    size_t scratch_used;
    /* the derived types and user ops a non-blocking schedule holds until it ends */
    unsigned *held_types, *held_ops; /* handles */
    int nheld_types, nheld_ops, held_types_cap, held_ops_cap;
    tw_step_t inline_steps[TW_SCHED_STEPS];
    _Alignas(max_align_t) unsigned char scratch[TW_SCHED_SCRATCH];
} tw_sched_t;

/* Non-blocking schedules still running. */
extern int tw_mpi_scheds_active;
/* Registers the progress hook that moves non-blocking schedules on. */
void tw_mpi_sched_init(void);
/* Frees the scratch kept for later schedules (MPI_Finalize). */
void tw_sched_fini(void);
/* A schedule for a collective on c with its tag: tw_mpi_coll_tag(c) for a blocking
 * one. tw_sched_new allocates one for a non-blocking one and takes its tag
 * (tw_mpi_nbc_tag); NULL: no memory. */
void tw_sched_init(tw_sched_t *s, tw_mpi_comm_t *c, int tag);
tw_sched_t *tw_sched_new(tw_mpi_comm_t *c);
/* Scratch that lives as long as the schedule (NULL when out of memory: s->error set). */
void *tw_sched_scratch(tw_sched_t *s, size_t bytes);
/* A point in a schedule's scratch, and giving back everything taken after it: for
 * work written in parts, each part once the steps using the last one's scratch are
 * done. */
typedef struct tw_sched_mark {
    size_t used;
    void *blocks;
    int after_seal; /* taken while a persistent schedule ran */
} tw_sched_mark_t;
tw_sched_mark_t tw_sched_mark(const tw_sched_t *s);
void tw_sched_release(tw_sched_t *s, tw_sched_mark_t mark);
/* Steps; peers are ranks of the schedule's communicator. */
void tw_sched_send(tw_sched_t *s, const void *buf, size_t bytes, int peer);
void tw_sched_recv(tw_sched_t *s, void *buf, size_t bytes, int peer);
/* A receive whose data a reduction step combines next (TW_RECV_OPERAND). */
void tw_sched_recv_operand(tw_sched_t *s, void *buf, size_t bytes, int peer);
void tw_sched_reduce(tw_sched_t *s, const void *in, void *inout, MPI_Count count, MPI_Datatype type,
                     MPI_Op op);
void tw_sched_copy(tw_sched_t *s, const void *src, void *dst, size_t bytes);
void tw_sched_unpack(tw_sched_t *s, const void *packed, MPI_Count count, MPI_Datatype type,
                     void *buf);
/* Packs count items of type at buf into packed: now, or as a step at every run of a
 * persistent schedule (whose buffers hold new data at each start). */
void tw_sched_pack(tw_sched_t *s, const void *buf, MPI_Count count, MPI_Datatype type,
                   void *packed);
/* Copies bytes that are input of the call: now, or as a step of a persistent one. */
void tw_sched_copy_input(tw_sched_t *s, const void *src, void *dst, size_t bytes);
/* State a schedule's calls change as it runs (a segment counter): a persistent
 * schedule puts back what bytes bytes at at held when it was sealed at every run. */
void tw_sched_snapshot(tw_sched_t *s, void *at, size_t bytes);
void tw_sched_call(tw_sched_t *s, tw_sched_fn *fn, void *arg);
/* A step that waits for req, a request made elsewhere that completes by itself (an I/O
 * job's, tw_mpi_coll_request), and frees it; its error is the schedule's. */
void tw_sched_wait(tw_sched_t *s, MPI_Request req);
/* A non-blocking schedule holds a type or op its steps name until it ends, so the
 * program may free them meanwhile (a blocking one ends first: nothing is held). */
void tw_sched_hold_type(tw_sched_t *s, MPI_Datatype type);
void tw_sched_hold_op(tw_sched_t *s, MPI_Op op);
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
/* Hands a tw_sched_new schedule to progress without a request: fn(s, arg) runs once,
 * in progress or before this returns, when it has ended (s->error: the class of its
 * first failed step), and the schedule is freed after. For work that completes a
 * request of its own with what the steps found (a file access's status). */
void tw_sched_start_then(tw_sched_t *s, tw_sched_fn *fn, void *arg);
void tw_sched_free(tw_sched_t *s);

/* Persistent schedules (coll/persistent.c drives them): tw_sched_new's, made with
 * keep set before anything is written. Sealing fixes what every run starts from
 * (the steps, the scratch, the snapshots); 0, or the error class. Running it again
 * puts those back and starts its request (r: the request's handle, made active by
 * the caller); it ends as a non-blocking one, but stays. */
int tw_sched_seal(tw_sched_t *s);
void tw_sched_rerun(tw_sched_t *s, MPI_Request r);

#pragma GCC visibility pop

#endif
