/* Sessions (MPI-4.1 section 11.3): MPI_Session_init and _finalize, the process sets
 * "mpi://WORLD" and "mpi://SELF", groups made from them, session error handlers and
 * info. Each session is one user of the communication state (runtime.c), so sessions
 * may overlap one another and the world model, and follow one another.
 *
 * Session i has handle 0x74000000 | i; a finalised slot is reused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpi/pt2pt/bsend.h"
#include "mpi/comm/comm.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/comm/group.h"
#include "mpi/env/info.h"
#include "mpi/session/runtime.h"
#include "mpi/session/session.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"

enum { SESSIONS_MAX = 1024, SESSION_KIND = 0x74 };

typedef struct session {
    int open;
    MPI_Errhandler eh;
    int thread_level;      /* asked for in MPI_Session_init's info ("thread_level") */
    tw_mpi_bbuf_t *buffer; /* for the buffered sends of its communicators; NULL: none */
} session_t;

static session_t sessions[SESSIONS_MAX];

static session_t *session_get(MPI_Session s) {
    unsigned i = (unsigned)s & 0xffffff;
    return ((unsigned)s >> 24) == SESSION_KIND && i < SESSIONS_MAX && sessions[i].open
               ? &sessions[i]
               : NULL;
}

static int index_of(const session_t *s) {
    return (int)(s - sessions);
}

MPI_Session tw_mpi_session_handle(int session) {
    return session > 0 && session <= SESSIONS_MAX && sessions[session - 1].open
               ? (MPI_Session)(SESSION_KIND << 24 | (session - 1))
               : MPI_SESSION_NULL;
}

/* The handlers the sessions hold, for the handlers' sweep (env/errhandler.c). */
static void eh_holders(tw_mpi_eh_mark_fn *mark, unsigned char *in_use) {
    for (int i = 0; i < SESSIONS_MAX; i++)
        if (sessions[i].open) mark(in_use, sessions[i].eh);
}

int tw_mpi_session_error(MPI_Session session, MPI_Errhandler eh, const char *call, int errclass,
                         const char *detail) {
    session_t *s = session_get(session);
    if (s) eh = s->eh;
    /* No session to name (MPI_SESSION_NULL, one finalised): an error tied to no object,
     * which MPI-4.1 section 9.3 raises on MPI_COMM_SELF while the world model runs. */
    if (!s && eh == MPI_ERRORS_ARE_FATAL && tw_mpi.initialized && !tw_mpi.finalized)
        return tw_mpi_error(tw_mpi_comm_get(MPI_COMM_SELF), call, errclass, detail);
    if (eh == MPI_ERRORS_RETURN) return errclass;
    if (s && tw_mpi_eh_call(eh, &session, &errclass)) return errclass;
    if (!s && eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_ABORT && eh != MPI_ERRHANDLER_NULL)
        return errclass; /* a communicator's handler given for a session-less call: returned */
    tw_mpi_comm_t fatal = {.errhandler = MPI_ERRORS_ARE_FATAL};
    return tw_mpi_error(&fatal, call, errclass, detail);
}

static const char *level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                    "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

/* The thread level info asks for ("thread_level", as MPICH and Open MPI read it);
 * -1 when the value names none. */
static int level_of(MPI_Info info) {
    const char *v = info == MPI_INFO_NULL ? NULL : tw_mpi_info_value(info, "thread_level");
    if (!v) return MPI_THREAD_SINGLE;
    for (int l = 0; l < 4; l++)
        if (!strcasecmp(v, level_names[l])) return l;
    return -1;
}

