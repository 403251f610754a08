/* A sender that floods a receiver that posts nothing: rank 0 starts 25000 eager
 * sends of 4000 bytes (100 MB) to rank 1, which only probes for a tag nobody sends.
 * Rank 1 must set aside no more than its bound (64 MiB of unexpected data) and hold
 * the rest back in rank 0, whose sends then cannot all be complete; afterwards every
 * message arrives, in order. Rank 1 receives only once rank 0 has looked, which it
 * says through a file: a message rank 0 sent after the flood would wait behind it
 * (rank 1 could not receive it before the flood's messages), and rank 1 receiving as
 * soon as it has said it stopped taking messages in let rank 0's sends all complete
 * before rank 0 looked, now and then. Needs 2 ranks (on one node). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_check.h"

enum { N = 25000, LEN = 4000 };

/* What rank 1 may grow by: 64 MiB of data and the entries that hold it (65 MiB
 * measured). AddressSanitizer's allocator rounds blocks up and shadows them (93 to
 * 96 MiB measured), still well short of what the whole 100 MB flood would take
 * there without the bound. */
#if defined(__SANITIZE_ADDRESS__)
enum { GROWN_MAX_MIB = 128 };
#else
enum { GROWN_MAX_MIB = 96 };
#endif

static long resident_mib(void) {
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f && fscanf(f, "%ld %ld", &pages, &rss) == 2);
    fclose(f);
    return rss * sysconf(_SC_PAGESIZE) >> 20;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    /* where rank 0 says it has looked: a directory of its own, named before the flood */
    char gate[64] = "/tmp/tw-flood-XXXXXX";
    if (rank == 0) CHECK(mkdtemp(gate) != NULL);
    CHECK(MPI_Bcast(gate, sizeof gate, MPI_CHAR, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    char looked[96];
    snprintf(looked, sizeof looked, "%s/looked", gate);
    if (rank == 0) {
        char *out = malloc((size_t)N * LEN);
        MPI_Request *r = malloc(N * sizeof *r);
        CHECK(out && r);
        for (int i = 0; i < N; i++) {
            memset(out + (size_t)i * LEN, i & 0x7f, LEN);
            memcpy(out + (size_t)i * LEN, &i, sizeof i);
            CHECK(MPI_Isend(out + (size_t)i * LEN, LEN, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &r[i]) ==
                  MPI_SUCCESS);
        }
        int done = 0, flag;
        /* rank 1 says when it has stopped taking messages in */
        CHECK(MPI_Recv(&done, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Testall(N, r, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(!flag); /* held back: 100 MB cannot have gone into 64 MiB */
        CHECK(mkdir(looked, 0700) == 0);
        CHECK(MPI_Waitall(N, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        free(out);
        free(r);
    } else {
        long before = resident_mib();
        int flag;
        /* probe (taking in all that arrives) until near the bound, then some more:
         * each probe walks the messages set aside, so not too many. Until the bound
         * is near, however long the sender takes to start: stopping earlier would let
         * the flood arrive when the receives are posted, holding nothing back. */
        int k = 0, extra = 0;
        while (extra < 2000) {
            CHECK(MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            if (++k % 256 == 0 && !extra && resident_mib() - before >= 60) extra = 1;
            if (extra) extra++;
        }
        long grown = resident_mib() - before;
        fprintf(stderr, "rank 1: %ld MiB more resident after %d probes under the flood\n", grown,
                k);
        CHECK(grown < GROWN_MAX_MIB);
        int done = 1;
        CHECK(MPI_Send(&done, 1, MPI_INT, 0, 2, MPI_COMM_WORLD) == MPI_SUCCESS);
        struct stat st;
        while (stat(looked, &st) != 0) usleep(1000); /* rank 0 has looked */
        char in[LEN];
        for (int i = 0; i < N; i++) {
            CHECK(MPI_Recv(in, LEN, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
            int got;
            memcpy(&got, in, sizeof got);
            CHECK(got == i && in[LEN - 1] == (char)(i & 0x7f));
        }
    }
    MPI_Finalize();
    if (rank == 0) {
        rmdir(looked);
        rmdir(gate);
        printf("flood: the receiver held the sender back and lost nothing\n");
    }
    return 0;
}
