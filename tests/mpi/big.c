/* A message of 1 GiB each way between ranks 0 and 1 (rendezvous straight into the
 * user buffer), and one of 2^28 ints: every byte checked, and the bytes past the
 * receive buffer's end untouched. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

#define GIB ((size_t)1 << 30)

static uint64_t word(size_t i, int salt) {
    return (uint64_t)i * 0x9e3779b97f4a7c15ull + (uint64_t)salt;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    if (rank < 2) {
        int peer = 1 - rank;
        uint64_t *out = malloc(GIB), *in = malloc(GIB + 64);
        CHECK(out && in);
        size_t words = GIB / sizeof *out;
        for (size_t i = 0; i < words; i++) out[i] = word(i, rank);
        memset(in, 0xab, GIB + 64);
        MPI_Status st;
        /* both directions at once: each rank's get runs while it serves the other's */
        CHECK(MPI_Sendrecv(out, (int)GIB, MPI_BYTE, peer, 1, in, (int)GIB, MPI_BYTE, peer, 1,
                           MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)GIB && st.MPI_SOURCE == peer);
        for (size_t i = 0; i < words; i++)
            if (in[i] != word(i, peer)) {
                fprintf(stderr, "rank %d: word %zu wrong\n", rank, i);
                CHECK(0);
            }
        for (size_t i = 0; i < 64; i++) CHECK(((unsigned char *)in)[GIB + i] == 0xab);
        /* 2^28 ints the other way round, as a count of a wider type */
        if (rank == 0) {
            CHECK(MPI_Send(out, 1 << 28, MPI_INT, 1, 2, MPI_COMM_WORLD) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Recv(in, 1 << 28, MPI_INT, 0, 2, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == 1 << 28);
            CHECK(in[0] == word(0, 0) && in[words - 1] == word(words - 1, 0));
        }
        free(out);
        free(in);
    }
    MPI_Finalize();
    if (rank == 0) printf("big: 1 GiB each way between ranks 0 and 1, all bytes right\n");
    return 0;
}
