/* The tools information interface, MPI_T (MPI-3.1 chapter 14).
 *
 * Control variables are the TW_* settings of <tollway/settings.h>, one per row of the
 * table, indexed and named as there ("TW_EAGER_LIMIT"). The environment sets them
 * once, when the process starts, so most are MPI_T_SCOPE_READONLY: writing one answers
 * MPI_T_ERR_CVAR_SET_NEVER. TW_EAGER_LIMIT and TW_RNDV_SPLIT are MPI_T_SCOPE_LOCAL:
 * each send chooses its protocol by them, and any mix of protocols keeps MPI's order,
 * so while MPI runs a write takes effect from the next send (MPI_T_ERR_CVAR_SET_NOT_NOW
 * before MPI_Init, which reads them, and after MPI_Finalize; MPI_T_ERR_INVALID for a
 * value out of the setting's range). The TW_COLL_* algorithm choices but TW_COLL_SHM
 * are MPI_T_SCOPE_ALL_EQ, writable at any time: every collective call chooses anew, so
 * a write takes effect from the next one, and every rank must write the same at the
 * same point. A choice setting is an MPI_INT with an MPI_T_enum
 * of its names; a string, hex or list setting an MPI_CHAR array. TW_JOB_KEY and
 * TW_JOB_SECRET read as "": the interface does not hand out the job's credentials.
 *
 * Performance variables are counters that exist anyway, read when a tool asks (no
 * cost on any path that sends or receives): the endpoint's (tw_ep_stats), the links'
 * (tw_ep_link_counter) and matching's queues. Counters are MPI_T_PVAR_CLASS_COUNTER,
 * not continuous and writable per handle: a handle counts while started, from 0
 * (or what was written to it); the counters themselves are never changed. Queue
 * lengths are continuous, read-only MPI_T_PVAR_CLASS_LEVEL. Before MPI_Init every
 * source reads 0; after MPI_Finalize a counter keeps the value last read and a level
 * reads 0.
 *
 * Every call returns its error code and calls no error handler. One lock serialises
 * the calls; MPI_T is usable before MPI_Init and after MPI_Finalize, between
 * MPI_T_init_thread and the matching MPI_T_finalize. */
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <tollway/endpoint.h>
#include <tollway/settings.h>

#include "mpi/env/state.h"
#include "mpi/tools/tools.h"
#include "mpi/tools/events.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int refs; /* MPI_T_init_thread calls not yet finalized */

/* Strings out, as MPICH does: with no buffer (NULL or *len 0) *len becomes the length
 * the string needs, its terminator included; otherwise the string is copied, cut to
 * *len - 1 characters, and *len becomes the length copied plus one. */
void tw_mpi_t_put_string(const char *src, char *dst, int *len) {
    if (!len) return;
    size_t n = strlen(src);
    if (!dst || *len <= 0) {
        *len = n + 1 > INT_MAX ? INT_MAX : (int)n + 1;
        return;
    }
    if (n > (size_t)*len - 1) n = (size_t)*len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    *len = (int)n + 1;
}

#define put_string tw_mpi_t_put_string

int tw_mpi_t_lock(void) {
    pthread_mutex_lock(&lock);
    if (refs) return MPI_SUCCESS;
    pthread_mutex_unlock(&lock);
    return MPI_T_ERR_NOT_INITIALIZED;
}

void tw_mpi_t_unlock(void) {
    pthread_mutex_unlock(&lock);
}

/* ---- control variables: the settings ---- */

/* One enum per setting; only those of choice settings are handed out. */
struct tw_mpi_t_enum {
    int setting;
};
static struct tw_mpi_t_enum enums[TW_SETTING_COUNT];

static int is_choice(size_t id) {
    const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)id);
    return in && in->type == TW_SETTING_CHOICE;
}

/* The enum a handle from the user names, or NULL (no pointer of the user's is read). */
static struct tw_mpi_t_enum *enum_of(MPI_T_enum e) {
    uintptr_t p = (uintptr_t)e, first = (uintptr_t)enums;
    if (p < first || p >= first + sizeof enums || (p - first) % sizeof enums[0]) return NULL;
    struct tw_mpi_t_enum *en = &enums[(p - first) / sizeof enums[0]];
    return is_choice((size_t)en->setting) ? en : NULL;
}

static MPI_Datatype cvar_type(const tw_setting_info_t *in) {
    switch (in->type) {
    case TW_SETTING_CHOICE:
        return MPI_INT;
    case TW_SETTING_STRING:
    case TW_SETTING_HEX:
    case TW_SETTING_LIST:
        return MPI_CHAR;
    case TW_SETTING_SIZE:
        return MPI_UNSIGNED_LONG;
    default:
        return in->max <= INT_MAX ? MPI_INT : MPI_UNSIGNED_LONG;
    }
}

