/* Instructions of MPI's hot paths, counted by callgrind: an 8-byte MPI_Send, the
 * MPI_Recv of an 8-byte message that has already arrived, and an MPI_Iprobe that
 * finds nothing, and an 8-byte MPI_Irecv posted before its message comes. Rank 0
 * sends N messages and then creates the file FLAG; rank 1
 * waits for the file without calling MPI (so nothing is polled early), then receives
 * them. Each phase is collected alone and dumped under its own name, so the counts
 * hold no waiting. Run under twrun -n 2 with valgrind --tool=callgrind
 * --collect-atstart=no (hotpath/instructions.sh does). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

static void touch(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f || fclose(f)) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Waits for a file without calling MPI, so nothing is polled meanwhile. */
static void wait_for(const char *path) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    while (access(path, F_OK) != 0) nanosleep(&pause, NULL);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (size != 2 || n < 1 || n > 2000) {
        if (rank == 0) fprintf(stderr, "usage: twrun -n 2 mpi_count FLAG N (N: 1..2000)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *flag = argv[1];
    char posted[4096];
    snprintf(posted, sizeof posted, "%s.posted", flag);
    char buf[8] = "8 bytes";
    int flagged;
    MPI_Status st;
    if (rank == 0) /* warm up: both sides' first contact and code */
        MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CALLGRIND_TOGGLE_COLLECT;
        for (int i = 0; i < n; i++) MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("mpi-send-8B");
        touch(flag);
        wait_for(posted); /* rank 1 has posted its receives: N more */
        for (int i = 0; i < n; i++) MPI_Send(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
    } else {
        wait_for(flag);
        CALLGRIND_TOGGLE_COLLECT;
        for (int i = 0; i < n; i++) MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &st);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("mpi-recv-8B");
        CALLGRIND_TOGGLE_COLLECT;
        for (int i = 0; i < n; i++) MPI_Iprobe(0, 0, MPI_COMM_WORLD, &flagged, MPI_STATUS_IGNORE);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("mpi-iprobe-empty");
        static MPI_Request reqs[2000];
        static char bufs[2000][8];
        CALLGRIND_TOGGLE_COLLECT;
        for (int i = 0; i < n; i++) MPI_Irecv(bufs[i], 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &reqs[i]);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("mpi-irecv-posted-8B");
        touch(posted);
        MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
