/* MPI-4 sessions: usage sessions_test MODE, on 1 to 4 ranks.
 *   alone          two sessions at once, no MPI_Init: psets, a communicator from each
 *                  (point-to-point and collectives on both), Comm_create_from_group with
 *                  other tags at once, an intercommunicator from two groups; then a
 *                  third session after both ended (the endpoint started again)
 *   session_world  a session, then MPI_Init ... MPI_Finalize, then a session again
 *   world_session  MPI_Init ... MPI_Finalize, then a session
 *   around         MPI_Init, a session inside, MPI_Finalize with the session open
 *                  a buffer attached to a session serves its communicators' Bsend;
 *                  the null session's errors under the world model are returned
 *   errors         error handlers on sessions and on session-made communicators, bad
 *                  arguments, finalize with a communicator not freed */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static void check_psets(MPI_Session s, int world_size) {
    int n = -1;
    CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n) == MPI_SUCCESS && n >= 2, "num psets %d",
          n);
    int seen_world = 0, seen_self = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        char name[MPI_MAX_PSET_NAME_LEN];
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL) == MPI_SUCCESS && len > 1,
              "length of pset %d", i);
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name) == MPI_SUCCESS, "pset %d",
              i);
        CHECK((int)strlen(name) + 1 == len, "pset %d: length %d of \"%s\"", i, len, name);
        seen_world |= !strcmp(name, "mpi://WORLD");
        seen_self |= !strcmp(name, "mpi://SELF");
    }
    CHECK(seen_world && seen_self, "mpi://WORLD and mpi://SELF listed");
    MPI_Info info;
    char v[32];
    int flag = 0;
    CHECK(MPI_Session_get_pset_info(s, "mpi://WORLD", &info) == MPI_SUCCESS, "pset info");
    MPI_Info_get(info, "mpi_size", sizeof v - 1, v, &flag);
    CHECK(flag && atoi(v) == world_size, "mpi_size of WORLD: %s", flag ? v : "(none)");
    MPI_Info_free(&info);
    CHECK(MPI_Session_get_pset_info(s, "mpi://SELF", &info) == MPI_SUCCESS, "pset info SELF");
    MPI_Info_get(info, "mpi_size", sizeof v - 1, v, &flag);
    CHECK(flag && atoi(v) == 1, "mpi_size of SELF: %s", flag ? v : "(none)");
    MPI_Info_free(&info);
}

/* A communicator of pset name in session s, under stringtag. */
static MPI_Comm comm_of(MPI_Session s, const char *pset, const char *tag) {
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    CHECK(MPI_Group_from_session_pset(s, pset, &g) == MPI_SUCCESS, "group of %s", pset);
    CHECK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_SUCCESS,
          "comm of %s under %s", pset, tag);
    MPI_Group_free(&g);
    return c;
}

/* Point-to-point around a ring and collectives on c. */
static void exercise(MPI_Comm c, int salt) {
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    int got = -1, to = (rank + 1) % size, from = (rank + size - 1) % size, mine = rank * 100 + salt;
    MPI_Sendrecv(&mine, 1, MPI_INT, to, 7, &got, 1, MPI_INT, from, 7, c, MPI_STATUS_IGNORE);
    CHECK(got == from * 100 + salt, "ring: got %d from %d", got, from);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
    int root_val = rank == size - 1 ? 4242 + salt : 0;
    MPI_Bcast(&root_val, 1, MPI_INT, size - 1, c);
    CHECK(root_val == 4242 + salt, "bcast %d", root_val);
    int *all = malloc((size_t)size * sizeof *all);
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c);
    for (int r = 0; r < size; r++) CHECK(all[r] == r * 100 + salt, "allgather[%d] %d", r, all[r]);
    free(all);
    MPI_Barrier(c);
    MPI_Request req;
    int isum = 0;
    MPI_Iallreduce(&rank, &isum, 1, MPI_INT, MPI_SUM, c, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(isum == size * (size - 1) / 2, "iallreduce %d", isum);
}

