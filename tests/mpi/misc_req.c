/* Generalized requests (their query, free and cancel callbacks called as MPI-3.1
 * section 12.2 says, through every completion call), the status setters, handle
 * and status conversion to Fortran and back, MPI_Query_thread, MPI_Is_thread_main
 * and MPI_Pcontrol. */
#include <pthread.h>

#include "mpi_check.h"

typedef struct state {
    int id;
    int queries, frees, cancels, last_complete;
    int query_error; /* what the query callback returns */
    int free_error;
} state_t;

static int query_fn(void *extra, MPI_Status *status) {
    state_t *s = extra;
    s->queries++;
    CHECK(status != MPI_STATUS_IGNORE); /* MPI hands it a real status, always */
    status->MPI_SOURCE = 100 + s->id;
    status->MPI_TAG = 200 + s->id;
    CHECK(MPI_Status_set_elements(status, MPI_INT, s->id) == MPI_SUCCESS);
    CHECK(MPI_Status_set_cancelled(status, s->cancels > 0) == MPI_SUCCESS);
    return s->query_error;
}

static int free_fn(void *extra) {
    state_t *s = extra;
    s->frees++;
    return s->free_error;
}

static int cancel_fn(void *extra, int complete) {
    state_t *s = extra;
    s->cancels++;
    s->last_complete = complete;
    return MPI_SUCCESS;
}

static MPI_Request start(state_t *s, int id) {
    *s = (state_t){.id = id};
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &r) == MPI_SUCCESS);
    CHECK(r != MPI_REQUEST_NULL);
    return r;
}

static void grequests(void) {
    state_t a, b, c;
    MPI_Status st;
    int flag, count, index;

    /* Test before completion: nothing called; Wait after: query, then free */
    MPI_Request r = start(&a, 3);
    CHECK(MPI_Test(&r, &flag, &st) == MPI_SUCCESS && !flag && r != MPI_REQUEST_NULL);
    CHECK(MPI_Request_get_status(r, &flag, &st) == MPI_SUCCESS && !flag);
    CHECK(a.queries == 0 && a.frees == 0);
    CHECK(MPI_Grequest_complete(r) == MPI_SUCCESS);
    CHECK(MPI_Grequest_complete(r) == MPI_ERR_REQUEST); /* once only */
    CHECK(MPI_Request_get_status(r, &flag, &st) == MPI_SUCCESS && flag);
    CHECK(a.queries == 1 && a.frees == 0 && st.MPI_SOURCE == 103 && st.MPI_TAG == 203);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    CHECK(a.queries == 2 && a.frees == 1);
    CHECK(st.MPI_SOURCE == 103 && st.MPI_TAG == 203);
    CHECK(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 3);
    CHECK(MPI_Get_elements(&st, MPI_INT, &count) == MPI_SUCCESS && count == 3);
    CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && !flag);

    /* MPI_STATUS_IGNORE: the query still runs, on a status of MPI's */
    r = start(&a, 1);
    CHECK(MPI_Grequest_complete(r) == MPI_SUCCESS);
    CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag && r == MPI_REQUEST_NULL);
    CHECK(a.queries == 1 && a.frees == 1);

    /* MPI_Request_free before completion: free runs at MPI_Grequest_complete, query never */
    r = start(&a, 2);
    MPI_Request keep = r;
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
    CHECK(a.frees == 0);
    CHECK(MPI_Grequest_complete(keep) == MPI_SUCCESS);
    CHECK(a.frees == 1 && a.queries == 0);
    /* ... and after completion: at once */
    r = start(&a, 2);
    CHECK(MPI_Grequest_complete(r) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS && a.frees == 1 && a.queries == 0);

    /* cancel: the callback is told whether the request is complete */
    r = start(&a, 4);
    CHECK(MPI_Cancel(&r) == MPI_SUCCESS && a.cancels == 1 && a.last_complete == 0);
    CHECK(MPI_Grequest_complete(r) == MPI_SUCCESS);
    CHECK(MPI_Cancel(&r) == MPI_SUCCESS && a.cancels == 2 && a.last_complete == 1);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && a.frees == 1);
    CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && flag);

    /* among other requests: Waitall, Testany, Waitsome, Testall */
    MPI_Request rs[3];
    MPI_Status sts[3];
    rs[0] = start(&a, 5);
    rs[1] = MPI_REQUEST_NULL;
    rs[2] = start(&b, 6);
    CHECK(MPI_Testall(3, rs, &flag, sts) == MPI_SUCCESS && !flag);
    CHECK(MPI_Testany(3, rs, &index, &flag, &st) == MPI_SUCCESS && !flag);
    CHECK(MPI_Grequest_complete(rs[2]) == MPI_SUCCESS);
    CHECK(MPI_Testany(3, rs, &index, &flag, &st) == MPI_SUCCESS && flag && index == 2);
    CHECK(rs[2] == MPI_REQUEST_NULL && b.queries == 1 && b.frees == 1 && st.MPI_TAG == 206);
    CHECK(MPI_Grequest_complete(rs[0]) == MPI_SUCCESS);
    int outcount, indices[3];
    CHECK(MPI_Waitsome(3, rs, &outcount, indices, sts) == MPI_SUCCESS);
    CHECK(outcount == 1 && indices[0] == 0 && sts[0].MPI_TAG == 205 && a.frees == 1);
    rs[0] = start(&a, 7);
    rs[1] = start(&b, 8);
    rs[2] = start(&c, 9);
    for (int k = 2; k >= 0; k--) CHECK(MPI_Grequest_complete(rs[k]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(3, rs, sts) == MPI_SUCCESS);
    CHECK(sts[0].MPI_TAG == 207 && sts[1].MPI_TAG == 208 && sts[2].MPI_TAG == 209);
    CHECK(a.frees == 1 && b.frees == 1 && c.frees == 1);

    /* the query callback's error is the request's; MPI_ERR_IN_STATUS among many */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    r = start(&a, 1);
    a.query_error = MPI_ERR_TAG;
    CHECK(MPI_Grequest_complete(r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, &st) == MPI_ERR_TAG && a.frees == 1 && r == MPI_REQUEST_NULL);
    rs[0] = start(&a, 1);
    rs[1] = start(&b, 2);
    b.query_error = MPI_ERR_OTHER;
    CHECK(MPI_Grequest_complete(rs[0]) == MPI_SUCCESS);
    CHECK(MPI_Grequest_complete(rs[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, rs, sts) == MPI_ERR_IN_STATUS);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_ERR_OTHER);
    CHECK(a.frees == 1 && b.frees == 1);
    /* the free callback's error, when the query succeeded */
    r = start(&a, 1);
    a.free_error = MPI_ERR_BUFFER;
    CHECK(MPI_Grequest_complete(r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, &st) == MPI_ERR_BUFFER);

    /* bad arguments */
    CHECK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &a, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Grequest_start(NULL, free_fn, cancel_fn, &a, &r) == MPI_ERR_ARG);
    CHECK(MPI_Grequest_complete(MPI_REQUEST_NULL) == MPI_ERR_REQUEST);
    CHECK(MPI_Grequest_complete(MPI_Request_f2c(0x2c00fff0)) == MPI_ERR_REQUEST);
    int x = 0;
    CHECK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    if (r != MPI_REQUEST_NULL) {
        CHECK(MPI_Grequest_complete(r) == MPI_ERR_REQUEST); /* not a generalized one */
        CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
    }
}

