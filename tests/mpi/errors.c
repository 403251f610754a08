/* MPI error classes, black box through mpi.h: every call of the header is made with
 * invalid arguments under MPI_ERRORS_RETURN and must return the class that names
 * the fault (MPI-3.1 8.4, Table 8.1): bad communicators, ranks, tags, counts,
 * datatypes and buffers; handles of the wrong kind; stale request, message and
 * communicator handles; NULL output pointers; negative counts of request arrays;
 * MPI_Start on a non-persistent request; MPI_Cancel on MPI_REQUEST_NULL; buffered
 * sends without room; truncation and MPI_ERR_IN_STATUS. MPI_PROC_NULL and null
 * requests, which must succeed, do. After each section a real exchange checks that
 * the library still works. One section leaves MPI_COMM_WORLD fatal and sets
 * MPI_ERRORS_RETURN on a duplicate only: errors on that communicator's requests
 * come back instead of ending the job. MPI_Abort is the one call not made here (any
 * call of it ends the job; tests/mpi/abort.c has it). Needs 2 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static const char *class_name(int c) {
    switch (c) {
    case MPI_SUCCESS:
        return "MPI_SUCCESS";
    case MPI_ERR_BUFFER:
        return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT:
        return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE:
        return "MPI_ERR_TYPE";
    case MPI_ERR_TAG:
        return "MPI_ERR_TAG";
    case MPI_ERR_COMM:
        return "MPI_ERR_COMM";
    case MPI_ERR_RANK:
        return "MPI_ERR_RANK";
    case MPI_ERR_REQUEST:
        return "MPI_ERR_REQUEST";
    case MPI_ERR_ARG:
        return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE:
        return "MPI_ERR_TRUNCATE";
    case MPI_ERR_OTHER:
        return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN:
        return "MPI_ERR_INTERN";
    case MPI_ERR_IN_STATUS:
        return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING:
        return "MPI_ERR_PENDING";
    case MPI_ERR_NO_MEM:
        return "MPI_ERR_NO_MEM";
    default:
        return "another class";
    }
}

/* A call must return the class want; a failure says what came back instead. */
#define EXPECT_AS(what, call, want)                                                                \
    do {                                                                                           \
        int got_ = (call);                                                                         \
        if (got_ != (want))                                                                        \
            fprintf(stderr, "%s:%d: rank %d: %s%s returned %s (%d), expected %s\n", __FILE__,      \
                    __LINE__, rank, what, #call, class_name(got_), got_, #want);                   \
        CHECK(got_ == (want));                                                                     \
    } while (0)
#define EXPECT(call, want) EXPECT_AS("", call, want)

/* Handles of the right kind that name nothing. */
#define BAD_COMM    ((MPI_Comm)0x44000123)
#define BAD_TYPE    ((MPI_Datatype)0x4c000400) /* the datatype kind, but no type id */
#define BAD_TYPE_ID ((MPI_Datatype)0x4c000441) /* type id 65: past the predefined ones */
#define BAD_REQUEST ((MPI_Request)0x2c00fffe)  /* a slot never handed out under generation 0 */
#define BAD_MESSAGE ((MPI_Message)0x6c00fffe)
#define GARBAGE     12345 /* no handle kind at all */
#define TAG_NEVER   4242  /* a tag no message of this program carries */

static int partner; /* 0 and 1, 2 and 3, ...; a last odd rank talks to itself */

/* A real exchange with the partner on comm: data, source, tag and count right. */
static void exchange_on(MPI_Comm comm, int tag) {
    int out[4], in[4] = {0}, count = -1;
    for (int i = 0; i < 4; i++) out[i] = rank * 1000 + tag * 10 + i;
    MPI_Status st;
    EXPECT(MPI_Sendrecv(out, 4, MPI_INT, partner, tag, in, 4, MPI_INT, partner, tag, comm, &st),
           MPI_SUCCESS);
    for (int i = 0; i < 4; i++) CHECK(in[i] == partner * 1000 + tag * 10 + i);
    EXPECT(MPI_Get_count(&st, MPI_INT, &count), MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == tag && count == 4);
}

/* After a section of errors: messages still flow, to self and to the partner. */
static void still_works(int tag) {
    int v = tag * 7 + rank, w = -1;
    MPI_Request r;
    EXPECT(MPI_Isend(&v, 1, MPI_INT, rank, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    EXPECT(MPI_Recv(&w, 1, MPI_INT, rank, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(w == v && r == MPI_REQUEST_NULL);
    exchange_on(MPI_COMM_WORLD, tag);
}

/* The status of a receive from MPI_PROC_NULL (MPI-3.1 3.11). */
static void check_proc_null_status(const MPI_Status *st) {
    int count = -1, elements = -1;
    MPI_Count elements_x = -1;
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG);
    EXPECT(MPI_Get_count(st, MPI_INT, &count), MPI_SUCCESS);
    EXPECT(MPI_Get_elements(st, MPI_INT, &elements), MPI_SUCCESS);
    EXPECT(MPI_Get_elements_x(st, MPI_INT, &elements_x), MPI_SUCCESS);
    CHECK(count == 0 && elements == 0 && elements_x == 0);
}

/* An empty status (MPI-3.1 3.7.3): of a null or inactive request. */
static void check_empty_status(const MPI_Status *st) {
    int count = -1, cancelled = -1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG);
    EXPECT(MPI_Get_count(st, MPI_BYTE, &count), MPI_SUCCESS);
    EXPECT(MPI_Test_cancelled(st, &cancelled), MPI_SUCCESS);
    CHECK(count == 0 && cancelled == 0);
}

/* ---- environment, error strings and classes, error handlers ---- */

static void environment(void) {
    int flag = -1, v = 0, sv = 0, len = 0, cls = -1;
    char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    char str[MPI_MAX_ERROR_STRING];
    EXPECT(MPI_Initialized(NULL), MPI_ERR_ARG);
    EXPECT(MPI_Finalized(NULL), MPI_ERR_ARG);
    EXPECT(MPI_Initialized(&flag), MPI_SUCCESS);
    CHECK(flag == 1);
    EXPECT(MPI_Finalized(&flag), MPI_SUCCESS);
    CHECK(flag == 0);
    /* a second initialisation is erroneous (MPI-3.1 8.7) and changes nothing */
    EXPECT(MPI_Init(NULL, NULL), MPI_ERR_OTHER);
    EXPECT(MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &v), MPI_ERR_OTHER);
    EXPECT(MPI_Get_version(NULL, &sv), MPI_ERR_ARG);
    EXPECT(MPI_Get_version(&v, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Get_version(&v, &sv), MPI_SUCCESS);
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION);
    EXPECT(MPI_Get_library_version(NULL, &len), MPI_ERR_ARG);
    EXPECT(MPI_Get_library_version(lib, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Get_library_version(lib, &len), MPI_SUCCESS);
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (size_t)len == strlen(lib));
    EXPECT(MPI_Get_processor_name(NULL, &len), MPI_ERR_ARG);
    EXPECT(MPI_Get_processor_name(name, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Get_processor_name(name, &len), MPI_SUCCESS);
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (size_t)len == strlen(name));
    EXPECT(MPI_Error_string(MPI_ERR_RANK, NULL, &len), MPI_ERR_ARG);
    EXPECT(MPI_Error_string(MPI_ERR_RANK, str, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Error_class(MPI_ERR_RANK, NULL), MPI_ERR_ARG);
    /* every class is a code that MPI_Error_class maps onto itself (MPI-3.1 8.4) */
    static const int classes[] = {
        MPI_SUCCESS,    MPI_ERR_BUFFER,    MPI_ERR_COUNT,   MPI_ERR_TYPE,     MPI_ERR_TAG,
        MPI_ERR_COMM,   MPI_ERR_RANK,      MPI_ERR_REQUEST, MPI_ERR_ROOT,     MPI_ERR_GROUP,
        MPI_ERR_OP,     MPI_ERR_ARG,       MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER,
        MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_PENDING, MPI_ERR_NO_MEM};
    for (size_t k = 0; k < sizeof classes / sizeof *classes; k++) {
        EXPECT(MPI_Error_class(classes[k], &cls), MPI_SUCCESS);
        CHECK(cls == classes[k]);
        EXPECT(MPI_Error_string(classes[k], str, &len), MPI_SUCCESS);
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (size_t)len == strlen(str));
    }
    /* the timers take no arguments: only their values can be wrong */
    double t0 = MPI_Wtime(), t1 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(t1 >= t0 && tick > 0 && tick < 1);

    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    EXPECT(MPI_Comm_set_errhandler(BAD_COMM, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_errhandler((MPI_Comm)MPI_INT, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_errhandler((MPI_Comm)MPI_ERRORS_RETURN, MPI_ERRORS_RETURN), MPI_ERR_COMM);
    /* MPI-3.1 has no MPI_ERR_ERRHANDLER (4.0 added it): an invalid argument */
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)MPI_COMM_WORLD), MPI_ERR_ARG);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)GARBAGE), MPI_ERR_ARG);
    EXPECT(MPI_Comm_get_errhandler(BAD_COMM, &h), MPI_ERR_COMM);
    EXPECT(MPI_Comm_get_errhandler((MPI_Comm)MPI_ERRORS_RETURN, &h), MPI_ERR_COMM);
    EXPECT(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h), MPI_SUCCESS);
    CHECK(h == MPI_ERRORS_RETURN); /* the failed calls changed nothing */
}

