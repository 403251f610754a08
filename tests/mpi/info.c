/* Info objects: the calls' semantics against values known here, their errors under
 * MPI_ERRORS_RETURN, growth past any small limit, MPI_INFO_ENV's contents, and the
 * hints communicators and windows report. Runs on any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mpi_check.h"

/* info holds key with exactly value want (NULL: not at all) */
static void expect(MPI_Info info, const char *key, const char *want) {
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = -1, len = -1;
    CHECK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag) == MPI_SUCCESS);
    CHECK(flag == (want != NULL));
    CHECK(MPI_Info_get_valuelen(info, key, &len, &flag) == MPI_SUCCESS);
    CHECK(flag == (want != NULL));
    if (want) CHECK(!strcmp(v, want) && len == (int)strlen(want));
}

static void expect_nkeys(MPI_Info info, int n) {
    int k = -1;
    CHECK(MPI_Info_get_nkeys(info, &k) == MPI_SUCCESS && k == n);
}

static void objects(void) {
    MPI_Info a, b;
    CHECK(MPI_Info_create(&a) == MPI_SUCCESS);
    expect_nkeys(a, 0);
    expect(a, "x", NULL);
    CHECK(MPI_Info_set(a, "alpha", "1") == MPI_SUCCESS);
    CHECK(MPI_Info_set(a, "beta", "two") == MPI_SUCCESS);
    CHECK(MPI_Info_set(a, "gamma", "three 3") == MPI_SUCCESS);
    CHECK(MPI_Info_set(a, "beta", "2") == MPI_SUCCESS); /* replaced, keeps its place */
    expect_nkeys(a, 3);
    const char *order[] = {"alpha", "beta", "gamma"};
    char key[MPI_MAX_INFO_KEY + 1];
    for (int k = 0; k < 3; k++) {
        CHECK(MPI_Info_get_nthkey(a, k, key) == MPI_SUCCESS);
        CHECK(!strcmp(key, order[k]));
    }
    expect(a, "beta", "2");
    expect(a, "gamma", "three 3");
    expect(a, "Beta", NULL); /* keys are case sensitive */

    /* a short buffer: valuelen characters, then the terminator */
    char v[8];
    int flag;
    memset(v, 'z', sizeof v);
    CHECK(MPI_Info_get(a, "gamma", 3, v, &flag) == MPI_SUCCESS && flag && !strcmp(v, "thr"));
    CHECK(MPI_Info_get(a, "gamma", 0, v, &flag) == MPI_SUCCESS && flag && v[0] == '\0');

    /* a duplicate is independent */
    CHECK(MPI_Info_dup(a, &b) == MPI_SUCCESS && b != a);
    CHECK(MPI_Info_set(b, "alpha", "changed") == MPI_SUCCESS);
    CHECK(MPI_Info_delete(b, "gamma") == MPI_SUCCESS);
    expect(a, "alpha", "1");
    expect(a, "gamma", "three 3");
    expect(b, "alpha", "changed");
    expect(b, "gamma", NULL);
    expect_nkeys(b, 2);

    /* delete keeps the order of the rest */
    CHECK(MPI_Info_delete(a, "alpha") == MPI_SUCCESS);
    CHECK(MPI_Info_get_nthkey(a, 0, key) == MPI_SUCCESS && !strcmp(key, "beta"));
    CHECK(MPI_Info_get_nthkey(a, 1, key) == MPI_SUCCESS && !strcmp(key, "gamma"));
    CHECK(MPI_Info_delete(a, "alpha") == MPI_ERR_INFO_NOKEY);

    /* the limits: a key of MPI_MAX_INFO_KEY characters and a value of MPI_MAX_INFO_VAL */
    char longkey[MPI_MAX_INFO_KEY + 2], longval[MPI_MAX_INFO_VAL + 2];
    memset(longkey, 'k', sizeof longkey);
    memset(longval, 'v', sizeof longval);
    longkey[MPI_MAX_INFO_KEY] = '\0';
    longval[MPI_MAX_INFO_VAL] = '\0';
    CHECK(MPI_Info_set(a, longkey, longval) == MPI_SUCCESS);
    expect(a, longkey, longval);
    CHECK(MPI_Info_get_nthkey(a, 2, key) == MPI_SUCCESS && !strcmp(key, longkey));
    longkey[MPI_MAX_INFO_KEY] = 'k';
    longkey[MPI_MAX_INFO_KEY + 1] = '\0';
    longval[MPI_MAX_INFO_VAL] = 'v';
    longval[MPI_MAX_INFO_VAL + 1] = '\0';
    CHECK(MPI_Info_set(a, longkey, "1") == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_set(a, "", "1") == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_set(a, NULL, "1") == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_set(a, "k", longval) == MPI_ERR_INFO_VALUE);
    CHECK(MPI_Info_set(a, "k", "") == MPI_ERR_INFO_VALUE);
    CHECK(MPI_Info_set(a, "k", NULL) == MPI_ERR_INFO_VALUE);
    CHECK(MPI_Info_get(a, longkey, 4, v, &flag) == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_get_valuelen(a, "", &flag, &flag) == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_delete(a, longkey) == MPI_ERR_INFO_KEY);
    CHECK(MPI_Info_get(a, "beta", -1, v, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Info_get_nthkey(a, 3, key) == MPI_ERR_ARG);
    CHECK(MPI_Info_get_nthkey(a, -1, key) == MPI_ERR_ARG);
    expect_nkeys(a, 3);

    /* bad handles */
    MPI_Info freed = b;
    CHECK(MPI_Info_free(&b) == MPI_SUCCESS && b == MPI_INFO_NULL);
    MPI_Info bad[] = {MPI_INFO_NULL, freed, (MPI_Info)0x5c00fff0, (MPI_Info)MPI_COMM_WORLD, 0};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        int n;
        MPI_Info h = bad[k], d;
        CHECK(MPI_Info_set(h, "a", "b") == MPI_ERR_INFO);
        CHECK(MPI_Info_get(h, "a", 4, v, &flag) == MPI_ERR_INFO);
        CHECK(MPI_Info_get_valuelen(h, "a", &n, &flag) == MPI_ERR_INFO);
        CHECK(MPI_Info_get_nkeys(h, &n) == MPI_ERR_INFO);
        CHECK(MPI_Info_get_nthkey(h, 0, key) == MPI_ERR_INFO);
        CHECK(MPI_Info_delete(h, "a") == MPI_ERR_INFO);
        CHECK(MPI_Info_dup(h, &d) == MPI_ERR_INFO);
        CHECK(MPI_Info_free(&h) == MPI_ERR_INFO);
    }
    CHECK(MPI_Info_free(&a) == MPI_SUCCESS);

    /* no small limit: many objects at once, many keys in one */
    enum { N = 3000 };
    MPI_Info *many = malloc(N * sizeof *many);
    for (int k = 0; k < N; k++) {
        char s[32];
        snprintf(s, sizeof s, "%d", k);
        CHECK(MPI_Info_create(&many[k]) == MPI_SUCCESS);
        CHECK(MPI_Info_set(many[k], "n", s) == MPI_SUCCESS);
        CHECK(MPI_Info_set(many[0], s, s) == MPI_SUCCESS);
    }
    for (int k = 0; k < N; k++) {
        char s[32];
        snprintf(s, sizeof s, "%d", k);
        expect(many[k], "n", s);
        expect(many[0], s, s);
        CHECK(MPI_Info_get_nthkey(many[0], k + 1, key) == MPI_SUCCESS && !strcmp(key, s));
    }
    expect_nkeys(many[0], N + 1);
    for (int k = 0; k < N; k++) CHECK(MPI_Info_free(&many[k]) == MPI_SUCCESS);
    free(many);
}

