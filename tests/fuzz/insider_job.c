/* The job the insider fuzzer (insider.c) attacks: an MPI program whose every byte
 * received is checked against what its sender must have sent, so that anything the
 * forged packets smuggled in shows.
 *
 * Each round: a ring of messages of assorted sizes each way (from empty to past the
 * rendezvous threshold and the link's 64 KiB message), an Allreduce, an Alltoall, a
 * Bcast from a root that moves, and RMA under fences (a Put to the right neighbour, a
 * Get from the one after it, an Accumulate on rank 0). Rounds go on until rank 0's
 * clock passes SECONDS (it tells the others each round).
 *
 * usage: insider_job SECONDS
 * Prints "insider_job: N rounds verified" (rank 0) when every check held; a byte that
 * differs prints "insider_job: rank R: CORRUPT: ..." and ends the job with status 2.
 * A peer lost ends it as MPI_ERRORS_ARE_FATAL does, with the library's message. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

static void corrupt(const char *what, int round, size_t at) {
    fprintf(stderr, "insider_job: rank %d: CORRUPT: %s in round %d at %zu\n", rank, what, round,
            at);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void ok(int rc, const char *what) {
    if (rc == MPI_SUCCESS) return;
    fprintf(stderr, "insider_job: rank %d: %s failed (%d)\n", rank, what, rc);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* The byte i of what rank src sends in round r for purpose what. */
static unsigned char byte_of(int what, int r, int src, int dst, size_t i) {
    uint32_t x = (uint32_t)what * 2654435761u ^ (uint32_t)r * 40503u ^ (uint32_t)src * 977u ^
                 (uint32_t)dst * 131u ^ (uint32_t)i * 7u ^ (uint32_t)(i >> 9);
    return (unsigned char)(x ^ x >> 8 ^ x >> 16);
}

static void fill(unsigned char *b, size_t n, int what, int r, int src, int dst) {
    for (size_t i = 0; i < n; i++) b[i] = byte_of(what, r, src, dst, i);
}

