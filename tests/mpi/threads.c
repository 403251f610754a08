/* MPI_THREAD_MULTIPLE: NT threads per rank calling MPI at once. Each phase starts NT
 * threads, joins them and checks values computed independently of the library:
 *   1. a communicator per thread: ring exchanges (eager and rendezvous sizes),
 *      blocking and non-blocking collectives;
 *   2. one communicator, a tag per thread;
 *   3. one thread receives from MPI_ANY_SOURCE with MPI_ANY_TAG what the others send;
 *   4. every thread matched-probes and receives (MPI_Mprobe, MPI_Mrecv) what the main
 *      thread sends meanwhile: each message exactly once;
 *   5. requests one thread starts and another completes (MPI_Wait, MPI_Waitall),
 *      while a third thread's calls make progress too;
 *   6. one window: puts, gets, accumulates and fetch-and-ops from every thread in a
 *      lock_all epoch, then exclusive locks of distinct targets at once;
 *   7. communicators and windows made at once from every thread's own (dup, idup,
 *      split, MPI_Win_allocate): every one a context, a window slot and lock words of
 *      its own, whatever order the ranks' threads come in;
 *   8. callbacks that call MPI from inside MPI (a user op, an error handler, the
 *      query of a generalized request) in every thread at once, and a generalized
 *      request waited for by one thread and completed by another;
 *   9. intercommunicators made at once from every thread: create, dup, split, merge.
 * Runs on any number of ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { NT = 4, ITERS = 50, BIG = 40000 /* ints: a rendezvous */ };

static MPI_Comm comms[NT];

static int val(int src, int t, int i) {
    return src * 1000000 + t * 10000 + i;
}

static void run_threads(void *(*fn)(void *)) {
    pthread_t th[NT];
    for (long t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, fn, (void *)t) == 0);
    for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
}

/* ---- 1. a communicator per thread ---- */

