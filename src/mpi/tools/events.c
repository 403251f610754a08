/* MPI_T events and their source (MPI-4.1 15.3.8, 15.3.9).
 *
 * Four event types, each raised where it happens: a message kept as unexpected
 * (engine.c), a send that goes by rendezvous (proto_rndv_get.c), a peer declared lost
 * (failure.c), and the udp link's data packets sent again (its retransmits counter,
 * polled by a progress hook while a tool listens: the link layer knows nothing of
 * MPI). One source: this process's monotonic clock in nanoseconds, ordered.
 *
 * Cost: a raise site tests one bit of tw_mpi_t_events_on, which is 0 while no
 * handle has a callback (events.h). Everything else happens only for listened-to
 * types.
 *
 * Where callbacks run. Events are raised inside the library, in the middle of
 * matching or a protocol step, by the thread that makes progress. There:
 * - a handle with a callback at MPI_T_CB_REQUIRE_MPI_RESTRICTED or stricter
 *   (THREAD_SAFE, ASYNC_SIGNAL_SAFE) has it called at once, by the raising thread,
 *   the least strict of them that qualifies; the interface's own lock is not held
 *   (the callback may call MPI_T), the library's lock is under MPI_THREAD_MULTIPLE
 *   (the raising thread's own, which counts depth; no two callbacks run at once);
 * - a handle with a callback at MPI_T_CB_REQUIRE_NONE only keeps the instance in a
 *   ring of RING instances, delivered at the end of a progress pass (a hook), where
 *   the queues and protocols are consistent and MPI calls from the callback re-enter
 *   the library as from an error handler. When the ring is full further instances
 *   are counted, and before the next delivery the dropped handler (if set) gets the
 *   count.
 * A handle freed while one of its callbacks runs stops receiving at once; its free
 * callback runs when the last of its running callbacks returns. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>
#include <tollway/endpoint.h>

#include "mpi/comm/comm.h"
#include "mpi/env/hooks.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/tools/tools.h"
#include "mpi/tools/events.h"

unsigned tw_mpi_t_events_on;

enum { RING = 64, ELEMENTS_MAX = 32, CB_LEVELS = MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE + 1 };

/* ---- the types and their elements ---- */

typedef struct {
    int32_t source, tag; /* source: its rank in the communicator */
    int64_t bytes;
    uint32_t context;
} unexpected_t;
typedef struct {
    int32_t dest, tag;
    int64_t bytes;
    uint32_t context;
    int32_t variant; /* 0 get, 1 get chunk by chunk, 2 split, 3 put, 4 pieces */
} rndv_t;
typedef struct {
    int32_t rank, errorcode, by;
} lost_t;
typedef struct {
    uint64_t count, total;
} retransmits_t;

typedef struct {
    const char *name;
    MPI_Datatype type;
    size_t offset, size;
} element_t;