static void statuses(void) {
    MPI_Status st;
    int count;
    MPI_Count cx;
    CHECK(MPI_Status_set_elements(&st, MPI_DOUBLE, 5) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_DOUBLE, &count) == MPI_SUCCESS && count == 5);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == 40);
    CHECK(MPI_Status_set_elements_x(&st, MPI_CHAR, (MPI_Count)5 << 31) == MPI_SUCCESS);
    CHECK(MPI_Get_elements_x(&st, MPI_CHAR, &cx) == MPI_SUCCESS && cx == (MPI_Count)5 << 31);
    CHECK(MPI_Get_count(&st, MPI_CHAR, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
    /* a derived type of mixed elements: whole items, and a part of one */
    MPI_Datatype t;
    int lens[2] = {2, 1};
    MPI_Aint disps[2] = {0, 16};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    CHECK(MPI_Type_create_struct(2, lens, disps, types, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    CHECK(MPI_Status_set_elements(&st, t, 6) == MPI_SUCCESS); /* two whole items */
    CHECK(MPI_Get_count(&st, t, &count) == MPI_SUCCESS && count == 2);
    CHECK(MPI_Get_elements(&st, t, &count) == MPI_SUCCESS && count == 6);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == 32);
    CHECK(MPI_Status_set_elements(&st, t, 8) == MPI_SUCCESS); /* two items and two ints */
    CHECK(MPI_Get_count(&st, t, &count) == MPI_SUCCESS && count == MPI_UNDEFINED);
    CHECK(MPI_Get_elements(&st, t, &count) == MPI_SUCCESS && count == 8);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == 40);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    /* a pair type counts two elements an item */
    CHECK(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 4) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_DOUBLE_INT, &count) == MPI_SUCCESS && count == 2);
    CHECK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &count) == MPI_SUCCESS && count == 4);
    int flag;
    CHECK(MPI_Status_set_cancelled(&st, 1) == MPI_SUCCESS);
    CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && flag);
    CHECK(MPI_Status_set_cancelled(&st, 0) == MPI_SUCCESS);
    CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && !flag);
    /* bad arguments */
    CHECK(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1) == MPI_ERR_TYPE);
    CHECK(MPI_Status_set_elements(&st, MPI_INT, -1) == MPI_ERR_COUNT);
    CHECK(MPI_Status_set_elements(MPI_STATUS_IGNORE, MPI_INT, 1) == MPI_ERR_ARG);
    CHECK(MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)1 << 62) == MPI_ERR_COUNT);
    CHECK(MPI_Status_set_cancelled(NULL, 1) == MPI_ERR_ARG);
}