static int cvar_verbosity(const tw_setting_info_t *in) {
    switch (in->owner) {
    case TW_OWNER_MPI:
        return MPI_T_VERBOSITY_USER_BASIC;
    case TW_OWNER_RUNTIME:
    case TW_OWNER_TOOLS:
        return MPI_T_VERBOSITY_USER_DETAIL;
    case TW_OWNER_DEVICE:
    case TW_OWNER_LINK:
        return MPI_T_VERBOSITY_TUNER_BASIC;
    default:
        return MPI_T_VERBOSITY_MPIDEV_BASIC; /* the launcher's: the job's identity */
    }
}

/* The text a string-typed setting reads as. */
static const char *cvar_text(size_t id) {
    if (id == TW_SETTING_JOB_KEY || id == TW_SETTING_JOB_SECRET) return "";
    const char *t = tw_setting_text((tw_setting_id_t)id);
    return t ? t : "";
}

/* MPI is running: the endpoint and the queues exist. */
static int live(void) {
    return tw_mpi.users > 0 && tw_mpi.ep;
}

/* The settings MPI holds while it runs, which a write changes (the point-to-point
 * engine's limits): where the engine holds each once it runs, and its largest value. */
static int cvar_holdable(size_t id) {
    return id == TW_SETTING_EAGER_LIMIT || id == TW_SETTING_RNDV_SPLIT ||
           id == TW_SETTING_PIPELINE_LIMIT;
}
static struct { size_t *at, max; } holds[TW_SETTING_COUNT];

void tw_mpi_t_hold_setting(tw_setting_id_t id, size_t *held, size_t max) {
    if ((unsigned)id < TW_SETTING_COUNT) holds[id].at = held, holds[id].max = max;
}

/* Where a setting is held now; NULL before the engine starts and for the others. */
static size_t *cvar_held(size_t id) {
    return id < TW_SETTING_COUNT ? holds[id].at : NULL;
}

/* The collective algorithms, chosen anew by every call: a write takes effect from the
 * next collective, the same on every rank when every rank writes it at the same point
 * (MPI_T_SCOPE_ALL_EQ). Written value + 1; 0: none written. */
static int choice_written[TW_SETTING_COUNT];
unsigned tw_mpi_t_choice_writes;

static int cvar_choice_writable(size_t id) {
    return id == TW_SETTING_COLL_BCAST || id == TW_SETTING_COLL_REDUCE ||
           id == TW_SETTING_COLL_ALLREDUCE || id == TW_SETTING_COLL_ALLGATHER ||
           id == TW_SETTING_COLL_ALLTOALL || id == TW_SETTING_COLL_GATHER ||
           id == TW_SETTING_COLL_BARRIER || id == TW_SETTING_COLL_REDUCE_SCATTER ||
           id == TW_SETTING_COLL_SCAN;
}

int tw_mpi_t_choice(tw_setting_id_t id) {
    int w = (unsigned)id < TW_SETTING_COUNT ? choice_written[id] : 0;
    return w ? w - 1 : tw_setting_choice(id);
}

static int cvar_scope(size_t id) {
    return cvar_holdable(id)          ? MPI_T_SCOPE_LOCAL
           : cvar_choice_writable(id) ? MPI_T_SCOPE_ALL_EQ
                                      : MPI_T_SCOPE_READONLY;
}

static uint64_t cvar_number(size_t id) {
    size_t *held = cvar_held(id);
    return held && live() ? *held : tw_setting_unsigned((tw_setting_id_t)id);
}

struct tw_mpi_t_cvar_handle {
    struct tw_mpi_t_cvar_handle *next;
    int index, count;
};
static struct tw_mpi_t_cvar_handle *cvar_handles;

static struct tw_mpi_t_cvar_handle *cvar_handle_of(MPI_T_cvar_handle h) {
    for (struct tw_mpi_t_cvar_handle *c = cvar_handles; c; c = c->next)
        if (c == h) return c;
    return NULL;
}

/* ---- performance variables ---- */

enum {
    CAT_SETTINGS,
    CAT_SETTINGS_LAYER,
    CAT_COUNTERS = CAT_SETTINGS_LAYER + 6,
    CAT_VELO,
    CAT_RMA,
    CAT_ATU,
    CAT_MPI_P2P,
    CAT_EVENTS,
    CAT_FIXED,
    /* from here a category per link that counts, in the order of its counters */
    CAT_LINKS = CAT_FIXED
};

typedef struct pvar {
    char name[64];
    const char *desc;
    int cls, continuous, readonly, verbosity, cat;
    uint64_t (*read)(size_t arg);
    size_t arg;
    uint64_t last; /* a counter's value last read while MPI ran */
} pvar_t;

static pvar_t *pvars;
static int npvars;
/* the links with counters (tw_link_counter_info), each a category */
static const char **link_cats;
static int nlink_cats;

