/* MPI_THREAD_MULTIPLE with everything at once: NT threads per rank, each on a
 * communicator of its own (under TW_CHANNELS=4, each on a channel of its own, with its
 * lock), while the others do the same, so that calls holding different locks meet:
 *   - ring exchanges on the thread's own communicator: eager, rendezvous, and a derived
 *     (strided) datatype, which takes the library's lock as well;
 *   - one MPI_Waitall over requests on its own communicator and on one that every
 *     thread shares (a tag per thread): the locks of two channels at once;
 *   - buffered sends through the process's buffer (every lock's calls attach it);
 *   - an allreduce on its communicator, and a communicator duplicated from it and
 *     freed (the library's lock and the channel's, in that order);
 * and one more thread per rank blocked in MPI_Recv on a communicator of its own from
 * the start, which the main thread's message ends after the others have joined: it
 * must not hold them back, nor be starved; then locks taken crossed, out of the order
 * by a callback and in it by another thread (crossed_locks). Every value received is checked
 * against one computed independently of the library. Runs on any number of ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { NT = 4, ITERS = 40, BIG = 20000 /* ints: a rendezvous */, STRIDE = 3, VEC = 50 };

static MPI_Comm own[NT], shared, blocked_comm;

static int val(int src, int t, int i, int k) {
    return ((src * 131 + t) * 1009 + i) * 7 + k;
}

static void *worker(void *arg) {
    int t = (int)(long)arg;
    MPI_Comm c = own[t];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *out = malloc(BIG * sizeof *out), *in = malloc(BIG * sizeof *in);
    int *strided = malloc(VEC * STRIDE * sizeof *strided);
    CHECK(out && in && strided);
    MPI_Datatype vec;
    CHECK(MPI_Type_vector(VEC, 1, STRIDE, MPI_INT, &vec) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&vec) == MPI_SUCCESS);
    for (int i = 0; i < ITERS; i++) {
        /* eager or rendezvous, by turns, on the own communicator, and one message on
         * the shared one under this thread's tag: one Waitall over both channels */
        int n = i % 2 ? BIG : 16;
        for (int k = 0; k < n; k++) out[k] = val(rank, t, i, k);
        int cross_out = val(rank, t, i, -1), cross_in = -1;
        MPI_Request r[4];
        CHECK(MPI_Irecv(in, n, MPI_INT, left, i, c, &r[0]) == MPI_SUCCESS);
        CHECK(MPI_Irecv(&cross_in, 1, MPI_INT, left, t, shared, &r[1]) == MPI_SUCCESS);
        CHECK(MPI_Isend(out, n, MPI_INT, right, i, c, &r[2]) == MPI_SUCCESS);
        CHECK(MPI_Isend(&cross_out, 1, MPI_INT, right, t, shared, &r[3]) == MPI_SUCCESS);
        CHECK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < n; k++) CHECK(in[k] == val(left, t, i, k));
        CHECK(cross_in == val(left, t, i, -1));

        /* a strided datatype both ways */
        for (int k = 0; k < VEC; k++) strided[k * STRIDE] = val(rank, t, i, k + 100);
        int packed[VEC];
        CHECK(MPI_Sendrecv(strided, 1, vec, right, 1000 + i, packed, VEC, MPI_INT, left, 1000 + i,
                           c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < VEC; k++) CHECK(packed[k] == val(left, t, i, k + 100));

        /* a buffered send */
        int b = val(rank, t, i, 999), got = -1;
        CHECK(MPI_Bsend(&b, 1, MPI_INT, right, 2000 + i, c) == MPI_SUCCESS);
        CHECK(MPI_Recv(&got, 1, MPI_INT, left, 2000 + i, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(got == val(left, t, i, 999));

        /* now and then: a collective, and a communicator made from this one and freed */
        if (i % 8 == 0) {
            int one = t + 1, sum = 0;
            CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS);
            CHECK(sum == (t + 1) * size);
            MPI_Comm d;
            CHECK(MPI_Comm_dup(c, &d) == MPI_SUCCESS);
            int x = val(rank, t, i, 5000), y = -1;
            CHECK(MPI_Sendrecv(&x, 1, MPI_INT, right, 0, &y, 1, MPI_INT, left, 0, d,
                               MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(y == val(left, t, i, 5000));
            CHECK(MPI_Comm_free(&d) == MPI_SUCCESS);
        }
    }
    CHECK(MPI_Type_free(&vec) == MPI_SUCCESS);
    free(out);
    free(in);
    free(strided);
    return NULL;
}

/* Locks met crossed: a callback run under the library's lock (an error handler on
 * MPI_COMM_SELF, called by MPI_Comm_call_errhandler) probes every thread's communicator,
 * so it takes their channels' locks out of the order, while another thread asks for
 * each communicator's attribute, which takes its channel's lock and then the
 * library's, in the order. Neither may wait for the other for good. */
enum { CROSSINGS = 3000 };
static int probes_made;

static void probing_handler(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    (void)code;
    for (int t = 0; t < NT; t++) {
        int flag = 1;
        CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, own[t], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(!flag); /* nobody sends that tag */
    }
    probes_made++;
}

static void *calling_handler(void *arg) {
    (void)arg;
    for (int i = 0; i < CROSSINGS; i++)
        CHECK(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER) == MPI_SUCCESS);
    return NULL;
}

static void *asking_attributes(void *arg) {
    (void)arg;
    for (int i = 0; i < CROSSINGS; i++)
        for (int t = 0; t < NT; t++) {
            int *ub, flag = 0;
            CHECK(MPI_Comm_get_attr(own[t], MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS);
            CHECK(flag && *ub >= 32767);
        }
    return NULL;
}

static void crossed_locks(void) {
    MPI_Errhandler h;
    CHECK(MPI_Comm_create_errhandler(probing_handler, &h) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, h) == MPI_SUCCESS);
    pthread_t a, b;
    CHECK(pthread_create(&a, NULL, calling_handler, NULL) == 0);
    CHECK(pthread_create(&b, NULL, asking_attributes, NULL) == 0);
    CHECK(pthread_join(a, NULL) == 0 && pthread_join(b, NULL) == 0);
    CHECK(probes_made == CROSSINGS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&h) == MPI_SUCCESS);
}

