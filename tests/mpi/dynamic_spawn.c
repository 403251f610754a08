/* MPI_Comm_spawn and MPI_Comm_spawn_multiple under twrun: the program spawns itself
 * (1 and 3 children, then 1 + 2 children of two commands), and parents and children
 * check the intercommunicator from both sides: sizes, data both ways (short and long
 * enough for a rendezvous), MPI_Intercomm_merge, MPI_APPNUM, MPI_Comm_get_parent,
 * MPI_Comm_disconnect, an intercommunicator of both whole jobs made through the one
 * rank that spawned (MPI_Intercomm_create), children given more arguments than one
 * request line to the launcher holds, and a spawn of a command that does not exist. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_check.h"

enum { LONG_INTS = 100000, MANY_WORDS = 900 };

/* Argument i of the "many" children: ':' and ',' take 3 bytes each in the request. */
static void many_word(char *w, size_t cap, int i) {
    snprintf(w, cap, "w%04d+x:y,z", i);
}

/* Both sides: each parent sends every child its rank and a long array; each child
 * answers every parent with its own rank and the sum of what it got. */
static void talk(MPI_Comm inter, int is_parent) {
    int me, nlocal, nremote;
    CHECK(MPI_Comm_rank(inter, &me) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(inter, &nlocal) == MPI_SUCCESS);
    CHECK(MPI_Comm_remote_size(inter, &nremote) == MPI_SUCCESS);
    int *big = malloc(LONG_INTS * sizeof *big);
    for (int r = 0; r < nremote; r++) {
        if (is_parent) {
            for (int i = 0; i < LONG_INTS; i++) big[i] = i + me;
            int v = 1000 + me;
            CHECK(MPI_Send(&v, 1, MPI_INT, r, 1, inter) == MPI_SUCCESS);
            CHECK(MPI_Send(big, LONG_INTS, MPI_INT, r, 2, inter) == MPI_SUCCESS);
            long answer[2];
            CHECK(MPI_Recv(answer, 2, MPI_LONG, r, 3, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            long want = (long)LONG_INTS * (LONG_INTS - 1) / 2 + (long)LONG_INTS * me;
            CHECK(answer[0] == 2000 + r && answer[1] == want);
        } else {
            int v;
            MPI_Status st;
            CHECK(MPI_Recv(&v, 1, MPI_INT, r, 1, inter, &st) == MPI_SUCCESS);
            CHECK(v == 1000 + r && st.MPI_SOURCE == r);
            CHECK(MPI_Recv(big, LONG_INTS, MPI_INT, r, 2, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            long answer[2] = {2000 + me, 0};
            for (int i = 0; i < LONG_INTS; i++) answer[1] += big[i];
            CHECK(MPI_Send(answer, 2, MPI_LONG, r, 3, inter) == MPI_SUCCESS);
        }
    }
    free(big);
    /* merged, parents first: every rank's place, and a sum over all */
    MPI_Comm merged;
    CHECK(MPI_Intercomm_merge(inter, !is_parent, &merged) == MPI_SUCCESS);
    int mr, ms;
    CHECK(MPI_Comm_rank(merged, &mr) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(merged, &ms) == MPI_SUCCESS);
    CHECK(ms == nlocal + nremote);
    CHECK(mr == (is_parent ? me : nremote + me));
    int sum = 0;
    CHECK(MPI_Allreduce(&mr, &sum, 1, MPI_INT, MPI_SUM, merged) == MPI_SUCCESS);
    CHECK(sum == ms * (ms - 1) / 2);
    CHECK(MPI_Comm_free(&merged) == MPI_SUCCESS);
}

/* Both jobs after a spawn on MPI_COMM_SELF of the parents' rank 0: an intercommunicator
 * of both worlds through it (its other ranks never met the children, nor the
 * children's other ranks them), every pair talking both ways, then merged. */
static void across_jobs(MPI_Comm to_other_job, int is_parent, int want_remote) {
    MPI_Comm both, merged;
    CHECK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, to_other_job, 0, 7, &both) == MPI_SUCCESS);
    int remote, n, me;
    CHECK(MPI_Comm_remote_size(both, &remote) == MPI_SUCCESS && remote == want_remote);
    MPI_Request reqs[16];
    int got[8], mine = (is_parent ? 100 : 200) + rank;
    CHECK(remote <= 8);
    for (int r = 0; r < remote; r++) {
        CHECK(MPI_Irecv(&got[r], 1, MPI_INT, r, 3, both, &reqs[r]) == MPI_SUCCESS);
        CHECK(MPI_Isend(&mine, 1, MPI_INT, r, 3, both, &reqs[remote + r]) == MPI_SUCCESS);
    }
    CHECK(MPI_Waitall(2 * remote, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int r = 0; r < remote; r++) CHECK(got[r] == (is_parent ? 200 : 100) + r);
    CHECK(MPI_Intercomm_merge(both, !is_parent, &merged) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(merged, &n) == MPI_SUCCESS && n == size + remote);
    CHECK(MPI_Comm_rank(merged, &me) == MPI_SUCCESS && me == (is_parent ? rank : remote + rank));
    int sum = 0;
    CHECK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, merged) == MPI_SUCCESS);
    CHECK(sum == n * (n - 1) / 2);
    CHECK(MPI_Comm_free(&merged) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&both) == MPI_SUCCESS);
}