/* The buffer of the session a communicator context derives from (bsend.c asks). */
static tw_mpi_bbuf_t *buffer_of_context(uint32_t context) {
    const tw_mpi_comm_t *c = tw_mpi_comm_of_context(context);
    return c && c->session > 0 && c->session <= SESSIONS_MAX ? sessions[c->session - 1].buffer
                                                             : NULL;
}

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session) {
    const char *call = "MPI_Session_init";
    tw_mpi_eh_holders(TW_EH_SESSION, eh_holders);
    if (!tw_mpi_eh_settable(errhandler, TW_EH_SESSION))
        return tw_mpi_session_error(MPI_SESSION_NULL, MPI_ERRORS_ARE_FATAL, call, MPI_ERR_ARG,
                                    "not an error handler for sessions");
    if (!session)
        return tw_mpi_session_error(MPI_SESSION_NULL, errhandler, call, MPI_ERR_ARG,
                                    "session is NULL");
    *session = MPI_SESSION_NULL;
    /* an info object made before MPI started serves: the info calls work at any time */
    if (!tw_mpi_info_ok(info))
        return tw_mpi_session_error(MPI_SESSION_NULL, errhandler, call, MPI_ERR_INFO, NULL);
    int level = level_of(info);
    if (level < 0)
        return tw_mpi_session_error(MPI_SESSION_NULL, errhandler, call, MPI_ERR_ARG,
                                    "thread_level names no thread level");
    int i = 0;
    while (i < SESSIONS_MAX && sessions[i].open) i++;
    if (i == SESSIONS_MAX)
        return tw_mpi_session_error(MPI_SESSION_NULL, errhandler, call, MPI_ERR_OTHER,
                                    "too many sessions open");
    if (tw_mpi_users_add(call, level))
        return tw_mpi_session_error(MPI_SESSION_NULL, errhandler, call, MPI_ERR_OTHER,
                                    "the communication state could not start");
    tw_mpi_eh_ref(errhandler); /* the session holds it */
    sessions[i] = (session_t){1, errhandler, level, NULL};
    tw_mpi_bbuf_of_session = buffer_of_context;
    *session = (MPI_Session)(SESSION_KIND << 24 | i);
    return MPI_SUCCESS;
}

/* An invalid session handle (MPI_SESSION_NULL among them): no session takes the
 * error (tw_mpi_session_error sends it where MPI-4.1 sends errors without an object). */
static int no_session(const char *call) {
    return tw_mpi_session_error(MPI_SESSION_NULL, MPI_ERRORS_ARE_FATAL, call, MPI_ERR_SESSION,
                                NULL);
}

int MPI_Session_finalize(MPI_Session *session) {
    const char *call = "MPI_Session_finalize";
    session_t *s = session ? session_get(*session) : NULL;
    if (!s) return no_session(call);
    /* What derives from it must be freed first (MPI-4.1 11.3.1); the session stays. */
    for (int k = 0; k < TW_MPI_COMMS; k++) {
        tw_mpi_comm_t *c = tw_mpi_comm_table[k];
        if (c && c->session == index_of(s) + 1) {
            char why[MPI_MAX_OBJECT_NAME + 96];
            snprintf(why, sizeof why, "a communicator derived from it (\"%s\") is not freed",
                     c->name[0] ? c->name : "unnamed");
            return tw_mpi_session_error(*session, MPI_ERRORS_ARE_FATAL, call, MPI_ERR_SESSION, why);
        }
    }
    tw_mpi_bbuf_release(&s->buffer); /* its buffered sends delivered first */
    MPI_Errhandler eh = s->eh;
    *s = (session_t){0};
    MPI_Errhandler_free(&eh); /* the session's hold */
    *session = MPI_SESSION_NULL;
    tw_mpi_users_drop();
    return MPI_SUCCESS;
}

/* The process sets this library knows: the job's processes and the caller alone. */
static const char *psets[] = {"mpi://WORLD", "mpi://SELF"};
enum { PSETS = 2 };

/* The index of pset name (its case ignored, as MPICH does), or -1. */
static int pset_of(const char *name) {
    for (int p = 0; name && p < PSETS; p++)
        if (!strcasecmp(name, psets[p])) return p;
    return -1;
}

/* The world ranks of pset p: *n of them, malloc'ed (NULL when out of memory). */
static int *pset_members(int p, int *n) {
    int base = tw_ep_job_base(tw_mpi.ep);
    *n = p == 0 ? tw_ep_job_size(tw_mpi.ep) : 1;
    int *world = malloc((size_t)*n * sizeof *world);
    for (int r = 0; world && r < *n; r++) world[r] = p == 0 ? base + r : tw_mpi.rank;
    return world;
}

