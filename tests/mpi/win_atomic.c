/* One-sided communication under contention: accumulates from every rank to one
 * location with every kind of predefined op, fetch-and-op and compare-and-swap
 * tickets, vector accumulates crossing fetch-and-ops on their elements, and
 * exclusive locks against shared ones — on a heap window (the lock word through its
 * mapping) and on a window of ordinary memory (the lock word through the device).
 * usage: win_atomic [ROUNDS] */
#include <complex.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

/* rounds of each contention pattern: argv[1], at least 32 (rank 0's MPI_BAND clears
 * one bit a round), 200 by default */
static int rounds = 200;

enum { VEC = 64, BYTES = 1000 };

typedef struct {
    double v;
    int i;
} double_int;
typedef struct {
    int v, i;
} int_int;

/* the layout of the window: one of each */
typedef struct cell {
    long long sum;
    double dsum;
    int imin, imax;
    unsigned band, bor, bxor;
    int replace;
    int_int minloc;
    double_int maxloc;
    long double lsum;
    double complex csum;
    long long tickets;
    long long cas;
    long long pair[2];          /* written under an exclusive lock, read under shared ones */
    long long plain;            /* incremented with get + put under an exclusive lock */
    long long vec[VEC];         /* whole-vector sums and fetch-and-ops on single elements */
    unsigned char bytes[BYTES]; /* whole-vector byte sums (wrapping) */
} cell_t;

#define AT(field) ((MPI_Aint)offsetof(cell_t, field))

