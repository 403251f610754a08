/* One-sided communication toward a lost peer, over the udp link (TW_LINK=udp, a short
 * TW_UDP_TIMEOUT): rank 1 stops itself (SIGSTOP) while rank 0 holds a lock_all epoch
 * on a window of every rank; rank 0 watches it stop (/proc: all ranks are on this
 * host), starts a request-based put and get to it and flushes, which waits until the
 * link declares it lost. Ranks 2 and up stay well and serve rank 0's operations.
 *
 * usage: win_lost return|fatal
 *   return: MPI_ERRORS_RETURN on MPI_COMM_WORLD and the window. Rank 0 checks that
 *     every synchronization and operation that involves rank 1 (or, for the calls on
 *     every member, the window, which contains it) fails with MPIX_ERR_PROC_FAILED and
 *     a string naming rank 1 (a request-based call: the call, or else its MPI_Wait),
 *     that operations, locks and PSCW epochs between healthy ranks still work, and
 *     that a wait for a complete that does not come fails instead of hanging. Then it lets
 *     rank 1 continue, and every rank ends. Prints "win_lost: ok" when all held.
 *   fatal: MPI_ERRORS_RETURN on MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL (the default) on
 *     the window: rank 0 puts to rank 1 and flushes until the window's handler ends
 *     the job; its message must name rank 1 (checked by the test's expect_output.sh).
 *     (MPI_COMM_WORLD's MPI_ERRORS_ARE_FATAL ends the job as soon as the loss is
 *     noticed, with a message of its own: tests/net/peer_lost.sh.) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

enum { LOST = 1, HEALTHY = 2, GO_TAG = 4, DONE_TAG = 5 };
/* Generous bounds for a loaded machine: how long rank 0 waits to see rank 1 stop,
 * and how long rank 1 stays stopped if rank 0 never lets it continue. */
enum { STOP_SEEN_S = 120, STOP_MAX_S = 600 };

static int rank, size, failures;

static void check(int ok, const char *what) {
    if (ok) return;
    printf("win_lost: rank %d: FAILED: %s\n", rank, what);
    fflush(stdout);
    failures++;
}

/* rc must be an error of class MPIX_ERR_PROC_FAILED whose string names rank 1. */
static void check_lost(int rc, const char *what) {
    int cls = -1, len = 0;
    char s[MPI_MAX_ERROR_STRING] = "", msg[MPI_MAX_ERROR_STRING + 128];
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, s, &len);
    }
    snprintf(msg, sizeof msg, "%s: rc %d, class %d, \"%s\"", what, rc, cls, s);
    check(rc != MPI_SUCCESS && cls == MPIX_ERR_PROC_FAILED &&
              strstr(s, "process failed: rank 1 lost: ") != NULL,
          msg);
    if (!failures) printf("win_lost: %s -> %s\n", what, s);
}

static void check_ok(int rc, const char *what) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s: rc %d, expected MPI_SUCCESS", what, rc);
    check(rc == MPI_SUCCESS, msg);
}

/* A request-based call: it fails, or its request completes with the failure. */
static void check_lost_request(int rc, MPI_Request *req, const char *what) {
    char msg[128];
    if (rc == MPI_SUCCESS) {
        snprintf(msg, sizeof msg, "MPI_Wait of %s", what);
        check_lost(MPI_Wait(req, MPI_STATUS_IGNORE), msg);
    } else {
        check_lost(rc, what);
    }
}

/* Rank 1: stops until rank 0 continues it; a child of its own continues it after
 * STOP_MAX_S should rank 0 not (and ends with the job, holding no output open). */
static void stop_self(void) {
    pid_t self = getpid();
    if (fork() == 0) {
        fclose(stdout);
        fclose(stderr);
        for (int i = 0; i < STOP_MAX_S * 10 && getppid() == self; i++) {
            struct timespec t = {0, 100000000L};
            nanosleep(&t, NULL);
        }
        if (getppid() == self) kill(self, SIGCONT);
        _exit(0);
    }
    raise(SIGSTOP);
}

/* Rank 0: waits until process pid is stopped: 1, or 0 after STOP_SEEN_S. */
static int wait_stopped(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (int i = 0; i < STOP_SEEN_S * 100; i++) {
        FILE *f = fopen(path, "r");
        char state = 0;
        if (f) {
            /* pid (comm) state ...: the state follows the last ')' */
            char line[512];
            if (fgets(line, sizeof line, f)) {
                char *p = strrchr(line, ')');
                if (p && p[1] == ' ') state = p[2];
            }
            fclose(f);
        }
        if (state == 'T' || state == 't') return 1;
        struct timespec t = {0, 10000000L};
        nanosleep(&t, NULL);
    }
    return 0;
}

/* After the loss, PSCW between the healthy ranks on the window that holds the lost
 * one: rank 2 exposes its window to rank 0, which puts its mark there. A start or a
 * wait still missing a post or a complete fails once a member is lost (the one
 * missing may never come), so each side tells the other, in a message behind its
 * own, that it posted or completed: then both succeed. */
static MPI_Group group_of(int r) {
    MPI_Group world_group, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 1, &r, &g);
    MPI_Group_free(&world_group);
    return g;
}

