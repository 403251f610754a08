/* The rest of MPI-4.0 and 4.1: pair exchanges, idup with info, info objects of the
 * environment and strings, errors removed, status fields, request statuses that
 * free nothing, pair types, hardware-guided splits, buffers of communicators, the
 * names of null handles and MPI_Win_shared_query on every flavor.
 * "abort-self" / "abort-world": MPI_ERRORS_ABORT on that communicator ends the job
 * with the error class (mpi41.cmake checks the status). */
#include <stdint.h>

#include "mpi_check.h"

static void test_isendrecv(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[64], in[64];
    for (int k = 0; k < 64; k++) out[k] = rank * 1000 + k, in[k] = -1;
    MPI_Request r;
    CHECK(MPI_Isendrecv(out, 64, MPI_INT, right, 7, in, 64, MPI_INT, left, 7, MPI_COMM_WORLD, &r) ==
          MPI_SUCCESS);
    MPI_Status st;
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    int n;
    CHECK(MPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS && n == 64);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7);
    for (int k = 0; k < 64; k++) CHECK(in[k] == left * 1000 + k);

    /* a large one (rendezvous) in place, with a derived type: the reply lands where the
     * data left from, and the data sent is what was there at the call */
    enum { N = 1 << 17 };
    int *buf = malloc(2 * N * sizeof *buf);
    CHECK(buf != NULL);
    for (int k = 0; k < 2 * N; k++) buf[k] = k % 2 ? -7 : rank * 3 + k;
    MPI_Datatype every_other;
    CHECK(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&every_other) == MPI_SUCCESS);
    CHECK(MPI_Isendrecv_replace(buf, 1, every_other, right, 9, left, 9, MPI_COMM_WORLD, &r) ==
          MPI_SUCCESS);
    for (int k = 0; k < 2 * N; k += 2) buf[k + 1] = -8; /* only the gaps: the type skips them */
    int flag = 0;
    while (!flag) CHECK(MPI_Test(&r, &flag, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 9);
    CHECK(MPI_Get_count(&st, every_other, &n) == MPI_SUCCESS && n == 1);
    for (int k = 0; k < 2 * N; k++) CHECK(buf[k] == (k % 2 ? -8 : left * 3 + k));
    CHECK(MPI_Type_free(&every_other) == MPI_SUCCESS);
    free(buf);

    /* MPI_PROC_NULL on both sides: complete, with the empty status of MPI_PROC_NULL */
    CHECK(MPI_Isendrecv(out, 1, MPI_INT, MPI_PROC_NULL, 0, in, 1, MPI_INT, MPI_PROC_NULL, 0,
                        MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    /* freed while running: still delivered (the buffers outlive it); the barrier's
     * messages cannot overtake it, so once a second pair has completed... */
    static int freed_out[4], freed_in[4];
    for (int k = 0; k < 4; k++) freed_out[k] = rank + k, freed_in[k] = -1;
    CHECK(MPI_Isendrecv(freed_out, 4, MPI_INT, right, 8, freed_in, 4, MPI_INT, left, 8,
                        MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
    /* ... a probe for a later message on the same tag from the same peer finds it:
     * the freed receive took the first one, in order */
    CHECK(MPI_Sendrecv(out, 1, MPI_INT, right, 8, in, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &st) ==
          MPI_SUCCESS);
    CHECK(in[0] == left * 1000);

    /* bad input: the right class, nothing started */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Isendrecv(out, 1, MPI_INT, size, 0, in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r) ==
          MPI_ERR_RANK);
    CHECK(MPI_Isendrecv(out, 1, MPI_INT, right, -5, in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r) ==
          MPI_ERR_TAG);
    CHECK(MPI_Isendrecv(out, -1, MPI_INT, right, 0, in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r) ==
          MPI_ERR_COUNT);
    CHECK(MPI_Isendrecv_replace(out, 1, MPI_INT, right, 0, left, 0, MPI_COMM_NULL, &r) ==
          MPI_ERR_COMM);
    CHECK(MPI_Isendrecv(out, 1, MPI_INT, right, 0, in, 1, MPI_INT, left, 0, MPI_COMM_WORLD, NULL) ==
          MPI_ERR_REQUEST);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_idup_with_info(void) {
    MPI_Info info;
    CHECK(MPI_Info_create(&info) == MPI_SUCCESS);
    CHECK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true") == MPI_SUCCESS);
    CHECK(MPI_Info_set(info, "not_a_hint_we_know", "1") == MPI_SUCCESS);
    MPI_Comm dup;
    MPI_Request r;
    CHECK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &dup, &r) == MPI_SUCCESS);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS); /* the hints were read at the call */
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    int n, result;
    CHECK(MPI_Comm_size(dup, &n) == MPI_SUCCESS && n == size);
    CHECK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
    MPI_Info used;
    CHECK(MPI_Comm_get_info(dup, &used) == MPI_SUCCESS);
    char v[MPI_MAX_INFO_VAL + 1];
    int len = sizeof v, flag;
    CHECK(MPI_Info_get_string(used, "mpi_assert_no_any_tag", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag && !strcmp(v, "true"));
    len = sizeof v;
    CHECK(MPI_Info_get_string(used, "not_a_hint_we_know", &len, v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Info_free(&used) == MPI_SUCCESS);
    int x = rank, sum = 0;
    CHECK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS);
    CHECK(sum == size * (size - 1) / 2);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, (MPI_Info)0x5c00ffff, &dup, &r) == MPI_ERR_INFO);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static MPI_Info early; /* MPI_Info_create_env's object, made before MPI_Init */
static int early_argc;
static char **early_argv;

static void test_info(void) {
    char *args[] = {"prog", "one", "two words", NULL};
    MPI_Info env;
    CHECK(MPI_Info_create_env(3, args, &env) == MPI_SUCCESS);
    char v[MPI_MAX_INFO_VAL + 1];
    int len = sizeof v, flag;
    CHECK(MPI_Info_get_string(env, "command", &len, v, &flag) == MPI_SUCCESS && flag);
    CHECK(!strcmp(v, "prog") && len == 5);
    len = sizeof v;
    CHECK(MPI_Info_get_string(env, "argv", &len, v, &flag) == MPI_SUCCESS && flag);
    CHECK(!strcmp(v, "one two words"));
    len = sizeof v;
    CHECK(MPI_Info_get_string(env, "maxprocs", &len, v, &flag) == MPI_SUCCESS && flag);
    CHECK(atoi(v) == size);
    const char *known[] = {"soft", "host", "arch", "wdir"};
    for (int k = 0; k < 4; k++) {
        len = sizeof v;
        CHECK(MPI_Info_get_string(env, known[k], &len, v, &flag) == MPI_SUCCESS && flag);
    }
    /* the level provided is MPI_INFO_ENV's, not the object's: it would differ before
     * MPI_Init from after */
    len = sizeof v;
    CHECK(MPI_Info_get_string(env, "thread_level", &len, v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Info_free(&env) == MPI_SUCCESS);
    /* made before MPI_Init from the same command line: the same keys and values */
    CHECK(MPI_Info_create_env(early_argc, early_argv, &env) == MPI_SUCCESS);
    int n_early, n_now;
    CHECK(MPI_Info_get_nkeys(early, &n_early) == MPI_SUCCESS);
    CHECK(MPI_Info_get_nkeys(env, &n_now) == MPI_SUCCESS && n_now == n_early && n_now >= 6);
    for (int k = 0; k < n_now; k++) {
        char key[MPI_MAX_INFO_KEY + 1], was[MPI_MAX_INFO_VAL + 1];
        int was_len = sizeof was, was_flag;
        CHECK(MPI_Info_get_nthkey(env, k, key) == MPI_SUCCESS);
        len = sizeof v;
        CHECK(MPI_Info_get_string(env, key, &len, v, &flag) == MPI_SUCCESS && flag);
        CHECK(MPI_Info_get_string(early, key, &was_len, was, &was_flag) == MPI_SUCCESS);
        CHECK(was_flag && !strcmp(v, was));
    }
    CHECK(MPI_Info_free(&env) == MPI_SUCCESS);
    /* argc 0, argv NULL: the process's own command line */
    CHECK(MPI_Info_create_env(0, NULL, &env) == MPI_SUCCESS);
    len = sizeof v;
    CHECK(MPI_Info_get_string(env, "command", &len, v, &flag) == MPI_SUCCESS && flag);
    CHECK(strstr(v, "mpi_mpi41") != NULL);
    CHECK(MPI_Info_free(&env) == MPI_SUCCESS);

    /* MPI_Info_get_string: buflen in and out, truncation, absent keys */
    MPI_Info info;
    CHECK(MPI_Info_create(&info) == MPI_SUCCESS);
    CHECK(MPI_Info_set(info, "k", "hello") == MPI_SUCCESS);
    char small[3] = "xx";
    len = 3;
    CHECK(MPI_Info_get_string(info, "k", &len, small, &flag) == MPI_SUCCESS);
    CHECK(flag && len == 6 && !strcmp(small, "he"));
    len = 0;
    CHECK(MPI_Info_get_string(info, "k", &len, NULL, &flag) == MPI_SUCCESS && flag && len == 6);
    len = 5;
    CHECK(MPI_Info_get_string(info, "absent", &len, small, &flag) == MPI_SUCCESS);
    CHECK(!flag && len == 5);
    /* the deprecated calls still answer */
    CHECK(MPI_Info_get_valuelen(info, "k", &len, &flag) == MPI_SUCCESS && flag && len == 5);
    CHECK(MPI_Info_get(info, "k", 2, v, &flag) == MPI_SUCCESS && flag && !strcmp(v, "he"));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    len = -1;
    CHECK(MPI_Info_get_string(info, "k", &len, v, &flag) == MPI_ERR_ARG);
    len = 4;
    CHECK(MPI_Info_get_string(info, "", &len, v, &flag) == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_get_string(MPI_INFO_NULL, "k", &len, v, &flag) == MPI_ERR_INFO);
    CHECK(MPI_Info_create_env(-1, NULL, &env) == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS);
}

static void test_errors_removed(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, code, ec;
    CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS);
    CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(code, "my code") == MPI_SUCCESS);
    CHECK(MPI_Remove_error_class(cls) == MPI_ERR_OTHER); /* it has a code */
    CHECK(MPI_Remove_error_code(code) == MPI_ERR_OTHER); /* it has a string */
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS);
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS); /* nothing left to remove */
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS);
    CHECK(MPI_Remove_error_code(code) == MPI_ERR_ARG); /* gone */
    CHECK(MPI_Error_class(code, &ec) != MPI_SUCCESS);
    CHECK(MPI_Remove_error_code(cls) == MPI_ERR_ARG); /* a class, not a code */
    CHECK(MPI_Remove_error_class(cls) == MPI_SUCCESS);
    CHECK(MPI_Add_error_code(cls, &code) == MPI_ERR_ARG);      /* no class any more */
    CHECK(MPI_Remove_error_class(MPI_ERR_ARG) == MPI_ERR_ARG); /* predefined */
    CHECK(MPI_Remove_error_string(MPI_ERR_ARG) == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_status(void) {
    MPI_Status st;
    int v;
    CHECK(MPI_Status_set_source(&st, 3) == MPI_SUCCESS);
    CHECK(MPI_Status_set_tag(&st, 4) == MPI_SUCCESS);
    CHECK(MPI_Status_set_error(&st, MPI_ERR_TAG) == MPI_SUCCESS);
    CHECK(MPI_Status_set_elements(&st, MPI_INT, 5) == MPI_SUCCESS);
    CHECK(MPI_Status_get_source(&st, &v) == MPI_SUCCESS && v == 3 && st.MPI_SOURCE == 3);
    CHECK(MPI_Status_get_tag(&st, &v) == MPI_SUCCESS && v == 4);
    CHECK(MPI_Status_get_error(&st, &v) == MPI_SUCCESS && v == MPI_ERR_TAG);
    CHECK(MPI_Get_count(&st, MPI_INT, &v) == MPI_SUCCESS && v == 5); /* untouched */
    MPI_F08_status f08, back08;
    MPI_Fint f[sizeof(MPI_Status) / sizeof(MPI_Fint)];
    MPI_Status back;
    CHECK(MPI_Status_c2f08(&st, &f08) == MPI_SUCCESS);
    CHECK(MPI_Status_f082f(&f08, f) == MPI_SUCCESS);
    CHECK(MPI_Status_f2f08(f, &back08) == MPI_SUCCESS);
    CHECK(MPI_Status_f082c(&back08, &back) == MPI_SUCCESS);
    CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 4 && back.MPI_ERROR == MPI_ERR_TAG);
    CHECK(MPI_F_STATUS_SIZE == sizeof f / sizeof *f);
    CHECK(f[MPI_F_SOURCE] == 3 && f[MPI_F_TAG] == 4 && f[MPI_F_ERROR] == MPI_ERR_TAG);
    /* the new classes are classes */
    int cls;
    CHECK(MPI_Error_class(MPI_ERR_ERRHANDLER, &cls) == MPI_SUCCESS && cls == MPI_ERR_ERRHANDLER);
    CHECK(MPI_Error_class(MPI_ERR_VALUE_TOO_LARGE, &cls) == MPI_SUCCESS);
    CHECK(MPI_Error_class(MPI_ERR_PROC_ABORTED, &cls) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&back, MPI_INT, &v) == MPI_SUCCESS && v == 5);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Status_get_tag(MPI_STATUS_IGNORE, &v) == MPI_ERR_ARG);
    CHECK(MPI_Status_set_source(MPI_STATUS_IGNORE, 1) == MPI_ERR_ARG);
    CHECK(MPI_Status_f082f(MPI_F08_STATUS_IGNORE, f) == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_request_status(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1;
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[3];
    int index, flag, outcount, idx[3];
    /* nothing active: the empty status, whose error field is MPI_SUCCESS */
    st[0].MPI_SOURCE = st[0].MPI_TAG = 5, st[0].MPI_ERROR = MPI_ERR_OTHER;
    CHECK(MPI_Request_get_status_any(3, r, &index, &flag, st) == MPI_SUCCESS);
    CHECK(flag && index == MPI_UNDEFINED);
    CHECK(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG);
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS);
    st[0].MPI_ERROR = MPI_ERR_OTHER;
    CHECK(MPI_Testany(3, r, &index, &flag, st) == MPI_SUCCESS && flag && index == MPI_UNDEFINED);
    CHECK(st[0].MPI_ERROR == MPI_SUCCESS);
    st[0].MPI_ERROR = MPI_ERR_OTHER;
    CHECK(MPI_Wait(&r[0], st) == MPI_SUCCESS && st[0].MPI_ERROR == MPI_SUCCESS);
    CHECK(MPI_Request_get_status_some(3, r, &outcount, idx, st) == MPI_SUCCESS);
    CHECK(outcount == MPI_UNDEFINED);
    CHECK(MPI_Request_get_status_all(3, r, &flag, st) == MPI_SUCCESS && flag);
    /* a receive that cannot complete until this rank says so */
    CHECK(MPI_Irecv(&in, 1, MPI_INT, left, 21, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Request_get_status_all(3, r, &flag, st) == MPI_SUCCESS && !flag);
    CHECK(MPI_Request_get_status_any(3, r, &index, &flag, st) == MPI_SUCCESS && !flag);
    CHECK(MPI_Request_get_status_some(3, r, &outcount, idx, st) == MPI_SUCCESS && outcount == 0);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS); /* every rank looked before any sends */
    CHECK(MPI_Send(&out, 1, MPI_INT, right, 21, MPI_COMM_WORLD) == MPI_SUCCESS);
    do CHECK(MPI_Request_get_status_any(3, r, &index, &flag, &st[0]) == MPI_SUCCESS);
    while (!flag);
    CHECK(index == 1 && st[0].MPI_SOURCE == left && st[0].MPI_TAG == 21);
    CHECK(r[1] != MPI_REQUEST_NULL); /* not freed */
    CHECK(MPI_Request_get_status_some(3, r, &outcount, idx, st) == MPI_SUCCESS);
    CHECK(outcount == 1 && idx[0] == 1 && st[0].MPI_SOURCE == left);
    CHECK(MPI_Request_get_status_all(3, r, &flag, st) == MPI_SUCCESS && flag);
    CHECK(st[1].MPI_SOURCE == left && st[0].MPI_TAG == MPI_ANY_TAG); /* null: empty */
    CHECK(r[1] != MPI_REQUEST_NULL);
    CHECK(MPI_Wait(&r[1], &st[2]) == MPI_SUCCESS && st[2].MPI_SOURCE == left && in == left);
    /* a persistent one stays active too */
    CHECK(MPI_Recv_init(&in, 1, MPI_INT, left, 22, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Start(&r[0]) == MPI_SUCCESS);
    CHECK(MPI_Send(&out, 1, MPI_INT, right, 22, MPI_COMM_WORLD) == MPI_SUCCESS);
    do CHECK(MPI_Request_get_status_all(1, r, &flag, st) == MPI_SUCCESS);
    while (!flag);
    CHECK(MPI_Wait(&r[0], &st[1]) == MPI_SUCCESS && st[1].MPI_TAG == 22);
    CHECK(MPI_Request_free(&r[0]) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request bad[1] = {(MPI_Request)0x2c00fffe};
    CHECK(MPI_Request_get_status_any(1, bad, &index, &flag, st) == MPI_ERR_REQUEST);
    CHECK(MPI_Request_get_status_all(-1, bad, &flag, st) == MPI_ERR_COUNT);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_value_index(void) {
    MPI_Datatype t;
    CHECK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t) == MPI_SUCCESS && t == MPI_DOUBLE_INT);
    CHECK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t) == MPI_SUCCESS && t == MPI_2INT);
    CHECK(MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &t) == MPI_SUCCESS && t == MPI_SHORT_INT);
    CHECK(MPI_Type_get_value_index(MPI_REAL, MPI_REAL, &t) == MPI_SUCCESS && t == MPI_2REAL);
    CHECK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &t) == MPI_SUCCESS &&
          t == MPI_DATATYPE_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Type_get_value_index(MPI_COMM_WORLD, MPI_INT, &t) == MPI_ERR_TYPE);
    CHECK(MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL) == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_hw(void) {
    MPI_Info hw;
    CHECK(MPI_Get_hw_resource_info(&hw) == MPI_SUCCESS);
    char v[MPI_MAX_INFO_VAL + 1];
    int len = sizeof v, flag;
    /* every process is inside the one machine */
    CHECK(MPI_Info_get_string(hw, "hwloc://Machine", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag && !strcmp(v, "true"));
    CHECK(MPI_Info_free(&hw) == MPI_SUCCESS);
    MPI_Info info;
    CHECK(MPI_Info_create(&info) == MPI_SUCCESS);
    /* the machine: at least the ranks that share memory with this one (more under
     * TW_LINK=udp, where each rank shares with none but is on the machine still) */
    MPI_Comm c, node;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
          MPI_SUCCESS);
    int node_size, n;
    CHECK(MPI_Comm_size(node, &node_size) == MPI_SUCCESS);
    CHECK(MPI_Info_set(info, "mpi_hw_resource_type", "hwloc://Machine") == MPI_SUCCESS);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &c) ==
          MPI_SUCCESS);
    CHECK(c != MPI_COMM_NULL);
    CHECK(MPI_Comm_size(c, &n) == MPI_SUCCESS && n >= node_size && n <= size);
    int machine = n;
    MPI_Info used;
    CHECK(MPI_Comm_get_info(c, &used) == MPI_SUCCESS);
    len = sizeof v;
    CHECK(MPI_Info_get_string(used, "mpi_hw_resource_type", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag && !strcmp(v, "Machine"));
    CHECK(MPI_Info_free(&used) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    /* a NUMA node: those restricted to the same one together, or MPI_COMM_NULL */
    CHECK(MPI_Info_set(info, "mpi_hw_resource_type", "NUMANode") == MPI_SUCCESS);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c) == MPI_SUCCESS);
    if (c != MPI_COMM_NULL) {
        CHECK(MPI_Comm_size(c, &n) == MPI_SUCCESS && n >= 1 && n <= machine);
        CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    }
    /* mpi_shared_memory is MPI_COMM_TYPE_SHARED */
    CHECK(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory") == MPI_SUCCESS);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c) ==
          MPI_SUCCESS);
    CHECK(c != MPI_COMM_NULL && MPI_Comm_size(c, &n) == MPI_SUCCESS && n == node_size);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    /* a type that does not exist: MPI_COMM_NULL everywhere */
    CHECK(MPI_Info_set(info, "mpi_hw_resource_type", "Teapot") == MPI_SUCCESS);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c) == MPI_SUCCESS);
    CHECK(c == MPI_COMM_NULL);
    /* process sets */
    CHECK(MPI_Info_set(info, "mpi_pset_name", "mpi://SELF") == MPI_SUCCESS);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c) ==
          MPI_SUCCESS);
    CHECK(c != MPI_COMM_NULL && MPI_Comm_size(c, &n) == MPI_SUCCESS && n == 1);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    CHECK(MPI_Info_set(info, "mpi_pset_name", "mpi://WORLD") == MPI_SUCCESS);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &c) ==
          MPI_SUCCESS);
    CHECK(c != MPI_COMM_NULL && MPI_Comm_size(c, &n) == MPI_SUCCESS && n == size);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    /* unguided: a strict subset of the parent, or MPI_COMM_NULL everywhere; the info
     * given says what it split by, as the new communicator's does */
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c) ==
          MPI_SUCCESS);
    if (c != MPI_COMM_NULL) CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    MPI_Info told;
    CHECK(MPI_Info_create(&told) == MPI_SUCCESS);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, told, &c) ==
          MPI_SUCCESS);
    int any = c != MPI_COMM_NULL, all_any = 0;
    len = sizeof v;
    CHECK(MPI_Info_get_string(told, "mpi_hw_resource_type", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag == any);
    if (c != MPI_COMM_NULL) {
        CHECK(MPI_Comm_size(c, &n) == MPI_SUCCESS && n < size);
        char used_v[MPI_MAX_INFO_VAL + 1];
        int used_flag;
        len = sizeof used_v;
        CHECK(MPI_Comm_get_info(c, &used) == MPI_SUCCESS);
        CHECK(MPI_Info_get_string(used, "mpi_hw_resource_type", &len, used_v, &used_flag) ==
              MPI_SUCCESS);
        CHECK(used_flag && !strcmp(v, used_v));
        CHECK(MPI_Info_free(&used) == MPI_SUCCESS);
        CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    }
    CHECK(MPI_Info_free(&told) == MPI_SUCCESS);
    CHECK(MPI_Allreduce(&any, &all_any, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(all_any == any); /* all or none */
    if (size == 1) CHECK(!any);
    CHECK(MPI_Comm_free(&node) == MPI_SUCCESS);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS);
}

/* MPI-4.1: the get_name calls take the null handles and answer with their names */
static void test_null_names(void) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK(MPI_Comm_get_name(MPI_COMM_NULL, name, &len) == MPI_SUCCESS);
    CHECK(!strcmp(name, "MPI_COMM_NULL") && len == (int)strlen(name));
    CHECK(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len) == MPI_SUCCESS);
    CHECK(!strcmp(name, "MPI_DATATYPE_NULL") && len == (int)strlen(name));
    CHECK(MPI_Win_get_name(MPI_WIN_NULL, name, &len) == MPI_SUCCESS);
    CHECK(!strcmp(name, "MPI_WIN_NULL") && len == (int)strlen(name));
    /* a null handle's name is not settable, and other handles are still checked */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_set_name(MPI_COMM_NULL, "x") == MPI_ERR_COMM);
    CHECK(MPI_Type_set_name(MPI_DATATYPE_NULL, "x") == MPI_ERR_TYPE);
    CHECK(MPI_Win_set_name(MPI_WIN_NULL, "x") == MPI_ERR_WIN);
    CHECK(MPI_Comm_get_name(MPI_COMM_NULL, NULL, &len) == MPI_ERR_ARG);
    MPI_Win freed;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &freed) == MPI_SUCCESS);
    MPI_Win was = freed;
    CHECK(MPI_Win_free(&freed) == MPI_SUCCESS && freed == MPI_WIN_NULL);
    CHECK(MPI_Win_get_name(was, name, &len) == MPI_ERR_WIN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* What MPI_Win_shared_query(r) says of the segment of rank target (want bytes) in a
 * created or allocated window: the caller's own is its memory; another's is mapped
 * here, or not shared (size 0, NULL). */
static void check_query(MPI_Win w, int r, int target, MPI_Aint want, int unit, void *own) {
    MPI_Aint got = -1;
    int disp = -1;
    void *base = (void *)&got;
    CHECK(MPI_Win_shared_query(w, r, &got, &disp, &base) == MPI_SUCCESS);
    if (target == rank) {
        CHECK(got == want && base == own && disp == unit);
    } else {
        CHECK((got == 0 && base == NULL) || (got == want && base != NULL && disp == unit));
    }
}

/* MPI-4.1: MPI_Win_shared_query on windows of every flavor but the dynamic one */
static void test_shared_query(void) {
    int mem[4];
    MPI_Win w;
    CHECK(MPI_Win_create(mem, sizeof mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &w) ==
          MPI_SUCCESS);
    for (int r = 0; r < size; r++) check_query(w, r, r, sizeof mem, sizeof *mem, mem);
    check_query(w, MPI_PROC_NULL, 0, sizeof mem, sizeof *mem, mem);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    /* rank 0 gives no memory: MPI_PROC_NULL finds rank 1's */
    MPI_Aint bytes = rank ? 24 : 0;
    double *at;
    CHECK(MPI_Win_allocate(bytes, sizeof *at, MPI_INFO_NULL, MPI_COMM_WORLD, &at, &w) ==
          MPI_SUCCESS);
    for (int r = 1; r < size; r++) check_query(w, r, r, 24, sizeof *at, at);
    if (size > 1) check_query(w, MPI_PROC_NULL, 1, 24, sizeof *at, at);
    MPI_Aint got;
    int disp;
    void *base;
    CHECK(MPI_Win_shared_query(w, 0, &got, &disp, &base) == MPI_SUCCESS && got == 0);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    /* the dynamic flavor has no segment to query; a rank out of range is an error */
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Win_shared_query(w, 0, &got, &disp, &base) == MPI_ERR_RMA_FLAVOR);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    CHECK(MPI_Win_create(mem, sizeof mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &w) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Win_shared_query(w, size, &got, &disp, &base) == MPI_ERR_RANK);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
}

