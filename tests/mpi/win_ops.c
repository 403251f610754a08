/* One-sided communication: every operation under every synchronization mode, on
 * every kind of window, with the data checked — put, get, accumulate,
 * get_accumulate, fetch_and_op, compare_and_swap and the request-based forms, with
 * contiguous and derived datatypes on either side. */
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { N = 16, SLOT = 2 * N }; /* each origin owns a slot of 2N ints at every target */
enum { FENCE, PSCW, LOCK_SHARED, LOCK_EXCL, LOCK_ALL, MODES };
enum { F_CREATE, F_ALLOC_MEM, F_ALLOCATE, F_DYNAMIC, F_SHARED, FLAVORS };
static const char *mode_name[] = {"fence", "pscw", "lock-shared", "lock-exclusive", "lock-all"};
static const char *flavor_name[] = {"create", "create(Alloc_mem)", "allocate", "dynamic", "shared"};

static MPI_Group world_group;
static MPI_Aint *dyn_base; /* dynamic windows: each rank's memory, as an address */
static int flavor_now;

static MPI_Aint disp(int t, int idx) {
    return flavor_now == F_DYNAMIC ? dyn_base[t] + (MPI_Aint)idx * (MPI_Aint)sizeof(int) : idx;
}

static void epoch_begin(int mode, MPI_Win w) {
    if (mode == FENCE) CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
    if (mode == PSCW) {
        CHECK(MPI_Win_post(world_group, 0, w) == MPI_SUCCESS);
        CHECK(MPI_Win_start(world_group, 0, w) == MPI_SUCCESS);
    }
    if (mode == LOCK_ALL) CHECK(MPI_Win_lock_all(0, w) == MPI_SUCCESS);
}

static void target_begin(int mode, int t, MPI_Win w) {
    if (mode == LOCK_SHARED) CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w) == MPI_SUCCESS);
    if (mode == LOCK_EXCL) CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w) == MPI_SUCCESS);
}

static void target_end(int mode, int t, MPI_Win w) {
    if (mode == LOCK_SHARED || mode == LOCK_EXCL) CHECK(MPI_Win_unlock(t, w) == MPI_SUCCESS);
}

/* After it, every operation of every rank is in place at its target. */
static void epoch_end(int mode, MPI_Win w) {
    if (mode == FENCE) CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
    if (mode == PSCW) {
        CHECK(MPI_Win_complete(w) == MPI_SUCCESS);
        CHECK(MPI_Win_wait(w) == MPI_SUCCESS);
    }
    if (mode == LOCK_ALL) CHECK(MPI_Win_unlock_all(w) == MPI_SUCCESS);
    if (mode != FENCE && mode != PSCW) CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Win_sync(w) == MPI_SUCCESS);
}

static int val(int origin, int target, int i) {
    return origin * 1000003 + target * 1009 + i + 1;
}