/* A session argument and MPI running, or the error as *rc. */
static session_t *running(MPI_Session session, const char *call, int *rc) {
    session_t *s = session_get(session);
    *rc = s ? MPI_SUCCESS : no_session(call);
    return s;
}

int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names) {
    const char *call = "MPI_Session_get_num_psets";
    int rc;
    if (!running(session, call, &rc)) return rc;
    if (!tw_mpi_info_ok(info)) return tw_mpi_session_error(session, 0, call, MPI_ERR_INFO, NULL);
    if (!npset_names)
        return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG, "npset_names is NULL");
    *npset_names = PSETS;
    return MPI_SUCCESS;
}

int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                             char *pset_name) {
    const char *call = "MPI_Session_get_nth_pset";
    int rc;
    if (!running(session, call, &rc)) return rc;
    if (!tw_mpi_info_ok(info)) return tw_mpi_session_error(session, 0, call, MPI_ERR_INFO, NULL);
    if (n < 0 || n >= PSETS)
        return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG, "no process set of that number");
    if (!pset_len || *pset_len < 0 || (*pset_len > 0 && !pset_name))
        return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG,
                                    "pset_len is NULL or negative, or pset_name is NULL");
    int need = (int)strlen(psets[n]) + 1; /* with its terminating null */
    if (*pset_len == 0) {                 /* a question for the length (MPI-4.1 11.3.2) */
        *pset_len = need;
        return MPI_SUCCESS;
    }
    snprintf(pset_name, (size_t)*pset_len, "%s", psets[n]); /* cut when too short */
    *pset_len = need;
    return MPI_SUCCESS;
}

int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info) {
    const char *call = "MPI_Session_get_pset_info";
    int rc;
    if (!running(session, call, &rc)) return rc;
    if (!pset_name || !info)
        return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG, "pset_name or info is NULL");
    int p = pset_of(pset_name), n = 0;
    if (p < 0) return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG, "no such process set");
    free(pset_members(p, &n));
    char size[16];
    snprintf(size, sizeof size, "%d", n);
    if (tw_mpi_info_new(info) || tw_mpi_info_put(*info, "mpi_size", size))
        return tw_mpi_session_error(session, 0, call, MPI_ERR_NO_MEM, NULL);
    return MPI_SUCCESS;
}

int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used) {
    const char *call = "MPI_Session_get_info";
    int rc;
    session_t *s = running(session, call, &rc);
    if (!s) return rc;
    if (!info_used) return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG, "info_used is NULL");
    if (tw_mpi_info_new(info_used) ||
        tw_mpi_info_put(*info_used, "thread_level", level_names[s->thread_level]))
        return tw_mpi_session_error(session, 0, call, MPI_ERR_NO_MEM, NULL);
    return MPI_SUCCESS;
}

int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup) {
    const char *call = "MPI_Group_from_session_pset";
    int rc;
    session_t *s = running(session, call, &rc);
    if (!s) return rc;
    if (!pset_name || !newgroup)
        return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG, "pset_name or newgroup is NULL");
    int p = pset_of(pset_name), n = 0;
    if (p < 0) {
        char why[MPI_MAX_PSET_NAME_LEN + 64];
        snprintf(why, sizeof why, "no process set named \"%.*s\"", MPI_MAX_PSET_NAME_LEN,
                 pset_name);
        return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG, why);
    }
    int *world = pset_members(p, &n);
    rc = world ? tw_mpi_group_new(n, world, newgroup) : MPI_ERR_NO_MEM;
    free(world);
    if (rc) return tw_mpi_session_error(session, 0, call, rc, NULL);
    tw_mpi_group_get(*newgroup)->session = index_of(s) + 1;
    return MPI_SUCCESS;
}

int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                  MPI_Errhandler *errhandler) {
    return tw_mpi_eh_new("MPI_Session_create_errhandler", TW_EH_SESSION,
                         (void (*)(int *, int *, ...))session_errhandler_fn, errhandler);
}