static void no_op(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)in, (void)inout, (void)len, (void)type;
}

static void no_handler(MPI_Comm *comm, int *code, ...) {
    (void)comm, (void)code;
}

static void conversions(void) {
    /* every kind of handle, predefined, made and null, round trips */
    MPI_Comm dup;
    MPI_Group g;
    MPI_Datatype t;
    MPI_Op op;
    MPI_Win w;
    MPI_Errhandler eh;
    MPI_Request req;
    int mem;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_group(dup, &g) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Op_create(no_op, 1, &op) == MPI_SUCCESS);
    CHECK(MPI_Win_create(&mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(no_handler, &eh) == MPI_SUCCESS);
    CHECK(MPI_Irecv(&mem, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    MPI_Comm comms[] = {MPI_COMM_WORLD, MPI_COMM_SELF, MPI_COMM_NULL, dup};
    for (int k = 0; k < 4; k++) CHECK(MPI_Comm_f2c(MPI_Comm_c2f(comms[k])) == comms[k]);
    MPI_Fint fdup = MPI_Comm_c2f(dup);
    int size2 = 0;
    CHECK(MPI_Comm_size(MPI_Comm_f2c(fdup), &size2) == MPI_SUCCESS && size2 == size);
    MPI_Group groups[] = {MPI_GROUP_EMPTY, MPI_GROUP_NULL, g};
    for (int k = 0; k < 3; k++) CHECK(MPI_Group_f2c(MPI_Group_c2f(groups[k])) == groups[k]);
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE_INT, MPI_DATATYPE_NULL, t};
    for (int k = 0; k < 4; k++) CHECK(MPI_Type_f2c(MPI_Type_c2f(types[k])) == types[k]);
    int tsize = 0;
    CHECK(MPI_Type_size(MPI_Type_f2c(MPI_Type_c2f(t)), &tsize) == MPI_SUCCESS && tsize == 8);
    MPI_Op ops[] = {MPI_SUM, MPI_OP_NULL, op};
    for (int k = 0; k < 3; k++) CHECK(MPI_Op_f2c(MPI_Op_c2f(ops[k])) == ops[k]);
    MPI_Win wins[] = {MPI_WIN_NULL, w};
    for (int k = 0; k < 2; k++) CHECK(MPI_Win_f2c(MPI_Win_c2f(wins[k])) == wins[k]);
    MPI_Errhandler ehs[] = {MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL, MPI_ERRHANDLER_NULL, eh};
    for (int k = 0; k < 4; k++) CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(ehs[k])) == ehs[k]);
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
    CHECK(MPI_Request_f2c(MPI_Request_c2f(req)) == req);
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL);
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL);
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC);
    CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL);

    /* a converted request completes as the original */
    int payload = 77;
    CHECK(MPI_Send(&payload, 1, MPI_INT, rank, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
    MPI_Request back = MPI_Request_f2c(MPI_Request_c2f(req));
    MPI_Status st;
    CHECK(MPI_Wait(&back, &st) == MPI_SUCCESS && st.MPI_TAG == 5 && mem == 77);

    /* garbage from Fortran: refused, no crash */
    MPI_Fint garbage[] = {
        0,          1,          -1,         12345,      0x7fffffff, (MPI_Fint)0x80000000,
        0x44ffffff, 0x8cffffff, 0x2cffffff, 0xa8000fff, 0x48ffffff};
    for (size_t k = 0; k < sizeof garbage / sizeof *garbage; k++) {
        MPI_Fint f = garbage[k];
        int n, flag;
        MPI_Aint lb, ext;
        MPI_Group gg;
        MPI_Errhandler e2;
        MPI_Request rq = MPI_Request_f2c(f);
        CHECK(MPI_Comm_size(MPI_Comm_f2c(f), &n) == MPI_ERR_COMM);
        CHECK(MPI_Type_get_extent(MPI_Type_f2c(f), &lb, &ext) == MPI_ERR_TYPE);
        CHECK(MPI_Group_size(MPI_Group_f2c(f), &n) == MPI_ERR_GROUP);
        CHECK(MPI_Op_commutative(MPI_Op_f2c(f), &flag) == MPI_ERR_OP);
        CHECK(MPI_Win_get_group(MPI_Win_f2c(f), &gg) == MPI_ERR_WIN);
        CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_Errhandler_f2c(f)) == MPI_ERR_ARG);
        e2 = MPI_Errhandler_f2c(f);
        CHECK(MPI_Errhandler_free(&e2) == MPI_ERR_ARG);
        CHECK(MPI_Test(&rq, &flag, &st) == MPI_ERR_REQUEST);
        CHECK(MPI_File_call_errhandler(MPI_File_f2c(f), MPI_ERR_IO) == MPI_ERR_FILE);
        if (f != (MPI_Fint)MPI_MESSAGE_NO_PROC) {
            MPI_Message m = MPI_Message_f2c(f);
            CHECK(MPI_Mrecv(&n, 1, MPI_INT, &m, &st) == MPI_ERR_REQUEST);
        }
    }
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    CHECK(MPI_Group_free(&g) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);

    /* statuses: to Fortran and back, field by field */
    MPI_Status s1, s2;
    memset(&s1, 0, sizeof s1);
    s1.MPI_SOURCE = 3;
    s1.MPI_TAG = 44;
    s1.MPI_ERROR = MPI_ERR_TRUNCATE;
    CHECK(MPI_Status_set_elements_x(&s1, MPI_BYTE, ((MPI_Count)3 << 32) + 9) == MPI_SUCCESS);
    CHECK(MPI_Status_set_cancelled(&s1, 1) == MPI_SUCCESS);
    MPI_Fint f[sizeof(MPI_Status) / sizeof(MPI_Fint)];
    CHECK(MPI_Status_c2f(&s1, f) == MPI_SUCCESS);
    CHECK(f[0] == 3 && f[1] == 44 && f[2] == MPI_ERR_TRUNCATE);
    memset(&s2, 0xff, sizeof s2);
    CHECK(MPI_Status_f2c(f, &s2) == MPI_SUCCESS);
    CHECK(s2.MPI_SOURCE == 3 && s2.MPI_TAG == 44 && s2.MPI_ERROR == MPI_ERR_TRUNCATE);
    MPI_Count cx_out = 0;
    CHECK(MPI_Get_elements_x(&s2, MPI_BYTE, &cx_out) == MPI_SUCCESS);
    CHECK(cx_out == ((MPI_Count)3 << 32) + 9);
    int flag;
    CHECK(MPI_Test_cancelled(&s2, &flag) == MPI_SUCCESS && flag);
    MPI_F08_status f08;
    memset(&s2, 0xff, sizeof s2);
    CHECK(MPI_Status_c2f08(&s1, &f08) == MPI_SUCCESS);
    CHECK(f08.MPI_SOURCE == 3 && f08.MPI_TAG == 44 && f08.MPI_ERROR == MPI_ERR_TRUNCATE);
    CHECK(MPI_Status_f082c(&f08, &s2) == MPI_SUCCESS && !memcmp(&s1, &s2, sizeof s1));
    CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, f) == MPI_ERR_ARG);
    CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &s2) == MPI_ERR_ARG);
    CHECK(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &s2) == MPI_ERR_ARG);
    CHECK(MPI_Status_c2f08(&s1, MPI_F08_STATUS_IGNORE) == MPI_ERR_ARG);
    CHECK(MPI_Status_f082c(MPI_F08_STATUSES_IGNORE, &s2) == MPI_ERR_ARG);
}

static void *other_thread(void *arg) {
    int *flag = arg;
    CHECK(MPI_Is_thread_main(flag) == MPI_SUCCESS);
    return NULL;
}

static void threads(int provided) {
    int level = -1, flag = 0;
    CHECK(MPI_Query_thread(&level) == MPI_SUCCESS && level == provided);
    CHECK(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag == 1);
    pthread_t t;
    flag = -1;
    CHECK(pthread_create(&t, NULL, other_thread, &flag) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(flag == 0);
    CHECK(MPI_Query_thread(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Is_thread_main(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Pcontrol(0) == MPI_SUCCESS && MPI_Pcontrol(1) == MPI_SUCCESS);
    CHECK(MPI_Pcontrol(2, "extra", 3) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    int provided = -1;
    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS);
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    grequests();
    statuses();
    conversions();
    threads(provided);
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    return 0;
}