static uint64_t read_ep(size_t offset) {
    uint64_t v;
    memcpy(&v, (const char *)tw_ep_stats(tw_mpi.ep) + offset, sizeof v);
    return v;
}
static uint64_t read_link(size_t i) {
    return tw_ep_link_counter(tw_mpi.ep, i);
}
/* the engine's queues, read by the function it names when it starts */
static tw_mpi_t_queue_fn *queues;

void tw_mpi_t_read_queues(tw_mpi_t_queue_fn *fn) {
    queues = fn;
}

static uint64_t read_queue(size_t which) {
    return queues ? queues((int)which) : 0;
}

static uint64_t pvar_value(pvar_t *v) {
    if (!live()) return v->cls == MPI_T_PVAR_CLASS_COUNTER ? v->last : 0;
    uint64_t x = v->read(v->arg);
    if (v->cls == MPI_T_PVAR_CLASS_COUNTER) v->last = x;
    return x;
}

static const struct {
    const char *name;
    size_t offset;
    int cat;
    const char *desc;
} ep_counters[] = {
    {"velo_msgs_sent", offsetof(tw_ep_stats_t, msgs_sent), CAT_VELO, "VELO messages sent"},
    {"velo_bytes_sent", offsetof(tw_ep_stats_t, bytes_sent), CAT_VELO,
     "bytes of VELO messages sent, headers included"},
    {"velo_msgs_received", offsetof(tw_ep_stats_t, msgs_received), CAT_VELO,
     "VELO messages received"},
    {"velo_bytes_received", offsetof(tw_ep_stats_t, bytes_received), CAT_VELO,
     "bytes of VELO messages received, headers included"},
    {"velo_send_retries", offsetof(tw_ep_stats_t, send_retries), CAT_VELO,
     "sends refused because the receiver's mailbox was full"},
    {"velo_polls_empty", offsetof(tw_ep_stats_t, polls_empty), CAT_VELO,
     "polls of the mailbox that found nothing"},
    {"velo_peers_mapped", offsetof(tw_ep_stats_t, peers_mapped), CAT_VELO,
     "peers contacted (their mailboxes mapped)"},
    {"rma_ops", offsetof(tw_ep_stats_t, rma_ops), CAT_RMA,
     "RMA operations started: puts, gets, notification puts, atomics"},
    {"rma_bytes", offsetof(tw_ep_stats_t, rma_bytes), CAT_RMA, "bytes moved by RMA operations"},
    {"rma_retries", offsetof(tw_ep_stats_t, rma_retries), CAT_RMA,
     "RMA operations refused because a notification queue was full"},
    {"rma_pipelined", offsetof(tw_ep_stats_t, rma_pipelined), CAT_RMA,
     "RMA operations carried through shared memory by the target"},
    {"rma_notifications", offsetof(tw_ep_stats_t, notifications), CAT_RMA,
     "notifications taken from this endpoint's queue"},
    {"atu_registrations", offsetof(tw_ep_stats_t, registrations), CAT_ATU, "memory registrations"},
    {"atu_deregistrations", offsetof(tw_ep_stats_t, deregistrations), CAT_ATU,
     "memory deregistrations"},
    {"atu_translations", offsetof(tw_ep_stats_t, translations), CAT_ATU,
     "network logical addresses translated for this endpoint's operations"},
    {"atu_faults_key", offsetof(tw_ep_stats_t, faults_key), CAT_ATU,
     "translation faults on this endpoint's table: wrong key"},
    {"atu_faults_bounds", offsetof(tw_ep_stats_t, faults_bounds), CAT_ATU,
     "translation faults: out of the registered bounds"},
    {"atu_faults_stale", offsetof(tw_ep_stats_t, faults_stale), CAT_ATU,
     "translation faults: registration gone"},
    {"atu_faults_perm", offsetof(tw_ep_stats_t, faults_perm), CAT_ATU,
     "translation faults: access not permitted"},
    {"atu_faults_align", offsetof(tw_ep_stats_t, faults_align), CAT_ATU,
     "translation faults: misaligned atomic"},
};
enum { EP_COUNTERS = sizeof ep_counters / sizeof ep_counters[0] };

/* The category of link's counters, added the first time a counter names it. */
static int link_category(const char *link) {
    int i = 0;
    while (i < nlink_cats && strcmp(link_cats[i], link)) i++;
    if (i == nlink_cats) link_cats[nlink_cats++] = link;
    return CAT_LINKS + i;
}

