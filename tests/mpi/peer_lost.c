/* A job in which one rank stops for a while (as a process that is swapped out, or
 * stopped by a debugger): it raises SIGSTOP on itself, and a child it made before
 * continues it after the given time. Meanwhile the others run Allreduce and Alltoall
 * with every result checked.
 *
 * usage: peer_lost SECONDS [STOP_RANK AT_SECONDS STOP_MS] [return]
 *   SECONDS: how long the loop runs (rank 0's clock decides for all).
 *   return: MPI_ERRORS_RETURN on MPI_COMM_WORLD. Then every rank that sees an
 *   operation fail checks that it failed with MPIX_ERR_PROC_FAILED and a string
 *   naming a peer, and that operations of each kind that depend on the lost peer
 *   fail the same way: a receive posted before the loss, a large send under way, two
 *   synchronous sends never received, a
 *   send to and a receive from it, a receive from MPI_ANY_SOURCE, a probe, a blocking
 *   and a non-blocking collective, MPI_Waitall's statuses, and on a window: a lock, a
 *   put, a fence and an access epoch (MPI_Win_start) that include it. The rank that
 *   was stopped learns, when it continues, that its peers declared it lost. Rank pairs that lost
 * nobody go on talking. Prints "peer_lost: ok" per rank when everything held. Without "return"
 * (MPI_ERRORS_ARE_FATAL) a loss ends the job; the loop completing prints "peer_lost: N rounds
 * verified". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#define BIG (1 << 20)

static int rank, size, failures;

static void check(int ok, const char *what) {
    if (ok) return;
    printf("peer_lost: rank %d: FAILED: %s\n", rank, what);
    fflush(stdout);
    failures++;
}

/* rc must be an error of class MPIX_ERR_PROC_FAILED whose string names a rank. */
static void check_proc_failed(int rc, const char *what) {
    int cls = -1;
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, s, &len);
    }
    char msg[MPI_MAX_ERROR_STRING + 128];
    snprintf(msg, sizeof msg, "%s: rc %d class %d \"%s\"", what, rc, cls, s);
    check(rc != MPI_SUCCESS && cls == MPIX_ERR_PROC_FAILED && strstr(s, "process failed: rank ") &&
              strstr(s, " lost: "),
          msg);
    if (rank == 0 || rank == size - 1 || failures)
        printf("peer_lost: rank %d: %s -> %s\n", rank, what, s);
}

static void stop_self(int ms) {
    printf("peer_lost: rank %d stops for %d ms\n", rank, ms);
    fflush(stdout);
    pid_t parent = getpid();
    if (fork() == 0) {
        struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
        kill(parent, SIGCONT);
        _exit(0);
    }
    raise(SIGSTOP);
    printf("peer_lost: rank %d continues\n", rank);
    fflush(stdout);
}

/* One round: an Allreduce and an Alltoall, results checked. *go: rank 0's word on
 * going on, which the Allreduce takes to everyone. rc: the first error. */