static void *own_comm(void *arg) {
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *out = malloc(BIG * sizeof *out), *in = malloc(BIG * sizeof *in);
    CHECK(out && in);
    for (int i = 0; i < ITERS; i++) {
        int n = i % 5 == 0 ? BIG : 1 + i;
        for (int k = 0; k < n; k++) out[k] = val(rank, t, i) + k;
        MPI_Request r;
        MPI_Status st;
        CHECK(MPI_Isend(out, n, MPI_INT, right, i, c, &r) == MPI_SUCCESS);
        CHECK(MPI_Recv(in, n, MPI_INT, left, i, c, &st) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        int got;
        CHECK(MPI_Get_count(&st, MPI_INT, &got) == MPI_SUCCESS && got == n);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == i);
        for (int k = 0; k < n; k += 97) CHECK(in[k] == val(left, t, i) + k);
        CHECK(in[n - 1] == val(left, t, i) + n - 1);

        /* ping-pong between ranks 0 and 1, blocking both ways */
        if (size > 1 && rank < 2) {
            int x = val(rank, t, i);
            if (rank == 0) {
                CHECK(MPI_Send(&x, 1, MPI_INT, 1, 1000, c) == MPI_SUCCESS);
                CHECK(MPI_Recv(&x, 1, MPI_INT, 1, 1000, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                CHECK(x == val(0, t, i) + 1);
            } else {
                CHECK(MPI_Recv(&x, 1, MPI_INT, 0, 1000, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                CHECK(x == val(0, t, i));
                x++;
                CHECK(MPI_Send(&x, 1, MPI_INT, 0, 1000, c) == MPI_SUCCESS);
            }
        }

        int mine = val(rank, t, i), sum = 0, want = 0;
        for (int q = 0; q < size; q++) want += val(q, t, i);
        CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS);
        CHECK(sum == want);
        int root = i % size, b = rank == root ? val(root, t, i) : -1;
        CHECK(MPI_Bcast(&b, 1, MPI_INT, root, c) == MPI_SUCCESS);
        CHECK(b == val(root, t, i));
        int *all = malloc((size_t)size * sizeof *all);
        CHECK(all);
        CHECK(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c) == MPI_SUCCESS);
        for (int q = 0; q < size; q++) CHECK(all[q] == val(q, t, i));
        free(all);
        MPI_Request ar;
        sum = 0;
        CHECK(MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c, &ar) == MPI_SUCCESS);
        CHECK(MPI_Wait(&ar, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(sum == want);
        if (i % 10 == 0) CHECK(MPI_Barrier(c) == MPI_SUCCESS);
    }
    free(out);
    free(in);
    return NULL;
}

/* ---- 2. one communicator, a tag per thread ---- */

static void *shared_comm(void *arg) {
    int t = (int)(long)arg;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *out = malloc(BIG * sizeof *out), *in = malloc(BIG * sizeof *in);
    CHECK(out && in);
    for (int i = 0; i < ITERS; i++) {
        int n = i % 7 == 3 ? BIG : 3;
        for (int k = 0; k < n; k++) out[k] = val(rank, t, i) ^ k;
        MPI_Request r[2];
        MPI_Status st[2];
        CHECK(MPI_Irecv(in, n, MPI_INT, left, 100 + t, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
        CHECK(MPI_Isend(out, n, MPI_INT, right, 100 + t, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, r, st) == MPI_SUCCESS);
        CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 100 + t);
        for (int k = 0; k < n; k++)
            if (in[k] != (val(left, t, i) ^ k)) CHECK(in[k] == (val(left, t, i) ^ k));
    }
    free(out);
    free(in);
    return NULL;
}

/* ---- 3. wildcard receives in one thread, the others send ---- */

static MPI_Comm any_comm;

static void *wildcard(void *arg) {
    int t = (int)(long)arg;
    if (t == 0) {
        int total = (NT - 1) * (size - 1) * ITERS;
        unsigned char *seen = calloc((size_t)size * NT * ITERS, 1);
        CHECK(seen);
        for (int m = 0; m < total; m++) {
            int x;
            MPI_Status st;
            CHECK(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, any_comm, &st) ==
                  MPI_SUCCESS);
            int src = st.MPI_SOURCE, tt = st.MPI_TAG / ITERS, i = st.MPI_TAG % ITERS;
            CHECK(src >= 0 && src < size && src != rank && tt >= 1 && tt < NT);
            CHECK(x == val(src, tt, i));
            CHECK(!seen[((size_t)src * NT + tt) * ITERS + i]++);
        }
        free(seen);
    } else {
        for (int i = 0; i < ITERS; i++)
            for (int q = 0; q < size; q++) {
                if (q == rank) continue;
                int x = val(rank, t, i);
                CHECK(MPI_Send(&x, 1, MPI_INT, q, t * ITERS + i, any_comm) == MPI_SUCCESS);
            }
    }
    return NULL;
}

/* ---- 4. matched probes from every thread ---- */

enum { MPROBES = NT * 20 }; /* messages from each other rank */
static MPI_Comm mprobe_comm;
static unsigned char *mseen; /* by source and index: written by whichever thread got it */
static pthread_mutex_t mseen_lock = PTHREAD_MUTEX_INITIALIZER;

static void *mprobe(void *arg) {
    (void)arg;
    int quota = MPROBES * (size - 1) / NT;
    for (int m = 0; m < quota; m++) {
        MPI_Message msg;
        MPI_Status st;
        int n;
        if (m % 2) {
            CHECK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mprobe_comm, &msg, &st) == MPI_SUCCESS);
        } else {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, mprobe_comm, &flag, &msg, &st) ==
                      MPI_SUCCESS);
        }
        CHECK(MPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS);
        int src = st.MPI_SOURCE, i = st.MPI_TAG;
        CHECK(src >= 0 && src < size && src != rank && i >= 0 && i < MPROBES);
        CHECK(n == 1 + i % 3 * 1000);
        int *in = malloc((size_t)n * sizeof *in);
        CHECK(in);
        MPI_Status st2;
        CHECK(MPI_Mrecv(in, n, MPI_INT, &msg, &st2) == MPI_SUCCESS);
        CHECK(msg == MPI_MESSAGE_NULL);
        CHECK(st2.MPI_SOURCE == src && st2.MPI_TAG == i);
        for (int k = 0; k < n; k++) CHECK(in[k] == val(src, 0, i) + k);
        free(in);
        pthread_mutex_lock(&mseen_lock);
        CHECK(!mseen[src * MPROBES + i]++);
        pthread_mutex_unlock(&mseen_lock);
    }
    return NULL;
}