/* The table, built once: its size depends on the links of the build. */
static int pvars_build(void) {
    if (pvars) return 0;
    size_t nlink = tw_link_counter_count();
    pvar_t *t = calloc(EP_COUNTERS + nlink + 3, sizeof *t);
    link_cats = t ? calloc(nlink ? nlink : 1, sizeof *link_cats) : NULL;
    if (!link_cats) {
        free(t);
        return -1;
    }
    int n = 0;
    for (int i = 0; i < EP_COUNTERS; i++, n++) {
        snprintf(t[n].name, sizeof t[n].name, "%s", ep_counters[i].name);
        t[n].desc = ep_counters[i].desc;
        t[n].cat = ep_counters[i].cat;
        t[n].verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
        t[n].read = read_ep;
        t[n].arg = ep_counters[i].offset;
    }
    for (size_t i = 0; i < nlink; i++, n++) {
        const tw_link_counter_info_t *in = tw_link_counter_info(i);
        snprintf(t[n].name, sizeof t[n].name, "%s_%s", in->link, in->name);
        t[n].desc = in->meaning;
        t[n].cat = link_category(in->link);
        t[n].verbosity = MPI_T_VERBOSITY_TUNER_DETAIL;
        t[n].read = read_link;
        t[n].arg = i;
    }
    for (int i = 0; i < n; i++) t[i].cls = MPI_T_PVAR_CLASS_COUNTER;
    static const struct {
        const char *name, *desc;
        int queue;
    } levels[] = {
        {"mpi_posted_recvq_length", "receives posted and not yet matched", TW_MPI_T_POSTED},
        {"mpi_unexpected_recvq_length", "messages arrived before their receive, kept",
         TW_MPI_T_UNEXPECTED},
        {"mpi_unexpected_recvq_bytes", "bytes of payload kept for unexpected messages",
         TW_MPI_T_UNEXPECTED_BYTES},
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++, n++) {
        snprintf(t[n].name, sizeof t[n].name, "%s", levels[i].name);
        t[n].desc = levels[i].desc;
        t[n].cat = CAT_MPI_P2P;
        t[n].cls = MPI_T_PVAR_CLASS_LEVEL;
        t[n].continuous = t[n].readonly = 1;
        t[n].verbosity = MPI_T_VERBOSITY_USER_BASIC;
        t[n].read = read_queue;
        t[n].arg = (size_t)levels[i].queue;
    }
    pvars = t;
    npvars = n;
    return 0;
}

struct tw_mpi_t_pvar_handle {
    struct tw_mpi_t_pvar_handle *next;
    int index;
    int started;
    uint64_t accum; /* counted in the intervals before the current one (or written) */
    uint64_t base;  /* the source's value when the current interval began */
};

struct tw_mpi_t_pvar_session {
    struct tw_mpi_t_pvar_session *next;
    struct tw_mpi_t_pvar_handle *handles;
};
static struct tw_mpi_t_pvar_session *sessions;

static struct tw_mpi_t_pvar_session *session_of(MPI_T_pvar_session s) {
    for (struct tw_mpi_t_pvar_session *x = sessions; x; x = x->next)
        if (x == s) return x;
    return NULL;
}
static struct tw_mpi_t_pvar_handle *handle_of(struct tw_mpi_t_pvar_session *s,
                                              MPI_T_pvar_handle h) {
    for (struct tw_mpi_t_pvar_handle *x = s->handles; x; x = x->next)
        if (x == h) return x;
    return NULL;
}

static uint64_t handle_value(struct tw_mpi_t_pvar_handle *h) {
    pvar_t *v = &pvars[h->index];
    if (v->continuous) return pvar_value(v);
    return h->accum + (h->started ? pvar_value(v) - h->base : 0);
}

static void handle_start(struct tw_mpi_t_pvar_handle *h) {
    if (h->started) return;
    h->base = pvar_value(&pvars[h->index]);
    h->started = 1;
}
static void handle_stop(struct tw_mpi_t_pvar_handle *h) {
    if (!h->started) return;
    h->accum += pvar_value(&pvars[h->index]) - h->base;
    h->started = 0;
}
static void handle_set(struct tw_mpi_t_pvar_handle *h, uint64_t value) {
    h->accum = value;
    if (h->started) h->base = pvar_value(&pvars[h->index]);
}

/* ---- categories ---- */

static const struct {
    const char *name, *desc;
} cats[CAT_FIXED] = {
    [CAT_SETTINGS] = {"settings", "the TW_* settings, by the layer that reads them"},
    [CAT_SETTINGS_LAYER +
        TW_OWNER_RUNTIME] = {"settings_runtime", "settings of the runtime: nodes and jobs"},
    [CAT_SETTINGS_LAYER +
        TW_OWNER_DEVICE] = {"settings_device", "settings of the device: mailboxes, RMA, waiting"},
    [CAT_SETTINGS_LAYER + TW_OWNER_LINK] = {"settings_link", "settings of the links"},
    [CAT_SETTINGS_LAYER +
        TW_OWNER_MPI] = {"settings_mpi", "settings of the MPI library: protocols, collectives"},
    [CAT_SETTINGS_LAYER +
        TW_OWNER_LAUNCHER] = {"settings_launcher", "settings twrun gives its ranks"},
    [CAT_SETTINGS_LAYER +
        TW_OWNER_TOOLS] = {"settings_tools", "settings of the mpicc and mpicxx wrappers"},
    [CAT_COUNTERS] = {"counters", "the performance variables, by unit"},
    [CAT_VELO] = {"velo", "VELO messages of this process's endpoint"},
    [CAT_RMA] = {"rma", "RMA operations of this process's endpoint"},
    [CAT_ATU] = {"atu", "memory registration and address translation"},
    [CAT_MPI_P2P] = {"mpi_p2p", "MPI point-to-point matching queues"},
    [CAT_EVENTS] = {"events", "the event types (MPI_T_event_get_info): matching, protocols, "
                              "lost peers, the links"},
};

