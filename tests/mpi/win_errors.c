/* One-sided communication: invalid arguments and wrong synchronization return the
 * right error class under MPI_ERRORS_RETURN; user error handlers on windows;
 * window attributes, groups and names; dynamic windows whose memory is detached. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int handled, handled_code;
static MPI_Win handled_win;

static void on_error(MPI_Win *win, int *code, ...) {
    handled++;
    handled_code = *code;
    handled_win = *win;
}

static void errors(void) {
    enum { N = 8 };
    int *mem;
    MPI_Win w;
    CHECK(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    MPI_Errhandler eh;
    CHECK(MPI_Win_get_errhandler(w, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_RETURN);
    int v = 1, peer = (rank + 1) % size;

    /* no epoch yet */
    CHECK(MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Get(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Accumulate(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_SUM, w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_unlock(peer, w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_unlock_all(w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_complete(w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_wait(w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_flush(peer, w) == MPI_ERR_RMA_SYNC);
    /* bad lock types and assertions */
    CHECK(MPI_Win_lock(12345, peer, 0, w) == MPI_ERR_LOCKTYPE);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, MPI_MODE_NOPRECEDE, w) == MPI_ERR_ASSERT);
    CHECK(MPI_Win_fence(MPI_MODE_NOCHECK, w) == MPI_ERR_ASSERT);
    CHECK(MPI_Win_fence(1, w) == MPI_ERR_ASSERT);
    CHECK(MPI_Win_lock_all(MPI_MODE_NOSUCCEED, w) == MPI_ERR_ASSERT);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, w) == MPI_ERR_RANK);

    /* assertions that are right: a fence epoch opened with NOPRECEDE and closed with
     * NOSUCCEED (after which nothing may be accessed), a lock with NOCHECK */
    int from = (rank + size - 1) % size, mark = rank + 100;
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w) == MPI_SUCCESS);
    CHECK(MPI_Put(&mark, 1, MPI_INT, peer, 0, 1, MPI_INT, w) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOSUCCEED, w) == MPI_SUCCESS);
    CHECK(mem[0] == from + 100);
    CHECK(MPI_Put(&mark, 1, MPI_INT, peer, 0, 1, MPI_INT, w) == MPI_ERR_RMA_SYNC);
    mark += 100;
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, MPI_MODE_NOCHECK, w) == MPI_SUCCESS);
    CHECK(MPI_Put(&mark, 1, MPI_INT, peer, 1, 1, MPI_INT, w) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(peer, w) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(mem[1] == from + 200);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);

    /* epochs are disjoint: a lock after a fence ends the fence's epoch, so after the
     * unlock nothing is accessed until the next fence; no lock inside MPI_Win_start's */
    CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w) == MPI_SUCCESS);
    CHECK(MPI_Get(&v, 1, MPI_INT, peer, 1, 1, MPI_INT, w) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(peer, w) == MPI_SUCCESS && v == rank + 200);
    CHECK(MPI_Get(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_lock_all(0, w) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock_all(w) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, w) == MPI_SUCCESS);
    CHECK(MPI_Get(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, w) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w) == MPI_SUCCESS && v == rank + 100);
    MPI_Group everyone;
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &everyone) == MPI_SUCCESS);
    CHECK(MPI_Win_post(everyone, 0, w) == MPI_SUCCESS);
    CHECK(MPI_Win_start(everyone, 0, w) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_lock_all(0, w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_complete(w) == MPI_SUCCESS);
    CHECK(MPI_Win_wait(w) == MPI_SUCCESS);
    CHECK(MPI_Group_free(&everyone) == MPI_SUCCESS);

    /* inside a lock epoch: displacements outside the window, bad arguments */
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, w) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w) == MPI_ERR_RMA_SYNC); /* twice */
    CHECK(MPI_Put(&v, 1, MPI_INT, peer, N, 1, MPI_INT, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Put(&v, 1, MPI_INT, peer, N - 1, 1, MPI_INT, w) == MPI_SUCCESS);
    int two[2] = {1, 2};
    CHECK(MPI_Put(two, 2, MPI_INT, peer, N - 1, 2, MPI_INT, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Get(two, 2, MPI_INT, peer, 1000000, 2, MPI_INT, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Accumulate(&v, 1, MPI_INT, peer, N, 1, MPI_INT, MPI_SUM, w) == MPI_ERR_RMA_RANGE);
    long long ll = 0, old;
    CHECK(MPI_Fetch_and_op(&ll, &old, MPI_LONG_LONG, peer, N, MPI_SUM, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Compare_and_swap(&v, &v, &old, MPI_INT, peer, N, w) == MPI_ERR_RMA_RANGE);
    /* displacements whose byte offset wraps around to the window's start */
    MPI_Aint wraps = (MPI_Aint)((size_t)1 << 62); /* times sizeof(int): 2^64 */
    CHECK(MPI_Put(&v, 1, MPI_INT, peer, wraps, 1, MPI_INT, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Get(&v, 1, MPI_INT, peer, wraps, 1, MPI_INT, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Accumulate(&v, 1, MPI_INT, peer, wraps, 1, MPI_INT, MPI_SUM, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Fetch_and_op(&ll, &old, MPI_LONG_LONG, peer, wraps, MPI_SUM, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Compare_and_swap(&v, &v, &old, MPI_INT, peer, wraps, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Put(&v, 1, MPI_INT, peer, (MPI_Aint)(((size_t)1 << 63) - 1), 1, MPI_INT, w) ==
          MPI_ERR_RMA_RANGE);
    CHECK(MPI_Compare_and_swap(&v, &v, &old, MPI_DOUBLE, peer, 0, w) == MPI_ERR_TYPE);
    CHECK(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, w) == MPI_ERR_RANK);
    CHECK(MPI_Put(&v, -1, MPI_INT, peer, 0, -1, MPI_INT, w) == MPI_ERR_COUNT);
    CHECK(MPI_Put(&v, 1, MPI_DATATYPE_NULL, peer, 0, 1, MPI_INT, w) == MPI_ERR_TYPE);
    CHECK(MPI_Put(two, 2, MPI_INT, peer, 0, 1, MPI_INT, w) == MPI_ERR_TYPE); /* sizes differ */
    CHECK(MPI_Accumulate(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_OP_NULL, w) == MPI_ERR_OP);
    double d = 1;
    CHECK(MPI_Accumulate(&d, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, MPI_BAND, w) == MPI_ERR_OP);
    char ch = 'a';
    CHECK(MPI_Accumulate(&ch, 1, MPI_BYTE, peer, 0, 1, MPI_BYTE, MPI_SUM, w) == MPI_ERR_OP);
    CHECK(MPI_Fetch_and_op(&ch, &ch, MPI_BYTE, peer, 0, MPI_SUM, w) == MPI_ERR_OP);
    CHECK(MPI_Accumulate(&ch, 1, MPI_CHAR, peer, 0, 1, MPI_CHAR, MPI_REPLACE, w) == MPI_SUCCESS);
    CHECK(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, w) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(peer, w) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, w) == MPI_ERR_RMA_SYNC); /* inside a lock epoch */
    CHECK(MPI_Win_free(&w) == MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_unlock(peer, w) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(peer, w) == MPI_ERR_RMA_SYNC);

    /* a user error handler */
    MPI_Errhandler mine;
    CHECK(MPI_Win_create_errhandler(on_error, &mine) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, mine) == MPI_SUCCESS);
    CHECK(MPI_Win_get_errhandler(w, &eh) == MPI_SUCCESS && eh == mine);
    CHECK(MPI_Errhandler_free(&mine) == MPI_SUCCESS && mine == MPI_ERRHANDLER_NULL);
    CHECK(MPI_Win_unlock(peer, w) == MPI_ERR_RMA_SYNC);
    CHECK(handled == 1 && handled_code == MPI_ERR_RMA_SYNC && handled_win == w);
    CHECK(MPI_Win_call_errhandler(w, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK(handled == 2 && handled_code == MPI_ERR_OTHER);
    CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);

    /* dynamic-window calls on the wrong flavor; MPI_Win_shared_query takes every
     * flavor but the dynamic one since MPI-4.1 (mpi41.c) */
    MPI_Aint sz;
    int du;
    void *p;
    CHECK(MPI_Win_shared_query(w, 0, &sz, &du, &p) == MPI_SUCCESS);
    CHECK(MPI_Win_attach(w, two, sizeof two) == MPI_ERR_RMA_FLAVOR);
    CHECK(MPI_Win_detach(w, two) == MPI_ERR_RMA_FLAVOR);

    /* attributes, group, name */
    void *base;
    MPI_Aint *wsize;
    int *wdu, *model, *flavor, flag;
    CHECK(MPI_Win_get_attr(w, MPI_WIN_BASE, &base, &flag) == MPI_SUCCESS && flag && base == mem);
    CHECK(MPI_Win_get_attr(w, MPI_WIN_SIZE, &wsize, &flag) == MPI_SUCCESS && flag &&
          *wsize == N * sizeof(int));
    CHECK(MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &wdu, &flag) == MPI_SUCCESS && flag &&
          *wdu == sizeof(int));
    CHECK(MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS && flag &&
          *model == MPI_WIN_UNIFIED);
    CHECK(MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &flavor, &flag) == MPI_SUCCESS && flag &&
          *flavor == MPI_WIN_FLAVOR_ALLOCATE);
    MPI_Group g, wg;
    int cmp;
    CHECK(MPI_Win_get_group(w, &g) == MPI_SUCCESS);
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS);
    CHECK(MPI_Group_compare(g, wg, &cmp) == MPI_SUCCESS && cmp == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK(MPI_Win_get_name(w, name, &len) == MPI_SUCCESS && len == 0);
    CHECK(MPI_Win_set_name(w, "counters") == MPI_SUCCESS);
    CHECK(MPI_Win_get_name(w, name, &len) == MPI_SUCCESS && len == 8 && !strcmp(name, "counters"));

    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);

    /* handles that name no window, memory that is not MPI's */
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL) == MPI_ERR_WIN);
    CHECK(MPI_Win_fence(0, w) == MPI_ERR_WIN); /* freed */
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, (MPI_Win)0x12345678) == MPI_ERR_WIN);
    CHECK(MPI_Win_free(&w) == MPI_ERR_WIN);
    CHECK(MPI_Free_mem(two) == MPI_ERR_BASE);
    CHECK(MPI_Win_create(two, sizeof two, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_ERR_DISP);
    CHECK(MPI_Win_create(two, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_ERR_SIZE);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    int cls;
    CHECK(MPI_Error_class(MPI_ERR_RMA_RANGE, &cls) == MPI_SUCCESS && cls == MPI_ERR_RMA_RANGE);
    char msg[MPI_MAX_ERROR_STRING];
    CHECK(MPI_Error_string(MPI_ERR_RMA_SYNC, msg, &len) == MPI_SUCCESS && len > 0 &&
          strcmp(msg, "unknown error code"));
}

/* A dynamic window: memory attached, reached, detached, then out of reach. */
static void dynamic(void) {
    MPI_Win w;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    long *a = calloc(16, sizeof *a), *b = calloc(16, sizeof *b);
    CHECK(MPI_Win_attach(w, a, 16 * sizeof *a) == MPI_SUCCESS);
    CHECK(MPI_Win_attach(w, a + 4, sizeof *a) == MPI_ERR_RMA_ATTACH); /* overlaps */
    CHECK(MPI_Win_detach(w, b) == MPI_ERR_RMA_ATTACH);                /* not attached */
    MPI_Aint mine[2], *all = malloc((size_t)size * 2 * sizeof *all);
    MPI_Get_address(a, &mine[0]);
    MPI_Get_address(b, &mine[1]);
    CHECK(MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD) == MPI_SUCCESS);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    long v = 1000 + rank, got = 0;

    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w) == MPI_SUCCESS);
    CHECK(MPI_Put(&v, 1, MPI_LONG, peer, all[2 * peer] + 8, 1, MPI_LONG, w) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(peer, w) == MPI_SUCCESS);
    CHECK(MPI_Get(&got, 1, MPI_LONG, peer, all[2 * peer] + 8, 1, MPI_LONG, w) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(peer, w) == MPI_SUCCESS);
    CHECK(got == v);
    /* b is not attached: out of the window */
    CHECK(MPI_Put(&v, 1, MPI_LONG, peer, all[2 * peer + 1], 1, MPI_LONG, w) == MPI_ERR_RMA_RANGE);
    /* past the end of a */
    CHECK(MPI_Put(&v, 1, MPI_LONG, peer, all[2 * peer] + 16 * 8, 1, MPI_LONG, w) ==
          MPI_ERR_RMA_RANGE);
    CHECK(MPI_Win_unlock(peer, w) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(a[1] == 1000 + from);

    /* attach b as well: reached without any further exchange */
    CHECK(MPI_Win_attach(w, b, 16 * sizeof *b) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, w) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(&v, 1, MPI_LONG, peer, all[2 * peer + 1] + 8, 1, MPI_LONG, MPI_SUM, w) ==
          MPI_SUCCESS);
    /* a target that detaches while we hold a stale view: the device refuses the
     * access, and the epoch's end says so */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Win_detach(w, b) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Put(&v, 1, MPI_LONG, peer, all[2 * peer + 1], 1, MPI_LONG, w) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(peer, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(b[1] == 1000 + from);
    CHECK(b[0] == 0); /* the refused put touched nothing */
    /* a new epoch looks again: b is gone */
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w) == MPI_SUCCESS);
    CHECK(MPI_Get(&got, 1, MPI_LONG, peer, all[2 * peer + 1], 1, MPI_LONG, w) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Get(&got, 1, MPI_LONG, peer, all[2 * peer] + 8, 1, MPI_LONG, w) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock(peer, w) == MPI_SUCCESS);
    CHECK(got == v);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS); /* nobody reaches a any more */
    CHECK(MPI_Win_detach(w, a) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    free(a);
    free(b);
    free(all);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errors();
    dynamic();
    if (rank == 0) printf("win_errors: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