static int child(int argc, char **argv) {
    MPI_Comm p;
    if (!strcmp(argv[1], "self")) { /* spawned by the parents' rank 0 alone */
        CHECK(argc == 3 && MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL);
        across_jobs(p, 0, atoi(argv[2]));
        CHECK(MPI_Comm_disconnect(&p) == MPI_SUCCESS);
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(argv[1], "many")) { /* every argument there, in order */
        CHECK(argc == 2 + MANY_WORDS);
        for (int i = 0; i < MANY_WORDS; i++) {
            char w[32];
            many_word(w, sizeof w, i);
            CHECK(!strcmp(argv[2 + i], w));
        }
        CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL);
        int ok = 1;
        if (rank == 0) CHECK(MPI_Send(&ok, 1, MPI_INT, 0, 11, p) == MPI_SUCCESS);
        CHECK(MPI_Comm_disconnect(&p) == MPI_SUCCESS);
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(argv[1], "die")) exit(3); /* twrun must end the whole job, naming it */
    if (!strcmp(argv[1], "crash")) {      /* a parent whose child dies: waits for it in vain */
        char *args[] = {"die", NULL};
        MPI_Comm inter;
        CHECK(MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
        int v;
        MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
        return 0;
    }
    CHECK(argc >= 4);
    int want_size = atoi(argv[2]), want_parents = atoi(argv[3]);
    if (!strcmp(argv[1], "child") && argc > 4) { /* started in the wdir asked for */
        char here[4096], want[4096];
        CHECK(getcwd(here, sizeof here) && realpath(argv[4], want) && !strcmp(here, want));
    }
    CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL);
    int inter, n;
    CHECK(MPI_Comm_test_inter(p, &inter) == MPI_SUCCESS && inter);
    CHECK(size == want_size);
    CHECK(MPI_Comm_size(p, &n) == MPI_SUCCESS && n == want_size);
    CHECK(MPI_Comm_remote_size(p, &n) == MPI_SUCCESS && n == want_parents);
    int *app, flag;
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag) == MPI_SUCCESS && flag);
    if (!strcmp(argv[1], "multi")) {
        /* the first command started 1 process, the second the rest */
        CHECK(*app == (rank == 0 ? 0 : 1));
        if (rank == 0) CHECK(!strcmp(argv[4], "first"));
        if (rank > 0) CHECK(argc == 4);
        int a = *app;
        CHECK(MPI_Send(&a, 1, MPI_INT, 0, 9, p) == MPI_SUCCESS);
    } else {
        CHECK(*app == 0);
        talk(p, 0);
    }
    /* the children's world is theirs alone */
    int sum = 0;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(sum == size * (size - 1) / 2);
    CHECK(MPI_Comm_disconnect(&p) == MPI_SUCCESS && p == MPI_COMM_NULL);
    CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p == MPI_COMM_NULL);
    /* a communicator made now may take the parent's table entry: still no parent */
    MPI_Comm d;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p == MPI_COMM_NULL);
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}

static void spawn_children(const char *self, int n) {
    char num[16], parents[16];
    snprintf(num, sizeof num, "%d", n);
    snprintf(parents, sizeof parents, "%d", size);
    char *args[] = {"child", num, parents, n == 1 ? "/tmp" : NULL, NULL};
    int codes[3] = {-1, -1, -1};
    MPI_Comm inter;
    MPI_Info info = MPI_INFO_NULL;
    if (n == 1) { /* the info keys read: wdir; host and others are ignored */
        CHECK(MPI_Info_create(&info) == MPI_SUCCESS);
        CHECK(MPI_Info_set(info, "wdir", "/tmp") == MPI_SUCCESS);
        CHECK(MPI_Info_set(info, "host", "localhost") == MPI_SUCCESS);
        CHECK(MPI_Info_set(info, "tollway_unknown_key", "x") == MPI_SUCCESS);
    }
    CHECK(MPI_Comm_spawn(self, args, n, info, 0, MPI_COMM_WORLD, &inter, codes) == MPI_SUCCESS);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    for (int i = 0; i < n; i++) CHECK(codes[i] == MPI_SUCCESS);
    int r;
    CHECK(MPI_Comm_remote_size(inter, &r) == MPI_SUCCESS && r == n);
    CHECK(MPI_Comm_size(inter, &r) == MPI_SUCCESS && r == size);
    talk(inter, 1);
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL);
}