static int round_of(int k, int *go) {
    int in[2] = {rank + k, rank == 0 && !*go}, out[2]; /* the maximum: 1 when rank 0 stops */
    int rc = MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rc) return rc;
    check(out[0] == size - 1 + k, "allreduce result");
    *go = !out[1];
    int *s = malloc(sizeof(int) * (size_t)size * 256),
        *r = malloc(sizeof(int) * (size_t)size * 256);
    for (int p = 0; p < size; p++)
        for (int j = 0; j < 256; j++) s[p * 256 + j] = rank * 1000003 + p * 1009 + j + k;
    rc = MPI_Alltoall(s, 256, MPI_INT, r, 256, MPI_INT, MPI_COMM_WORLD);
    if (!rc)
        for (int p = 0; p < size; p++)
            for (int j = 0; j < 256; j++)
                if (r[p * 256 + j] != p * 1000003 + rank * 1009 + j + k) {
                    check(0, "alltoall data");
                    p = size;
                    break;
                }
    free(s);
    free(r);
    return rc;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        fprintf(stderr, "usage: peer_lost SECONDS [STOP_RANK AT_SECONDS STOP_MS] [return]\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    int stop_rank = argc >= 5 ? atoi(argv[2]) : -1;
    double stop_at = argc >= 5 ? atof(argv[3]) : 0;
    int stop_ms = argc >= 5 ? atoi(argv[4]) : 0;
    int ret = !strcmp(argv[argc - 1], "return");
    if (ret) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* under way before the loss: a receive from the rank that will stop, a message
     * too large to go eagerly (a rendezvous) and two synchronous ones (eager, and by
     * pieces on one node), all never answered */
    MPI_Request early[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    static char big_out[BIG], big_in[BIG];
    int lost_peer_candidate = stop_rank;
    if (ret && rank != stop_rank && stop_rank >= 0) {
        MPI_Irecv(big_in, 1, MPI_CHAR, stop_rank, 99, MPI_COMM_WORLD, &early[0]);
        MPI_Isend(big_out, BIG, MPI_CHAR, stop_rank, 98, MPI_COMM_WORLD, &early[1]);
        MPI_Issend(big_out, 8, MPI_CHAR, stop_rank, 97, MPI_COMM_WORLD, &early[2]);
        MPI_Issend(big_out, 8192, MPI_CHAR, stop_rank, 96, MPI_COMM_WORLD, &early[3]);
    }

    /* a window over every rank, made while all are well */
    static int win_mem[64];
    MPI_Win win = MPI_WIN_NULL;
    if (ret) {
        MPI_Win_create(win_mem, sizeof win_mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    }
    {
        int cls = -1, len = 0;
        char s[MPI_MAX_ERROR_STRING];
        MPI_Error_class(MPIX_ERR_PROC_FAILED, &cls);
        MPI_Error_string(MPIX_ERR_PROC_FAILED, s, &len);
        check(cls == MPIX_ERR_PROC_FAILED && !strcmp(s, "process failed"),
              "MPIX_ERR_PROC_FAILED is a class of its own, named \"process failed\"");
        check(MPIX_ERR_PROC_FAILED < MPI_ERR_LASTCODE, "MPI_ERR_LASTCODE is above it");
    }

    double t0 = MPI_Wtime();
    int go = 1, k = 0, rc = MPI_SUCCESS, stopped = 0;
    while (go) {
        if (rank == stop_rank && !stopped && MPI_Wtime() - t0 >= stop_at) {
            stopped = 1;
            stop_self(stop_ms);
        }
        if (rank == 0) go = MPI_Wtime() - t0 < seconds;
        rc = round_of(k++, &go);
        if (rc) break;
        /* a millisecond between rounds, as an application computes between its calls:
         * the rounds back to back kept every core of the machine busy for the loop's
         * seconds (the two hosts of tests/net share them), for no more of what is tested */
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    if (!ret) {
        check(rc == MPI_SUCCESS, "the loop");
        if (rank == 0 && !failures) printf("peer_lost: %d rounds verified\n", k);
        MPI_Finalize();
        return failures != 0;
    }

    if (stop_rank >= 0) {
        check_proc_failed(rc, "a collective in the loop");
        if (rank == stop_rank) { /* it comes back to peers that declared it lost: a reset */
            char s[MPI_MAX_ERROR_STRING] = "";
            int len = 0;
            if (rc) MPI_Error_string(rc, s, &len);
            check(strstr(s, "had declared this rank lost") != NULL,
                  "the rank that was stopped learns it was declared lost");
        }
        if (rank != stop_rank) {
            MPI_Status st[4];
            int wr = MPI_Waitall(4, early, st);
            check(wr == MPI_ERR_IN_STATUS, "MPI_Waitall of the early requests: MPI_ERR_IN_STATUS");
            check_proc_failed(st[0].MPI_ERROR, "a receive posted before the loss");
            check_proc_failed(st[1].MPI_ERROR, "a large send under way at the loss");
            check_proc_failed(st[2].MPI_ERROR, "a synchronous eager send never received");
            check_proc_failed(st[3].MPI_ERROR, "a synchronous send by pieces never received");
            int x = 0;
            MPI_Status s1;
            check_proc_failed(MPI_Recv(&x, 1, MPI_INT, lost_peer_candidate, 5, MPI_COMM_WORLD, &s1),
                              "a receive from the lost rank");
            check_proc_failed(MPI_Send(&x, 1, MPI_INT, lost_peer_candidate, 5, MPI_COMM_WORLD),
                              "a send to the lost rank");
            MPI_Request q;
            MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &q);
            check_proc_failed(MPI_Wait(&q, &s1), "a receive from MPI_ANY_SOURCE");
            check_proc_failed(MPI_Probe(lost_peer_candidate, 7, MPI_COMM_WORLD, &s1),
                              "a probe for the lost rank");

            check_proc_failed(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, stop_rank, 0, win),
                              "MPI_Win_lock of the lost rank");
            MPI_Win_lock(MPI_LOCK_SHARED, stop_rank, MPI_MODE_NOCHECK, win);
            check_proc_failed(MPI_Put(&x, 1, MPI_INT, stop_rank, 0, 1, MPI_INT, win),
                              "MPI_Put to the lost rank");
            MPI_Win_unlock(stop_rank, win);
            check_proc_failed(MPI_Win_fence(0, win), "MPI_Win_fence");
            MPI_Group world_group, lost_group;
            MPI_Comm_group(MPI_COMM_WORLD, &world_group);
            MPI_Group_incl(world_group, 1, &stop_rank, &lost_group);
            check_proc_failed(MPI_Win_start(lost_group, 0, win),
                              "MPI_Win_start of an epoch with the lost rank");
            MPI_Group_free(&lost_group);
            MPI_Group_free(&world_group);
        }
        check_proc_failed(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier after the loss");
        MPI_Request b;
        int ib = MPI_Ibarrier(MPI_COMM_WORLD, &b);
        if (ib == MPI_SUCCESS) ib = MPI_Wait(&b, MPI_STATUS_IGNORE);
        check_proc_failed(ib, "MPI_Ibarrier after the loss");
        int v = 1, w = 0;
        check_proc_failed(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                          "MPI_Allreduce after the loss");
    }
    if (win != MPI_WIN_NULL) MPI_Win_free(&win); /* its closing barrier fails: not checked */
    if (!failures) printf("peer_lost: rank %d: ok\n", rank);
    fflush(stdout);
    MPI_Finalize();
    return failures != 0;
}
