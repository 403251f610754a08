/* MPI requests beyond send and receive, black box through mpi.h: buffered sends and
 * their buffer, persistent requests run many times, cancelled receives and sends,
 * matched probes (Mprobe/Improbe/Mrecv/Imrecv) under wildcards and across
 * protocols, the pair types of MINLOC/MAXLOC, statuses of a split
 * communicator, and the request pool shared by communicators. Needs 2 or more ranks; ranks past 1
 * check only the collective parts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static void fill(int *b, int n, int salt) {
    for (int i = 0; i < n; i++) b[i] = salt * 1000003 + i;
}

static int holds(const int *b, int n, int salt) {
    for (int i = 0; i < n; i++)
        if (b[i] != salt * 1000003 + i) return 0;
    return 1;
}

/* Bsend and Ibsend: messages of every protocol out of one attached buffer sized by
 * MPI_BSEND_OVERHEAD exactly; the sender's own buffer is reused at once; a message
 * with no room is refused with MPI_ERR_BUFFER; detach returns the buffer. */
static void buffered(void) {
    enum { N = 6 };
    static const int counts[N] = {0, 1, 12, 1000, 3000, 100000}; /* ints */
    if (rank == 0) {
        int total = 0;
        for (int k = 0; k < N; k++) total += counts[k] * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
        char *attached = malloc((size_t)total);
        CHECK(MPI_Buffer_attach(attached, total) == MPI_SUCCESS);
        int *b = malloc(100000 * sizeof(int));
        for (int k = 0; k < N; k++) {
            fill(b, counts[k], k);
            if (k % 2) {
                MPI_Request r;
                CHECK(MPI_Ibsend(b, counts[k], MPI_INT, 1, k, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
                int flag = 0;
                CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag);
            } else {
                CHECK(MPI_Bsend(b, counts[k], MPI_INT, 1, k, MPI_COMM_WORLD) == MPI_SUCCESS);
            }
            memset(b, 0, (size_t)counts[k] * sizeof(int)); /* the copy went, not b */
        }
        /* the rendezvous copies stay until rank 1 receives: no room for another */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        CHECK(MPI_Bsend(b, 100000, MPI_INT, 1, 99, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
        CHECK(MPI_Buffer_attach(b, 1000) == MPI_ERR_BUFFER); /* one is attached already */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Send(NULL, 0, MPI_INT, 1, 50, MPI_COMM_WORLD); /* now receive them */
        void *back;
        int back_size;
        CHECK(MPI_Buffer_detach(&back, &back_size) == MPI_SUCCESS); /* waits for the sends */
        CHECK(back == attached && back_size == total);
        /* the space came back: the same messages again fit in a fresh attach */
        CHECK(MPI_Buffer_attach(attached, total) == MPI_SUCCESS);
        for (int k = 0; k < N; k++) {
            fill(b, counts[k], 10 + k);
            CHECK(MPI_Bsend(b, counts[k], MPI_INT, 1, 10 + k, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        CHECK(MPI_Buffer_detach(&back, &back_size) == MPI_SUCCESS && back == attached);
        free(attached);
        free(b);
    } else if (rank == 1) {
        int *b = malloc(100000 * sizeof(int));
        MPI_Recv(NULL, 0, MPI_INT, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int round = 0; round < 2; round++)
            for (int k = 0; k < N; k++) {
                MPI_Status st;
                int count;
                MPI_Recv(b, 100000, MPI_INT, 0, round * 10 + k, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT, &count);
                CHECK(count == counts[k] && holds(b, count, round * 10 + k));
            }
        free(b);
    }
}

/* A program that writes over the attached buffer's bookkeeping gets MPI_ERR_BUFFER
 * from the next buffered send and from detach, not a hang or a wild write; a fresh
 * attach works again. On MPI_COMM_SELF, every rank alone. */
static void buffer_written_over(void) {
    static char pool[1000];
    int v = 42 + rank, w = 0;
    void *back;
    int back_size;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Buffer_attach(pool, (int)sizeof pool) == MPI_SUCCESS);
    CHECK(MPI_Bsend(&v, 1, MPI_INT, 0, 200, MPI_COMM_SELF) == MPI_SUCCESS);
    memset(pool, 0, MPI_BSEND_OVERHEAD); /* the first block's header: size 0 */
    CHECK(MPI_Bsend(&v, 1, MPI_INT, 0, 201, MPI_COMM_SELF) == MPI_ERR_BUFFER);
    CHECK(MPI_Buffer_detach(&back, &back_size) == MPI_ERR_BUFFER);
    CHECK(back == pool && back_size == (int)sizeof pool);
    /* the message sent before the damage arrives intact */
    CHECK(MPI_Recv(&w, 1, MPI_INT, 0, 200, MPI_COMM_SELF, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(w == 42 + rank);
    /* a header naming no send is refused too */
    CHECK(MPI_Buffer_attach(pool, (int)sizeof pool) == MPI_SUCCESS);
    memset(pool, 0x5c, sizeof pool);
    CHECK(MPI_Bsend(&v, 1, MPI_INT, 0, 202, MPI_COMM_SELF) == MPI_ERR_BUFFER);
    CHECK(MPI_Buffer_detach(&back, &back_size) == MPI_ERR_BUFFER);
    CHECK(MPI_Buffer_attach(pool, (int)sizeof pool) == MPI_SUCCESS);
    CHECK(MPI_Bsend(&v, 1, MPI_INT, 0, 203, MPI_COMM_SELF) == MPI_SUCCESS);
    CHECK(MPI_Recv(&w, 1, MPI_INT, 0, 203, MPI_COMM_SELF, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Buffer_detach(&back, &back_size) == MPI_SUCCESS && w == 42 + rank);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Persistent requests: a send and a receive of each protocol started 50 times,
 * Startall, a persistent synchronous send, and an inactive request completing at
 * once with an empty status. */
static void persistent(void) {
    enum { ROUNDS = 50, KINDS = 3 };
    static const int counts[KINDS] = {2, 900, 50000};
    if (rank > 1) return;
    int peer = 1 - rank;
    int *out[KINDS], *in[KINDS];
    MPI_Request r[2 * KINDS];
    for (int k = 0; k < KINDS; k++) {
        out[k] = malloc((size_t)counts[k] * sizeof(int));
        in[k] = malloc((size_t)counts[k] * sizeof(int));
        CHECK(MPI_Recv_init(in[k], counts[k], MPI_INT, peer, k, MPI_COMM_WORLD, &r[k]) ==
              MPI_SUCCESS);
        if (k == 1)
            CHECK(MPI_Ssend_init(out[k], counts[k], MPI_INT, peer, k, MPI_COMM_WORLD,
                                 &r[KINDS + k]) == MPI_SUCCESS);
        else
            CHECK(MPI_Send_init(out[k], counts[k], MPI_INT, peer, k, MPI_COMM_WORLD,
                                &r[KINDS + k]) == MPI_SUCCESS);
    }
    MPI_Status st;
    CHECK(MPI_Wait(&r[0], &st) == MPI_SUCCESS); /* inactive: at once, empty status */
    CHECK(r[0] != MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < KINDS; k++) fill(out[k], counts[k], round * 3 + k + rank);
        if (round % 2) {
            CHECK(MPI_Startall(2 * KINDS, r) == MPI_SUCCESS);
        } else {
            for (int k = 0; k < 2 * KINDS; k++) CHECK(MPI_Start(&r[k]) == MPI_SUCCESS);
        }
        MPI_Status sts[2 * KINDS];
        CHECK(MPI_Waitall(2 * KINDS, r, sts) == MPI_SUCCESS);
        for (int k = 0; k < KINDS; k++) {
            int count;
            MPI_Get_count(&sts[k], MPI_INT, &count);
            CHECK(count == counts[k] && sts[k].MPI_SOURCE == peer && sts[k].MPI_TAG == k);
            CHECK(holds(in[k], counts[k], round * 3 + k + peer));
            CHECK(r[k] != MPI_REQUEST_NULL); /* persistent requests stay */
        }
    }
    for (int k = 0; k < 2 * KINDS; k++) {
        CHECK(MPI_Request_free(&r[k]) == MPI_SUCCESS && r[k] == MPI_REQUEST_NULL);
    }
    for (int k = 0; k < KINDS; k++) {
        free(out[k]);
        free(in[k]);
    }
}

/* Cancel: a receive nobody sends to is cancelled; a matched one is not; the next
 * message goes to the receive posted after the cancelled one. */
static void cancel(void) {
    if (rank > 1) return;
    int v = -1;
    MPI_Request r;
    MPI_Status st;
    int flag;
    CHECK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    CHECK(MPI_Cancel(&r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
    CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && flag && v == -1);
    /* a receive that matched before the cancel completes normally */
    int peer = 1 - rank, w = 0, x = 100 + rank;
    CHECK(MPI_Irecv(&w, 1, MPI_INT, peer, 71, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    MPI_Send(&x, 1, MPI_INT, peer, 71, MPI_COMM_WORLD);
    /* the peer's next message arrives after its first: once it is here, so is that */
    MPI_Sendrecv(NULL, 0, MPI_INT, peer, 72, NULL, 0, MPI_INT, peer, 72, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(MPI_Cancel(&r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
    CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && !flag && w == 100 + peer);
}

/* Cancel of sends. A send whose message waits unmatched at its receiver (synchronous
 * eager, by pieces, rendezvous by get, split, put or chunks) is withdrawn there: the
 * wait (or a loop of tests) returns while the receiver is busy elsewhere, and the
 * receiver never sees the message, only the next one of that tag. A send the receiver
 * has taken completes as sent, and so does an eager one, which is gone at once. */
static void send_cancel(void) {
    if (rank > 1) return;
    enum { MOST = 300000, EITHER = -1 };
    static const struct {
        int n, sync, strided, persistent, by_tests, withdrawn;
    } cases[] = {
        {1, 0, 0, 0, 0, EITHER},   /* eager: in the peer's mailbox already */
        {1, 1, 0, 0, 0, 1},        /* synchronous eager */
        {2000, 1, 0, 0, 0, 1},     /* synchronous by pieces (by put across nodes) */
        {40000, 0, 0, 0, 1, 1},    /* rendezvous, completed by MPI_Test */
        {MOST, 0, 0, 0, 0, 1},     /* rendezvous split on one node */
        {MOST / 2, 0, 1, 0, 0, 1}, /* every other int: chunked through a window */
        {MOST, 1, 0, 1, 0, 1},     /* persistent synchronous; started again below */
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    int *a = malloc(MOST * sizeof(int)), *b = malloc(MOST * sizeof(int));
    CHECK(a && b);
    MPI_Datatype every_other;
    MPI_Type_vector(MOST / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int c = 0; c < ncases; c++) {
        int n = cases[c].n, tag = 90 + c, withdrawn = -1;
        MPI_Datatype type = cases[c].strided ? every_other : MPI_INT;
        int count = cases[c].strided ? 1 : n;
        if (rank == 0) {
            MPI_Request r;
            MPI_Status st;
            fill(a, cases[c].strided ? 2 * n : n, c);
            if (cases[c].persistent) {
                CHECK(MPI_Ssend_init(a, count, type, 1, tag, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
                CHECK(MPI_Start(&r) == MPI_SUCCESS);
            } else if (cases[c].sync) {
                CHECK(MPI_Issend(a, count, type, 1, tag, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
            } else {
                CHECK(MPI_Isend(a, count, type, 1, tag, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
            }
            CHECK(MPI_Cancel(&r) == MPI_SUCCESS);
            if (cases[c].by_tests) {
                int done = 0;
                while (!done) CHECK(MPI_Test(&r, &done, &st) == MPI_SUCCESS);
            } else {
                CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
            }
            CHECK(MPI_Test_cancelled(&st, &withdrawn) == MPI_SUCCESS);
            if (cases[c].withdrawn != EITHER) CHECK(withdrawn == cases[c].withdrawn);
            MPI_Send(&withdrawn, 1, MPI_INT, 1, 89, MPI_COMM_WORLD);
            if (cases[c].persistent) { /* the same request runs again, and is received */
                CHECK(MPI_Start(&r) == MPI_SUCCESS);
                CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
                CHECK(MPI_Test_cancelled(&st, &withdrawn) == MPI_SUCCESS && !withdrawn);
                CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
            }
            fill(a, cases[c].strided ? 2 * n : n, c + 50);
            MPI_Send(a, count, type, 1, tag, MPI_COMM_WORLD);
        } else {
            /* busy in another receive while the sender cancels */
            MPI_Recv(&withdrawn, 1, MPI_INT, 0, 89, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int rounds = withdrawn ? 1 : 2;
            if (cases[c].persistent) rounds++;
            for (int k = 0; k < rounds; k++) {
                int salt = k == rounds - 1 ? c + 50 : c;
                MPI_Recv(b, n, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int i = 0; i < n; i++)
                    CHECK(b[i] == salt * 1000003 + (cases[c].strided ? 2 * i : i));
            }
            int seen = 1;
            MPI_Iprobe(0, tag, MPI_COMM_WORLD, &seen, MPI_STATUS_IGNORE);
            CHECK(!seen);
        }
    }
    /* a send whose receive was posted first is taken, not withdrawn */
    int peer = 1 - rank;
    if (rank == 1) {
        MPI_Request r;
        CHECK(MPI_Irecv(b, MOST, MPI_INT, 0, 98, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        MPI_Sendrecv(NULL, 0, MPI_INT, peer, 97, NULL, 0, MPI_INT, peer, 97, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && holds(b, MOST, 98));
    } else {
        MPI_Request r;
        MPI_Status st;
        int flag = 1;
        MPI_Sendrecv(NULL, 0, MPI_INT, peer, 97, NULL, 0, MPI_INT, peer, 97, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        fill(a, MOST, 98);
        CHECK(MPI_Isend(a, MOST, MPI_INT, 1, 98, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        CHECK(MPI_Cancel(&r) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
        CHECK(MPI_Test_cancelled(&st, &flag) == MPI_SUCCESS && !flag);
    }
    MPI_Type_free(&every_other);
    free(a);
    free(b);
}

/* Matched probes: each message is taken by exactly the receive its probe names,
 * whatever arrives in between, for eager and rendezvous sizes. */
static void matched_probes(void) {
    enum { N = 20 };
    if (rank == 0) {
        int *b = malloc(20000 * sizeof(int));
        for (int i = 0; i < N; i++) {
            int n = i % 2 ? 20000 : 3;
            fill(b, n, i);
            MPI_Send(b, n, MPI_INT, 1, 80 + i % 4, MPI_COMM_WORLD);
        }
        free(b);
    } else if (rank == 1) {
        for (int i = 0; i < N; i++) {
            MPI_Message m;
            MPI_Status st;
            if (i % 3 == 0) {
                CHECK(MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st) == MPI_SUCCESS);
            } else {
                int flag = 0;
                while (!flag)
                    CHECK(MPI_Improbe(MPI_ANY_SOURCE, 80 + i % 4, MPI_COMM_WORLD, &flag, &m, &st) ==
                          MPI_SUCCESS);
            }
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 80 + i % 4);
            int count;
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == (i % 2 ? 20000 : 3));
            /* the probed message is no longer there for a plain probe to see */
            int seen = 1;
            MPI_Iprobe(0, 80 + i % 4, MPI_COMM_WORLD, &seen, MPI_STATUS_IGNORE);
            if (i == N - 1) CHECK(!seen);
            int *b = malloc((size_t)count * sizeof(int));
            if (i % 2) {
                MPI_Request r;
                CHECK(MPI_Imrecv(b, count, MPI_INT, &m, &r) == MPI_SUCCESS);
                CHECK(m == MPI_MESSAGE_NULL);
                CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
            } else {
                CHECK(MPI_Mrecv(b, count, MPI_INT, &m, &st) == MPI_SUCCESS);
            }
            CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == 0 && holds(b, count, i));
            free(b);
        }
    }
    /* MPI_PROC_NULL: a probe finds the empty message at once */
    MPI_Message m;
    MPI_Status st;
    int v = 5;
    CHECK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st) == MPI_SUCCESS);
    CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL);
    CHECK(MPI_Mrecv(&v, 1, MPI_INT, &m, &st) == MPI_SUCCESS && m == MPI_MESSAGE_NULL);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && v == 5);
}

/* The MINLOC/MAXLOC pairs keep their C layout; counts and elements follow it. */
static void pair_types(void) {
    struct {
        double value;
        int index;
    } out[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, in[3];
    struct {
        short value;
        int index;
    } sout = {7, 70}, sin;
    int size_of;
    MPI_Aint lb, extent;
    MPI_Type_size(MPI_DOUBLE_INT, &size_of);
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &extent);
    CHECK(size_of == 12 && extent == (MPI_Aint)sizeof out[0] && lb == 0);
    MPI_Type_size(MPI_2INT, &size_of);
    CHECK(size_of == 8);
    MPI_Type_size(MPI_LONG_DOUBLE_INT, &size_of);
    CHECK(size_of == (int)sizeof(long double) + 4);
    MPI_Type_size(MPI_C_DOUBLE_COMPLEX, &size_of);
    CHECK(size_of == 16);
    if (rank == 0) {
        MPI_Send(out, 3, MPI_DOUBLE_INT, 1, 90, MPI_COMM_WORLD);
        MPI_Send(&sout, 1, MPI_SHORT_INT, 1, 91, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Status st;
        int count, elements;
        MPI_Recv(in, 3, MPI_DOUBLE_INT, 0, 90, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE_INT, &count);
        MPI_Get_elements(&st, MPI_DOUBLE_INT, &elements);
        CHECK(count == 3 && elements == 6);
        for (int i = 0; i < 3; i++) CHECK(in[i].value == out[i].value && in[i].index == i + 1);
        MPI_Recv(&sin, 1, MPI_SHORT_INT, 0, 91, MPI_COMM_WORLD, &st);
        CHECK(sin.value == 7 && sin.index == 70);
    }
}

/* The request pool is one, whichever communicators its requests are on (with
 * TW_CHANNELS, on different channels): each communicator in turn takes persistent
 * receives until the pool is exhausted (MPI_ERR_NO_MEM, not a crash), and once they are
 * freed the next communicator gets as many. */
static void pool_across_communicators(void) {
    enum { COMMS = 4, MOST = 70000 };
    MPI_Comm comms[COMMS];
    MPI_Request *r = malloc(MOST * sizeof *r);
    CHECK(r != NULL);
    int first = 0, in;
    for (int c = 0; c < COMMS; c++) {
        CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]) == MPI_SUCCESS);
        MPI_Comm_set_errhandler(comms[c], MPI_ERRORS_RETURN);
    }
    for (int c = 0; c < COMMS; c++) {
        int rc = MPI_SUCCESS, n = 0, cls;
        while (n < MOST && (rc = MPI_Recv_init(&in, 1, MPI_INT, MPI_ANY_SOURCE, 999, comms[c],
                                               &r[n])) == MPI_SUCCESS)
            n++;
        MPI_Error_class(rc, &cls);
        CHECK(n < MOST && cls == MPI_ERR_NO_MEM);
        if (c == 0) first = n;
        CHECK(n == first); /* every slot the others freed came back */
        for (int k = 0; k < n; k++) CHECK(MPI_Request_free(&r[k]) == MPI_SUCCESS);
    }
    CHECK(first > 60000);
    for (int c = 0; c < COMMS; c++) MPI_Comm_free(&comms[c]);
    free(r);
}

/* A status names its source by rank in the communicator of the receive, whichever
 * call completes it. */
static void statuses_in_split(void) {
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev); /* ranks reversed */
    int me, n;
    MPI_Comm_rank(rev, &me);
    MPI_Comm_size(rev, &n);
    CHECK(me == size - 1 - rank && n == size);
    int to = (me + 1) % n, from = (me - 1 + n) % n, v = me, w = -1;
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 5, rev, &r[0]);
    MPI_Isend(&v, 1, MPI_INT, to, 5, rev, &r[1]);
    CHECK(MPI_Waitall(2, r, st) == MPI_SUCCESS);
    CHECK(w == from && st[0].MPI_SOURCE == from);
    MPI_Isend(&v, 1, MPI_INT, to, 6, rev, &r[1]);
    MPI_Status ps;
    MPI_Probe(MPI_ANY_SOURCE, 6, rev, &ps);
    CHECK(ps.MPI_SOURCE == from);
    MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 6, rev, &ps);
    CHECK(ps.MPI_SOURCE == from);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Comm_free(&rev);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    buffered();
    buffer_written_over();
    persistent();
    cancel();
    send_cancel();
    matched_probes();
    pair_types();
    statuses_in_split();
    pool_across_communicators();
    MPI_Finalize();
    if (rank == 0) printf("requests: all checks passed on %d ranks\n", size);
    return 0;
}