static void pscw_origin(MPI_Win win) {
    MPI_Group g = group_of(HEALTHY);
    int mark = 100, f = 0;
    MPI_Send(&f, 1, MPI_INT, HEALTHY, GO_TAG, MPI_COMM_WORLD);
    check_ok(MPI_Recv(&f, 1, MPI_INT, HEALTHY, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             "the receive of rank 2's word that it posted");
    check_ok(MPI_Win_start(g, 0, win), "MPI_Win_start of a healthy rank whose post came");
    check_ok(MPI_Put(&mark, 1, MPI_INT, HEALTHY, 5, 1, MPI_INT, win), "MPI_Put in that epoch");
    check_ok(MPI_Win_complete(win), "MPI_Win_complete of a healthy rank");
    MPI_Send(&f, 1, MPI_INT, HEALTHY, GO_TAG, MPI_COMM_WORLD);
    /* an exposure epoch whose origin never completes: the wait fails, never hangs */
    check_ok(MPI_Win_post(g, 0, win), "MPI_Win_post to a healthy rank");
    check_lost(MPI_Win_wait(win), "MPI_Win_wait for a complete that does not come");
    MPI_Group_free(&g);
}

static void pscw_target(MPI_Win win, const int *mem) {
    MPI_Group g = group_of(0);
    int f = 0;
    check_ok(MPI_Recv(&f, 1, MPI_INT, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             "the receive of rank 0's go");
    check_ok(MPI_Win_post(g, 0, win), "MPI_Win_post to a healthy rank");
    MPI_Send(&f, 1, MPI_INT, 0, GO_TAG, MPI_COMM_WORLD);
    check_ok(MPI_Recv(&f, 1, MPI_INT, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             "the receive of rank 0's word that it completed");
    check_ok(MPI_Win_wait(win), "MPI_Win_wait of a healthy rank whose complete came");
    check(mem[5] == 100, "rank 0's mark came in the exposure epoch");
    MPI_Group_free(&g);
}

/* Rank 0 after rank 1 stopped, in a lock_all epoch on win. */
static void origin_return(MPI_Win win) {
    int x = 7, y = 0, z = 0;
    MPI_Request rq;
    MPI_Group world_group, lost_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int lost_rank = LOST;
    MPI_Group_incl(world_group, 1, &lost_rank, &lost_group);

    /* under way while it is stopped: complete with its loss */
    MPI_Request rput, rget;
    int rc_put = MPI_Rput(&x, 1, MPI_INT, LOST, 0, 1, MPI_INT, win, &rput);
    int rc_get = MPI_Rget(&y, 1, MPI_INT, LOST, 1, 1, MPI_INT, win, &rget);
    int rc = MPI_Put(&x, 1, MPI_INT, LOST, 2, 1, MPI_INT, win);
    if (rc != MPI_SUCCESS) check_lost(rc, "MPI_Put while it is stopped");
    check_lost(MPI_Win_flush(LOST, win), "MPI_Win_flush of a put under way");
    check_lost_request(rc_put, &rput, "MPI_Rput under way");
    check_lost_request(rc_get, &rget, "MPI_Rget under way");

    /* every operation after the loss, still in the lock_all epoch */
    check_lost(MPI_Put(&x, 1, MPI_INT, LOST, 0, 1, MPI_INT, win), "MPI_Put");
    check_lost(MPI_Get(&y, 1, MPI_INT, LOST, 0, 1, MPI_INT, win), "MPI_Get");
    check_lost(MPI_Accumulate(&x, 1, MPI_INT, LOST, 0, 1, MPI_INT, MPI_SUM, win), "MPI_Accumulate");
    check_lost(
        MPI_Get_accumulate(&x, 1, MPI_INT, &y, 1, MPI_INT, LOST, 0, 1, MPI_INT, MPI_SUM, win),
        "MPI_Get_accumulate");
    check_lost(MPI_Fetch_and_op(&x, &y, MPI_INT, LOST, 0, MPI_SUM, win), "MPI_Fetch_and_op");
    check_lost(MPI_Compare_and_swap(&x, &z, &y, MPI_INT, LOST, 0, win), "MPI_Compare_and_swap");
    rq = MPI_REQUEST_NULL;
    check_lost_request(MPI_Rput(&x, 1, MPI_INT, LOST, 0, 1, MPI_INT, win, &rq), &rq, "MPI_Rput");
    rq = MPI_REQUEST_NULL;
    check_lost_request(MPI_Rget(&y, 1, MPI_INT, LOST, 0, 1, MPI_INT, win, &rq), &rq, "MPI_Rget");
    rq = MPI_REQUEST_NULL;
    check_lost_request(MPI_Raccumulate(&x, 1, MPI_INT, LOST, 0, 1, MPI_INT, MPI_SUM, win, &rq), &rq,
                       "MPI_Raccumulate");
    rq = MPI_REQUEST_NULL;
    check_lost_request(
        MPI_Rget_accumulate(&x, 1, MPI_INT, &y, 1, MPI_INT, LOST, 0, 1, MPI_INT, MPI_SUM, win, &rq),
        &rq, "MPI_Rget_accumulate");
    check_lost(MPI_Win_flush(LOST, win), "MPI_Win_flush");
    check_lost(MPI_Win_flush_local(LOST, win), "MPI_Win_flush_local");
    check_lost(MPI_Win_flush_all(win), "MPI_Win_flush_all");
    check_lost(MPI_Win_flush_local_all(win), "MPI_Win_flush_local_all");

    /* a healthy rank still answers in the same epoch */
    int v = 4242, back = 0;
    check_ok(MPI_Put(&v, 1, MPI_INT, HEALTHY, 3, 1, MPI_INT, win), "MPI_Put to a healthy rank");
    check_ok(MPI_Win_flush(HEALTHY, win), "MPI_Win_flush of a healthy rank");
    check_ok(MPI_Get(&back, 1, MPI_INT, HEALTHY, 3, 1, MPI_INT, win),
             "MPI_Get from a healthy rank");
    check_ok(MPI_Win_flush(HEALTHY, win), "MPI_Win_flush of a healthy rank");
    check(back == v, "the healthy rank's window holds what was put there");
    check_lost(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");

    /* locks */
    check_lost(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    check_lost(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), "MPI_Win_lock_all (MPI_MODE_NOCHECK)");
    check_lost(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, LOST, 0, win), "MPI_Win_lock");
    check_lost(MPI_Win_lock(MPI_LOCK_SHARED, LOST, MPI_MODE_NOCHECK, win),
               "MPI_Win_lock (MPI_MODE_NOCHECK)");
    check_lost(MPI_Win_unlock(LOST, win), "MPI_Win_unlock");
    check_ok(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, HEALTHY, 0, win), "MPI_Win_lock of a healthy rank");
    check_ok(MPI_Accumulate(&v, 1, MPI_INT, HEALTHY, 3, 1, MPI_INT, MPI_SUM, win),
             "MPI_Accumulate to a healthy rank");
    check_ok(MPI_Win_unlock(HEALTHY, win), "MPI_Win_unlock of a healthy rank");
    check_ok(MPI_Win_lock(MPI_LOCK_SHARED, HEALTHY, 0, win), "MPI_Win_lock of a healthy rank");
    check_ok(MPI_Get(&back, 1, MPI_INT, HEALTHY, 3, 1, MPI_INT, win),
             "MPI_Get from a healthy rank");
    check_ok(MPI_Win_unlock(HEALTHY, win), "MPI_Win_unlock of a healthy rank");
    check(back == 2 * v, "the healthy rank's window holds the sum accumulated there");

    /* active target */
    check_lost(MPI_Win_fence(0, win), "MPI_Win_fence");
    check_lost(MPI_Win_post(lost_group, 0, win), "MPI_Win_post");
    check_lost(MPI_Win_start(lost_group, 0, win), "MPI_Win_start");
    check_lost(MPI_Win_complete(win), "MPI_Win_complete");
    check_lost(MPI_Win_wait(win), "MPI_Win_wait");
    int flag = 0;
    check_lost(MPI_Win_test(win, &flag), "MPI_Win_test");
    MPI_Group_free(&lost_group);
    MPI_Group_free(&world_group);

    pscw_origin(win);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ret = argc >= 2 && !strcmp(argv[1], "return");
    if (argc < 2 || (!ret && strcmp(argv[1], "fatal")) || size < 3) {
        if (rank == 0) fprintf(stderr, "usage: win_lost return|fatal (3 or more ranks)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int *mem;
    MPI_Win win;
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    if (ret) MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 16; i++) mem[i] = 0;
    int pid = (int)getpid(), *pids = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
    if (rank == 0) check_ok(MPI_Win_lock_all(0, win), "MPI_Win_lock_all before the loss");
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == LOST) {
        stop_self();
        /* continued: its peers declared it lost; what it meets now is not checked */
        int v = 1, s = 0;
        MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (rank == 0) {
        if (!wait_stopped((pid_t)pids[LOST])) {
            printf("win_lost: FAILED: rank 1 did not stop within %d s\n", STOP_SEEN_S);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (ret) {
            origin_return(win);
        } else {
            int x = 1;
            for (;;) { /* until the window's handler ends the job */
                MPI_Put(&x, 1, MPI_INT, LOST, 0, 1, MPI_INT, win);
                MPI_Win_flush(LOST, win);
            }
        }
        kill((pid_t)pids[LOST], SIGCONT);
        for (int r = 2; r < size; r++) MPI_Send(&failures, 1, MPI_INT, r, DONE_TAG, MPI_COMM_WORLD);
    } else { /* healthy: serves rank 0's operations until it is done */
        int f = 0;
        if (ret && rank == HEALTHY) {
            pscw_target(win, mem);
        }
        check_ok(MPI_Recv(&f, 1, MPI_INT, 0, DONE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 "the receive of rank 0's end");
    }
    MPI_Win_free(&win); /* its closing barrier fails: not checked */
    free(pids);
    if (!failures && rank != LOST) printf("win_lost: rank %d: ok\n", rank);
    fflush(stdout);
    MPI_Finalize();
    return failures != 0;
}