#define EL(st, field, t)                                                                           \
    { #field, t, offsetof(st, field), sizeof(((st *)0)->field) }

static const element_t unexpected_els[] = {
    EL(unexpected_t, source, MPI_INT), EL(unexpected_t, tag, MPI_INT),
    EL(unexpected_t, bytes, MPI_COUNT), EL(unexpected_t, context, MPI_UINT32_T)};
static const element_t rndv_els[] = {
    EL(rndv_t, dest, MPI_INT), EL(rndv_t, tag, MPI_INT), EL(rndv_t, bytes, MPI_COUNT),
    EL(rndv_t, context, MPI_UINT32_T), EL(rndv_t, variant, MPI_INT)};
static const element_t lost_els[] = {EL(lost_t, rank, MPI_INT), EL(lost_t, errorcode, MPI_INT),
                                     EL(lost_t, by, MPI_INT)};
static const element_t retransmits_els[] = {EL(retransmits_t, count, MPI_UNSIGNED_LONG_LONG),
                                            EL(retransmits_t, total, MPI_UNSIGNED_LONG_LONG)};

typedef struct {
    const char *name, *desc;
    int verbosity, bind;
    const element_t *els;
    int nels;
    size_t size; /* of the elements as MPI_T_event_copy lays them out */
} type_t;

static const type_t types[TW_EVENT_COUNT] = {
    [TW_EVENT_UNEXPECTED] = {"mpi_unexpected_message",
                             "a message arrived before its receive and was kept: source (rank "
                             "in the communicator), tag, bytes, context id",
                             MPI_T_VERBOSITY_USER_BASIC, MPI_T_BIND_MPI_COMM, unexpected_els, 4,
                             sizeof(unexpected_t)},
    [TW_EVENT_RNDV_BEGIN] = {"mpi_rendezvous_begin",
                             "a send goes by rendezvous (at the sender): dest (rank in the "
                             "communicator), tag, bytes, context id, variant (0 get, 1 get chunk "
                             "by chunk, 2 split, 3 put, 4 pieces)",
                             MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_BIND_MPI_COMM, rndv_els, 5,
                             sizeof(rndv_t)},
    [TW_EVENT_PEER_LOST] = {"mpi_peer_lost",
                            "a peer was declared lost: rank (in MPI_COMM_WORLD), errorcode (of "
                            "class MPIX_ERR_PROC_FAILED; MPI_Error_string says why), by (the "
                            "world rank that found it lost)",
                            MPI_T_VERBOSITY_USER_BASIC, MPI_T_BIND_NO_OBJECT, lost_els, 3,
                            sizeof(lost_t)},
    [TW_EVENT_RETRANSMITS] = {"udp_retransmits",
                              "the udp link sent data packets again: count (since the last "
                              "instance), total (the link's retransmits counter); seen by the "
                              "progress pass after they happen",
                              MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_BIND_NO_OBJECT, retransmits_els,
                              2, sizeof(retransmits_t)},
};

int tw_mpi_t_event_count(void) {
    return TW_EVENT_COUNT;
}

/* ---- the source ---- */

enum { SOURCE_CLOCK, SOURCE_COUNT };
#define TICKS_PER_SECOND 1000000000LL

static MPI_Count clock_ticks(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (MPI_Count)t.tv_sec * TICKS_PER_SECOND + t.tv_nsec;
}

/* ---- instances and registrations ---- */

struct tw_mpi_t_event_instance {
    int event;
    MPI_Count time;
    _Alignas(8) unsigned char data[ELEMENTS_MAX];
};
_Static_assert(sizeof(rndv_t) <= ELEMENTS_MAX, "an instance holds the elements of every type");

typedef struct {
    MPI_T_event_cb_function *fn;
    void *user_data;
} callback_t;

struct tw_mpi_t_event_registration {
    struct tw_mpi_t_event_registration *next;
    int event;
    int bound;          /* to a communicator: only its instances */
    uint32_t comm_slot; /* its table entry (context / 2) */
    callback_t cb[CB_LEVELS];
    MPI_T_event_dropped_cb_function *dropped_fn;
    struct tw_mpi_t_event_instance ring[RING];
    unsigned head, held; /* the oldest kept instance, how many are kept */
    uint64_t lost;       /* instances the full ring could not keep, not yet reported */
    int running;         /* its callbacks under way */
    MPI_T_event_free_cb_function *free_fn;
    void *free_data;
};

/* Registrations in use; and those freed while a callback of theirs ran. */
static struct tw_mpi_t_event_registration *regs, *dying;
/* The instance each thread's running callback was handed: the only one it may read. */
static _Thread_local const struct tw_mpi_t_event_instance *current;

static struct tw_mpi_t_event_registration *reg_of(MPI_T_event_registration r) {
    for (struct tw_mpi_t_event_registration *x = regs; x; x = x->next)
        if (x == r) return x;
    return NULL;
}

/* The least strict callback level of r at or above required; -1: none. */
static int pick(const struct tw_mpi_t_event_registration *r, int required) {
    for (int l = required; l < CB_LEVELS; l++)
        if (r->cb[l].fn) return l;
    return -1;
}

static int has_callback(const struct tw_mpi_t_event_registration *r) {
    return pick(r, MPI_T_CB_REQUIRE_NONE) >= 0;
}

/* retransmits: the counter's index, its value last reported */
static size_t retransmits_counter = SIZE_MAX;
static uint64_t retransmits_seen;

static uint64_t retransmits_now(void) {
    if (retransmits_counter == SIZE_MAX)
        for (size_t i = 0; i < tw_link_counter_count(); i++) {
            const tw_link_counter_info_t *in = tw_link_counter_info(i);
            if (!strcmp(in->link, "udp") && !strcmp(in->name, "retransmits"))
                retransmits_counter = i;
        }
    return tw_mpi.users > 0 && tw_mpi.ep && retransmits_counter != SIZE_MAX
               ? tw_ep_link_counter(tw_mpi.ep, retransmits_counter)
               : 0;
}

static void progress_hook(void);

/* Under the lock: tw_mpi_t_events_on and the progress hook, after a change. */
static void update(void) {
    unsigned on = 0, pending = 0;
    for (const struct tw_mpi_t_event_registration *r = regs; r; r = r->next) {
        if (has_callback(r)) on |= 1u << r->event;
        if (r->held || r->lost) pending = 1;
    }
    if ((on >> TW_EVENT_RETRANSMITS & 1) && !(tw_mpi_t_events_on >> TW_EVENT_RETRANSMITS & 1))
        retransmits_seen = retransmits_now(); /* from now on */
    tw_mpi_t_events_on = on;
    tw_mpi_progress_hook(TW_HOOK_EVENTS, progress_hook);
    if (pending || (on >> TW_EVENT_RETRANSMITS & 1))
        tw_mpi_hook_on(TW_HOOK_EVENTS);
    else
        tw_mpi_hook_off(TW_HOOK_EVENTS);
}

/* Under the lock: a callback of r returned. A freed r whose last one it was is
 * taken off dying and returned: the caller calls its free callback and frees it
 * after letting the lock go. */
static struct tw_mpi_t_event_registration *finish(struct tw_mpi_t_event_registration *r) {
    if (--r->running || !r->free_fn) return NULL;
    struct tw_mpi_t_event_registration **p = &dying;
    while (*p && *p != r) p = &(*p)->next;
    if (!*p) return NULL; /* still in use */
    *p = r->next;
    return r;
}

static void release(struct tw_mpi_t_event_registration *r) {
    if (!r) return;
    int level = pick(r, MPI_T_CB_REQUIRE_NONE);
    if (r->free_fn != (MPI_T_event_free_cb_function *)1)
        r->free_fn(r, level < 0 ? MPI_T_CB_REQUIRE_NONE : (MPI_T_cb_safety)level, r->free_data);
    free(r);
}

static void call(struct tw_mpi_t_event_registration *r, int level,
                 const struct tw_mpi_t_event_instance *in) {
    const struct tw_mpi_t_event_instance *outer = current;
    current = in;
    r->cb[level].fn((MPI_T_event_instance)in, r, (MPI_T_cb_safety)level, r->cb[level].user_data);
    current = outer;
}

/* Delivers in to every registration of its type (and communicator slot). */
static void raise_held(struct tw_mpi_t_event_instance *in, uint32_t slot) {
    if (tw_mpi_t_lock()) return;
    in->time = clock_ticks();
    struct {
        struct tw_mpi_t_event_registration *r;
        int level;
    } now[8];
    int n = 0, queued = 0;
    for (struct tw_mpi_t_event_registration *r = regs; r; r = r->next) {
        if (r->event != in->event || (r->bound && r->comm_slot != slot) || !has_callback(r))
            continue;
        int level = pick(r, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
        if (level >= 0 && !r->held && !r->lost && n < (int)(sizeof now / sizeof now[0])) {
            now[n].r = r;
            now[n++].level = level;
            r->running++;
        } else if (r->held < RING) { /* kept, in order behind what waits already */
            r->ring[(r->head + r->held++) % RING] = *in;
            queued = 1;
        } else {
            r->lost++;
            queued = 1;
        }
    }
    if (queued) update();
    tw_mpi_t_unlock();
    if (!n) return;
    for (int i = 0; i < n; i++) call(now[i].r, now[i].level, in);
    struct tw_mpi_t_event_registration *gone[8];
    if (tw_mpi_t_lock()) return; /* (MPI_T finalized by a callback: everything freed) */
    for (int i = 0; i < n; i++) gone[i] = finish(now[i].r);
    tw_mpi_t_unlock();
    for (int i = 0; i < n; i++) release(gone[i]);
}

/* raise_held for a raise site on any channel: a call on a channel's traffic holds that
 * channel's lock alone; the handles, rings and counters here are the library's, whose
 * lock comes after it in the order. */
static void raise_instance(struct tw_mpi_t_event_instance *in, uint32_t slot) {
    unsigned took = tw_mpi_threads_on ? tw_mpi_lock_set(TW_MPI_LOCK_LIBRARY) : 0;
    raise_held(in, slot);
    if (tw_mpi_threads_on) tw_mpi_unlock_set(took);
}

/* Only a communicator's point-to-point context (even) is the user's traffic: the
 * messages a collective exchanges on the odd one are the library's, and would show
 * as sends the program never made. */
void tw_mpi_t_event_unexpected(int source, int tag, size_t bytes, uint32_t context) {
    if (context & 1) return;
    struct tw_mpi_t_event_instance in = {.event = TW_EVENT_UNEXPECTED};
    const tw_mpi_comm_t *c = tw_mpi_comm_of_context(context);
    unexpected_t e = {c ? tw_mpi_comm_rank_of(c, source) : source, tag, (int64_t)bytes, context};
    memcpy(in.data, &e, sizeof e);
    raise_instance(&in, context / 2);
}

void tw_mpi_t_event_rndv_begin(int dest, int tag, size_t bytes, uint32_t context, int variant) {
    if (context & 1) return; /* a collective's own message, as above */
    struct tw_mpi_t_event_instance in = {.event = TW_EVENT_RNDV_BEGIN};
    const tw_mpi_comm_t *c = tw_mpi_comm_of_context(context);
    rndv_t e = {c ? tw_mpi_comm_rank_of(c, dest) : dest, tag, (int64_t)bytes, context, variant};
    memcpy(in.data, &e, sizeof e);
    raise_instance(&in, context / 2);
}

void tw_mpi_t_event_peer_lost(int world, int errorcode, int by) {
    struct tw_mpi_t_event_instance in = {.event = TW_EVENT_PEER_LOST};
    lost_t e = {world, errorcode, by};
    memcpy(in.data, &e, sizeof e);
    raise_instance(&in, UINT32_MAX);
}

/* The end of every progress pass while a tool listens for retransmits or
 * instances wait: the counter is looked at, then what waits is delivered. */
static void progress_hook(void) {
    static int delivering; /* a callback's MPI calls make progress too */
    if (delivering) return;
    delivering = 1;
    if (tw_mpi_t_event_wanted(TW_EVENT_RETRANSMITS)) {
        uint64_t total = retransmits_now();
        if (total > retransmits_seen) {
            struct tw_mpi_t_event_instance in = {.event = TW_EVENT_RETRANSMITS};
            retransmits_t e = {total - retransmits_seen, total};
            retransmits_seen = total;
            memcpy(in.data, &e, sizeof e);
            raise_instance(&in, UINT32_MAX);
        }
    }
    for (;;) {
        if (tw_mpi_t_lock()) break;
        struct tw_mpi_t_event_registration *r = regs;
        while (r && !((r->held || r->lost) && has_callback(r))) r = r->next;
        if (!r) {
            update();
            tw_mpi_t_unlock();
            break;
        }
        int level = pick(r, MPI_T_CB_REQUIRE_NONE);
        r->running++;
        if (r->lost) {
            MPI_Count lost = (MPI_Count)r->lost;
            r->lost = 0;
            MPI_T_event_dropped_cb_function *fn = r->dropped_fn;
            tw_mpi_t_unlock();
            if (fn) fn(lost, r, SOURCE_CLOCK, (MPI_T_cb_safety)level, r->cb[level].user_data);
        } else {
            struct tw_mpi_t_event_instance in = r->ring[r->head];
            r->head = (r->head + 1) % RING;
            r->held--;
            tw_mpi_t_unlock();
            call(r, level, &in);
        }
        if (tw_mpi_t_lock()) break;
        struct tw_mpi_t_event_registration *gone = finish(r);
        tw_mpi_t_unlock();
        release(gone);
    }
    delivering = 0;
}

void tw_mpi_t_events_release(void) {
    while (regs) {
        struct tw_mpi_t_event_registration *r = regs;
        regs = r->next;
        free(r);
    }
    /* those whose callbacks still run are freed as these return (finish finds them
     * on dying no more: they stay with their threads, a leak of the rare case) */
    dying = NULL;
    update();
}

/* ---- the calls ---- */

#define ENTER()                                                                                    \
    do {                                                                                           \
        int entered_ = tw_mpi_t_lock();                                                            \
        if (entered_) return entered_;                                                             \
    } while (0)
#define LEAVE(rc)                                                                                  \
    do {                                                                                           \
        tw_mpi_t_unlock();                                                                         \
        return (rc);                                                                               \
    } while (0)

/* An info for the user: empty while MPI runs (no hints are kept), else none. */
static MPI_Info empty_info(void) {
    MPI_Info info = MPI_INFO_NULL;
    if (tw_mpi.users > 0 && MPI_Info_create(&info) != MPI_SUCCESS) info = MPI_INFO_NULL;
    return info;
}

int MPI_T_source_get_num(int *num_sources) {
    ENTER();
    if (!num_sources) LEAVE(MPI_T_ERR_INVALID);
    *num_sources = SOURCE_COUNT;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                          MPI_T_source_order *ordering, MPI_Count *ticks_per_second,
                          MPI_Count *max_ticks, MPI_Info *info) {
    ENTER();
    if (source_index < 0 || source_index >= SOURCE_COUNT) LEAVE(MPI_T_ERR_INVALID_INDEX);
    tw_mpi_t_put_string("clock_monotonic", name, name_len);
    tw_mpi_t_put_string("this process's monotonic clock, in nanoseconds; it stamps every event",
                        desc, desc_len);
    if (ordering) *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second) *ticks_per_second = TICKS_PER_SECOND;
    if (max_ticks) *max_ticks = LLONG_MAX;
    if (info) *info = MPI_INFO_NULL;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp) {
    ENTER();
    if (source_index < 0 || source_index >= SOURCE_COUNT) LEAVE(MPI_T_ERR_INVALID_INDEX);
    if (!timestamp) LEAVE(MPI_T_ERR_INVALID);
    *timestamp = clock_ticks();
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_get_num(int *num_events) {
    ENTER();
    if (!num_events) LEAVE(MPI_T_ERR_INVALID);
    *num_events = TW_EVENT_COUNT;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                         int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                         int *desc_len, int *bind) {
    ENTER();
    if (event_index < 0 || event_index >= TW_EVENT_COUNT) LEAVE(MPI_T_ERR_INVALID_INDEX);
    const type_t *t = &types[event_index];
    tw_mpi_t_put_string(t->name, name, name_len);
    if (verbosity) *verbosity = t->verbosity;
    if (num_elements) { /* in: the arrays' length; out: the number of elements */
        int room = *num_elements < 0 ? 0 : *num_elements;
        for (int i = 0; i < t->nels && i < room; i++) {
            if (array_of_datatypes) array_of_datatypes[i] = t->els[i].type;
            if (array_of_displacements) array_of_displacements[i] = (MPI_Aint)t->els[i].offset;
        }
        *num_elements = t->nels;
    }
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    if (info) *info = MPI_INFO_NULL;
    tw_mpi_t_put_string(t->desc, desc, desc_len);
    if (bind) *bind = t->bind;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_get_index(const char *name, int *event_index) {
    ENTER();
    if (!name || !event_index) LEAVE(MPI_T_ERR_INVALID);
    for (int i = 0; i < TW_EVENT_COUNT; i++)
        if (!strcmp(types[i].name, name)) {
            *event_index = i;
            LEAVE(MPI_SUCCESS);
        }
    LEAVE(MPI_T_ERR_INVALID_NAME);
}

int MPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                             MPI_T_event_registration *event_registration) {
    (void)info; /* no hints are kept */
    ENTER();
    if (event_index < 0 || event_index >= TW_EVENT_COUNT) LEAVE(MPI_T_ERR_INVALID_INDEX);
    if (!event_registration) LEAVE(MPI_T_ERR_INVALID);
    uint32_t slot = 0;
    if (types[event_index].bind == MPI_T_BIND_MPI_COMM) { /* obj_handle: an MPI_Comm * */
        const tw_mpi_comm_t *c = NULL;
        if (obj_handle && tw_mpi.users > 0) c = tw_mpi_comm_get(*(const MPI_Comm *)obj_handle);
        if (!c) LEAVE(MPI_T_ERR_INVALID_HANDLE);
        slot = c->context / 2;
    }
    struct tw_mpi_t_event_registration *r = calloc(1, sizeof *r);
    if (!r) LEAVE(MPI_T_ERR_OUT_OF_HANDLES);
    r->event = event_index;
    r->bound = types[event_index].bind == MPI_T_BIND_MPI_COMM;
    r->comm_slot = slot;
    r->next = regs;
    regs = r;
    *event_registration = r;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info) {
    (void)info; /* no hints are kept */
    ENTER();
    if (!reg_of(event_registration)) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used) {
    ENTER();
    if (!reg_of(event_registration)) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!info_used) LEAVE(MPI_T_ERR_INVALID);
    *info_used = empty_info();
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                  MPI_T_event_cb_function event_cb_function) {
    (void)info; /* no hints are kept */
    ENTER();
    struct tw_mpi_t_event_registration *r = reg_of(event_registration);
    if (!r) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if ((int)cb_safety < 0 || (int)cb_safety >= CB_LEVELS) LEAVE(MPI_T_ERR_INVALID);
    /* a NULL function takes the level's callback away */
    r->cb[cb_safety] = (callback_t){event_cb_function, event_cb_function ? user_data : NULL};
    update();
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info info) {
    (void)info; /* no hints are kept */
    ENTER();
    if (!reg_of(event_registration)) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if ((int)cb_safety < 0 || (int)cb_safety >= CB_LEVELS) LEAVE(MPI_T_ERR_INVALID);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info *info_used) {
    ENTER();
    if (!reg_of(event_registration)) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if ((int)cb_safety < 0 || (int)cb_safety >= CB_LEVELS || !info_used) LEAVE(MPI_T_ERR_INVALID);
    *info_used = empty_info();
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                    MPI_T_event_dropped_cb_function dropped_cb_function) {
    ENTER();
    struct tw_mpi_t_event_registration *r = reg_of(event_registration);
    if (!r) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    r->dropped_fn = dropped_cb_function;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                            MPI_T_event_free_cb_function free_cb_function) {
    ENTER();
    struct tw_mpi_t_event_registration **p = &regs;
    while (*p && *p != event_registration) p = &(*p)->next;
    if (!*p) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    struct tw_mpi_t_event_registration *r = *p;
    *p = r->next;
    update();
    /* (MPI_T_event_free_cb_function *)1: freed, no callback to call */
    r->free_fn = free_cb_function ? free_cb_function : (MPI_T_event_free_cb_function *)1;
    r->free_data = user_data;
    if (r->running) { /* the last of its callbacks to return releases it */
        r->next = dying;
        dying = r;
        LEAVE(MPI_SUCCESS);
    }
    tw_mpi_t_unlock();
    release(r);
    return MPI_SUCCESS;
}

/* The instance a call names: the one handed to this thread's running callback. */
static const struct tw_mpi_t_event_instance *instance_of(MPI_T_event_instance i) {
    return i && (const struct tw_mpi_t_event_instance *)i == current ? current : NULL;
}

int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer) {
    ENTER();
    const struct tw_mpi_t_event_instance *in = instance_of(event_instance);
    if (!in) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (element_index < 0 || element_index >= types[in->event].nels) LEAVE(MPI_T_ERR_INVALID_INDEX);
    if (!buffer) LEAVE(MPI_T_ERR_INVALID);
    const element_t *e = &types[in->event].els[element_index];
    memcpy(buffer, in->data + e->offset, e->size);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer) {
    ENTER();
    const struct tw_mpi_t_event_instance *in = instance_of(event_instance);
    if (!in) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!buffer) LEAVE(MPI_T_ERR_INVALID);
    memcpy(buffer, in->data, types[in->event].size); /* at the displacements get_info gives */
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp) {
    ENTER();
    const struct tw_mpi_t_event_instance *in = instance_of(event_instance);
    if (!in) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!event_timestamp) LEAVE(MPI_T_ERR_INVALID);
    *event_timestamp = in->time;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index) {
    ENTER();
    if (!instance_of(event_instance)) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!source_index) LEAVE(MPI_T_ERR_INVALID);
    *source_index = SOURCE_CLOCK;
    LEAVE(MPI_SUCCESS);
}