static void intercomm(MPI_Session s) {
    MPI_Group world, low, high;
    int size, rank;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &world);
    MPI_Group_size(world, &size);
    MPI_Group_rank(world, &rank);
    if (size < 2) {
        MPI_Group_free(&world);
        return;
    }
    int half = size / 2, lo[1] = {0}, r_lo[1][3] = {{0, half - 1, 1}},
        r_hi[1][3] = {{half, size - 1, 1}};
    (void)lo;
    MPI_Group_range_incl(world, 1, r_lo, &low);
    MPI_Group_range_incl(world, 1, r_hi, &high);
    int in_low = rank < half;
    MPI_Comm inter = MPI_COMM_NULL;
    int rc =
        MPI_Intercomm_create_from_groups(in_low ? low : high, 0, in_low ? high : low, 0,
                                         "tests/inter", MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
    CHECK(rc == MPI_SUCCESS && inter != MPI_COMM_NULL, "intercomm from groups: %d", rc);
    if (inter != MPI_COMM_NULL) {
        int flag = 0, rsize = 0;
        MPI_Comm_test_inter(inter, &flag);
        MPI_Comm_remote_size(inter, &rsize);
        CHECK(flag && rsize == (in_low ? size - half : half), "inter: %d remote %d", flag, rsize);
        int mine = rank, theirs = -1;
        /* each rank 0 of a side sends its world rank to the other side's rank 0 */
        int lrank;
        MPI_Comm_rank(inter, &lrank);
        if (lrank == 0)
            MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &theirs, 1, MPI_INT, 0, 3, inter,
                         MPI_STATUS_IGNORE);
        if (lrank == 0) CHECK(theirs == (in_low ? half : 0), "inter: got %d", theirs);
        int sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter); /* the remote group's sum */
        int want = 0;
        for (int r = in_low ? half : 0; r < (in_low ? size : half); r++) want += r;
        CHECK(sum == want, "inter allreduce %d, want %d", sum, want);
        MPI_Comm_free(&inter);
    }
    MPI_Group_free(&low);
    MPI_Group_free(&high);
    MPI_Group_free(&world);
}

/* A buffer attached to session s serves the buffered sends of its communicator c
 * (a ring shift), and goes with detach once they are delivered. */
static void session_buffer(MPI_Session s, MPI_Comm c) {
    int rank, size, packed;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    MPI_Pack_size(4, MPI_INT, c, &packed);
    int bytes = 3 * (packed + MPI_BSEND_OVERHEAD);
    char *mem = malloc((size_t)bytes);
    CHECK(MPI_Session_attach_buffer(s, mem, bytes) == MPI_SUCCESS, "session attach");
    CHECK(MPI_Session_attach_buffer(s, mem, bytes) == MPI_ERR_BUFFER, "second attach refused");
    int out[4] = {rank, rank + 1, rank + 2, rank + 3}, in[4] = {0};
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    CHECK(MPI_Bsend(out, 4, MPI_INT, to, 11, c) == MPI_SUCCESS, "bsend on a session communicator");
    CHECK(MPI_Session_flush_buffer(s) == MPI_SUCCESS, "flush");
    MPI_Recv(in, 4, MPI_INT, from, 11, c, MPI_STATUS_IGNORE);
    CHECK(in[0] == from && in[3] == from + 3, "bsend data %d %d", in[0], in[3]);
    MPI_Request r;
    CHECK(MPI_Session_iflush_buffer(s, &r) == MPI_SUCCESS &&
              MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "iflush");
    void *back = NULL;
    int back_size = 0;
    CHECK(MPI_Session_detach_buffer(s, &back, &back_size) == MPI_SUCCESS && back == mem &&
              back_size == bytes,
          "detach gives the buffer back");
    free(mem);
}