static void contention(MPI_Win w, cell_t *mine) {
    memset(mine, 0, sizeof *mine);
    mine->imin = 1 << 30;
    mine->band = ~0u;
    mine->minloc.v = 1 << 30;
    mine->maxloc.v = -1;
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);

    /* accumulates of every op to rank 0, all at once */
    CHECK(MPI_Win_lock_all(0, w) == MPI_SUCCESS);
    long long *tickets = malloc(rounds * sizeof *tickets);
    CHECK(tickets);
    for (int k = 0; k < rounds; k++) {
        long long one = 1;
        double half = 0.5;
        int v = rank * rounds + k;
        unsigned bit = 1u << ((rank + k) % 32), notbit = ~bit;
        CHECK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, AT(sum), 1, MPI_LONG_LONG, MPI_SUM, w) ==
              MPI_SUCCESS);
        CHECK(MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, AT(dsum), 1, MPI_DOUBLE, MPI_SUM, w) ==
              MPI_SUCCESS);
        CHECK(MPI_Accumulate(&v, 1, MPI_INT, 0, AT(imin), 1, MPI_INT, MPI_MIN, w) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(&v, 1, MPI_INT, 0, AT(imax), 1, MPI_INT, MPI_MAX, w) == MPI_SUCCESS);
        if (k < 32 && rank == 0)
            CHECK(MPI_Accumulate(&notbit, 1, MPI_UNSIGNED, 0, AT(band), 1, MPI_UNSIGNED, MPI_BAND,
                                 w) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(&bit, 1, MPI_UNSIGNED, 0, AT(bor), 1, MPI_UNSIGNED, MPI_BOR, w) ==
              MPI_SUCCESS);
        CHECK(MPI_Accumulate(&bit, 1, MPI_UNSIGNED, 0, AT(bxor), 1, MPI_UNSIGNED, MPI_BXOR, w) ==
              MPI_SUCCESS);
        int r1 = rank + 1;
        CHECK(MPI_Accumulate(&r1, 1, MPI_INT, 0, AT(replace), 1, MPI_INT, MPI_REPLACE, w) ==
              MPI_SUCCESS);
        int_int mi = {v % 97, v};
        CHECK(MPI_Accumulate(&mi, 1, MPI_2INT, 0, AT(minloc), 1, MPI_2INT, MPI_MINLOC, w) ==
              MPI_SUCCESS);
        double_int ma = {(double)(v % 89), v};
        CHECK(MPI_Accumulate(&ma, 1, MPI_DOUBLE_INT, 0, AT(maxloc), 1, MPI_DOUBLE_INT, MPI_MAXLOC,
                             w) == MPI_SUCCESS);
        long double l = 0.25L;
        CHECK(MPI_Accumulate(&l, 1, MPI_LONG_DOUBLE, 0, AT(lsum), 1, MPI_LONG_DOUBLE, MPI_SUM, w) ==
              MPI_SUCCESS);
        double complex c = 1.0 + 2.0 * I;
        CHECK(MPI_Accumulate(&c, 1, MPI_C_DOUBLE_COMPLEX, 0, AT(csum), 1, MPI_C_DOUBLE_COMPLEX,
                             MPI_SUM, w) == MPI_SUCCESS);
        /* tickets: fetch-and-add, and a compare-and-swap loop */
        CHECK(MPI_Fetch_and_op(&one, &tickets[k], MPI_LONG_LONG, 0, AT(tickets), MPI_SUM, w) ==
              MPI_SUCCESS);
        long long seen = 0, want;
        do {
            want = seen + 1;
            long long expect = seen;
            CHECK(MPI_Compare_and_swap(&want, &expect, &seen, MPI_LONG_LONG, 0, AT(cas), w) ==
                  MPI_SUCCESS);
            if (seen == expect) break;
        } while (1);
        /* a vector sum, and a fetch-and-op on one of its elements */
        long long ones[VEC], old = -1;
        unsigned char bones[BYTES];
        for (int i = 0; i < VEC; i++) ones[i] = 1;
        memset(bones, 1, sizeof bones);
        CHECK(MPI_Accumulate(ones, VEC, MPI_LONG_LONG, 0, AT(vec), VEC, MPI_LONG_LONG, MPI_SUM,
                             w) == MPI_SUCCESS);
        CHECK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, AT(vec) + 8 * (k % VEC), MPI_SUM, w) ==
              MPI_SUCCESS);
        CHECK(old >= 0);
        CHECK(MPI_Accumulate(bones, BYTES, MPI_UNSIGNED_CHAR, 0, AT(bytes), BYTES,
                             MPI_UNSIGNED_CHAR, MPI_SUM, w) == MPI_SUCCESS);
        /* NO_OP reads atomically: the count only grows */
        long long now = -1, zero = 0;
        CHECK(MPI_Get_accumulate(&zero, 1, MPI_LONG_LONG, &now, 1, MPI_LONG_LONG, 0, AT(tickets), 1,
                                 MPI_LONG_LONG, MPI_NO_OP, w) == MPI_SUCCESS);
        CHECK(now > tickets[k] && now <= (long long)size * rounds);
    }
    CHECK(MPI_Win_unlock_all(w) == MPI_SUCCESS);

    /* every ticket was handed out exactly once */
    long long *all = rank == 0 ? malloc((size_t)size * rounds * sizeof *all) : NULL;
    CHECK(MPI_Gather(tickets, rounds, MPI_LONG_LONG, all, rounds, MPI_LONG_LONG, 0,
                     MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) {
        char *hit = calloc((size_t)size * rounds, 1);
        for (int k = 0; k < size * rounds; k++) {
            CHECK(all[k] >= 0 && all[k] < (long long)size * rounds && !hit[all[k]]);
            hit[all[k]] = 1;
        }
        free(hit);
        free(all);
    }
    free(tickets);

    /* an exclusive lock excludes every other holder: a pair written in two steps is
     * never seen half done, and get + put increments lose nothing */
    for (int k = 0; k < rounds / 4; k++) {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w) == MPI_SUCCESS);
        long long p[2], c;
        CHECK(MPI_Get(p, 2, MPI_LONG_LONG, 0, AT(pair), 2, MPI_LONG_LONG, w) == MPI_SUCCESS);
        CHECK(MPI_Get(&c, 1, MPI_LONG_LONG, 0, AT(plain), 1, MPI_LONG_LONG, w) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, w) == MPI_SUCCESS);
        CHECK(p[0] == p[1]);
        p[0]++;
        c++;
        CHECK(MPI_Put(&p[0], 1, MPI_LONG_LONG, 0, AT(pair), 1, MPI_LONG_LONG, w) == MPI_SUCCESS);
        CHECK(MPI_Put(&c, 1, MPI_LONG_LONG, 0, AT(plain), 1, MPI_LONG_LONG, w) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, w) == MPI_SUCCESS);
        CHECK(MPI_Put(&p[0], 1, MPI_LONG_LONG, 0, AT(pair) + 8, 1, MPI_LONG_LONG, w) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_unlock(0, w) == MPI_SUCCESS);

        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w) == MPI_SUCCESS);
        CHECK(MPI_Get(p, 2, MPI_LONG_LONG, 0, AT(pair), 2, MPI_LONG_LONG, w) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock(0, w) == MPI_SUCCESS);
        CHECK(p[0] == p[1]);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);

    if (rank == 0) {
        long long n = (long long)size * rounds;
        CHECK(mine->sum == n);
        CHECK(mine->dsum == 0.5 * (double)n);
        CHECK(mine->imin == 0);
        CHECK(mine->imax == size * rounds - 1);
        CHECK(mine->band == 0);
        unsigned bor = 0, bxor = 0;
        for (int r = 0; r < size; r++)
            for (int k = 0; k < rounds; k++) {
                bor |= 1u << ((r + k) % 32);
                bxor ^= 1u << ((r + k) % 32);
            }
        CHECK(mine->bor == bor);
        CHECK(mine->bxor == bxor);
        CHECK(mine->replace >= 1 && mine->replace <= size);
        CHECK(mine->minloc.v == 0 && mine->minloc.i == 0);
        /* the largest v % 89 is 88, first reached at v = 88 when there are that many */
        int best = n > 88 ? 88 : (int)n - 1;
        CHECK(mine->maxloc.v == best && mine->maxloc.i == best);
        CHECK(mine->lsum == 0.25L * (long double)n);
        CHECK(creal(mine->csum) == (double)n && cimag(mine->csum) == 2.0 * (double)n);
        CHECK(mine->tickets == n);
        CHECK(mine->cas == n);
        CHECK(mine->pair[0] == (long long)size * (rounds / 4) && mine->pair[1] == mine->pair[0]);
        CHECK(mine->plain == (long long)size * (rounds / 4));
        for (int i = 0; i < VEC; i++) {
            long long fops = 0;
            for (int k = 0; k < rounds; k++) fops += k % VEC == i;
            CHECK(mine->vec[i] == n + (long long)size * fops);
        }
        for (int i = 0; i < BYTES; i++) CHECK(mine->bytes[i] == (unsigned char)n);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

/* Signed sums and products that overflow wrap, as the op library's loops do, on one
 * element (combined in registers on a heap window) and on two (the op's loop); each
 * rank at its own place in rank 0's window, one after the other. */
static void wrapping(MPI_Win w, cell_t *mine) {
    CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
    if (rank == 0) {
        for (int i = 0; i < VEC; i++) mine->vec[i] = 0;
    }
    CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
    CHECK(MPI_Win_lock_all(0, w) == MPI_SUCCESS);
    int at = 4 * (rank % (VEC / 4)); /* four long longs of its own */
    MPI_Aint base = AT(vec) + 8 * at;
    long long big[2] = {LLONG_MAX, LLONG_MAX}, one[2] = {1, 1}, old[2] = {0, 0};
    int ibig = INT_MAX, ione = 1, iold = 0, ifactor = 65536;
    CHECK(MPI_Put(big, 2, MPI_LONG_LONG, 0, base, 2, MPI_LONG_LONG, w) == MPI_SUCCESS);
    CHECK(MPI_Put(&ibig, 1, MPI_INT, 0, base + 16, 1, MPI_INT, w) == MPI_SUCCESS);
    CHECK(MPI_Put(&ifactor, 1, MPI_INT, 0, base + 24, 1, MPI_INT, w) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, w) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(one, 1, MPI_LONG_LONG, 0, base, 1, MPI_LONG_LONG, MPI_SUM, w) ==
          MPI_SUCCESS);
    CHECK(MPI_Get_accumulate(one, 2, MPI_LONG_LONG, old, 2, MPI_LONG_LONG, 0, base, 2,
                             MPI_LONG_LONG, MPI_SUM, w) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, w) == MPI_SUCCESS);
    CHECK(old[0] == LLONG_MIN && old[1] == LLONG_MAX);
    CHECK(MPI_Accumulate(&ione, 1, MPI_INT, 0, base + 16, 1, MPI_INT, MPI_SUM, w) == MPI_SUCCESS);
    CHECK(MPI_Fetch_and_op(&ifactor, &iold, MPI_INT, 0, base + 24, MPI_PROD, w) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, w) == MPI_SUCCESS);
    CHECK(iold == 65536);
    CHECK(MPI_Fetch_and_op(&ione, &iold, MPI_INT, 0, base + 16, MPI_NO_OP, w) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, w) == MPI_SUCCESS);
    CHECK(iold == INT_MIN);
    CHECK(MPI_Fetch_and_op(&ione, &iold, MPI_INT, 0, base + 24, MPI_NO_OP, w) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(0, w) == MPI_SUCCESS);
    CHECK(iold == 0); /* 65536 * 65536 wraps to 0 */
    CHECK(MPI_Win_unlock_all(w) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) rounds = atoi(argv[1]);
    CHECK(rounds >= 32);
    MPI_Win w;
    cell_t *mine;
    /* a heap window: CPU atomics on one node */
    CHECK(MPI_Win_allocate(sizeof(cell_t), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &w) ==
          MPI_SUCCESS);
    contention(w, mine);
    wrapping(w, mine);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    /* ordinary memory: the accumulate lock word */
    mine = malloc(sizeof *mine);
    CHECK(MPI_Win_create(mine, sizeof *mine, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
    contention(w, mine);
    wrapping(w, mine);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    free(mine);
    if (rank == 0) printf("win_atomic: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