/* Sets the window memory to a known pattern, seen by everyone before it goes on. */
static void reset(int *mem, int pattern) {
    for (int i = 0; i < (size + 2) * SLOT; i++) mem[i] = pattern ? rank * 100000 + i : 0;
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

static void round_of(int mode, MPI_Win w, int *mem) {
    MPI_Datatype vec; /* N ints, every other one */
    CHECK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&vec) == MPI_SUCCESS);
    int buf[SLOT], got[SLOT];

    /* put: contiguous into my slot's first half; then a vector origin into the second */
    reset(mem, 0);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        for (int i = 0; i < N; i++) buf[i] = val(rank, t, i);
        CHECK(MPI_Put(buf, N, MPI_INT, t, disp(t, rank * SLOT), N, MPI_INT, w) == MPI_SUCCESS);
        int sparse[SLOT];
        for (int i = 0; i < N; i++) sparse[2 * i] = -val(rank, t, i);
        CHECK(MPI_Put(sparse, 1, vec, t, disp(t, rank * SLOT + N), N, MPI_INT, w) == MPI_SUCCESS);
        target_end(mode, t, w);
    }
    epoch_end(mode, w);
    for (int o = 0; o < size; o++)
        for (int i = 0; i < N; i++) {
            CHECK(mem[o * SLOT + i] == val(o, rank, i));
            CHECK(mem[o * SLOT + N + i] == -val(o, rank, i));
        }

    /* put into a vector at the target: every other int of my slot */
    reset(mem, 0);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        for (int i = 0; i < N; i++) buf[i] = val(rank, t, i);
        CHECK(MPI_Put(buf, N, MPI_INT, t, disp(t, rank * SLOT), 1, vec, w) == MPI_SUCCESS);
        target_end(mode, t, w);
    }
    epoch_end(mode, w);
    for (int o = 0; o < size; o++)
        for (int i = 0; i < SLOT; i++)
            CHECK(mem[o * SLOT + i] == (i % 2 ? 0 : val(o, rank, i / 2)));

    /* an indexed type of several blocks on both sides, two items of it, and the
     * same data got back into a contiguous buffer through it */
    MPI_Datatype idx;
    int lens[3] = {2, 1, 3}, displs[3] = {0, 3, 5};
    CHECK(MPI_Type_indexed(3, lens, displs, MPI_INT, &idx) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&idx) == MPI_SUCCESS); /* 6 ints over an extent of 8 */
    reset(mem, 0);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        int src[SLOT];
        for (int i = 0; i < SLOT; i++) src[i] = val(rank, t, i);
        CHECK(MPI_Put(src, 2, idx, t, disp(t, rank * SLOT), 2, idx, w) == MPI_SUCCESS);
        target_end(mode, t, w);
    }
    epoch_end(mode, w);
    for (int o = 0; o < size; o++)
        for (int i = 0; i < SLOT; i++) {
            int in = i < 16 && (i % 8 < 2 || i % 8 == 3 || (i % 8 >= 5 && i % 8 < 8));
            CHECK(mem[o * SLOT + i] == (in ? val(o, rank, i) : 0));
        }
    epoch_begin(mode, w);
    int packed[12];
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        CHECK(MPI_Get(packed, 12, MPI_INT, t, disp(t, rank * SLOT), 2, idx, w) == MPI_SUCCESS);
        target_end(mode, t, w);
        if (mode == LOCK_SHARED || mode == LOCK_EXCL)
            for (int k = 0, i = 0; i < 16; i++)
                if (i % 8 < 2 || i % 8 == 3 || i % 8 >= 5) CHECK(packed[k++] == val(rank, t, i));
    }
    epoch_end(mode, w);
    CHECK(MPI_Type_free(&idx) == MPI_SUCCESS);

    /* get: contiguous, from a target vector, into an origin vector */
    reset(mem, 1);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        memset(got, 0, sizeof got);
        CHECK(MPI_Get(got, N, MPI_INT, t, disp(t, rank * SLOT), N, MPI_INT, w) == MPI_SUCCESS);
        int strided[N], into[SLOT];
        memset(into, 0, sizeof into);
        CHECK(MPI_Get(strided, N, MPI_INT, t, disp(t, rank * SLOT), 1, vec, w) == MPI_SUCCESS);
        CHECK(MPI_Get(into, 1, vec, t, disp(t, rank * SLOT + N), N, MPI_INT, w) == MPI_SUCCESS);
        target_end(mode, t, w);
        if (mode == LOCK_SHARED || mode == LOCK_EXCL) { /* complete at the unlock */
            for (int i = 0; i < N; i++) {
                CHECK(got[i] == t * 100000 + rank * SLOT + i);
                CHECK(strided[i] == t * 100000 + rank * SLOT + 2 * i);
                CHECK(into[2 * i] == t * 100000 + rank * SLOT + N + i && into[2 * i + 1] == 0);
            }
        }
    }
    epoch_end(mode, w);

    /* get, checked after the epoch */
    int *all = calloc((size_t)size * N, sizeof *all);
    CHECK(all);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        CHECK(MPI_Get(all + t * N, N, MPI_INT, t, disp(t, rank * SLOT + 1), N, MPI_INT, w) ==
              MPI_SUCCESS);
        target_end(mode, t, w);
    }
    epoch_end(mode, w);
    for (int t = 0; t < size; t++)
        for (int i = 0; i < N; i++) CHECK(all[t * N + i] == t * 100000 + rank * SLOT + 1 + i);
    free(all);

    /* accumulate from everyone into slot 0: SUM contiguous, SUM into a vector, MAX */
    MPI_Datatype past_lb;
    int at_2_3[2] = {2, 3};
    CHECK(MPI_Type_create_indexed_block(2, 1, at_2_3, MPI_INT, &past_lb) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&past_lb) == MPI_SUCCESS);
    reset(mem, 0);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        for (int i = 0; i < N; i++) buf[i] = rank + 1 + i;
        CHECK(MPI_Accumulate(buf, N, MPI_INT, t, disp(t, 0), N, MPI_INT, MPI_SUM, w) ==
              MPI_SUCCESS);
        CHECK(MPI_Accumulate(buf, N, MPI_INT, t, disp(t, N), 1, vec, MPI_SUM, w) == MPI_SUCCESS);
        int mx = rank * 7 % size;
        CHECK(MPI_Accumulate(&mx, 1, MPI_INT, t, disp(t, N + 1), 1, MPI_INT, MPI_MAX, w) ==
              MPI_SUCCESS);
        /* a contiguous derived type whose data starts past the displacement (2 ints
         * from its lower bound of 2): they land at +2 and +3, +0 and +1 untouched */
        CHECK(MPI_Accumulate(buf, 2, MPI_INT, t, disp(t, (size + 1) * SLOT), 1, past_lb, MPI_SUM,
                             w) == MPI_SUCCESS);
        target_end(mode, t, w);
    }
    epoch_end(mode, w);
    int sum = size * (size + 1) / 2, maxv = 0;
    CHECK(mem[(size + 1) * SLOT] == 0 && mem[(size + 1) * SLOT + 1] == 0);
    CHECK(mem[(size + 1) * SLOT + 2] == sum && mem[(size + 1) * SLOT + 3] == sum + size);
    for (int o = 0; o < size; o++)
        if (o * 7 % size > maxv) maxv = o * 7 % size;
    for (int i = 0; i < N; i++) {
        CHECK(mem[i] == sum + size * i);
        CHECK(mem[N + 2 * i] == sum + size * i);
    }
    CHECK(mem[N + 1] == maxv);

    /* get_accumulate, fetch_and_op and compare_and_swap on counters in slot 1 */
    reset(mem, 0);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        int one[N], old[N];
        for (int i = 0; i < N; i++) one[i] = 1;
        CHECK(MPI_Get_accumulate(one, N, MPI_INT, old, N, MPI_INT, t, disp(t, SLOT), N, MPI_INT,
                                 MPI_SUM, w) == MPI_SUCCESS);
        long long inc = 1, before = -1;
        CHECK(MPI_Fetch_and_op(&inc, &before, MPI_LONG_LONG, t, disp(t, SLOT + N), MPI_SUM, w) ==
              MPI_SUCCESS);
        int mine = rank + 1, zero = 0, seen = -1;
        CHECK(MPI_Compare_and_swap(&mine, &zero, &seen, MPI_INT, t, disp(t, SLOT + N + 2), w) ==
              MPI_SUCCESS);
        int nothing = 0, now = -1;
        CHECK(MPI_Fetch_and_op(&nothing, &now, MPI_INT, t, disp(t, SLOT + N + 3), MPI_NO_OP, w) ==
              MPI_SUCCESS);
        target_end(mode, t, w);
        if (mode == LOCK_SHARED || mode == LOCK_EXCL) {
            for (int i = 0; i < N; i++) CHECK(old[i] >= 0 && old[i] < size);
            CHECK(before >= 0 && before < size);
            CHECK(seen >= 0 && seen <= size);
            CHECK(now == 0);
        }
    }
    epoch_end(mode, w);
    for (int i = 0; i < N; i++) CHECK(mem[SLOT + i] == size);
    CHECK(*(long long *)&mem[SLOT + N] == size);
    CHECK(mem[SLOT + N + 2] >= 1 && mem[SLOT + N + 2] <= size);

    /* request-based: rput, rget, raccumulate, rget_accumulate */
    reset(mem, 0);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        MPI_Request req[4];
        for (int i = 0; i < N; i++) buf[i] = val(rank, t, i);
        CHECK(MPI_Rput(buf, N, MPI_INT, t, disp(t, rank * SLOT), N, MPI_INT, w, &req[0]) ==
              MPI_SUCCESS);
        CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Rget(got, N, MPI_INT, t, disp(t, rank * SLOT), N, MPI_INT, w, &req[1]) ==
              MPI_SUCCESS);
        CHECK(MPI_Wait(&req[1], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < N; i++) CHECK(got[i] == val(rank, t, i));
        int two = 2, old = -1;
        CHECK(MPI_Raccumulate(&two, 1, MPI_INT, t, disp(t, rank * SLOT + N), 1, MPI_INT, MPI_SUM, w,
                              &req[2]) == MPI_SUCCESS);
        CHECK(MPI_Rget_accumulate(&two, 1, MPI_INT, &old, 1, MPI_INT, t, disp(t, rank * SLOT + N),
                                  1, MPI_INT, MPI_SUM, w, &req[3]) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, req + 2, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(old == 2);
        target_end(mode, t, w);
    }
    epoch_end(mode, w);
    for (int o = 0; o < size; o++) {
        for (int i = 0; i < N; i++) CHECK(mem[o * SLOT + i] == val(o, rank, i));
        CHECK(mem[o * SLOT + N] == 4);
    }
    /* many requests outstanding at once: N single-int rputs, then N rgets, waited for
     * all together (and one polled with MPI_Test, one freed while running) */
    reset(mem, 0);
    epoch_begin(mode, w);
    for (int t = 0; t < size; t++) {
        target_begin(mode, t, w);
        MPI_Request req[N];
        int src[N], back[N];
        for (int i = 0; i < N; i++) {
            src[i] = val(rank, t, i) * 3;
            CHECK(MPI_Rput(&src[i], 1, MPI_INT, t, disp(t, rank * SLOT + i), 1, MPI_INT, w,
                           &req[i]) == MPI_SUCCESS);
        }
        int flag = 0;
        while (!flag) CHECK(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(req[0] == MPI_REQUEST_NULL);
        CHECK(MPI_Request_free(&req[1]) == MPI_SUCCESS);
        CHECK(MPI_Waitall(N, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        if (mode != FENCE && mode != PSCW) CHECK(MPI_Win_flush_all(w) == MPI_SUCCESS);
        for (int i = 0; i < N; i++)
            CHECK(MPI_Rget(&back[i], 1, MPI_INT, t, disp(t, rank * SLOT + i), 1, MPI_INT, w,
                           &req[i]) == MPI_SUCCESS);
        CHECK(MPI_Waitall(N, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < N; i++) CHECK(back[i] == val(rank, t, i) * 3);
        target_end(mode, t, w);
    }
    epoch_end(mode, w);
    for (int o = 0; o < size; o++)
        for (int i = 0; i < N; i++) CHECK(mem[o * SLOT + i] == val(o, rank, i) * 3);
    CHECK(MPI_Type_free(&vec) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&past_lb) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    dyn_base = calloc((size_t)size, sizeof *dyn_base);
    int one_node = all_on_one_node(); /* what shared windows need */
    size_t bytes = (size_t)(size + 2) * SLOT * sizeof(int);
    for (int f = 0; f < FLAVORS; f++) {
        if (f == F_SHARED && !one_node) continue;
        flavor_now = f;
        MPI_Win w;
        int *mem = NULL;
        void *owned = NULL;
        switch (f) {
        case F_CREATE:
            owned = mem = malloc(bytes);
            CHECK(MPI_Win_create(mem, (MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &w) == MPI_SUCCESS);
            break;
        case F_ALLOC_MEM:
            CHECK(MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &mem) == MPI_SUCCESS);
            CHECK(MPI_Win_create(mem, (MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &w) == MPI_SUCCESS);
            break;
        case F_ALLOCATE:
            CHECK(MPI_Win_allocate((MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &mem, &w) == MPI_SUCCESS);
            break;
        case F_DYNAMIC:
            owned = mem = malloc(bytes);
            CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
            CHECK(MPI_Win_attach(w, mem, (MPI_Aint)bytes) == MPI_SUCCESS);
            MPI_Aint mine;
            CHECK(MPI_Get_address(mem, &mine) == MPI_SUCCESS);
            CHECK(MPI_Allgather(&mine, 1, MPI_AINT, dyn_base, 1, MPI_AINT, MPI_COMM_WORLD) ==
                  MPI_SUCCESS);
            break;
        case F_SHARED:
            CHECK(MPI_Win_allocate_shared((MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL,
                                          MPI_COMM_WORLD, &mem, &w) == MPI_SUCCESS);
            break;
        }
        int *flavor, flag;
        CHECK(MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &flavor, &flag) == MPI_SUCCESS && flag);
        static const int want[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_CREATE,
                                   MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_DYNAMIC,
                                   MPI_WIN_FLAVOR_SHARED};
        CHECK(*flavor == want[f]);
        for (int m = 0; m < MODES; m++) {
            round_of(m, w, mem);
            if (rank == 0 && getenv("WIN_VERBOSE"))
                printf("%s window, %s: ok\n", flavor_name[f], mode_name[m]);
        }
        if (f == F_DYNAMIC) CHECK(MPI_Win_detach(w, mem) == MPI_SUCCESS);
        CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
        CHECK(w == MPI_WIN_NULL);
        if (f == F_ALLOC_MEM) CHECK(MPI_Free_mem(mem) == MPI_SUCCESS);
        free(owned);
    }
    MPI_Group_free(&world_group);
    free(dyn_base);
    if (rank == 0) printf("win_ops: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
