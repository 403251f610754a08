/* One-sided communication: post/start/complete/wait with several origins and
 * several targets (roles changing every round, MPI_Win_test polling), and shared
 * windows (MPI_Win_allocate_shared, MPI_Win_shared_query) used with plain loads and
 * stores. */
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { ROUNDS = 20 };

static void pscw(void) {
    int *mem;
    MPI_Win w;
    CHECK(MPI_Win_allocate((MPI_Aint)(size * 2 * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &w) == MPI_SUCCESS);
    int *mem2 = malloc((size_t)size * 2 * sizeof(int));
    MPI_Win w2; /* the same over ordinary memory */
    CHECK(MPI_Win_create(mem2, (MPI_Aint)(size * 2 * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                         MPI_COMM_WORLD, &w2) == MPI_SUCCESS);
    MPI_Group world;
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS);
    int *origins = malloc((size_t)size * sizeof *origins),
        *targets = malloc((size_t)size * sizeof *targets);
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Win win = round % 2 ? w2 : w;
        int *m = round % 2 ? mem2 : mem;
        /* rank r is a target this round when (r + round) % 3 != 0, an origin when
         * (r + round) % 2 == 0: some ranks are both, some neither */
        int no = 0, nt = 0;
        for (int r = 0; r < size; r++) {
            if ((r + round) % 3 != 0) targets[nt++] = r;
            if ((r + round) % 2 == 0) origins[no++] = r;
        }
        int am_target = (rank + round) % 3 != 0, am_origin = (rank + round) % 2 == 0;
        for (int i = 0; i < 2 * size; i++) m[i] = -1;
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        MPI_Group og, tg;
        CHECK(MPI_Group_incl(world, no, origins, &og) == MPI_SUCCESS);
        CHECK(MPI_Group_incl(world, nt, targets, &tg) == MPI_SUCCESS);
        if (am_target && no) CHECK(MPI_Win_post(og, 0, win) == MPI_SUCCESS);
        if (am_origin && nt) {
            CHECK(MPI_Win_start(tg, 0, win) == MPI_SUCCESS);
            for (int k = 0; k < nt; k++) {
                int v = rank * 100 + round;
                CHECK(MPI_Put(&v, 1, MPI_INT, targets[k], 2 * rank, 1, MPI_INT, win) ==
                      MPI_SUCCESS);
                int one = 1;
                CHECK(MPI_Accumulate(&one, 1, MPI_INT, targets[k], 2 * rank + 1, 1, MPI_INT,
                                     MPI_REPLACE, win) == MPI_SUCCESS);
            }
            /* a rank outside the start group is out of reach */
            for (int r = 0; r < size; r++) {
                int in = 0;
                for (int k = 0; k < nt; k++) in |= targets[k] == r;
                if (in) continue;
                CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN) == MPI_SUCCESS);
                int v = 0;
                CHECK(MPI_Put(&v, 1, MPI_INT, r, 0, 1, MPI_INT, win) == MPI_ERR_RMA_SYNC);
                CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
            }
            CHECK(MPI_Win_complete(win) == MPI_SUCCESS);
        }
        if (am_target && no) {
            if (round % 4 == 0) {
                int flag = 0;
                while (!flag) CHECK(MPI_Win_test(win, &flag) == MPI_SUCCESS);
            } else {
                CHECK(MPI_Win_wait(win) == MPI_SUCCESS);
            }
            for (int r = 0; r < size; r++) {
                int from = (r + round) % 2 == 0;
                CHECK(m[2 * r] == (from ? r * 100 + round : -1));
                CHECK(m[2 * r + 1] == (from ? 1 : -1));
            }
        }
        MPI_Group_free(&og);
        MPI_Group_free(&tg);
    }
    free(origins);
    free(targets);
    MPI_Group_free(&world);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&w2) == MPI_SUCCESS);
    free(mem2);
}