static int cat_count(void) {
    return CAT_LINKS + nlink_cats;
}

/* A link's category is named after it. */
static const char *cat_name(int c) {
    return c < CAT_FIXED ? cats[c].name : link_cats[c - CAT_LINKS];
}

/* The members of category c of each kind, written to out (up to len of them);
 * returns how many there are. */
static int cat_members(int c, int kind, int len, int *out) {
    int n = 0;
    if (kind == 0) { /* cvars */
        if (c >= CAT_SETTINGS_LAYER && c < CAT_COUNTERS)
            for (size_t i = 0; i < tw_setting_count(); i++)
                if ((int)tw_setting_info((tw_setting_id_t)i)->owner == c - CAT_SETTINGS_LAYER) {
                    if (n < len) out[n] = (int)i;
                    n++;
                }
    } else if (kind == 1) { /* pvars */
        for (int i = 0; i < npvars; i++)
            if (pvars[i].cat == c) {
                if (n < len) out[n] = i;
                n++;
            }
    } else if (kind == 3) { /* events */
        if (c == CAT_EVENTS)
            for (int i = 0; i < tw_mpi_t_event_count(); i++) {
                if (n < len) out[n] = i;
                n++;
            }
    } else { /* subcategories: the counters' are the units' and the links' */
        int first = c == CAT_SETTINGS ? CAT_SETTINGS_LAYER : c == CAT_COUNTERS ? CAT_VELO : 0;
        int end = c == CAT_SETTINGS ? CAT_COUNTERS : c == CAT_COUNTERS ? CAT_EVENTS : 0;
        for (int i = first; i < end; i++) {
            if (n < len) out[n] = i;
            n++;
        }
        for (int i = CAT_LINKS; c == CAT_COUNTERS && i < cat_count(); i++) {
            if (n < len) out[n] = i;
            n++;
        }
    }
    return n;
}

/* ---- the calls ---- */

#define ENTER()                                                                                    \
    pthread_mutex_lock(&lock);                                                                     \
    if (!refs) {                                                                                   \
        pthread_mutex_unlock(&lock);                                                               \
        return MPI_T_ERR_NOT_INITIALIZED;                                                          \
    }
#define LEAVE(rc)                                                                                  \
    do {                                                                                           \
        pthread_mutex_unlock(&lock);                                                               \
        return (rc);                                                                               \
    } while (0)

int MPI_T_init_thread(int required, int *provided) {
    if (!provided) return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&lock);
    if (refs == INT_MAX || pvars_build()) LEAVE(MPI_T_ERR_MEMORY);
    for (int i = 0; i < TW_SETTING_COUNT; i++) enums[i].setting = i;
    refs++;
    /* as MPI_Init_thread: one thread drives the library at a time */
    *provided = required < MPI_THREAD_SINGLE       ? MPI_THREAD_SINGLE
                : required < MPI_THREAD_SERIALIZED ? required
                                                   : MPI_THREAD_SERIALIZED;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_finalize(void) {
    ENTER();
    if (--refs == 0) { /* every handle and session becomes invalid */
        tw_mpi_t_events_release();
        while (cvar_handles) {
            struct tw_mpi_t_cvar_handle *c = cvar_handles;
            cvar_handles = c->next;
            free(c);
        }
        while (sessions) {
            struct tw_mpi_t_pvar_session *s = sessions;
            sessions = s->next;
            while (s->handles) {
                struct tw_mpi_t_pvar_handle *h = s->handles;
                s->handles = h->next;
                free(h);
            }
            free(s);
        }
    }
    LEAVE(MPI_SUCCESS);
}

int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len) {
    ENTER();
    struct tw_mpi_t_enum *e = enum_of(enumtype);
    if (!e) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!num) LEAVE(MPI_T_ERR_INVALID);
    const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)e->setting);
    *num = (int)in->nchoices;
    put_string(in->name, name, name_len);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len) {
    ENTER();
    struct tw_mpi_t_enum *e = enum_of(enumtype);
    if (!e) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)e->setting);
    if (index < 0 || (size_t)index >= in->nchoices) LEAVE(MPI_T_ERR_INVALID_ITEM);
    if (!value) LEAVE(MPI_T_ERR_INVALID);
    *value = index; /* tw_setting_choice's answer for that name */
    put_string(in->choices[index], name, name_len);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_cvar_get_num(int *num_cvar) {
    ENTER();
    if (!num_cvar) LEAVE(MPI_T_ERR_INVALID);
    *num_cvar = (int)tw_setting_count();
    LEAVE(MPI_SUCCESS);
}