static void alone(void) {
    int flag = 1;
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized before anything");
    MPI_Session a, b;
    /* an info object made before MPI starts serves the first session (a library's
     * pattern: its thread level asked for in it) */
    MPI_Info asked, got;
    CHECK(MPI_Info_create(&asked) == MPI_SUCCESS, "MPI_Info_create before MPI starts");
    CHECK(MPI_Info_set(asked, "thread_level", "MPI_THREAD_MULTIPLE") == MPI_SUCCESS,
          "MPI_Info_set before MPI starts");
    CHECK(MPI_Session_init(asked, MPI_ERRORS_RETURN, &a) == MPI_SUCCESS, "session a");
    char level[64];
    int level_len = sizeof level, found = 0;
    CHECK(MPI_Session_get_info(a, &got) == MPI_SUCCESS, "MPI_Session_get_info");
    MPI_Info_get_string(got, "thread_level", &level_len, level, &found);
    CHECK(found && !strcmp(level, "MPI_THREAD_MULTIPLE"), "the level asked before MPI started");
    MPI_Info_free(&got);
    MPI_Info_free(&asked);
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &b) == MPI_SUCCESS, "session b");
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized is not affected by sessions");
    MPI_Comm ca = comm_of(a, "mpi://WORLD", "tests/a"), cb = comm_of(b, "mpi://WORLD", "tests/b");
    int size;
    MPI_Comm_size(ca, &size);
    check_psets(a, size);
    exercise(ca, 1);
    exercise(cb, 2);
    /* three creations over one group with other tags, and the SELF pset */
    MPI_Comm c1 = comm_of(a, "mpi://WORLD", "tests/1"), c2 = comm_of(a, "mpi://WORLD", "tests/2"),
             self = comm_of(b, "mpi://SELF", "tests/self");
    int cmp;
    MPI_Comm_compare(c1, c2, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "two tags, two communicators (%d)", cmp);
    exercise(c2, 3);
    exercise(c1, 4);
    exercise(self, 5);
    /* split and dup of a session-made communicator */
    MPI_Comm half, dup;
    int rank;
    MPI_Comm_rank(ca, &rank);
    MPI_Comm_split(ca, rank % 2, rank, &half);
    exercise(half, 6);
    MPI_Comm_dup(cb, &dup);
    exercise(dup, 7);
    intercomm(a);
    session_buffer(b, cb);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    MPI_Comm_free(&self);
    MPI_Comm_free(&ca);
    CHECK(MPI_Session_finalize(&a) == MPI_SUCCESS && a == MPI_SESSION_NULL, "finalize a");
    exercise(cb, 8); /* b lives on */
    MPI_Comm_free(&cb);
    CHECK(MPI_Session_finalize(&b) == MPI_SUCCESS, "finalize b");
    /* one after another: the state starts again */
    MPI_Session c;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_SUCCESS, "session c");
    MPI_Comm cc = comm_of(c, "mpi://WORLD", "tests/c");
    exercise(cc, 9);
    MPI_Comm_free(&cc);
    CHECK(MPI_Session_finalize(&c) == MPI_SUCCESS, "finalize c");
    MPI_Finalized(&flag);
    CHECK(!flag, "MPI_Finalized is not affected by sessions");
}

static void one_session(const char *tag, int salt) {
    MPI_Session s;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "session");
    MPI_Comm c = comm_of(s, "mpi://WORLD", tag);
    exercise(c, salt);
    MPI_Comm_free(&c);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "finalize");
}

static void world(int salt) {
    int flag;
    CHECK(MPI_Init(NULL, NULL) == MPI_SUCCESS, "MPI_Init");
    MPI_Initialized(&flag);
    CHECK(flag, "initialized");
    exercise(MPI_COMM_WORLD, salt);
    CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize");
    MPI_Finalized(&flag);
    CHECK(flag, "finalized");
}

static void around(void) {
    MPI_Init(NULL, NULL);
    MPI_Session s;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "session");
    MPI_Comm c = comm_of(s, "mpi://WORLD", "tests/around");
    int cmp;
    MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "WORLD pset's communicator is congruent to WORLD (%d)", cmp);
    exercise(c, 1);
    exercise(MPI_COMM_WORLD, 2);
    /* no session to take an invalid session's error: under the world model it goes
     * where errors without an object go, and MPI_ERRORS_RETURN there returns it */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Group g = MPI_GROUP_NULL;
    int n = -1;
    MPI_Session none = MPI_SESSION_NULL;
    CHECK(MPI_Group_from_session_pset(MPI_SESSION_NULL, "mpi://SELF", &g) == MPI_ERR_SESSION &&
              g == MPI_GROUP_NULL,
          "group from the null session");
    CHECK(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n) == MPI_ERR_SESSION &&
              n == -1,
          "psets of the null session");
    CHECK(MPI_Session_finalize(&none) == MPI_ERR_SESSION, "finalize the null session");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Finalize();
    exercise(c, 3); /* the session outlives the world model */
    MPI_Comm_free(&c);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "finalize");
}