static void mprobe_phase(void) {
    mseen = calloc((size_t)size * MPROBES, 1);
    CHECK(mseen);
    pthread_t th[NT];
    for (long t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, mprobe, (void *)t) == 0);
    /* the main thread sends while the threads probe */
    int *out = malloc(3000 * sizeof *out);
    CHECK(out);
    for (int i = 0; i < MPROBES; i++) {
        int n = 1 + i % 3 * 1000;
        for (int k = 0; k < n; k++) out[k] = val(rank, 0, i) + k;
        for (int q = 0; q < size; q++)
            if (q != rank) CHECK(MPI_Send(out, n, MPI_INT, q, i, mprobe_comm) == MPI_SUCCESS);
    }
    free(out);
    for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < MPROBES; i++) CHECK(mseen[q * MPROBES + i] == (q != rank));
    free(mseen);
    int flag;
    CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mprobe_comm, &flag, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    CHECK(!flag);
}

/* ---- 5. requests completed by another thread ---- */

enum { HANDED = 8 };
static MPI_Comm hand_comm;
static MPI_Request handed[HANDED];
static int handed_in[HANDED];
static int handed_ready; /* under hand_lock */
static pthread_mutex_t hand_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hand_cond = PTHREAD_COND_INITIALIZER;

static void *handover(void *arg) {
    int t = (int)(long)arg;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    if (t == 0) { /* starts receives, hands them to thread 1, then sends */
        for (int k = 0; k < HANDED; k++)
            CHECK(MPI_Irecv(&handed_in[k], 1, MPI_INT, left, k, hand_comm, &handed[k]) ==
                  MPI_SUCCESS);
        pthread_mutex_lock(&hand_lock);
        handed_ready = 1;
        pthread_cond_broadcast(&hand_cond);
        pthread_mutex_unlock(&hand_lock);
        /* the peer's thread 0 sends only after everyone's receives are handed over */
        CHECK(MPI_Barrier(comms[0]) == MPI_SUCCESS);
        for (int k = HANDED - 1; k >= 0; k--) {
            int x = val(rank, 5, k);
            CHECK(MPI_Send(&x, 1, MPI_INT, right, k, hand_comm) == MPI_SUCCESS);
        }
    } else if (t == 1) { /* completes thread 0's requests */
        pthread_mutex_lock(&hand_lock);
        while (!handed_ready) pthread_cond_wait(&hand_cond, &hand_lock);
        pthread_mutex_unlock(&hand_lock);
        MPI_Status st;
        CHECK(MPI_Wait(&handed[0], &st) == MPI_SUCCESS && handed[0] == MPI_REQUEST_NULL);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 0 && handed_in[0] == val(left, 5, 0));
        CHECK(MPI_Waitall(HANDED - 1, &handed[1], MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < HANDED; k++) CHECK(handed_in[k] == val(left, 5, k));
    } else if (t == 2) { /* waits on a receive that thread 3's messages complete */
        int x = -1, flag = 0;
        MPI_Request r;
        CHECK(MPI_Irecv(&x, 1, MPI_INT, left, 99, comms[2], &r) == MPI_SUCCESS);
        while (!flag) CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(x == val(left, 3, 99));
    } else { /* t == 3: sends, and keeps the library busy meanwhile */
        int x = val(rank, 3, 99);
        for (int i = 0; i < ITERS; i++) {
            int flag;
            CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, comms[3], &flag, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
            CHECK(!flag);
        }
        CHECK(MPI_Send(&x, 1, MPI_INT, right, 99, comms[2]) == MPI_SUCCESS);
    }
    return NULL;
}

/* ---- 6. one window from every thread ---- */

enum { SLOTS = NT * 8 }; /* per origin rank: NT threads, put slots */
static MPI_Win win;
static int *wbase; /* [size][SLOTS] put slots; [NT] counters; [1] fetch-and-op counter; [size] */
static int fetched[NT][ITERS];

static int *counters(void) {
    return wbase + size * SLOTS;
}

static MPI_Aint counter_disp(int t) {
    return (MPI_Aint)size * SLOTS + t;
}

static MPI_Aint fop_disp(void) {
    return (MPI_Aint)size * SLOTS + NT;
}

static MPI_Aint excl_disp(int origin) {
    return (MPI_Aint)size * SLOTS + NT + 1 + origin;
}