/* 2 children with MANY_WORDS arguments (about 14 KB of request), which they check. */
static void spawn_many(const char *self) {
    static char words[MANY_WORDS][32];
    static char *args[MANY_WORDS + 2];
    args[0] = "many";
    for (int i = 0; i < MANY_WORDS; i++) {
        many_word(words[i], sizeof words[i], i);
        args[1 + i] = words[i];
    }
    args[MANY_WORDS + 1] = NULL;
    MPI_Comm inter;
    CHECK(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                         MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
    if (rank == 0) {
        int ok = 0;
        CHECK(MPI_Recv(&ok, 1, MPI_INT, 0, 11, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS && ok);
    }
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) return child(argc, argv);

    MPI_Comm p;
    CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p == MPI_COMM_NULL);
    int *v, flag;
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag) == MPI_SUCCESS && flag);
    CHECK(*v >= size);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag) == MPI_SUCCESS && flag &&
          *v == 0);

    spawn_children(argv[0], 1);
    spawn_children(argv[0], 3);
    spawn_many(argv[0]);

    /* 2 children of rank 0 alone, then an intercommunicator of both whole jobs */
    MPI_Comm by_self = MPI_COMM_NULL;
    if (rank == 0) {
        char parents[16];
        snprintf(parents, sizeof parents, "%d", size);
        char *self_args[] = {"self", parents, NULL};
        CHECK(MPI_Comm_spawn(argv[0], self_args, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &by_self,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
    }
    across_jobs(by_self, 1, 2);
    if (rank == 0) CHECK(MPI_Comm_disconnect(&by_self) == MPI_SUCCESS);

    /* two commands (the same program, told apart by their arguments) */
    char *first[] = {"multi", "3", "", "first", NULL}, *second[] = {"multi", "3", "", NULL};
    char parents[16];
    snprintf(parents, sizeof parents, "%d", size);
    first[2] = second[2] = parents;
    /* the second command by its name alone, found through the info key path */
    char dir[4096], *slash;
    snprintf(dir, sizeof dir, "%s", argv[0]);
    CHECK((slash = strrchr(dir, '/')) != NULL);
    *slash = '\0';
    char *cmds[] = {argv[0], slash + 1};
    char **argvs[] = {first, second};
    int procs[] = {1, 2}, codes[3];
    MPI_Info infos[] = {MPI_INFO_NULL, MPI_INFO_NULL};
    CHECK(MPI_Info_create(&infos[1]) == MPI_SUCCESS);
    CHECK(MPI_Info_set(infos[1], "path", dir) == MPI_SUCCESS);
    MPI_Comm inter;
    CHECK(MPI_Comm_spawn_multiple(2, cmds, argvs, procs, infos, 0, MPI_COMM_WORLD, &inter, codes) ==
          MPI_SUCCESS);
    for (int i = 0; i < 3; i++) CHECK(codes[i] == MPI_SUCCESS);
    MPI_Info_free(&infos[1]);
    if (rank == 0)
        for (int c = 0; c < 3; c++) {
            int a;
            CHECK(MPI_Recv(&a, 1, MPI_INT, c, 9, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(a == (c == 0 ? 0 : 1));
        }
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);

    /* errors: a command that does not exist, bad arguments */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, errs[2] = {0, 0};
    int rc = MPI_Comm_spawn("/nonexistent/tollway-no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL,
                            0, MPI_COMM_WORLD, &inter, errs);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_SPAWN);
    CHECK(errs[0] == MPI_ERR_SPAWN && errs[1] == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                        MPI_ERRCODES_IGNORE);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_ARG);
    rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &inter,
                        MPI_ERRCODES_IGNORE);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_ROOT);
    rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, (MPI_Info)12345, 0, MPI_COMM_WORLD, &inter,
                        MPI_ERRCODES_IGNORE);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_INFO);
    rc = MPI_Comm_get_parent(NULL);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_ARG);

    MPI_Finalize();
    return 0;
}