static int handled, handled_code;
static MPI_Session handled_session;
static void on_session_error(MPI_Session *s, int *code, ...) {
    handled++;
    handled_code = *code;
    handled_session = *s;
}
static int comm_handled;
static void on_comm_error(MPI_Comm *c, int *code, ...) {
    (void)c;
    (void)code;
    comm_handled++;
}

static void errors(void) {
    MPI_Errhandler eh;
    CHECK(MPI_Session_create_errhandler(on_session_error, &eh) == MPI_SUCCESS,
          "create session errhandler before init");
    MPI_Session s;
    CHECK(MPI_Session_init(MPI_INFO_NULL, eh, &s) == MPI_SUCCESS, "session with own handler");
    MPI_Errhandler got;
    CHECK(MPI_Session_get_errhandler(s, &got) == MPI_SUCCESS && got == eh, "get errhandler");
    MPI_Errhandler_free(&got);
    /* an unknown pset: MPI_ERR_ARG through the session's handler */
    MPI_Group g = MPI_GROUP_NULL;
    int rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG && handled == 1 && handled_code == rc && handled_session == s,
          "unknown pset: class %d, handled %d", cls, handled);
    MPI_Info info;
    rc = MPI_Session_get_pset_info(s, "nope", &info);
    CHECK(rc != MPI_SUCCESS && handled == 2, "pset info of an unknown pset");
    int len = 0;
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, NULL);
    CHECK(rc != MPI_SUCCESS && handled == 3, "nth pset out of range");
    CHECK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER) == MPI_SUCCESS && handled == 4 &&
              handled_code == MPI_ERR_OTHER,
          "call errhandler");
    CHECK(MPI_Session_get_info(s, &info) == MPI_SUCCESS, "get info");
    char v[64];
    int flag = 0;
    MPI_Info_get(info, "thread_level", sizeof v - 1, v, &flag);
    CHECK(flag && !strcmp(v, "MPI_THREAD_SINGLE"), "thread_level %s", flag ? v : "(none)");
    MPI_Info_free(&info);
    /* a bad stringtag: through the group's session */
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm c = MPI_COMM_NULL;
    rc = MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    CHECK(rc != MPI_SUCCESS && handled == 5, "NULL stringtag");
    /* an error on the communicator goes to the communicator's handler */
    MPI_Errhandler ceh;
    MPI_Comm_create_errhandler(on_comm_error, &ceh);
    CHECK(MPI_Comm_create_from_group(g, "tests/errors", MPI_INFO_NULL, ceh, &c) == MPI_SUCCESS,
          "comm with own handler");
    MPI_Errhandler_free(&ceh);
    int size;
    MPI_Comm_size(c, &size);
    rc = MPI_Send(&size, 1, MPI_INT, size + 3, 0, c);
    CHECK(rc != MPI_SUCCESS && comm_handled == 1 && handled == 5,
          "bad rank: comm handler %d, session handler %d", comm_handled, handled);
    /* finalize with a communicator derived from it still there: an error, the session stays */
    rc = MPI_Session_finalize(&s);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SESSION && handled == 6 && s != MPI_SESSION_NULL,
          "finalize with a communicator: class %d", cls);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    CHECK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN) == MPI_SUCCESS, "set errhandler");
    rc = MPI_Group_from_session_pset(s, "", &g);
    CHECK(rc != MPI_SUCCESS && handled == 6, "errors return now");
    MPI_Errhandler_free(&eh);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "finalize");
    /* a freed session is no session */
    MPI_Session bad = s;
    CHECK(MPI_Session_c2f(MPI_SESSION_NULL) == (MPI_Fint)MPI_SESSION_NULL &&
              MPI_Session_f2c(MPI_Session_c2f(bad)) == bad,
          "c2f and f2c");
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "alone";
    if (!strcmp(mode, "alone"))
        alone();
    else if (!strcmp(mode, "session_world")) {
        one_session("tests/first", 1);
        world(2);
        one_session("tests/after", 3);
    } else if (!strcmp(mode, "world_session")) {
        world(1);
        one_session("tests/after", 2);
        one_session("tests/again", 3);
    } else if (!strcmp(mode, "around"))
        around();
    else if (!strcmp(mode, "errors"))
        errors();
    else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    if (failures)
        fprintf(stderr, "%s: %d failures\n", mode, failures);
    else
        printf("%s: ok\n", mode);
    return failures ? 1 : 0;
}