int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                        int *bind, int *scope) {
    ENTER();
    if (cvar_index < 0 || (size_t)cvar_index >= tw_setting_count()) LEAVE(MPI_T_ERR_INVALID_INDEX);
    const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)cvar_index);
    put_string(in->name, name, name_len);
    if (verbosity) *verbosity = cvar_verbosity(in);
    if (datatype) *datatype = cvar_type(in);
    if (enumtype) *enumtype = in->type == TW_SETTING_CHOICE ? &enums[cvar_index] : MPI_T_ENUM_NULL;
    char d[512];
    /* the table's meaning, what a number counts, the default: "... (bytes; default 4144)" */
    const char *unit = in->unit ? in->unit : "", *dflt = in->default_value;
    if (!unit[0] && !dflt[0])
        snprintf(d, sizeof d, "%s", in->meaning);
    else
        snprintf(d, sizeof d, "%s (%s%s%s%s)", in->meaning, unit, unit[0] && dflt[0] ? "; " : "",
                 dflt[0] ? "default " : "", dflt);
    put_string(d, desc, desc_len);
    if (bind) *bind = MPI_T_BIND_NO_OBJECT;
    if (scope) *scope = cvar_scope((size_t)cvar_index);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_cvar_get_index(const char *name, int *cvar_index) {
    ENTER();
    if (!name || !cvar_index) LEAVE(MPI_T_ERR_INVALID);
    int id = tw_setting_find(name);
    if (id < 0) LEAVE(MPI_T_ERR_INVALID_NAME);
    *cvar_index = id;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                            int *count) {
    (void)obj_handle; /* every variable binds to no object */
    ENTER();
    if (cvar_index < 0 || (size_t)cvar_index >= tw_setting_count()) LEAVE(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count) LEAVE(MPI_T_ERR_INVALID);
    struct tw_mpi_t_cvar_handle *c = malloc(sizeof *c);
    if (!c) LEAVE(MPI_T_ERR_OUT_OF_HANDLES);
    c->index = cvar_index;
    c->count = 1;
    if (cvar_type(tw_setting_info((tw_setting_id_t)cvar_index)) == MPI_CHAR)
        c->count = (int)strlen(cvar_text((size_t)cvar_index)) + 1; /* fixed: read-only */
    c->next = cvar_handles;
    cvar_handles = c;
    *handle = c;
    *count = c->count;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle) {
    ENTER();
    if (!handle) LEAVE(MPI_T_ERR_INVALID);
    struct tw_mpi_t_cvar_handle **p = &cvar_handles;
    while (*p && *p != *handle) p = &(*p)->next;
    if (!*p) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    struct tw_mpi_t_cvar_handle *c = *p;
    *p = c->next;
    free(c);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf) {
    ENTER();
    struct tw_mpi_t_cvar_handle *c = cvar_handle_of(handle);
    if (!c) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!buf) LEAVE(MPI_T_ERR_INVALID);
    tw_setting_id_t id = (tw_setting_id_t)c->index;
    const tw_setting_info_t *in = tw_setting_info(id);
    MPI_Datatype t = cvar_type(in);
    if (t == MPI_CHAR) {
        int len = c->count;
        put_string(cvar_text((size_t)id), buf, &len);
    } else if (t == MPI_INT) {
        int v = in->type == TW_SETTING_CHOICE ? tw_mpi_t_choice(id) : (int)cvar_number(id);
        memcpy(buf, &v, sizeof v);
    } else {
        unsigned long v = (unsigned long)cvar_number(id);
        memcpy(buf, &v, sizeof v);
    }
    LEAVE(MPI_SUCCESS);
}

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf) {
    ENTER();
    struct tw_mpi_t_cvar_handle *c = cvar_handle_of(handle);
    if (!c) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (!buf) LEAVE(MPI_T_ERR_INVALID);
    const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)c->index);
    if (cvar_choice_writable((size_t)c->index)) {
        int choice;
        memcpy(&choice, buf, sizeof choice);
        if (choice < 0 || (size_t)choice >= in->nchoices) LEAVE(MPI_T_ERR_INVALID);
        choice_written[c->index] = choice + 1;
        tw_mpi_t_choice_writes++;
        LEAVE(MPI_SUCCESS);
    }
    /* the layers read the others once, at start-up */
    if (!cvar_holdable((size_t)c->index)) LEAVE(MPI_T_ERR_CVAR_SET_NEVER);
    size_t *held = cvar_held((size_t)c->index);
    if (!held || !live()) LEAVE(MPI_T_ERR_CVAR_SET_NOT_NOW);
    unsigned long v; /* both are byte counts: MPI_UNSIGNED_LONG */
    memcpy(&v, buf, sizeof v);
    uint64_t max = holds[c->index].max < in->max ? holds[c->index].max : in->max;
    if (v < in->min || v > max) LEAVE(MPI_T_ERR_INVALID);
    *held = (size_t)v;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_pvar_get_num(int *num_pvar) {
    ENTER();
    if (!num_pvar) LEAVE(MPI_T_ERR_INVALID);
    *num_pvar = npvars;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                        int *bind, int *readonly, int *continuous, int *atomic) {
    ENTER();
    if (pvar_index < 0 || pvar_index >= npvars) LEAVE(MPI_T_ERR_INVALID_INDEX);
    const pvar_t *v = &pvars[pvar_index];
    put_string(v->name, name, name_len);
    if (verbosity) *verbosity = v->verbosity;
    if (var_class) *var_class = v->cls;
    if (datatype) *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    put_string(v->desc, desc, desc_len);
    if (bind) *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly) *readonly = v->readonly;
    if (continuous) *continuous = v->continuous;
    if (atomic) *atomic = 0;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index) {
    ENTER();
    if (!name || !pvar_index) LEAVE(MPI_T_ERR_INVALID);
    for (int i = 0; i < npvars; i++)
        if (pvars[i].cls == var_class && !strcmp(pvars[i].name, name)) {
            *pvar_index = i;
            LEAVE(MPI_SUCCESS);
        }
    LEAVE(MPI_T_ERR_INVALID_NAME);
}