static void test_buffers(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    /* a communicator's own buffer, with no buffer for the process */
    enum { MSGS = 8, LEN = 1000 };
    int bytes = MSGS * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *mem = malloc((size_t)bytes);
    CHECK(mem != NULL);
    CHECK(MPI_Comm_attach_buffer(dup, mem, bytes) == MPI_SUCCESS);
    int *data = malloc(LEN * sizeof *data), *in = malloc(LEN * sizeof *in);
    CHECK(data && in);
    for (int m = 0; m < MSGS; m++) {
        for (int k = 0; k < LEN; k++) data[k] = rank + m * k;
        CHECK(MPI_Bsend(data, LEN, MPI_INT, right, m, dup) == MPI_SUCCESS);
    }
    MPI_Request flush;
    CHECK(MPI_Comm_iflush_buffer(dup, &flush) == MPI_SUCCESS);
    for (int m = 0; m < MSGS; m++) {
        CHECK(MPI_Recv(in, LEN, MPI_INT, left, m, dup, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < LEN; k++) CHECK(in[k] == left + m * k);
    }
    CHECK(MPI_Wait(&flush, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Comm_flush_buffer(dup) == MPI_SUCCESS);
    /* the world has none: a buffered send there fails */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Bsend(data, 1, MPI_INT, right, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_attach_buffer(dup, mem, bytes) == MPI_ERR_BUFFER); /* one already */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    void *back;
    int back_size;
    CHECK(MPI_Comm_detach_buffer(dup, &back, &back_size) == MPI_SUCCESS);
    CHECK(back == mem && back_size == bytes);
    CHECK(MPI_Comm_detach_buffer(dup, &back, &back_size) == MPI_SUCCESS);
    CHECK(back == NULL && back_size == 0);

    /* automatic buffers: the process's and a communicator's, of any size */
    CHECK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    CHECK(MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    int *big = malloc((1 << 20) * sizeof *big);
    CHECK(big != NULL);
    for (int k = 0; k < 1 << 20; k++) big[k] = k ^ rank;
    CHECK(MPI_Bsend(big, 1 << 20, MPI_INT, right, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Bsend(big, 1 << 20, MPI_INT, right, 6, dup) == MPI_SUCCESS);
    for (int k = 0; k < 1 << 20; k++) big[k] = -1; /* the copies went, not the buffer */
    MPI_Request iflush;
    CHECK(MPI_Buffer_iflush(&iflush) == MPI_SUCCESS);
    int *got = malloc((1 << 20) * sizeof *got);
    CHECK(got != NULL);
    CHECK(MPI_Recv(got, 1 << 20, MPI_INT, left, 6, dup, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int k = 0; k < 1 << 20; k++) CHECK(got[k] == (k ^ left));
    CHECK(MPI_Recv(got, 1 << 20, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    for (int k = 0; k < 1 << 20; k++) CHECK(got[k] == (k ^ left));
    CHECK(MPI_Wait(&iflush, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Buffer_flush() == MPI_SUCCESS);
    CHECK(MPI_Buffer_detach(&back, &back_size) == MPI_SUCCESS);
    CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0);
    /* freed with a buffer attached: its sends are delivered first */
    CHECK(MPI_Bsend(data, 3, MPI_INT, right, 7, dup) == MPI_SUCCESS);
    CHECK(MPI_Recv(in, 3, MPI_INT, left, 7, dup, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    free(got);
    free(big);
    free(data);
    free(in);
    free(mem);
}

int main(int argc, char **argv) {
    /* the info calls work before MPI_Init */
    early_argc = argc;
    early_argv = argv;
    CHECK(MPI_Info_create_env(argc, argv, &early) == MPI_SUCCESS);
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && (!strcmp(argv[1], "abort-self") || !strcmp(argv[1], "abort-world"))) {
        MPI_Comm comm = !strcmp(argv[1], "abort-self") ? MPI_COMM_SELF : MPI_COMM_WORLD;
        CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ABORT) == MPI_SUCCESS);
        MPI_Errhandler eh;
        CHECK(MPI_Comm_get_errhandler(comm, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_ABORT);
        if (rank == size - 1) { /* an invalid tag: MPI_ERR_TAG (4) */
            int x = 0;
            MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, -3, comm);
            fprintf(stderr, "mpi41: the error returned under MPI_ERRORS_ABORT\n");
            return 1;
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the others wait: the abort ends them */
        MPI_Finalize();
        return 0;
    }
    test_isendrecv();
    test_idup_with_info();
    test_info();
    test_errors_removed();
    test_status();
    test_request_status();
    test_value_index();
    test_hw();
    test_buffers();
    test_null_names();
    test_shared_query();
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    CHECK(MPI_Info_free(&early) == MPI_SUCCESS); /* info calls work after it too */
    if (rank == 0) printf("mpi41: ok\n");
    return 0;
}