static int blocked_got = -1;

static void *blocked(void *arg) {
    (void)arg;
    CHECK(MPI_Recv(&blocked_got, 1, MPI_INT, MPI_ANY_SOURCE, 7, blocked_comm, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < NT; t++) CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &shared) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &blocked_comm) == MPI_SUCCESS);
    int bytes = NT * ITERS * (MPI_BSEND_OVERHEAD + (int)sizeof(int));
    void *buffer = malloc((size_t)bytes);
    CHECK(buffer && MPI_Buffer_attach(buffer, bytes) == MPI_SUCCESS);

    pthread_t waiter, th[NT];
    CHECK(pthread_create(&waiter, NULL, blocked, NULL) == 0);
    for (long t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0);
    for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
    /* the blocked thread's message, from its left neighbour, only now */
    int word = val(rank, NT, 0, 7);
    CHECK(MPI_Send(&word, 1, MPI_INT, (rank + 1) % size, 7, blocked_comm) == MPI_SUCCESS);
    CHECK(pthread_join(waiter, NULL) == 0);
    CHECK(blocked_got == val((rank + size - 1) % size, NT, 0, 7));
    crossed_locks();

    void *back;
    CHECK(MPI_Buffer_detach(&back, &bytes) == MPI_SUCCESS && back == buffer);
    free(buffer);
    for (int t = 0; t < NT; t++) CHECK(MPI_Comm_free(&own[t]) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&shared) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&blocked_comm) == MPI_SUCCESS);
    MPI_Finalize();
    if (rank == 0) printf("threads_channels: %d ranks x %d threads ok\n", size, NT);
    return 0;
}