int MPI_T_pvar_session_create(MPI_T_pvar_session *session) {
    ENTER();
    if (!session) LEAVE(MPI_T_ERR_INVALID);
    struct tw_mpi_t_pvar_session *s = calloc(1, sizeof *s);
    if (!s) LEAVE(MPI_T_ERR_OUT_OF_SESSIONS);
    s->next = sessions;
    sessions = s;
    *session = s;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_pvar_session_free(MPI_T_pvar_session *session) {
    ENTER();
    if (!session) LEAVE(MPI_T_ERR_INVALID);
    struct tw_mpi_t_pvar_session **p = &sessions;
    while (*p && *p != *session) p = &(*p)->next;
    if (!*p) LEAVE(MPI_T_ERR_INVALID_SESSION);
    struct tw_mpi_t_pvar_session *s = *p;
    *p = s->next;
    while (s->handles) {
        struct tw_mpi_t_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                            MPI_T_pvar_handle *handle, int *count) {
    (void)obj_handle; /* every variable binds to no object */
    ENTER();
    struct tw_mpi_t_pvar_session *s = session_of(session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= npvars) LEAVE(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count) LEAVE(MPI_T_ERR_INVALID);
    struct tw_mpi_t_pvar_handle *h = calloc(1, sizeof *h);
    if (!h) LEAVE(MPI_T_ERR_OUT_OF_HANDLES);
    h->index = pvar_index;
    h->next = s->handles;
    s->handles = h;
    *handle = h;
    *count = 1;
    LEAVE(MPI_SUCCESS);
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle) {
    ENTER();
    struct tw_mpi_t_pvar_session *s = session_of(session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    if (!handle) LEAVE(MPI_T_ERR_INVALID);
    struct tw_mpi_t_pvar_handle **p = &s->handles;
    while (*p && *p != *handle) p = &(*p)->next;
    if (!*p) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    struct tw_mpi_t_pvar_handle *h = *p;
    *p = h->next;
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    LEAVE(MPI_SUCCESS);
}

/* start and stop: one handle, or (ALL_HANDLES) every one of the session that can,
 * continuous ones left alone. */
static int start_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int start) {
    ENTER();
    struct tw_mpi_t_pvar_session *s = session_of(session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct tw_mpi_t_pvar_handle *h = s->handles; h; h = h->next)
            if (!pvars[h->index].continuous) start ? handle_start(h) : handle_stop(h);
        LEAVE(MPI_SUCCESS);
    }
    struct tw_mpi_t_pvar_handle *h = handle_of(s, handle);
    if (!h) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if (pvars[h->index].continuous) LEAVE(MPI_T_ERR_PVAR_NO_STARTSTOP);
    start ? handle_start(h) : handle_stop(h);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
    return start_stop(session, handle, 1);
}

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
    return start_stop(session, handle, 0);
}