static void environment(int argc, char **argv, const char *level) {
    MPI_Info env = MPI_INFO_ENV;
    expect(env, "command", argv[0]);
    char args[MPI_MAX_INFO_VAL + 1] = "";
    for (int k = 1; k < argc; k++)
        snprintf(args + strlen(args), sizeof args - strlen(args), "%s%s", k > 1 ? " " : "",
                 argv[k]);
    expect(env, "argv", argc > 1 ? args : NULL);
    char num[16];
    snprintf(num, sizeof num, "%d", size);
    expect(env, "maxprocs", num);
    expect(env, "soft", num);
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    CHECK(MPI_Get_processor_name(host, &len) == MPI_SUCCESS);
    expect(env, "host", host);
    struct utsname u;
    CHECK(uname(&u) == 0);
    expect(env, "arch", u.machine);
    char *cwd = getcwd(NULL, 0);
    expect(env, "wdir", cwd);
    free(cwd);
    expect(env, "thread_level", level);
    /* predefined: read only */
    CHECK(MPI_Info_set(env, "command", "x") == MPI_ERR_INFO);
    CHECK(MPI_Info_delete(env, "command") == MPI_ERR_INFO);
    CHECK(MPI_Info_free(&env) == MPI_ERR_INFO && env == MPI_INFO_ENV);
    expect(env, "command", argv[0]);
    MPI_Info d; /* a duplicate of it is the program's own */
    CHECK(MPI_Info_dup(MPI_INFO_ENV, &d) == MPI_SUCCESS);
    CHECK(MPI_Info_set(d, "command", "x") == MPI_SUCCESS);
    expect(d, "command", "x");
    CHECK(MPI_Info_free(&d) == MPI_SUCCESS);
}