static void verify(const unsigned char *b, size_t n, int what, int r, int src, int dst,
                   const char *name) {
    for (size_t i = 0; i < n; i++)
        if (b[i] != byte_of(what, r, src, dst, i)) corrupt(name, r, i);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Lengths of the ring's messages: empty, a byte, around one packet, several packets,
 * one link message and past it (rendezvous). */
static const size_t ring_sizes[] = {0, 1, 100, 1400, 4000, 20000, 65536, 70000, 300000};
enum { NSIZES = sizeof ring_sizes / sizeof ring_sizes[0], BIG = 300000 };
enum { A2A = 256, BCAST = 3000, REDUCE = 64 };
enum { WIN_INTS = 4096, PUT_INTS = 512, GET_AT = 1024, GET_INTS = 700, COUNTERS = 2048 };

static int32_t word_of(int r, int src, int i) {
    return (int32_t)((uint32_t)r * 100003u + (uint32_t)src * 1009u + (uint32_t)i);
}

static void ring(int r, unsigned char *out, unsigned char *in) {
    for (int dir = 1; dir <= size - 1 && dir <= 2; dir++) { /* right, then left */
        int dst = (rank + dir) % size, src = (rank - dir + size) % size;
        size_t len = ring_sizes[(size_t)(r + rank + dir) % NSIZES];
        size_t expect = ring_sizes[(size_t)(r + src + dir) % NSIZES];
        fill(out, len, dir, r, rank, dst);
        MPI_Request req;
        MPI_Status st;
        ok(MPI_Isend(out, (int)len, MPI_BYTE, dst, dir, MPI_COMM_WORLD, &req), "MPI_Isend");
        ok(MPI_Recv(in, BIG, MPI_BYTE, src, dir, MPI_COMM_WORLD, &st), "MPI_Recv");
        int got;
        MPI_Get_count(&st, MPI_BYTE, &got);
        if ((size_t)got != expect) corrupt("ring message length", r, (size_t)got);
        verify(in, expect, dir, r, src, rank, "ring message");
        ok(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait");
    }
}

static void collectives(int r, unsigned char *out, unsigned char *in) {
    int32_t mine[REDUCE], sum[REDUCE];
    for (int i = 0; i < REDUCE; i++) mine[i] = word_of(r, rank, i);
    ok(MPI_Allreduce(mine, sum, REDUCE, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    for (int i = 0; i < REDUCE; i++) {
        uint32_t expect = 0;
        for (int s = 0; s < size; s++) expect += (uint32_t)word_of(r, s, i);
        if ((uint32_t)sum[i] != expect) corrupt("Allreduce", r, (size_t)i);
    }
    for (int d = 0; d < size; d++) fill(out + (size_t)d * A2A, A2A, 10, r, rank, d);
    ok(MPI_Alltoall(out, A2A, MPI_BYTE, in, A2A, MPI_BYTE, MPI_COMM_WORLD), "MPI_Alltoall");
    for (int s = 0; s < size; s++) verify(in + (size_t)s * A2A, A2A, 10, r, s, rank, "Alltoall");
    int root = r % size;
    if (rank == root)
        fill(in, BCAST, 11, r, root, 0);
    else
        memset(in, 0, BCAST);
    ok(MPI_Bcast(in, BCAST, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    verify(in, BCAST, 11, r, root, 0, "Bcast");
}

static void rma(int r, MPI_Win win, int32_t *base, uint32_t *counted) {
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int far = (rank + 2) % size;
    for (int i = 0; i < GET_INTS; i++) base[GET_AT + i] = word_of(r, rank, i + 7);
    int32_t put[PUT_INTS], got[GET_INTS], one = 1;
    for (int i = 0; i < PUT_INTS; i++) put[i] = word_of(r, rank, i);
    ok(MPI_Win_fence(0, win), "MPI_Win_fence");
    ok(MPI_Put(put, PUT_INTS, MPI_INT32_T, right, 0, PUT_INTS, MPI_INT32_T, win), "MPI_Put");
    ok(MPI_Get(got, GET_INTS, MPI_INT32_T, far, GET_AT, GET_INTS, MPI_INT32_T, win), "MPI_Get");
    ok(MPI_Accumulate(&one, 1, MPI_INT32_T, 0, COUNTERS + r % 8, 1, MPI_INT32_T, MPI_SUM, win),
       "MPI_Accumulate");
    ok(MPI_Win_fence(0, win), "MPI_Win_fence");
    for (int i = 0; i < PUT_INTS; i++)
        if (base[i] != word_of(r, left, i)) corrupt("Put", r, (size_t)i);
    for (int i = 0; i < GET_INTS; i++)
        if (got[i] != word_of(r, far, i + 7)) corrupt("Get", r, (size_t)i);
    if (rank == 0) {
        counted[r % 8] += (uint32_t)size;
        for (int k = 0; k < 8; k++)
            if ((uint32_t)base[COUNTERS + k] != counted[k]) corrupt("Accumulate", r, (size_t)k);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    size_t cap = BIG > (size_t)size * A2A ? BIG : (size_t)size * A2A;
    unsigned char *out = malloc(cap), *in = malloc(cap);
    int32_t *base;
    MPI_Win win;
    ok(MPI_Win_allocate(WIN_INTS * sizeof(int32_t), sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                        &base, &win),
       "MPI_Win_allocate");
    memset(base, 0, WIN_INTS * sizeof(int32_t));
    uint32_t counted[8] = {0};
    if (!out || !in) MPI_Abort(MPI_COMM_WORLD, 3);
    double start = now();
    int r = 0, more = 1;
    while (more) {
        ring(r, out, in);
        collectives(r, out, in);
        rma(r, win, base, counted);
        r++;
        more = rank == 0 ? now() - start < seconds : 0;
        ok(MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
    }
    ok(MPI_Win_free(&win), "MPI_Win_free");
    if (rank == 0) printf("insider_job: %d rounds verified\n", r);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