/* ---- communicators ---- */

static void communicators(void) {
    int v = 0, flag = 0, result = -1;
    void *attr = NULL;
    MPI_Comm c = MPI_COMM_NULL;
    const MPI_Comm bad[] = {BAD_COMM,
                            MPI_COMM_NULL,
                            (MPI_Comm)MPI_INT,
                            (MPI_Comm)MPI_REQUEST_NULL,
                            (MPI_Comm)MPI_ERRORS_RETURN,
                            (MPI_Comm)MPI_MESSAGE_NO_PROC,
                            (MPI_Comm)GARBAGE};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        MPI_Comm b = bad[k];
        EXPECT(MPI_Comm_rank(b, &v), MPI_ERR_COMM);
        EXPECT(MPI_Comm_size(b, &v), MPI_ERR_COMM);
        EXPECT(MPI_Comm_dup(b, &c), MPI_ERR_COMM);
        EXPECT(MPI_Comm_split(b, 0, 0, &c), MPI_ERR_COMM);
        EXPECT(MPI_Comm_compare(b, MPI_COMM_WORLD, &result), MPI_ERR_COMM);
        EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, b, &result), MPI_ERR_COMM);
        EXPECT(MPI_Comm_get_attr(b, MPI_TAG_UB, &attr, &flag), MPI_ERR_COMM);
        EXPECT(MPI_Comm_get_errhandler(b, &v), MPI_ERR_COMM);
        EXPECT(MPI_Barrier(b), MPI_ERR_COMM);
        EXPECT(MPI_Comm_free(&b), MPI_ERR_COMM);
    }
    EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &flag), MPI_ERR_ARG);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, NULL), MPI_ERR_ARG);
    /* the library's class for a NULL communicator pointer */
    EXPECT(MPI_Comm_free(NULL), MPI_ERR_COMM);
    /* a color is non-negative or MPI_UNDEFINED (MPI-3.1 6.4.2) */
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG);
    /* a key that is no keyval (MPI-3.1 Table 8.1) */
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, GARBAGE, &attr, &flag), MPI_ERR_KEYVAL);
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag), MPI_SUCCESS);
    CHECK(flag && *(int *)attr >= 32767);
    /* the predefined communicators cannot be freed */
    MPI_Comm w = MPI_COMM_WORLD;
    EXPECT(MPI_Comm_free(&w), MPI_ERR_COMM);
    CHECK(w == MPI_COMM_WORLD);
    /* a freed communicator's handle is stale: every call refuses it */
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    EXPECT(MPI_Comm_compare(c, MPI_COMM_WORLD, &result), MPI_SUCCESS);
    CHECK(result == MPI_CONGRUENT);
    MPI_Comm stale = c;
    EXPECT(MPI_Comm_free(&c), MPI_SUCCESS);
    CHECK(c == MPI_COMM_NULL);
    EXPECT(MPI_Comm_rank(stale, &v), MPI_ERR_COMM);
    EXPECT(MPI_Send(&v, 1, MPI_INT, 0, 0, stale), MPI_ERR_COMM);
    EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, stale, &flag, MPI_STATUS_IGNORE), MPI_ERR_COMM);
    EXPECT(MPI_Barrier(stale), MPI_ERR_COMM);
    EXPECT(MPI_Comm_free(&stale), MPI_ERR_COMM); /* freed twice */
    /* MPI_UNDEFINED gives MPI_COMM_NULL, which no call takes */
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &c), MPI_SUCCESS);
    CHECK(c == MPI_COMM_NULL);
    EXPECT(MPI_Comm_size(c, &v), MPI_ERR_COMM);
    /* errors on MPI_COMM_SELF are raised on its own handler, fatal until set */
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), MPI_SUCCESS);
    EXPECT(MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK);
    EXPECT(MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    MPI_Comm s = MPI_COMM_SELF;
    EXPECT(MPI_Comm_free(&s), MPI_ERR_COMM);
    CHECK(s == MPI_COMM_SELF);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL), MPI_SUCCESS);
}

/* ---- datatypes and status queries ---- */

/* Calls that complete one request leave MPI_ERROR alone (MPI-3.1 3.2.5); a NULL
 * count is refused; an error code no class has is refused. */