static void shared(void) {
    int one_node = all_on_one_node();
    MPI_Aint mine =
        (MPI_Aint)((rank % 3) * 8 * sizeof(long)); /* rank 0 (and every third) has none */
    long *base;
    MPI_Win w;
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    int rc = MPI_Win_allocate_shared(mine, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    if (!one_node && size > 1) { /* ranks on different nodes (or as if) */
        CHECK(rc == MPI_ERR_RMA_SHARED);
        return;
    }
    CHECK(rc == MPI_SUCCESS);
    for (int i = 0; i < (int)(mine / (MPI_Aint)sizeof(long)); i++) base[i] = rank * 1000 + i;
    CHECK(MPI_Win_sync(w) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Win_sync(w) == MPI_SUCCESS);
    long *first = NULL;
    MPI_Aint sz;
    int du;
    CHECK(MPI_Win_shared_query(w, MPI_PROC_NULL, &sz, &du, &first) == MPI_SUCCESS);
    long *expect = NULL;
    for (int r = 0; r < size; r++) {
        long *p;
        CHECK(MPI_Win_shared_query(w, r, &sz, &du, &p) == MPI_SUCCESS);
        CHECK(du == sizeof(long));
        CHECK(sz == (MPI_Aint)((r % 3) * 8 * sizeof(long)));
        if (!sz) { /* a segment of no bytes is at NULL (as MPICH has it) */
            CHECK(p == NULL);
            continue;
        }
        if (expect) CHECK(p == expect); /* contiguous across ranks */
        expect = p + sz / (MPI_Aint)sizeof(long);
        for (int i = 0; i < (int)(sz / (MPI_Aint)sizeof(long)); i++) CHECK(p[i] == r * 1000 + i);
        if (sz && first) {
            CHECK(first <= p);
        }
    }
    /* stores by one rank, seen by the others through the mapping */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    long *last;
    CHECK(MPI_Win_shared_query(w, size - 1, &sz, &du, &last) == MPI_SUCCESS);
    if (sz && rank == 0) last[0] = 4242;
    CHECK(MPI_Win_sync(w) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Win_sync(w) == MPI_SUCCESS);
    if (sz) CHECK(last[0] == 4242);
    /* the memory is reachable by RMA too */
    CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
    if (sz) {
        long v = -7;
        CHECK(MPI_Accumulate(&v, 1, MPI_LONG, size - 1, 1, 1, MPI_LONG, MPI_SUM, w) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
    if (sz) CHECK(last[1] == (size - 1) * 1000 + 1 - 7L * size);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
}

/* 1 when the device's progress thread serves this process's udp link. */
static int progress_thread(void) {
    const char *on = getenv("TW_PROGRESS_THREAD");
    return on && !strcmp(on, "1");
}

/* Passive target: the target computes without calling MPI while an origin locks,
 * puts, accumulates, gets and unlocks; all of it completes. On one node the origin
 * moves the data itself; across nodes (or over the udp link) the target's device
 * must run, which its progress thread does when TW_PROGRESS_THREAD=1; without it
 * this is left out there. */
static void passive(int allocate) {
    if (size < 2 || !(all_on_one_node() || progress_thread())) return;
    long *mem, *own = NULL;
    MPI_Win w;
    if (allocate) {
        CHECK(MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                               &w) == MPI_SUCCESS);
    } else {
        own = mem = malloc(4 * sizeof(long));
        CHECK(MPI_Win_create(mem, 4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &w) == MPI_SUCCESS);
    }
    memset(mem, 0, 4 * sizeof(long));
    mem[2] = 77;
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) { /* computes, and only looks at its memory */
        volatile long *flag = &mem[3];
        double t0 = MPI_Wtime();
        while (!*flag) CHECK(MPI_Wtime() - t0 < 60);
        CHECK(MPI_Win_sync(w) == MPI_SUCCESS); /* a memory barrier */
        CHECK(mem[0] == 4242 && mem[1] == 5 && mem[2] == 77);
    } else if (rank == 1) {
        long v = 4242, five = 5, got = 0, one = 1;
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w) == MPI_SUCCESS);
        CHECK(MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, w) == MPI_SUCCESS);
        CHECK(MPI_Accumulate(&five, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, w) == MPI_SUCCESS);
        CHECK(MPI_Get(&got, 1, MPI_LONG, 0, 2, 1, MPI_LONG, w) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock(0, w) == MPI_SUCCESS);
        CHECK(got == 77);
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w) == MPI_SUCCESS);
        CHECK(MPI_Put(&one, 1, MPI_LONG, 0, 3, 1, MPI_LONG, w) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock(0, w) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    free(own);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pscw();
    shared();
    passive(1);
    passive(0);
    if (rank == 0) printf("win_pscw: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