static void *rma_all(void *arg) {
    int t = (int)(long)arg;
    for (int q = 0; q < size; q++) {
        int out[8], back[8];
        for (int k = 0; k < 8; k++) out[k] = val(rank, t, k);
        MPI_Aint at = (MPI_Aint)rank * SLOTS + t * 8;
        CHECK(MPI_Put(out, 8, MPI_INT, q, at, 8, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(q, win) == MPI_SUCCESS);
        CHECK(MPI_Get(back, 8, MPI_INT, q, at, 8, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(q, win) == MPI_SUCCESS);
        for (int k = 0; k < 8; k++) CHECK(back[k] == out[k]);
        for (int i = 0; i < 5; i++) {
            int one = t + 1;
            CHECK(MPI_Accumulate(&one, 1, MPI_INT, q, counter_disp(t), 1, MPI_INT, MPI_SUM, win) ==
                  MPI_SUCCESS);
        }
        CHECK(MPI_Win_flush_local(q, win) == MPI_SUCCESS);
    }
    for (int i = 0; i < ITERS; i++) { /* every thread of every rank counts on rank 0 */
        int one = 1;
        CHECK(MPI_Fetch_and_op(&one, &fetched[t][i], MPI_INT, 0, fop_disp(), MPI_SUM, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_flush(0, win) == MPI_SUCCESS);
    }
    return NULL;
}

static void *rma_excl(void *arg) {
    int t = (int)(long)arg;
    if (t >= size) return NULL;
    /* thread t alone takes target t: distinct targets, locked at once */
    for (int i = 0; i < 10; i++) {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win) == MPI_SUCCESS);
        int old = -1, add = rank + 1;
        CHECK(MPI_Get(&old, 1, MPI_INT, t, excl_disp(rank), 1, MPI_INT, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(t, win) == MPI_SUCCESS);
        CHECK(old == i * (rank + 1));
        CHECK(MPI_Accumulate(&add, 1, MPI_INT, t, excl_disp(rank), 1, MPI_INT, MPI_SUM, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Win_unlock(t, win) == MPI_SUCCESS);
    }
    return NULL;
}

static void rma_phase(void) {
    size_t n = (size_t)size * SLOTS + NT + 1 + (size_t)size;
    CHECK(MPI_Alloc_mem((MPI_Aint)(n * sizeof *wbase), MPI_INFO_NULL, &wbase) == MPI_SUCCESS);
    memset(wbase, 0, n * sizeof *wbase);
    CHECK(MPI_Win_create(wbase, (MPI_Aint)(n * sizeof *wbase), sizeof *wbase, MPI_INFO_NULL,
                         MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    run_threads(rma_all);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win) == MPI_SUCCESS); /* a local look */
    for (int q = 0; q < size; q++)
        for (int t = 0; t < NT; t++)
            for (int k = 0; k < 8; k++) CHECK(wbase[q * SLOTS + t * 8 + k] == val(q, t, k));
    for (int t = 0; t < NT; t++) CHECK(counters()[t] == 5 * (t + 1) * size);
    if (rank == 0) CHECK(wbase[fop_disp()] == NT * ITERS * size);
    CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);
    /* every value of the fetch-and-op counter went to exactly one fetch */
    int *all = malloc((size_t)size * NT * ITERS * sizeof *all);
    unsigned char *hit = calloc((size_t)size * NT * ITERS, 1);
    CHECK(all && hit);
    CHECK(MPI_Allgather(fetched, NT * ITERS, MPI_INT, all, NT * ITERS, MPI_INT, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    for (int k = 0; k < size * NT * ITERS; k++) {
        CHECK(all[k] >= 0 && all[k] < size * NT * ITERS);
        CHECK(!hit[all[k]]++);
    }
    free(all);
    free(hit);

    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    run_threads(rma_excl);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank < NT) {
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win) == MPI_SUCCESS);
        for (int q = 0; q < size; q++) CHECK(wbase[excl_disp(q)] == 10 * (q + 1));
        CHECK(MPI_Win_unlock(rank, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    CHECK(MPI_Free_mem(wbase) == MPI_SUCCESS);
}

/* ---- 7. communicators made at once ---- */

static void *creating(void *arg) {
    int t = (int)(long)arg;
    for (int i = 0; i < 10; i++) {
        MPI_Comm d, h;
        if (t == 0 && i % 2) {
            MPI_Request r;
            CHECK(MPI_Comm_idup(comms[t], &d, &r) == MPI_SUCCESS);
            CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Comm_dup(comms[t], &d) == MPI_SUCCESS);
        }
        CHECK(MPI_Comm_split(comms[t], rank % 2, -rank, &h) == MPI_SUCCESS);
        int n, r, sum = 0, want = 0;
        CHECK(MPI_Comm_size(d, &n) == MPI_SUCCESS && n == size);
        CHECK(MPI_Comm_rank(d, &r) == MPI_SUCCESS && r == rank);
        int mine = val(rank, t, i);
        for (int q = 0; q < size; q++) want += val(q, t, i);
        CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, d) == MPI_SUCCESS && sum == want);
        /* h: the ranks of my parity, highest first */
        int members = (size - rank % 2 + 1) / 2, higher = (size - 1 - rank) / 2;
        CHECK(MPI_Comm_size(h, &n) == MPI_SUCCESS && n == members);
        CHECK(MPI_Comm_rank(h, &r) == MPI_SUCCESS && r == higher);
        want = 0;
        for (int q = rank % 2; q < size; q += 2) want += val(q, t, i);
        CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, h) == MPI_SUCCESS && sum == want);
        /* messages on d and h stay there: a wildcard receive on the parent sees none */
        int x = val(rank, t, i), y = -1;
        CHECK(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 3, &y, 1, MPI_INT,
                           (rank + size - 1) % size, 3, d, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(y == val((rank + size - 1) % size, t, i));
        CHECK(MPI_Comm_free(&d) == MPI_SUCCESS);
        CHECK(MPI_Comm_free(&h) == MPI_SUCCESS);
        if (i >= 4) continue;
        /* a window: a put to the right neighbour, locked exclusively */
        MPI_Win w;
        int *base;
        CHECK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comms[t], &base, &w) ==
              MPI_SUCCESS);
        *base = -1;
        CHECK(MPI_Barrier(comms[t]) == MPI_SUCCESS);
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, w) == MPI_SUCCESS);
        CHECK(MPI_Put(&x, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, w) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock((rank + 1) % size, w) == MPI_SUCCESS);
        CHECK(MPI_Barrier(comms[t]) == MPI_SUCCESS);
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w) == MPI_SUCCESS);
        CHECK(*base == val((rank + size - 1) % size, t, i));
        CHECK(MPI_Win_unlock(rank, w) == MPI_SUCCESS);
        CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    }
    return NULL;
}