static void comm_hints(void) {
    static const char *keys[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                 "mpi_assert_exact_length", "mpi_assert_allow_overtaking"};
    MPI_Info got, in;
    CHECK(MPI_Comm_get_info(MPI_COMM_WORLD, &got) == MPI_SUCCESS);
    expect_nkeys(got, 4);
    for (int k = 0; k < 4; k++) expect(got, keys[k], "false");
    CHECK(MPI_Info_free(&got) == MPI_SUCCESS);

    CHECK(MPI_Info_create(&in) == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "mpi_assert_no_any_tag", "true") == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "mpi_assert_exact_length", "maybe") == MPI_SUCCESS); /* ignored */
    CHECK(MPI_Info_set(in, "tollway_unknown_key", "1") == MPI_SUCCESS);
    MPI_Comm c, d;
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &c) == MPI_SUCCESS);
    CHECK(MPI_Info_free(&in) == MPI_SUCCESS); /* the communicator keeps its own */
    CHECK(MPI_Comm_get_info(c, &got) == MPI_SUCCESS);
    expect_nkeys(got, 4);
    expect(got, "mpi_assert_no_any_tag", "true");
    expect(got, "mpi_assert_exact_length", "false");
    expect(got, "tollway_unknown_key", NULL);
    CHECK(MPI_Info_free(&got) == MPI_SUCCESS);
    /* still a working communicator */
    int sum = 0, one = 1;
    CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS && sum == size);

    /* set_info changes the keys it names only; a duplicate keeps the hints */
    CHECK(MPI_Info_create(&in) == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "mpi_assert_allow_overtaking", "true") == MPI_SUCCESS);
    CHECK(MPI_Comm_set_info(c, in) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(c, &d) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_info(d, &got) == MPI_SUCCESS);
    expect(got, "mpi_assert_no_any_tag", "true");
    expect(got, "mpi_assert_allow_overtaking", "true");
    expect(got, "mpi_assert_no_any_source", "false");
    CHECK(MPI_Info_free(&got) == MPI_SUCCESS);
    /* dup_with_info takes info's hints, not the parent's */
    MPI_Comm e;
    CHECK(MPI_Info_set(in, "mpi_assert_no_any_source", "true") == MPI_SUCCESS);
    CHECK(MPI_Info_delete(in, "mpi_assert_allow_overtaking") == MPI_SUCCESS);
    CHECK(MPI_Comm_dup_with_info(d, in, &e) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_info(e, &got) == MPI_SUCCESS);
    expect(got, "mpi_assert_no_any_tag", "false");
    expect(got, "mpi_assert_no_any_source", "true");
    expect(got, "mpi_assert_allow_overtaking", "false");
    CHECK(MPI_Info_free(&got) == MPI_SUCCESS);
    /* split_type takes any valid info */
    MPI_Comm node;
    CHECK(MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, in, &node) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&node) == MPI_SUCCESS);

    /* invalid info handles, and NULL outputs */
    MPI_Info freed = in;
    CHECK(MPI_Info_free(&in) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_info(c, freed) == MPI_ERR_INFO);
    CHECK(MPI_Comm_dup_with_info(c, freed, &node) == MPI_ERR_INFO);
    CHECK(MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, freed, &node) == MPI_ERR_INFO);
    CHECK(MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, (MPI_Info)MPI_COMM_WORLD, &node) ==
          MPI_ERR_INFO);
    CHECK(MPI_Comm_get_info(c, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_get_info(MPI_COMM_NULL, &got) == MPI_ERR_COMM);
    CHECK(MPI_Comm_set_info(MPI_COMM_NULL, MPI_INFO_ENV) == MPI_ERR_COMM);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&e) == MPI_SUCCESS);
}