/* read, write, reset, readreset of one handle (never ALL_HANDLES but for reset) */
enum { OP_READ = 1, OP_SET = 2 };
static int access_one(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *out,
                      const void *in, int ops) {
    ENTER();
    struct tw_mpi_t_pvar_session *s = session_of(session);
    if (!s) LEAVE(MPI_T_ERR_INVALID_SESSION);
    if (handle == MPI_T_PVAR_ALL_HANDLES && ops == OP_SET && !in) { /* reset of every one */
        for (struct tw_mpi_t_pvar_handle *h = s->handles; h; h = h->next)
            if (!pvars[h->index].readonly) handle_set(h, 0);
        LEAVE(MPI_SUCCESS);
    }
    struct tw_mpi_t_pvar_handle *h = handle_of(s, handle);
    if (!h) LEAVE(MPI_T_ERR_INVALID_HANDLE);
    if ((ops & OP_READ) && !out) LEAVE(MPI_T_ERR_INVALID);
    if ((ops & OP_SET) && pvars[h->index].readonly) LEAVE(MPI_T_ERR_PVAR_NO_WRITE);
    if (ops & OP_READ) {
        unsigned long long v = handle_value(h);
        memcpy(out, &v, sizeof v);
    }
    if (ops & OP_SET) {
        unsigned long long v = 0;
        if (in) memcpy(&v, in, sizeof v);
        handle_set(h, v);
    }
    LEAVE(MPI_SUCCESS);
}

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf) {
    return access_one(session, handle, buf, NULL, OP_READ);
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf) {
    if (!buf) { /* NULL would read as a reset below */
        pthread_mutex_lock(&lock);
        int rc = refs ? MPI_T_ERR_INVALID : MPI_T_ERR_NOT_INITIALIZED;
        pthread_mutex_unlock(&lock);
        return rc;
    }
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        pthread_mutex_lock(&lock);
        int rc = !refs                 ? MPI_T_ERR_NOT_INITIALIZED
                 : session_of(session) ? MPI_T_ERR_INVALID_HANDLE
                                       : MPI_T_ERR_INVALID_SESSION;
        pthread_mutex_unlock(&lock);
        return rc;
    }
    return access_one(session, handle, NULL, buf, OP_SET);
}

int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
    return access_one(session, handle, NULL, NULL, OP_SET);
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf) {
    return access_one(session, handle, buf, NULL, OP_READ | OP_SET);
}

int MPI_T_category_get_num(int *num_cat) {
    ENTER();
    if (!num_cat) LEAVE(MPI_T_ERR_INVALID);
    *num_cat = cat_count();
    LEAVE(MPI_SUCCESS);
}

int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                            int *num_cvars, int *num_pvars, int *num_categories) {
    ENTER();
    if (cat_index < 0 || cat_index >= cat_count()) LEAVE(MPI_T_ERR_INVALID_INDEX);
    char link_desc[96];
    if (cat_index >= CAT_LINKS)
        snprintf(link_desc, sizeof link_desc,
                 "the %s link's counters (0 while it carries no peer of this process)",
                 cat_name(cat_index));
    put_string(cat_name(cat_index), name, name_len);
    put_string(cat_index < CAT_FIXED ? cats[cat_index].desc : link_desc, desc, desc_len);
    if (num_cvars) *num_cvars = cat_members(cat_index, 0, 0, NULL);
    if (num_pvars) *num_pvars = cat_members(cat_index, 1, 0, NULL);
    if (num_categories) *num_categories = cat_members(cat_index, 2, 0, NULL);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_category_get_index(const char *name, int *cat_index) {
    ENTER();
    if (!name || !cat_index) LEAVE(MPI_T_ERR_INVALID);
    for (int i = 0; i < cat_count(); i++)
        if (!strcmp(cat_name(i), name)) {
            *cat_index = i;
            LEAVE(MPI_SUCCESS);
        }
    LEAVE(MPI_T_ERR_INVALID_NAME);
}

static int category_list(int cat_index, int len, int indices[], int kind) {
    ENTER();
    if (cat_index < 0 || cat_index >= cat_count()) LEAVE(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices)) LEAVE(MPI_T_ERR_INVALID);
    cat_members(cat_index, kind, len, indices);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
    return category_list(cat_index, len, indices, 0);
}

int MPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
    return category_list(cat_index, len, indices, 1);
}

int MPI_T_category_get_categories(int cat_index, int len, int indices[]) {
    return category_list(cat_index, len, indices, 2);
}

int MPI_T_category_get_num_events(int cat_index, int *num_events) {
    ENTER();
    if (cat_index < 0 || cat_index >= cat_count()) LEAVE(MPI_T_ERR_INVALID_INDEX);
    if (!num_events) LEAVE(MPI_T_ERR_INVALID);
    *num_events = cat_members(cat_index, 3, 0, NULL);
    LEAVE(MPI_SUCCESS);
}

int MPI_T_category_get_events(int cat_index, int len, int indices[]) {
    return category_list(cat_index, len, indices, 3);
}

int MPI_T_category_changed(int *stamp) {
    ENTER();
    if (!stamp) LEAVE(MPI_T_ERR_INVALID);
    *stamp = 0; /* the categories are fixed for the life of the process */
    LEAVE(MPI_SUCCESS);
}