/* ---- 8. callbacks calling MPI ---- */

/* a sum that asks MPI for its datatype's size: a call from inside MPI_Allreduce */
static void sum_op(void *in, void *inout, int *len, MPI_Datatype *type) {
    int bytes = 0;
    CHECK(MPI_Type_size(*type, &bytes) == MPI_SUCCESS && bytes == sizeof(int));
    for (int k = 0; k < *len; k++) ((int *)inout)[k] += ((int *)in)[k];
}

static int handled[NT];

static void on_error(MPI_Comm *comm, int *code, ...) {
    char s[MPI_MAX_ERROR_STRING];
    int n, cls, t;
    CHECK(MPI_Error_class(*code, &cls) == MPI_SUCCESS && cls == MPI_ERR_RANK);
    CHECK(MPI_Error_string(*code, s, &n) == MPI_SUCCESS && n > 0);
    for (t = 0; t < NT && *comm != comms[t]; t++) continue;
    CHECK(t < NT);
    handled[t]++;
}

static int greq_query(void *state, MPI_Status *status) {
    CHECK(MPI_Status_set_elements(status, MPI_INT, *(int *)state) == MPI_SUCCESS);
    CHECK(MPI_Status_set_cancelled(status, 0) == MPI_SUCCESS);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_free(void *state) {
    (void)state;
    return MPI_SUCCESS;
}

static int greq_cancel(void *state, int complete) {
    (void)state;
    (void)complete;
    return MPI_SUCCESS;
}

static MPI_Op user_sum;
static MPI_Request greq;
static int greq_elements = 7;

static void *callbacks(void *arg) {
    int t = (int)(long)arg;
    if (t == 0) { /* starts the generalized request; thread 1 waits for it */
        CHECK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &greq_elements, &greq) ==
              MPI_SUCCESS);
        pthread_mutex_lock(&hand_lock);
        handed_ready = 2;
        pthread_cond_broadcast(&hand_cond);
        pthread_mutex_unlock(&hand_lock);
    } else if (t == 1) {
        pthread_mutex_lock(&hand_lock);
        while (handed_ready != 2) pthread_cond_wait(&hand_cond, &hand_lock);
        pthread_mutex_unlock(&hand_lock);
        MPI_Request r = greq;
        MPI_Status st;
        int n = -1;
        CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
        CHECK(MPI_Get_elements(&st, MPI_INT, &n) == MPI_SUCCESS && n == greq_elements);
    }
    for (int i = 0; i < 20; i++) {
        int mine = val(rank, t, i), sum = -1, want = 0;
        for (int q = 0; q < size; q++) want += val(q, t, i);
        CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, user_sum, comms[t]) == MPI_SUCCESS);
        CHECK(sum == want);
        int x = 0; /* an invalid rank: the handler runs, and calls MPI */
        CHECK(MPI_Send(&x, 1, MPI_INT, size + t, 0, comms[t]) != MPI_SUCCESS);
    }
    CHECK(handled[t] == 20);
    if (t == 0) { /* completes the request thread 1 waits for, once it may well wait */
        CHECK(MPI_Barrier(comms[0]) == MPI_SUCCESS);
        CHECK(MPI_Grequest_complete(greq) == MPI_SUCCESS);
    }
    return NULL;
}