static void win_hints(void) {
    MPI_Info in, got;
    MPI_Win w;
    int buf[4];
    CHECK(MPI_Win_create(buf, sizeof buf, sizeof *buf, MPI_INFO_NULL, MPI_COMM_WORLD, &w) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_get_info(w, &got) == MPI_SUCCESS);
    expect_nkeys(got, 6);
    expect(got, "no_locks", "false");
    expect(got, "accumulate_ordering", "rar,raw,war,waw");
    expect(got, "accumulate_ops", "same_op_no_op");
    expect(got, "same_size", "false");
    expect(got, "same_disp_unit", "false");
    expect(got, "alloc_shared_noncontig", "false");
    CHECK(MPI_Info_free(&got) == MPI_SUCCESS);
    /* set_info: the keys it names */
    CHECK(MPI_Info_create(&in) == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "accumulate_ordering", "waw, rar") == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "same_size", "true") == MPI_SUCCESS);
    CHECK(MPI_Win_set_info(w, in) == MPI_SUCCESS);
    CHECK(MPI_Win_get_info(w, &got) == MPI_SUCCESS);
    expect(got, "accumulate_ordering", "rar,waw");
    expect(got, "same_size", "true");
    expect(got, "no_locks", "false");
    CHECK(MPI_Info_free(&got) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);

    /* hints at creation, for each flavour; unknown keys and bad values ignored */
    CHECK(MPI_Info_set(in, "no_locks", "true") == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "accumulate_ordering", "none") == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "accumulate_ops", "same_op") == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "same_disp_unit", "yes please") == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "alloc_shared_noncontig", "true") == MPI_SUCCESS);
    CHECK(MPI_Info_set(in, "tollway_unknown_key", "x") == MPI_SUCCESS);
    for (int flavor = 0; flavor < 3; flavor++) {
        void *base;
        if (flavor == 0)
            CHECK(MPI_Win_allocate(64, 1, in, MPI_COMM_WORLD, &base, &w) == MPI_SUCCESS);
        else if (flavor == 1)
            CHECK(MPI_Win_create_dynamic(in, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
        else
            CHECK(MPI_Win_allocate_shared(64, 1, in, MPI_COMM_SELF, &base, &w) == MPI_SUCCESS);
        CHECK(MPI_Win_get_info(w, &got) == MPI_SUCCESS);
        expect_nkeys(got, 6);
        expect(got, "no_locks", "true");
        expect(got, "accumulate_ordering", "none");
        expect(got, "accumulate_ops", "same_op");
        expect(got, "same_size", "true");
        expect(got, "same_disp_unit", "false");
        expect(got, "alloc_shared_noncontig", "true");
        expect(got, "tollway_unknown_key", NULL);
        CHECK(MPI_Info_free(&got) == MPI_SUCCESS);
        CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
        CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    }
    /* MPI_Alloc_mem with hints */
    void *mem;
    CHECK(MPI_Alloc_mem(128, in, &mem) == MPI_SUCCESS);
    CHECK(MPI_Free_mem(mem) == MPI_SUCCESS);

    /* invalid info handles: refused before anything collective */
    MPI_Info freed = in;
    CHECK(MPI_Info_free(&in) == MPI_SUCCESS);
    void *base;
    CHECK(MPI_Win_create(buf, sizeof buf, 1, freed, MPI_COMM_WORLD, &w) == MPI_ERR_INFO);
    CHECK(MPI_Win_allocate(8, 1, freed, MPI_COMM_WORLD, &base, &w) == MPI_ERR_INFO);
    CHECK(MPI_Win_allocate_shared(8, 1, freed, MPI_COMM_SELF, &base, &w) == MPI_ERR_INFO);
    CHECK(MPI_Win_create_dynamic((MPI_Info)MPI_COMM_WORLD, MPI_COMM_WORLD, &w) == MPI_ERR_INFO);
    CHECK(MPI_Alloc_mem(8, freed, &mem) == MPI_ERR_INFO);
    CHECK(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_ENV, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Win_set_info(w, freed) == MPI_ERR_INFO);
    CHECK(MPI_Win_get_info(w, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Win_get_info(MPI_WIN_NULL, &got) == MPI_ERR_WIN);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    /* "--init-null": MPI_Init(NULL, NULL), so MPI_INFO_ENV reads the command line itself */
    /* "--funneled": MPI_Init_thread asking MPI_THREAD_FUNNELED, which MPI_INFO_ENV names */
    const char *level = "MPI_THREAD_SINGLE";
    int provided;
    if (argc > 1 && !strcmp(argv[1], "--init-null")) {
        MPI_Init(NULL, NULL);
    } else if (argc > 1 && !strcmp(argv[1], "--funneled")) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
        level = "MPI_THREAD_FUNNELED";
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    objects();
    environment(argc, argv, level);
    comm_hints();
    win_hints();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("info: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