static void status_fields(void) {
    MPI_Status st;
    int v = rank, w = -1, count, cls;
    st.MPI_ERROR = 4242;
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &w, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &st);
    CHECK(w == rank && st.MPI_ERROR == 4242);
    EXPECT(MPI_Get_count(&st, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Get_elements(&st, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Get_count(&st, MPI_INT, &count), MPI_SUCCESS);
    CHECK(count == 1);
    EXPECT(MPI_Error_class(99999, &cls), MPI_ERR_ARG);
    EXPECT(MPI_Error_class(-5, &cls), MPI_ERR_ARG);
    EXPECT(MPI_Error_class(MPI_ERR_TRUNCATE, &cls), MPI_SUCCESS);
    CHECK(cls == MPI_ERR_TRUNCATE);
    /* a buffer too small for any message may be attached; sends then find no room */
    char tiny[8];
    void *back;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int back_size;
    EXPECT(MPI_Buffer_attach(tiny, (int)sizeof tiny), MPI_SUCCESS);
    EXPECT(MPI_Bsend(&v, 1, MPI_INT, 0, 4, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT(MPI_Buffer_detach(&back, &back_size), MPI_SUCCESS);
    CHECK(back == tiny && back_size == (int)sizeof tiny);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void datatypes(void) {
    int n = -1, v = 0;
    MPI_Count x = -1;
    MPI_Aint lb = -1, extent = -1;
    MPI_Status st;
    EXPECT(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    const MPI_Datatype bad[] = {MPI_DATATYPE_NULL,
                                BAD_TYPE,
                                BAD_TYPE_ID,
                                (MPI_Datatype)MPI_COMM_WORLD,
                                (MPI_Datatype)MPI_REQUEST_NULL,
                                (MPI_Datatype)GARBAGE};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        EXPECT(MPI_Type_size(bad[k], &n), MPI_ERR_TYPE);
        EXPECT(MPI_Type_size_x(bad[k], &x), MPI_ERR_TYPE);
        EXPECT(MPI_Type_get_extent(bad[k], &lb, &extent), MPI_ERR_TYPE);
        EXPECT(MPI_Get_count(&st, bad[k], &n), MPI_ERR_TYPE);
        EXPECT(MPI_Get_elements(&st, bad[k], &n), MPI_ERR_TYPE);
        EXPECT(MPI_Get_elements_x(&st, bad[k], &x), MPI_ERR_TYPE);
    }
    EXPECT(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Type_size_x(MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Type_get_extent(MPI_INT, NULL, &extent), MPI_ERR_ARG);
    EXPECT(MPI_Type_get_extent(MPI_INT, &lb, NULL), MPI_ERR_ARG);
    /* MPI_STATUS_IGNORE is no status to read (MPI-3.1 3.2.6) */
    EXPECT(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n), MPI_ERR_ARG);
    EXPECT(MPI_Get_elements(MPI_STATUS_IGNORE, MPI_INT, &n), MPI_ERR_ARG);
    EXPECT(MPI_Get_elements_x(MPI_STATUS_IGNORE, MPI_INT, &x), MPI_ERR_ARG);
    EXPECT(MPI_Get_elements_x(&st, MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Type_size(MPI_DOUBLE, &n), MPI_SUCCESS);
    CHECK(n == (int)sizeof(double));
    EXPECT(MPI_Type_size_x(MPI_SHORT, &x), MPI_SUCCESS);
    CHECK(x == (MPI_Count)sizeof(short));
    EXPECT(MPI_Type_get_extent(MPI_INT, &lb, &extent), MPI_SUCCESS);
    CHECK(lb == 0 && extent == (MPI_Aint)sizeof(int));
}

/* ---- sends and receives: a table of bad arguments for every one of them ---- */

typedef struct {
    const char *what;
    const void *buf;
    int count;
    MPI_Datatype type;
    int peer, tag;
    MPI_Comm comm;
    int want;
} bad_args_t;

enum { BAD_ARGS_MAX = 16 };

/* Arguments with one fault each; peer is a destination (sends) or a source. */
static int bad_args(bad_args_t *b, int is_send, const int *v) {
    int n = 0;
    b[n++] = (bad_args_t){"bad comm: ", v, 1, MPI_INT, 0, 0, BAD_COMM, MPI_ERR_COMM};
    b[n++] = (bad_args_t){"MPI_COMM_NULL: ", v, 1, MPI_INT, 0, 0, MPI_COMM_NULL, MPI_ERR_COMM};
    b[n++] =
        (bad_args_t){"datatype as comm: ", v, 1, MPI_INT, 0, 0, (MPI_Comm)MPI_INT, MPI_ERR_COMM};
    b[n++] = (bad_args_t){"request as comm: ",        v,           1, MPI_INT, 0, 0,
                          (MPI_Comm)MPI_REQUEST_NULL, MPI_ERR_COMM};
    b[n++] = (bad_args_t){"count -1: ", v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_ERR_COUNT};
    b[n++] = (bad_args_t){"MPI_DATATYPE_NULL: ", v,           1, MPI_DATATYPE_NULL, 0, 0,
                          MPI_COMM_WORLD,        MPI_ERR_TYPE};
    b[n++] = (bad_args_t){"type id 0: ", v, 1, BAD_TYPE, 0, 0, MPI_COMM_WORLD, MPI_ERR_TYPE};
    b[n++] = (bad_args_t){"comm as datatype: ", v,           1, (MPI_Datatype)MPI_COMM_WORLD, 0, 0,
                          MPI_COMM_WORLD,       MPI_ERR_TYPE};
    b[n++] = (bad_args_t){"NULL buffer: ", NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_ERR_BUFFER};
    b[n++] = (bad_args_t){"rank = size: ", v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_ERR_RANK};
    b[n++] = (bad_args_t){"rank -3: ", v, 1, MPI_INT, -3, 0, MPI_COMM_WORLD, MPI_ERR_RANK};
    b[n++] = (bad_args_t){"tag -7: ", v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_ERR_TAG};
    if (is_send) { /* the wildcards are for receives only */
        b[n++] = (bad_args_t){"MPI_ANY_SOURCE as dest: ",
                              v,
                              1,
                              MPI_INT,
                              MPI_ANY_SOURCE,
                              0,
                              MPI_COMM_WORLD,
                              MPI_ERR_RANK};
        b[n++] = (bad_args_t){
            "MPI_ANY_TAG in a send: ", v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_ERR_TAG};
    }
    CHECK(n <= BAD_ARGS_MAX);
    return n;
}

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*irecv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static void sends(void) {
    static const struct {
        const char *name;
        send_fn fn;
    } blocking[] = {{"MPI_Send ", MPI_Send},
                    {"MPI_Ssend ", MPI_Ssend},
                    {"MPI_Rsend ", MPI_Rsend},
                    {"MPI_Bsend ", MPI_Bsend}};
    static const struct {
        const char *name;
        isend_fn fn;
        int persistent;
    } with_request[] = {
        {"MPI_Isend ", MPI_Isend, 0},           {"MPI_Issend ", MPI_Issend, 0},
        {"MPI_Irsend ", MPI_Irsend, 0},         {"MPI_Ibsend ", MPI_Ibsend, 0},
        {"MPI_Send_init ", MPI_Send_init, 1},   {"MPI_Ssend_init ", MPI_Ssend_init, 1},
        {"MPI_Rsend_init ", MPI_Rsend_init, 1}, {"MPI_Bsend_init ", MPI_Bsend_init, 1}};
    int v = 5;
    bad_args_t b[BAD_ARGS_MAX];
    int n = bad_args(b, 1, &v);
    char what[128];
    for (size_t f = 0; f < sizeof blocking / sizeof *blocking; f++) {
        for (int k = 0; k < n; k++) {
            snprintf(what, sizeof what, "%s%s", blocking[f].name, b[k].what);
            EXPECT_AS(
                what,
                blocking[f].fn(b[k].buf, b[k].count, b[k].type, b[k].peer, b[k].tag, b[k].comm),
                b[k].want);
        }
        /* to MPI_PROC_NULL: done at once (MPI-3.1 3.11), also buffered without a buffer */
        EXPECT_AS(blocking[f].name,
                  blocking[f].fn(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD), MPI_SUCCESS);
        EXPECT_AS(blocking[f].name,
                  blocking[f].fn(NULL, 0, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD), MPI_SUCCESS);
    }
    for (size_t f = 0; f < sizeof with_request / sizeof *with_request; f++) {
        for (int k = 0; k < n; k++) {
            MPI_Request r = MPI_REQUEST_NULL;
            snprintf(what, sizeof what, "%s%s", with_request[f].name, b[k].what);
            EXPECT_AS(what,
                      with_request[f].fn(b[k].buf, b[k].count, b[k].type, b[k].peer, b[k].tag,
                                         b[k].comm, &r),
                      b[k].want);
            CHECK(r == MPI_REQUEST_NULL);
        }
        /* the library's class for a NULL request pointer */
        EXPECT_AS(with_request[f].name,
                  with_request[f].fn(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
        MPI_Request r = MPI_REQUEST_NULL;
        MPI_Status st;
        EXPECT_AS(with_request[f].name,
                  with_request[f].fn(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r),
                  MPI_SUCCESS);
        CHECK(r != MPI_REQUEST_NULL);
        if (with_request[f].persistent) {
            EXPECT_AS(with_request[f].name, MPI_Start(&r), MPI_SUCCESS);
            EXPECT_AS(with_request[f].name, MPI_Wait(&r, &st), MPI_SUCCESS);
            CHECK(r != MPI_REQUEST_NULL); /* inactive, not freed */
            EXPECT_AS(with_request[f].name, MPI_Request_free(&r), MPI_SUCCESS);
        } else {
            EXPECT_AS(with_request[f].name, MPI_Wait(&r, &st), MPI_SUCCESS);
        }
        CHECK(r == MPI_REQUEST_NULL);
    }
}

static void receives(void) {
    static const struct {
        const char *name;
        irecv_fn fn;
        int persistent;
    } with_request[] = {{"MPI_Irecv ", MPI_Irecv, 0}, {"MPI_Recv_init ", MPI_Recv_init, 1}};
    int v = 5, w[4] = {0};
    MPI_Status st;
    bad_args_t b[BAD_ARGS_MAX];
    int n = bad_args(b, 0, &v);
    char what[128];
    for (int k = 0; k < n; k++) {
        void *buf = b[k].buf ? w : NULL;
        snprintf(what, sizeof what, "MPI_Recv %s", b[k].what);
        EXPECT_AS(what, MPI_Recv(buf, b[k].count, b[k].type, b[k].peer, b[k].tag, b[k].comm, &st),
                  b[k].want);
        for (size_t f = 0; f < sizeof with_request / sizeof *with_request; f++) {
            MPI_Request r = MPI_REQUEST_NULL;
            snprintf(what, sizeof what, "%s%s", with_request[f].name, b[k].what);
            EXPECT_AS(
                what,
                with_request[f].fn(buf, b[k].count, b[k].type, b[k].peer, b[k].tag, b[k].comm, &r),
                b[k].want);
            CHECK(r == MPI_REQUEST_NULL);
        }
    }
    for (size_t f = 0; f < sizeof with_request / sizeof *with_request; f++) {
        MPI_Request r = MPI_REQUEST_NULL;
        /* the library's class for a NULL request pointer */
        EXPECT_AS(with_request[f].name,
                  with_request[f].fn(w, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
        /* from MPI_PROC_NULL: done at once, with source MPI_PROC_NULL, MPI_ANY_TAG, count 0 */
        EXPECT_AS(with_request[f].name,
                  with_request[f].fn(w, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r),
                  MPI_SUCCESS);
        if (with_request[f].persistent) EXPECT(MPI_Start(&r), MPI_SUCCESS);
        EXPECT(MPI_Wait(&r, &st), MPI_SUCCESS);
        check_proc_null_status(&st);
        if (with_request[f].persistent) EXPECT(MPI_Request_free(&r), MPI_SUCCESS);
        CHECK(r == MPI_REQUEST_NULL);
    }
    EXPECT(MPI_Recv(w, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    check_proc_null_status(&st);
    EXPECT(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st),
           MPI_SUCCESS);
    check_proc_null_status(&st);

    /* MPI_Sendrecv: a fault on either side */
    int out[2] = {1, 2}, in[2] = {0};
    const int N = MPI_PROC_NULL;
    MPI_Comm W = MPI_COMM_WORLD;
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, 0, in, 2, MPI_INT, N, 0, BAD_COMM, &st), MPI_ERR_COMM);
    EXPECT(MPI_Sendrecv(out, -1, MPI_INT, N, 0, in, 2, MPI_INT, N, 0, W, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, 0, in, -1, MPI_INT, N, 0, W, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Sendrecv(out, 2, BAD_TYPE, N, 0, in, 2, MPI_INT, N, 0, W, &st), MPI_ERR_TYPE);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, 0, in, 2, MPI_DATATYPE_NULL, N, 0, W, &st),
           MPI_ERR_TYPE);
    EXPECT(MPI_Sendrecv(NULL, 2, MPI_INT, N, 0, in, 2, MPI_INT, N, 0, W, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, 0, NULL, 2, MPI_INT, N, 0, W, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, size, 0, in, 2, MPI_INT, N, 0, W, &st), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, 0, in, 2, MPI_INT, size, 0, W, &st), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, -7, in, 2, MPI_INT, N, 0, W, &st), MPI_ERR_TAG);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, MPI_ANY_TAG, in, 2, MPI_INT, N, 0, W, &st),
           MPI_ERR_TAG);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, 0, in, 2, MPI_INT, N, -7, W, &st), MPI_ERR_TAG);
    /* The library starts the receive half before it checks the send half: that
     * receive must be withdrawn, or it would take the partner's next message on the
     * tag. The partner sends it only after the barrier, so it cannot be here yet
     * (one that is here already, the failed call takes). */
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, -3, 9, in, 2, MPI_INT, partner, 9, W, &st), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv(out, 2, MPI_INT, N, 0, in, 2, MPI_INT, N, 0, W, &st), MPI_SUCCESS);
    check_proc_null_status(&st);
    CHECK(in[0] == 0 && in[1] == 0); /* nothing came */
    EXPECT(MPI_Barrier(W), MPI_SUCCESS);
    exchange_on(W, 9);

    /* MPI_Sendrecv_replace */
    int x[2] = {3, 4};
    EXPECT(MPI_Sendrecv_replace(x, 2, MPI_INT, N, 0, N, 0, BAD_COMM, &st), MPI_ERR_COMM);
    EXPECT(MPI_Sendrecv_replace(x, -1, MPI_INT, N, 0, N, 0, W, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Sendrecv_replace(x, 2, BAD_TYPE_ID, N, 0, N, 0, W, &st), MPI_ERR_TYPE);
    EXPECT(MPI_Sendrecv_replace(NULL, 2, MPI_INT, N, 0, N, 0, W, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Sendrecv_replace(x, 2, MPI_INT, size, 0, N, 0, W, &st), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv_replace(x, 2, MPI_INT, N, 0, -3, 0, W, &st), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv_replace(x, 2, MPI_INT, N, -1, N, 0, W, &st), MPI_ERR_TAG);
    EXPECT(MPI_Sendrecv_replace(x, 2, MPI_INT, N, 0, N, -7, W, &st), MPI_ERR_TAG);
    EXPECT(MPI_Sendrecv_replace(x, 2, MPI_INT, N, 0, N, 0, W, &st), MPI_SUCCESS);
    check_proc_null_status(&st);
    CHECK(x[0] == 3 && x[1] == 4); /* nothing came from MPI_PROC_NULL: untouched */
}

/* ---- probes and matched receives ---- */

static void probes(void) {
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    int flag = -1, v[8] = {0};
    const struct {
        const char *what;
        int source, tag;
        MPI_Comm comm;
        int want;
    } bad[] = {{"bad comm: ", MPI_ANY_SOURCE, MPI_ANY_TAG, BAD_COMM, MPI_ERR_COMM},
               {"MPI_COMM_NULL: ", MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_NULL, MPI_ERR_COMM},
               {"datatype as comm: ", MPI_ANY_SOURCE, MPI_ANY_TAG, (MPI_Comm)MPI_INT, MPI_ERR_COMM},
               {"source = size: ", size, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_ERR_RANK},
               {"source -3: ", -3, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_ERR_RANK},
               {"tag -7: ", MPI_ANY_SOURCE, -7, MPI_COMM_WORLD, MPI_ERR_TAG}};
    char what[128];
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        snprintf(what, sizeof what, "MPI_Probe %s", bad[k].what);
        EXPECT_AS(what, MPI_Probe(bad[k].source, bad[k].tag, bad[k].comm, &st), bad[k].want);
        snprintf(what, sizeof what, "MPI_Iprobe %s", bad[k].what);
        EXPECT_AS(what, MPI_Iprobe(bad[k].source, bad[k].tag, bad[k].comm, &flag, &st),
                  bad[k].want);
        snprintf(what, sizeof what, "MPI_Mprobe %s", bad[k].what);
        EXPECT_AS(what, MPI_Mprobe(bad[k].source, bad[k].tag, bad[k].comm, &m, &st), bad[k].want);
        snprintf(what, sizeof what, "MPI_Improbe %s", bad[k].what);
        EXPECT_AS(what, MPI_Improbe(bad[k].source, bad[k].tag, bad[k].comm, &flag, &m, &st),
                  bad[k].want);
    }
    EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, NULL, &st), MPI_ERR_ARG);
    EXPECT(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, NULL, &m, &st), MPI_ERR_ARG);
    EXPECT(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, NULL, &st), MPI_ERR_ARG);
    EXPECT(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, NULL, &st), MPI_ERR_ARG);

    /* MPI_PROC_NULL: found at once, an empty message from no one (MPI-3.1 3.8.1, 3.8.2) */
    EXPECT(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    check_proc_null_status(&st);
    flag = 0;
    EXPECT(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
    CHECK(flag == 1);
    check_proc_null_status(&st);
    flag = 0;
    EXPECT(MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &m, &st), MPI_SUCCESS);
    CHECK(flag == 1 && m == MPI_MESSAGE_NO_PROC);
    check_proc_null_status(&st);
    /* receiving MPI_MESSAGE_NO_PROC is not erroneous (MPI-3.1 3.8.2) */
    EXPECT(MPI_Mrecv(v, 8, MPI_INT, &m, &st), MPI_SUCCESS);
    CHECK(m == MPI_MESSAGE_NULL);
    check_proc_null_status(&st);
    EXPECT(MPI_Mprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st), MPI_SUCCESS);
    CHECK(m == MPI_MESSAGE_NO_PROC);
    check_proc_null_status(&st);
    EXPECT(MPI_Imrecv(v, 8, MPI_INT, &m, &r), MPI_SUCCESS);
    CHECK(m == MPI_MESSAGE_NULL);
    EXPECT(MPI_Wait(&r, &st), MPI_SUCCESS);
    check_proc_null_status(&st);

    /* message handles that name no message */
    m = MPI_MESSAGE_NO_PROC;
    EXPECT(MPI_Mrecv(v, 8, MPI_INT, NULL, &st), MPI_ERR_ARG);
    EXPECT(MPI_Imrecv(v, 8, MPI_INT, NULL, &r), MPI_ERR_ARG);
    EXPECT(MPI_Imrecv(v, 8, MPI_INT, &m, NULL), MPI_ERR_ARG);
    CHECK(m == MPI_MESSAGE_NO_PROC);
    /* MPI-3.1 has no class for message handles: the library says MPI_ERR_REQUEST */
    const MPI_Message bad_messages[] = {MPI_MESSAGE_NULL,
                                        BAD_MESSAGE,
                                        (MPI_Message)MPI_REQUEST_NULL,
                                        (MPI_Message)BAD_REQUEST,
                                        (MPI_Message)MPI_COMM_WORLD,
                                        (MPI_Message)GARBAGE};
    for (size_t k = 0; k < sizeof bad_messages / sizeof *bad_messages; k++) {
        m = bad_messages[k];
        EXPECT(MPI_Mrecv(v, 8, MPI_INT, &m, &st), MPI_ERR_REQUEST);
        EXPECT(MPI_Imrecv(v, 8, MPI_INT, &m, &r), MPI_ERR_REQUEST);
        CHECK(r == MPI_REQUEST_NULL);
    }

    /* a real message: bad buffers leave it matched and receivable; then its handle is stale */
    int out[3] = {rank, 11, 12};
    MPI_Request s;
    EXPECT(MPI_Isend(out, 3, MPI_INT, rank, 50, MPI_COMM_WORLD, &s), MPI_SUCCESS);
    flag = 0;
    while (!flag) EXPECT(MPI_Improbe(rank, 50, MPI_COMM_WORLD, &flag, &m, &st), MPI_SUCCESS);
    CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC && st.MPI_TAG == 50);
    MPI_Message matched = m;
    EXPECT(MPI_Mrecv(v, -1, MPI_INT, &m, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Mrecv(v, 3, BAD_TYPE, &m, &st), MPI_ERR_TYPE);
    EXPECT(MPI_Mrecv(NULL, 3, MPI_INT, &m, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Imrecv(v, -1, MPI_INT, &m, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Imrecv(v, 3, (MPI_Datatype)MPI_COMM_WORLD, &m, &r), MPI_ERR_TYPE);
    EXPECT(MPI_Imrecv(NULL, 3, MPI_INT, &m, &r), MPI_ERR_BUFFER);
    CHECK(m == matched && r == MPI_REQUEST_NULL);
    /* matched: no probe sees it any more (MPI-3.1 3.8.2) */
    EXPECT(MPI_Iprobe(rank, 50, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
    CHECK(flag == 0);
    EXPECT(MPI_Mrecv(v, 3, MPI_INT, &m, &st), MPI_SUCCESS);
    CHECK(m == MPI_MESSAGE_NULL && v[0] == rank && v[1] == 11 && v[2] == 12);
    CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 50);
    EXPECT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
    m = matched;
    EXPECT(MPI_Mrecv(v, 3, MPI_INT, &m, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Imrecv(v, 3, MPI_INT, &m, &r), MPI_ERR_REQUEST);
}

/* ---- requests: completion, cancel, start, free ---- */

/* Every call that takes a request refuses b, which is no request. */
static void refuse_request(MPI_Request b) {
    MPI_Request r = b, a[2] = {MPI_REQUEST_NULL, b};
    MPI_Status st, sts[2];
    int flag = -1, idx = -1, outcount = -1, indices[2];
    EXPECT(MPI_Wait(&r, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Test(&r, &flag, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_get_status(b, &flag, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST);
    CHECK(r == b);
    EXPECT(MPI_Waitall(2, a, sts), MPI_ERR_REQUEST);
    EXPECT(MPI_Testall(2, a, &flag, sts), MPI_ERR_REQUEST);
    EXPECT(MPI_Waitany(2, a, &idx, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Testany(2, a, &idx, &flag, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Waitsome(2, a, &outcount, indices, sts), MPI_ERR_REQUEST);
    EXPECT(MPI_Testsome(2, a, &outcount, indices, sts), MPI_ERR_REQUEST);
    EXPECT(MPI_Startall(1, &a[1]), MPI_ERR_REQUEST);
    CHECK(a[0] == MPI_REQUEST_NULL && a[1] == b);
}

static void requests(void) {
    MPI_Request r = MPI_REQUEST_NULL, a[3], stale;
    MPI_Status st, sts[3];
    int flag = -1, idx = -1, outcount = -1, indices[3], v = 0;
    const MPI_Request bad[] = {BAD_REQUEST,
                               (MPI_Request)MPI_COMM_WORLD,
                               (MPI_Request)MPI_INT,
                               (MPI_Request)MPI_MESSAGE_NO_PROC,
                               (MPI_Request)MPI_ERRORS_RETURN,
                               (MPI_Request)GARBAGE};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) refuse_request(bad[k]);

    /* NULL pointers: the library's class is MPI_ERR_REQUEST for a request pointer,
     * MPI_ERR_ARG for the other outputs and arrays */
    EXPECT(MPI_Wait(NULL, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Test(NULL, &flag, &st), MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(NULL), MPI_ERR_REQUEST);
    EXPECT(MPI_Start(NULL), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_free(NULL), MPI_ERR_REQUEST);
    a[0] = a[1] = a[2] = MPI_REQUEST_NULL;
    EXPECT(MPI_Test(&r, NULL, &st), MPI_ERR_ARG);
    EXPECT(MPI_Request_get_status(MPI_REQUEST_NULL, NULL, &st), MPI_ERR_ARG);
    EXPECT(MPI_Waitall(1, NULL, sts), MPI_ERR_ARG);
    EXPECT(MPI_Testall(1, NULL, &flag, sts), MPI_ERR_ARG);
    EXPECT(MPI_Testall(1, a, NULL, sts), MPI_ERR_ARG);
    EXPECT(MPI_Waitany(1, NULL, &idx, &st), MPI_ERR_ARG);
    EXPECT(MPI_Waitany(1, a, NULL, &st), MPI_ERR_ARG);
    EXPECT(MPI_Testany(1, NULL, &idx, &flag, &st), MPI_ERR_ARG);
    EXPECT(MPI_Testany(1, a, NULL, &flag, &st), MPI_ERR_ARG);
    EXPECT(MPI_Testany(1, a, &idx, NULL, &st), MPI_ERR_ARG);
    EXPECT(MPI_Waitsome(1, NULL, &outcount, indices, sts), MPI_ERR_ARG);
    EXPECT(MPI_Waitsome(1, a, NULL, indices, sts), MPI_ERR_ARG);
    EXPECT(MPI_Waitsome(1, a, &outcount, NULL, sts), MPI_ERR_ARG);
    EXPECT(MPI_Testsome(1, NULL, &outcount, indices, sts), MPI_ERR_ARG);
    EXPECT(MPI_Testsome(1, a, NULL, indices, sts), MPI_ERR_ARG);
    EXPECT(MPI_Testsome(1, a, &outcount, NULL, sts), MPI_ERR_ARG);
    EXPECT(MPI_Startall(1, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Test_cancelled(NULL, &flag), MPI_ERR_ARG);
    EXPECT(MPI_Test_cancelled(&st, NULL), MPI_ERR_ARG);

    /* negative counts of request arrays */
    EXPECT(MPI_Waitall(-1, a, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Testall(-1, a, &flag, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Waitany(-1, a, &idx, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Testany(-1, a, &idx, &flag, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Waitsome(-1, a, &outcount, indices, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Testsome(-1, a, &outcount, indices, sts), MPI_ERR_COUNT);
    EXPECT(MPI_Startall(-1, a), MPI_ERR_COUNT);

    /* the null request where an operation is needed */
    r = MPI_REQUEST_NULL;
    EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Startall(2, a), MPI_ERR_REQUEST);
    EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST);
    /* ... and where it is allowed: complete, with an empty status (MPI-3.1 3.7.3, 3.7.5) */
    EXPECT(MPI_Wait(&r, &st), MPI_SUCCESS);
    check_empty_status(&st);
    flag = 0;
    EXPECT(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
    CHECK(flag == 1);
    check_empty_status(&st);
    flag = 0;
    EXPECT(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
    CHECK(flag == 1);
    check_empty_status(&st);
    EXPECT(MPI_Waitall(3, a, sts), MPI_SUCCESS);
    for (int i = 0; i < 3; i++) check_empty_status(&sts[i]);
    flag = 0;
    EXPECT(MPI_Testall(3, a, &flag, sts), MPI_SUCCESS);
    CHECK(flag == 1);
    EXPECT(MPI_Waitany(3, a, &idx, &st), MPI_SUCCESS);
    CHECK(idx == MPI_UNDEFINED);
    check_empty_status(&st);
    flag = 0;
    EXPECT(MPI_Testany(3, a, &idx, &flag, &st), MPI_SUCCESS);
    CHECK(flag == 1 && idx == MPI_UNDEFINED);
    EXPECT(MPI_Waitsome(3, a, &outcount, indices, sts), MPI_SUCCESS);
    CHECK(outcount == MPI_UNDEFINED);
    EXPECT(MPI_Testsome(3, a, &outcount, indices, sts), MPI_SUCCESS);
    CHECK(outcount == MPI_UNDEFINED);
    EXPECT(MPI_Waitall(0, NULL, NULL), MPI_SUCCESS);
    EXPECT(MPI_Startall(0, NULL), MPI_SUCCESS);

    /* stale handles: a request completed, then used again */
    EXPECT(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    stale = r;
    EXPECT(MPI_Wait(&r, &st), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    refuse_request(stale);
    /* ... and after its slot went to a new request, which stays valid */
    EXPECT(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    CHECK(r != stale);
    refuse_request(stale);
    flag = 0;
    EXPECT(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
    CHECK(flag == 1 && r == MPI_REQUEST_NULL);
    check_proc_null_status(&st);
    /* freed with MPI_Request_free: stale too, nonpersistent or persistent */
    EXPECT(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    stale = r;
    EXPECT(MPI_Request_free(&r), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    refuse_request(stale);
    EXPECT(MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    stale = r;
    EXPECT(MPI_Request_free(&r), MPI_SUCCESS);
    refuse_request(stale);

    /* MPI_Start on a request that is not persistent, running or complete */
    EXPECT(MPI_Irecv(&v, 1, MPI_INT, rank, TAG_NEVER, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Startall(1, &r), MPI_ERR_REQUEST);
    flag = 1;
    EXPECT(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
    CHECK(flag == 0 && r != MPI_REQUEST_NULL); /* untouched, still running */
    EXPECT(MPI_Cancel(&r), MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, &st), MPI_SUCCESS);
    EXPECT(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && r == MPI_REQUEST_NULL);
    EXPECT(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST); /* complete, not yet waited for */
    EXPECT(MPI_Cancel(&r), MPI_SUCCESS);    /* too late: the receive stands */
    EXPECT(MPI_Wait(&r, &st), MPI_SUCCESS);
    EXPECT(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    check_proc_null_status(&st);

    /* MPI_Start on an active persistent request; MPI_Cancel on an inactive one */
    EXPECT(MPI_Recv_init(&v, 1, MPI_INT, rank, TAG_NEVER, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Start(&r), MPI_SUCCESS);
    EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    EXPECT(MPI_Startall(1, &r), MPI_ERR_REQUEST);
    EXPECT(MPI_Cancel(&r), MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, &st), MPI_SUCCESS);
    EXPECT(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && r != MPI_REQUEST_NULL);
    EXPECT(MPI_Wait(&r, &st), MPI_SUCCESS); /* inactive: at once, empty */
    check_empty_status(&st);
    EXPECT(MPI_Request_free(&r), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);

    /* MPI_Startall refuses an array holding a request that is not persistent */
    EXPECT(MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &a[0]), MPI_SUCCESS);
    EXPECT(MPI_Recv_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &a[1]), MPI_SUCCESS);
    EXPECT(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &a[2]), MPI_SUCCESS);
    EXPECT(MPI_Startall(3, a), MPI_ERR_REQUEST);
    EXPECT(MPI_Waitall(3, a, sts), MPI_SUCCESS);
    CHECK(a[0] != MPI_REQUEST_NULL && a[1] != MPI_REQUEST_NULL && a[2] == MPI_REQUEST_NULL);
    EXPECT(MPI_Startall(2, a), MPI_SUCCESS);
    EXPECT(MPI_Waitall(2, a, sts), MPI_SUCCESS);
    check_proc_null_status(&sts[1]);
    EXPECT(MPI_Request_free(&a[0]), MPI_SUCCESS);
    EXPECT(MPI_Request_free(&a[1]), MPI_SUCCESS);
}

/* ---- failed communications: MPI_ERR_TRUNCATE and MPI_ERR_IN_STATUS ---- */

enum { BIG = 20000 }; /* ints: past any eager limit */

/* Truncated receives from the partner on comm, completed by each single-request
 * call: the class comes back through comm's handler. */
static void truncated_on(MPI_Comm comm, int tag) {
    static int bigout[BIG], bigin[BIG];
    int out[8], in[8];
    MPI_Request s, r, a[2];
    MPI_Status st;
    int flag = 0, count = -1, idx = -1;
    for (int i = 0; i < 8; i++) out[i] = rank * 100 + i;
    for (int i = 0; i < BIG; i++) bigout[i] = rank + i;
    memset(bigin, 0, sizeof bigin);
    /* MPI_Wait, eager and rendezvous */
    memset(in, 0, sizeof in);
    EXPECT(MPI_Isend(out, 8, MPI_INT, partner, tag, comm, &s), MPI_SUCCESS);
    EXPECT(MPI_Irecv(in, 4, MPI_INT, partner, tag, comm, &r), MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, &st), MPI_ERR_TRUNCATE);
    EXPECT(MPI_Get_count(&st, MPI_INT, &count), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == partner && st.MPI_TAG == tag && count == 4);
    CHECK(in[0] == partner * 100 && in[3] == partner * 100 + 3 && in[4] == 0);
    EXPECT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT(MPI_Isend(bigout, BIG, MPI_INT, partner, tag + 1, comm, &s), MPI_SUCCESS);
    EXPECT(MPI_Irecv(bigin, 100, MPI_INT, partner, tag + 1, comm, &r), MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, &st), MPI_ERR_TRUNCATE);
    CHECK(bigin[0] == partner && bigin[99] == partner + 99 && bigin[100] == 0);
    EXPECT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* MPI_Test */
    EXPECT(MPI_Isend(bigout, BIG, MPI_INT, partner, tag + 2, comm, &s), MPI_SUCCESS);
    EXPECT(MPI_Irecv(bigin, 10, MPI_INT, partner, tag + 2, comm, &r), MPI_SUCCESS);
    int rc;
    do rc = MPI_Test(&r, &flag, &st);
    while (rc == MPI_SUCCESS && !flag);
    EXPECT(rc, MPI_ERR_TRUNCATE);
    CHECK(flag == 1 && r == MPI_REQUEST_NULL);
    EXPECT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* MPI_Waitany and MPI_Testany return the request's own class (MPI-3.1 3.7.3) */
    a[0] = MPI_REQUEST_NULL;
    EXPECT(MPI_Isend(out, 8, MPI_INT, partner, tag + 3, comm, &s), MPI_SUCCESS);
    EXPECT(MPI_Irecv(in, 2, MPI_INT, partner, tag + 3, comm, &a[1]), MPI_SUCCESS);
    EXPECT(MPI_Waitany(2, a, &idx, &st), MPI_ERR_TRUNCATE);
    CHECK(idx == 1 && a[1] == MPI_REQUEST_NULL);
    EXPECT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT(MPI_Isend(out, 8, MPI_INT, partner, tag + 4, comm, &s), MPI_SUCCESS);
    EXPECT(MPI_Irecv(in, 2, MPI_INT, partner, tag + 4, comm, &a[1]), MPI_SUCCESS);
    flag = 0;
    do rc = MPI_Testany(2, a, &idx, &flag, &st);
    while (rc == MPI_SUCCESS && !flag);
    EXPECT(rc, MPI_ERR_TRUNCATE);
    CHECK(flag == 1 && idx == 1 && a[1] == MPI_REQUEST_NULL);
    EXPECT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* the blocking receives: partner's eager sends are out before either receives */
    EXPECT(MPI_Send(out, 8, MPI_INT, partner, tag + 5, comm), MPI_SUCCESS);
    EXPECT(MPI_Recv(in, 4, MPI_INT, partner, tag + 5, comm, &st), MPI_ERR_TRUNCATE);
    CHECK(st.MPI_SOURCE == partner && st.MPI_TAG == tag + 5);
    EXPECT(MPI_Sendrecv(out, 8, MPI_INT, partner, tag + 6, in, 4, MPI_INT, partner, tag + 6, comm,
                        &st),
           MPI_ERR_TRUNCATE);
    /* a matched receive, whose errors go to the probe's communicator (MPI-3.1 3.8.3) */
    MPI_Message m;
    EXPECT(MPI_Isend(out, 8, MPI_INT, partner, tag + 7, comm, &s), MPI_SUCCESS);
    EXPECT(MPI_Mprobe(partner, tag + 7, comm, &m, &st), MPI_SUCCESS);
    EXPECT(MPI_Get_count(&st, MPI_INT, &count), MPI_SUCCESS);
    CHECK(count == 8);
    EXPECT(MPI_Mrecv(in, 4, MPI_INT, &m, &st), MPI_ERR_TRUNCATE);
    CHECK(m == MPI_MESSAGE_NULL && in[3] == partner * 100 + 3);
    EXPECT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
}

/* The array calls: MPI_ERR_IN_STATUS, each status saying how its request ended
 * (MPI-3.1 3.7.5). To self: both messages are there before the receives. */
static void in_status(void) {
    int out[8], ok[8], cut[2];
    MPI_Request s[2], a[3];
    MPI_Status sts[3];
    int flag = 0, outcount = -1, indices[3], rc;
    for (int i = 0; i < 8; i++) out[i] = rank * 10 + i;
    for (int round = 0; round < 4; round++) {
        int tag = 80 + 2 * round;
        EXPECT(MPI_Isend(out, 8, MPI_INT, rank, tag, MPI_COMM_WORLD, &s[0]), MPI_SUCCESS);
        EXPECT(MPI_Isend(out, 8, MPI_INT, rank, tag + 1, MPI_COMM_WORLD, &s[1]), MPI_SUCCESS);
        EXPECT(MPI_Irecv(ok, 8, MPI_INT, rank, tag, MPI_COMM_WORLD, &a[0]), MPI_SUCCESS);
        EXPECT(MPI_Irecv(cut, 2, MPI_INT, rank, tag + 1, MPI_COMM_WORLD, &a[1]), MPI_SUCCESS);
        a[2] = MPI_REQUEST_NULL;
        for (int i = 0; i < 3; i++) sts[i].MPI_ERROR = -1;
        if (round == 0) {
            EXPECT(MPI_Waitall(3, a, sts), MPI_ERR_IN_STATUS);
        } else if (round == 1) {
            do rc = MPI_Testall(3, a, &flag, sts);
            while (rc == MPI_SUCCESS && !flag);
            EXPECT(rc, MPI_ERR_IN_STATUS);
        }
        if (round < 2) {
            CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_ERR_TRUNCATE);
            CHECK(sts[0].MPI_TAG == tag && sts[1].MPI_TAG == tag + 1);
            check_empty_status(&sts[2]);
        } else { /* Waitsome, Testsome: until nothing is active */
            int seen = 0;
            for (;;) {
                rc = round == 2 ? MPI_Waitsome(3, a, &outcount, indices, sts)
                                : MPI_Testsome(3, a, &outcount, indices, sts);
                if (outcount == MPI_UNDEFINED) break;
                for (int k = 0; k < outcount; k++) {
                    CHECK(indices[k] == 0 || indices[k] == 1);
                    CHECK(sts[k].MPI_ERROR == (indices[k] == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS));
                    seen |= 1 << indices[k];
                }
                int has_cut = 0;
                for (int k = 0; k < outcount; k++) has_cut |= indices[k] == 1;
                EXPECT(rc, has_cut ? MPI_ERR_IN_STATUS : MPI_SUCCESS);
            }
            EXPECT(rc, MPI_SUCCESS);
            CHECK(seen == 3);
        }
        CHECK(a[0] == MPI_REQUEST_NULL && a[1] == MPI_REQUEST_NULL);
        CHECK(ok[7] == rank * 10 + 7 && cut[1] == rank * 10 + 1);
        EXPECT(MPI_Waitall(2, s, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    }
    /* with the statuses ignored, the class still says it (MPI-3.1 3.2.6) */
    EXPECT(MPI_Isend(out, 8, MPI_INT, rank, 90, MPI_COMM_WORLD, &s[0]), MPI_SUCCESS);
    EXPECT(MPI_Irecv(cut, 2, MPI_INT, rank, 90, MPI_COMM_WORLD, &a[0]), MPI_SUCCESS);
    EXPECT(MPI_Waitall(1, a, MPI_STATUSES_IGNORE), MPI_ERR_IN_STATUS);
    EXPECT(MPI_Wait(&s[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
}

/* ---- buffered sends ---- */

static void buffered(void) {
    static char pool[1024], other[256];
    char msg[100], big[2000], in[100];
    void *p = NULL;
    int n = -1, rc;
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < 100; i++) msg[i] = (char)(rank + i);
    memset(big, 1, sizeof big);
    EXPECT(MPI_Buffer_detach(NULL, &n), MPI_ERR_ARG);
    EXPECT(MPI_Buffer_detach(&p, NULL), MPI_ERR_ARG);
    /* nothing attached: as if a buffer of size 0 were (MPI-3.1 3.6) */
    EXPECT(MPI_Buffer_detach(&p, &n), MPI_SUCCESS);
    CHECK(p == NULL && n == 0);
    EXPECT(MPI_Bsend(msg, 10, MPI_CHAR, partner, 70, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Ibsend(msg, 10, MPI_CHAR, partner, 70, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER);
    CHECK(r == MPI_REQUEST_NULL);
    /* a persistent buffered send fails when started, or when completed */
    EXPECT(MPI_Bsend_init(msg, 10, MPI_CHAR, partner, 70, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    rc = MPI_Start(&r);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(rc, MPI_ERR_BUFFER);
    EXPECT(MPI_Request_free(&r), MPI_SUCCESS);

    EXPECT(MPI_Buffer_attach(NULL, 100), MPI_ERR_BUFFER);
    EXPECT(MPI_Buffer_attach(pool, -1), MPI_ERR_ARG);
    EXPECT(MPI_Buffer_attach(pool, (int)sizeof pool), MPI_SUCCESS);
    /* only one buffer at a time (MPI-3.1 3.6) */
    EXPECT(MPI_Buffer_attach(pool, (int)sizeof pool), MPI_ERR_BUFFER);
    EXPECT(MPI_Buffer_attach(other, (int)sizeof other), MPI_ERR_BUFFER);
    /* no room: more than the whole buffer */
    EXPECT(MPI_Bsend(big, (int)sizeof big, MPI_CHAR, partner, 71, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Ibsend(big, (int)sizeof big, MPI_CHAR, partner, 71, MPI_COMM_WORLD, &r),
           MPI_ERR_BUFFER);
    CHECK(r == MPI_REQUEST_NULL);
    EXPECT(MPI_Bsend_init(big, (int)sizeof big, MPI_CHAR, partner, 71, MPI_COMM_WORLD, &r),
           MPI_SUCCESS);
    rc = MPI_Start(&r);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    EXPECT(rc, MPI_ERR_BUFFER);
    EXPECT(MPI_Request_free(&r), MPI_SUCCESS);
    /* what fits goes out, and arrives */
    EXPECT(MPI_Bsend(msg, 100, MPI_CHAR, partner, 72, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT(MPI_Ibsend(msg, 50, MPI_CHAR, partner, 73, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT(MPI_Recv(in, 100, MPI_CHAR, partner, 72, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
           MPI_SUCCESS);
    for (int i = 0; i < 100; i++) CHECK(in[i] == (char)(partner + i));
    EXPECT(MPI_Recv(in, 100, MPI_CHAR, partner, 73, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
           MPI_SUCCESS);
    CHECK(in[49] == (char)(partner + 49));
    EXPECT(MPI_Buffer_detach(&p, &n), MPI_SUCCESS);
    CHECK(p == pool && n == (int)sizeof pool);
    /* detached: none again */
    EXPECT(MPI_Bsend(msg, 1, MPI_CHAR, partner, 74, MPI_COMM_WORLD), MPI_ERR_BUFFER);
}

/* ---- MPI_ERRORS_RETURN on a duplicate only, MPI_COMM_WORLD fatal ---- */

static void errors_return_on_duplicate(void) {
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    MPI_Request r = MPI_REQUEST_NULL, s;
    MPI_Status st;
    MPI_Message m;
    int v = 0, out[2] = {rank, -rank}, in[2] = {0};
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL), MPI_SUCCESS);
    EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    EXPECT(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN), MPI_SUCCESS);
    EXPECT(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h), MPI_SUCCESS);
    CHECK(h == MPI_ERRORS_ARE_FATAL);
    EXPECT(MPI_Comm_get_errhandler(d, &h), MPI_SUCCESS);
    CHECK(h == MPI_ERRORS_RETURN);
    /* argument errors on d */
    EXPECT(MPI_Send(&v, 1, MPI_INT, size, 0, d), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(&v, 1, MPI_INT, 0, -7, d, &r), MPI_ERR_TAG);
    EXPECT(MPI_Isend(&v, -1, MPI_INT, 0, 0, d, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Iprobe(-3, 0, d, &v, &st), MPI_ERR_RANK);
    EXPECT(MPI_Comm_rank(d, NULL), MPI_ERR_ARG);
    /* failed communications on d: MPI_ERR_TRUNCATE back, the job goes on */
    truncated_on(d, 10);
    exchange_on(d, 30);
    /* A bad count for a message matched on d: MPI-3.1 3.8.3 has every error of
     * MPI_MRECV handled by the error handler of the communicator of its matching
     * probe, d here, so the class must come back. */
    EXPECT(MPI_Isend(out, 2, MPI_INT, partner, 31, d, &s), MPI_SUCCESS);
    EXPECT(MPI_Mprobe(partner, 31, d, &m, &st), MPI_SUCCESS);
    EXPECT(MPI_Mrecv(in, -1, MPI_INT, &m, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Mrecv(in, 2, MPI_INT, &m, &st), MPI_SUCCESS);
    CHECK(in[0] == partner && in[1] == -partner);
    EXPECT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT(MPI_Comm_free(&d), MPI_SUCCESS);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
}

/* ---- the end: a real exchange between 0 and 1, then MPI_Finalize ---- */

static void final_exchange(void) {
    static int out[BIG], in[BIG];
    int small_out[3], small_in[3] = {0}, count = -1;
    if (rank > 1) return;
    int peer = 1 - rank;
    for (int i = 0; i < BIG; i++) out[i] = rank * BIG + i;
    for (int i = 0; i < 3; i++) small_out[i] = 7 * rank + i;
    MPI_Request r[4];
    MPI_Status st[4];
    EXPECT(MPI_Irecv(in, BIG, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
    EXPECT(MPI_Irecv(small_in, 3, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
    EXPECT(MPI_Isend(out, BIG, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[2]), MPI_SUCCESS);
    EXPECT(MPI_Isend(small_out, 3, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[3]), MPI_SUCCESS);
    EXPECT(MPI_Waitall(4, r, st), MPI_SUCCESS);
    for (int i = 0; i < BIG; i++) CHECK(in[i] == peer * BIG + i);
    for (int i = 0; i < 3; i++) CHECK(small_in[i] == 7 * peer + i);
    EXPECT(MPI_Get_count(&st[0], MPI_INT, &count), MPI_SUCCESS);
    CHECK(count == BIG && st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 1);
    EXPECT(MPI_Get_count(&st[1], MPI_INT, &count), MPI_SUCCESS);
    CHECK(count == 3 && st[1].MPI_SOURCE == peer && st[1].MPI_TAG == 2);
}

int main(int argc, char **argv) {
    int flag = 0, v = 0, sv = 0;
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS);
    CHECK(size >= 2);
    partner = (rank ^ 1) < size ? rank ^ 1 : rank;
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    environment();
    still_works(1);
    communicators();
    still_works(2);
    status_fields();
    datatypes();
    still_works(3);
    sends();
    still_works(4);
    receives();
    still_works(5);
    probes();
    still_works(6);
    requests();
    still_works(7);
    truncated_on(MPI_COMM_WORLD, 100);
    in_status();
    still_works(8);
    buffered();
    still_works(9);
    errors_return_on_duplicate();
    still_works(10);
    final_exchange();
    EXPECT(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT(MPI_Finalize(), MPI_SUCCESS);
    /* after MPI_Finalize only the version and state queries are allowed (MPI-3.1 8.7) */
    EXPECT(MPI_Finalized(&flag), MPI_SUCCESS);
    CHECK(flag == 1);
    EXPECT(MPI_Initialized(&flag), MPI_SUCCESS);
    CHECK(flag == 1);
    EXPECT(MPI_Get_version(&v, &sv), MPI_SUCCESS);
    EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, &v), MPI_ERR_OTHER);
    EXPECT(MPI_Finalize(), MPI_ERR_OTHER);
    if (rank == 0) printf("errors: all checks passed on %d ranks\n", size);
    return 0;
}