static void callbacks_phase(void) {
    MPI_Errhandler eh;
    CHECK(MPI_Op_create(sum_op, 1, &user_sum) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(on_error, &eh) == MPI_SUCCESS);
    for (int t = 0; t < NT; t++) CHECK(MPI_Comm_set_errhandler(comms[t], eh) == MPI_SUCCESS);
    run_threads(callbacks);
    for (int t = 0; t < NT; t++)
        CHECK(MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    CHECK(MPI_Op_free(&user_sum) == MPI_SUCCESS);
}

/* ---- 9. intercommunicators made at once ---- */

static void *inter(void *arg) {
    int t = (int)(long)arg;
    int even = (size + 1) / 2, odd = size / 2, mine_n = rank % 2 ? odd : even;
    for (int i = 0; i < 5; i++) {
        MPI_Comm local, ic, d, sp, merged;
        CHECK(MPI_Comm_split(comms[t], rank % 2, rank, &local) == MPI_SUCCESS);
        CHECK(MPI_Intercomm_create(local, 0, comms[t], rank % 2 ? 0 : 1, t, &ic) == MPI_SUCCESS);
        int n, flag;
        CHECK(MPI_Comm_test_inter(ic, &flag) == MPI_SUCCESS && flag);
        CHECK(MPI_Comm_remote_size(ic, &n) == MPI_SUCCESS && n == size - mine_n);
        CHECK(MPI_Comm_dup(ic, &d) == MPI_SUCCESS);
        CHECK(MPI_Comm_remote_size(d, &n) == MPI_SUCCESS && n == size - mine_n);
        CHECK(MPI_Comm_split(ic, 0, rank, &sp) == MPI_SUCCESS);
        CHECK(MPI_Comm_size(sp, &n) == MPI_SUCCESS && n == mine_n);
        CHECK(MPI_Intercomm_merge(ic, rank % 2, &merged) == MPI_SUCCESS);
        CHECK(MPI_Comm_size(merged, &n) == MPI_SUCCESS && n == size);
        int x = val(rank, t, i), sum = 0, want = 0;
        for (int q = 0; q < size; q++) want += val(q, t, i);
        CHECK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, merged) == MPI_SUCCESS && sum == want);
        /* across d: the sum of the remote group */
        want = 0;
        for (int q = 1 - rank % 2; q < size; q += 2) want += val(q, t, i);
        CHECK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, d) == MPI_SUCCESS && sum == want);
        MPI_Comm all[] = {merged, sp, d, ic, local};
        for (int k = 0; k < 5; k++) CHECK(MPI_Comm_free(&all[k]) == MPI_SUCCESS);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided = -1;
    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < NT; t++) CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &any_comm) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &mprobe_comm) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &hand_comm) == MPI_SUCCESS);

    run_threads(own_comm);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    run_threads(shared_comm);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    run_threads(wildcard);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    mprobe_phase();
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    run_threads(handover);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    rma_phase();
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    run_threads(creating);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    callbacks_phase();
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (size > 1) run_threads(inter);

    for (int t = 0; t < NT; t++) CHECK(MPI_Comm_free(&comms[t]) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&any_comm) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&mprobe_comm) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&hand_comm) == MPI_SUCCESS);
    if (rank == 0) printf("threads: %d ranks x %d threads ok\n", size, NT);
    MPI_Finalize();
    return 0;
}