int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
    const char *call = "MPI_Session_set_errhandler";
    int rc;
    session_t *s = running(session, call, &rc);
    if (!s) return rc;
    if (!tw_mpi_eh_settable(errhandler, TW_EH_SESSION))
        return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG,
                                    "not an error handler for sessions");
    MPI_Errhandler old = s->eh;
    tw_mpi_eh_ref(errhandler);
    s->eh = errhandler;
    MPI_Errhandler_free(&old);
    return MPI_SUCCESS;
}

int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler) {
    const char *call = "MPI_Session_get_errhandler";
    int rc;
    session_t *s = running(session, call, &rc);
    if (!s) return rc;
    if (!errhandler)
        return tw_mpi_session_error(session, 0, call, MPI_ERR_ARG, "errhandler is NULL");
    *errhandler = s->eh;
    tw_mpi_eh_ref(*errhandler); /* a new handle, for MPI_Errhandler_free */
    return MPI_SUCCESS;
}

int MPI_Session_call_errhandler(MPI_Session session, int errorcode) {
    const char *call = "MPI_Session_call_errhandler";
    int rc;
    if (!running(session, call, &rc)) return rc;
    tw_mpi_session_error(session, 0, call, errorcode, NULL);
    return MPI_SUCCESS; /* the handler was called (and returned) */
}

MPI_Fint MPI_Session_c2f(MPI_Session session) {
    return (MPI_Fint)session;
}

MPI_Session MPI_Session_f2c(MPI_Fint session) {
    return (MPI_Session)session;
}

/* ---- a buffer for the buffered sends of the session's communicators (MPI-4.1 3.6) ---- */

/* Errors of the buffer unit come back as classes (its handler returns them) and go
 * to the session's handler here. */
static tw_mpi_comm_t returning = {.errhandler = MPI_ERRORS_RETURN};

static int session_attach(const char *call, MPI_Session session, void *buffer, MPI_Count size) {
    int rc;
    session_t *s = running(session, call, &rc);
    if (!s) return rc;
    rc = tw_mpi_bbuf_attach(&s->buffer, buffer, size, &returning, call);
    return rc ? tw_mpi_session_error(session, 0, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Session_attach_buffer(MPI_Session session, void *buffer, int size) {
    return session_attach("MPI_Session_attach_buffer", session, buffer, size);
}

int MPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size) {
    return session_attach("MPI_Session_attach_buffer_c", session, buffer, size);
}

int MPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size) {
    const char *call = "MPI_Session_detach_buffer";
    int rc;
    session_t *s = running(session, call, &rc);
    if (!s) return rc;
    rc = tw_mpi_bbuf_detach_int(&s->buffer, buffer_addr, size, &returning, call);
    return rc ? tw_mpi_session_error(session, 0, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size) {
    const char *call = "MPI_Session_detach_buffer_c";
    int rc;
    session_t *s = running(session, call, &rc);
    if (!s) return rc;
    rc = tw_mpi_bbuf_detach(&s->buffer, buffer_addr, size, &returning, call);
    return rc ? tw_mpi_session_error(session, 0, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Session_flush_buffer(MPI_Session session) {
    int rc;
    session_t *s = running(session, "MPI_Session_flush_buffer", &rc);
    if (s) tw_mpi_bbuf_flush(s->buffer);
    return rc;
}

int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request) {
    const char *call = "MPI_Session_iflush_buffer";
    int rc;
    session_t *s = running(session, call, &rc);
    if (!s) return rc;
    if (!request) return tw_mpi_session_error(session, 0, call, MPI_ERR_REQUEST, "request is NULL");
    /* the request's errors (none can arise) would go to MPI_COMM_SELF's handler */
    rc = tw_mpi_bbuf_iflush(s->buffer, tw_mpi_comm_get(MPI_COMM_SELF)->context, request);
    return rc ? tw_mpi_session_error(session, 0, call, rc, NULL) : MPI_SUCCESS;
}
