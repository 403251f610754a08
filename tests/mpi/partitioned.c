/* Partitioned point-to-point communication (MPI-4.1 chapter 4): every rank sends to
 * the next in a ring and receives from the one before, the two sides cutting the
 * message into different numbers of partitions; many rounds of changing data;
 * Pready_range and Pready_list; partitions seen arriving one by one (the sender readies
 * partition 0 only and waits to be told before it readies the rest); matching of several
 * sends of one envelope in the order of their first starts; a message of 0 bytes; to
 * MPI_PROC_NULL and to this rank itself; and the errors the standard names. With the
 * argument "threads": MPI_THREAD_MULTIPLE, several threads each marking its partitions
 * while the main thread waits. Every received byte is checked. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, next, prev;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "partitioned: rank %d: %s:%d: %s: ", rank, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

static int value(int round, int sender, long i) {
    return (int)(round * 1000003 + sender * 7919 + i);
}

static void expect_data(const int *buf, long n, int round, int sender, const char *what) {
    for (long i = 0; i < n; i++)
        CHECK(buf[i] == value(round, sender, i), "%s: element %ld is %d, not %d (round %d)", what,
              i, buf[i], value(round, sender, i), round);
}

/* The class of an error code. */
static int class_of(int rc) {
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

/* Waits until Parrived says partition k of req arrived; a generous bound on wall time
 * ends in an error rather than a hang. */
static void wait_arrived(MPI_Request req, int k) {
    double give_up = MPI_Wtime() + 120;
    int flag = 0;
    while (!flag) {
        OK(MPI_Parrived(req, k, &flag));
        CHECK(flag || MPI_Wtime() < give_up, "partition %d never arrived", k);
    }
}

/* A ring exchange: send_parts partitions of send_count ints to next, recv_parts of
 * recv_count from prev, for rounds rounds; the sender readies its partitions in an order
 * that changes every round, in ones, ranges or lists. */
static void ring(int send_parts, long send_count, int recv_parts, long recv_count, int rounds,
                 int how) {
    long n = send_parts * send_count;
    CHECK(n == recv_parts * recv_count, "test sizes disagree");
    int *sbuf = malloc((size_t)(n ? n : 1) * sizeof *sbuf);
    int *rbuf = malloc((size_t)(n ? n : 1) * sizeof *rbuf);
    CHECK(sbuf && rbuf, "no memory");
    MPI_Request sreq, rreq;
    OK(MPI_Psend_init(sbuf, send_parts, send_count, MPI_INT, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                      &sreq));
    OK(MPI_Precv_init(rbuf, recv_parts, recv_count, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                      &rreq));
    int *list = malloc((size_t)send_parts * sizeof *list);
    CHECK(list, "no memory");
    for (int round = 0; round < rounds; round++) {
        memset(rbuf, 0xff, (size_t)n * sizeof *rbuf);
        MPI_Request both[2] = {rreq, sreq};
        OK(MPI_Startall(2, both));
        for (int q = 0; q < send_parts; q++) {
            /* partitions in a changing order: forwards, backwards, odd ones first */
            int k = round % 3 == 0             ? q
                    : round % 3 == 1           ? send_parts - 1 - q
                    : q < (send_parts + 1) / 2 ? 2 * q
                                               : 2 * (q - (send_parts + 1) / 2) + 1;
            for (long i = 0; i < send_count; i++)
                sbuf[k * send_count + i] = value(round, rank, k * send_count + i);
            list[q] = k;
            if (how == 0) OK(MPI_Pready(k, sreq));
        }
        if (how == 1) OK(MPI_Pready_range(0, send_parts - 1, sreq));
        if (how == 2) OK(MPI_Pready_list(send_parts, list, sreq));
        MPI_Status st;
        OK(MPI_Wait(&rreq, &st));
        int count;
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 5 && count == n,
              "status source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);
        for (int k = 0; k < recv_parts; k++) {
            int flag = 0;
            OK(MPI_Parrived(rreq, k, &flag)); /* inactive now: true */
            CHECK(flag, "Parrived false on an inactive request");
        }
        OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        expect_data(rbuf, n, round, prev, "ring");
    }
    OK(MPI_Request_free(&sreq));
    OK(MPI_Request_free(&rreq));
    CHECK(sreq == MPI_REQUEST_NULL && rreq == MPI_REQUEST_NULL, "freed requests not null");
    free(list);
    free(sbuf);
    free(rbuf);
}

/* Rank 0 sends to rank 1 in 4 partitions, rank 1 receives in 2: with only partition
 * 0 ready, nothing of the receiver's is whole; with 0 and 1, its partition 0 is, and
 * its partition 1 is not, nor is either request complete; then the rest. */
static void arrivals(void) {
    enum { PARTS = 4, COUNT = 5000 };
    static int buf[PARTS * COUNT];
    int go = 0;
    for (int round = 0; round < 3; round++) {
        if (rank == 0) {
            MPI_Request req;
            OK(MPI_Psend_init(buf, PARTS, COUNT, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &req));
            OK(MPI_Start(&req));
            for (long i = 0; i < PARTS * COUNT; i++) buf[i] = value(round, 0, i);
            OK(MPI_Pready(0, req));
            OK(MPI_Recv(&go, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            int flag = 1;
            OK(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "a send complete with partitions not ready");
            OK(MPI_Pready(1, req));
            OK(MPI_Recv(&go, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            int rest[] = {3, 2};
            OK(MPI_Pready_list(2, rest, req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            OK(MPI_Request_free(&req));
        } else if (rank == 1) {
            MPI_Request req;
            OK(MPI_Precv_init(buf, 2, 2 * COUNT, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &req));
            int flag = 0;
            OK(MPI_Parrived(req, 1, &flag));
            CHECK(flag, "Parrived false on an inactive request");
            OK(MPI_Start(&req));
            /* sender partition 0 is half of receiver partition 0: not whole yet */
            for (int k = 0; k < 2; k++) {
                OK(MPI_Parrived(req, k, &flag));
                CHECK(!flag, "partition %d arrived before the sender readied it", k);
            }
            OK(MPI_Send(&go, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
            wait_arrived(req, 0);
            expect_data(buf, 2 * COUNT, round, 0, "partition 0");
            OK(MPI_Parrived(req, 1, &flag));
            CHECK(!flag, "partition 1 arrived before the sender readied it");
            OK(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "a receive complete with partitions missing");
            OK(MPI_Send(&go, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
            wait_arrived(req, 1);
            MPI_Status st;
            OK(MPI_Request_get_status(req, &flag, &st)); /* done, and stays active */
            double give_up = MPI_Wtime() + 120;
            while (!flag) {
                CHECK(MPI_Wtime() < give_up, "receive never completed");
                OK(MPI_Request_get_status(req, &flag, &st));
            }
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 9, "status of get_status");
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            expect_data(buf, PARTS * COUNT, round, 0, "arrivals");
            OK(MPI_Request_free(&req));
        }
    }
}

/* Two sends of one envelope to next, matched with two receives in the order of their
 * initialization calls though they start in another: the receives start before the
 * sends (round 0) or after (round 1). */
static void ordering(void) {
    enum { N = 3000 };
    static int a[N], b[N], x[N], y[N];
    for (int order = 0; order < 2; order++) {
        MPI_Request sa, sb, rx, ry;
        OK(MPI_Psend_init(a, 3, N / 3, MPI_INT, next, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &sa));
        OK(MPI_Psend_init(b, 1, N, MPI_INT, next, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &sb));
        OK(MPI_Precv_init(x, 2, N / 2, MPI_INT, prev, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &rx));
        OK(MPI_Precv_init(y, 5, N / 5, MPI_INT, prev, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &ry));
        for (long i = 0; i < N; i++) {
            a[i] = value(order, rank, i);
            b[i] = value(order + 10, rank, i);
        }
        if (order == 0) { /* the receives first, y before x; b starts before a */
            OK(MPI_Start(&ry));
            OK(MPI_Start(&rx));
            MPI_Barrier(MPI_COMM_WORLD);
            OK(MPI_Start(&sb));
            OK(MPI_Start(&sa));
        } else {
            OK(MPI_Start(&sb));
            OK(MPI_Start(&sa));
            MPI_Barrier(MPI_COMM_WORLD);
            OK(MPI_Start(&rx));
            OK(MPI_Start(&ry));
        }
        OK(MPI_Pready_range(0, 2, sa));
        OK(MPI_Pready(0, sb));
        MPI_Request all[4] = {sa, sb, rx, ry};
        OK(MPI_Waitall(4, all, MPI_STATUSES_IGNORE));
        /* matched in the order of the initialization calls (MPI-4.1 chapter 4), whatever
         * the order of the starts */
        expect_data(x, N, order, prev, "first initialized receive takes first initialized send");
        expect_data(y, N, order + 10, prev, "second initialized receive takes the second send");
        for (int k = 0; k < 4; k++) OK(MPI_Request_free(&all[k]));
    }
}

/* 0 bytes (partitions of none), MPI_PROC_NULL, and this rank to itself. */
static void corners(void) {
    MPI_Request s, r;
    OK(MPI_Psend_init(NULL, 3, 0, MPI_INT, next, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    OK(MPI_Precv_init(NULL, 2, 0, MPI_INT, prev, 12, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < 3; round++) {
        MPI_Request both[2] = {s, r};
        OK(MPI_Startall(2, both));
        OK(MPI_Pready_range(0, 2, s));
        MPI_Status st;
        OK(MPI_Wait(&r, &st));
        int count = -1;
        OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == 0 && st.MPI_SOURCE == prev, "empty message: count %d", count);
        OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }
    OK(MPI_Request_free(&s));
    OK(MPI_Request_free(&r));

    int data[8] = {0};
    OK(MPI_Psend_init(data, 2, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    OK(MPI_Precv_init(data, 4, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    OK(MPI_Start(&s));
    OK(MPI_Start(&r));
    OK(MPI_Pready(1, s));
    MPI_Status st;
    OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_PROC_NULL receive's source %d", st.MPI_SOURCE);
    OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&s));
    OK(MPI_Request_free(&r));

    enum { N = 4096 };
    static int out[N], in[N];
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "no_such_hint", "true")); /* accepted, not read */
    OK(MPI_Psend_init(out, 8, N / 8, MPI_INT, rank, 13, MPI_COMM_WORLD, info, &s));
    OK(MPI_Precv_init(in, 1, N, MPI_INT, rank, 13, MPI_COMM_WORLD, info, &r));
    OK(MPI_Info_free(&info));
    for (int round = 0; round < 4; round++) {
        for (long i = 0; i < N; i++) out[i] = value(round, rank, i);
        MPI_Request both[2] = {s, r};
        OK(MPI_Startall(2, both));
        for (int k = 7; k >= 0; k--) OK(MPI_Pready(k, s));
        OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        expect_data(in, N, round, rank, "to itself");
    }
    OK(MPI_Request_free(&s));
    OK(MPI_Request_free(&r));
}

static void expect_error(int rc, int cls, const char *what) {
    CHECK(rc != MPI_SUCCESS && class_of(rc) == cls, "%s: got class %d, not %d", what,
          rc == MPI_SUCCESS ? 0 : class_of(rc), cls);
}

static void errors(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int buf[16], flag;
    MPI_Request s, r, bad;
    expect_error(
        MPI_Precv_init(buf, 2, 8, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
        MPI_ERR_RANK, "MPI_ANY_SOURCE");
    expect_error(
        MPI_Precv_init(buf, 2, 8, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
        MPI_ERR_TAG, "MPI_ANY_TAG");
    expect_error(MPI_Psend_init(buf, 0, 8, MPI_INT, next, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
                 MPI_ERR_ARG, "no partitions");
    expect_error(MPI_Psend_init(buf, 2, -1, MPI_INT, next, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
                 MPI_ERR_COUNT, "negative count");
    expect_error(MPI_Psend_init(buf, 2, 8, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
                 MPI_ERR_RANK, "destination out of range");
    expect_error(MPI_Psend_init(buf, 2, 8, MPI_INT, next, 0, MPI_COMM_NULL, MPI_INFO_NULL, &bad),
                 MPI_ERR_COMM, "no communicator");
    MPI_Datatype strided;
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
    OK(MPI_Type_commit(&strided));
    expect_error(MPI_Psend_init(buf, 2, 2, strided, next, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad),
                 MPI_ERR_TYPE, "a non-contiguous datatype");
    OK(MPI_Type_free(&strided));

    OK(MPI_Psend_init(buf, 4, 4, MPI_INT, next, 14, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    OK(MPI_Precv_init(buf, 4, 4, MPI_INT, prev, 14, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    expect_error(MPI_Pready(0, s), MPI_ERR_REQUEST, "Pready on an inactive request");
    expect_error(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST, "Pready on the null request");
    expect_error(MPI_Pready(0, r), MPI_ERR_REQUEST, "Pready on a receive");
    expect_error(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST, "Parrived on a send");
    expect_error(MPI_Parrived(r, 4, &flag), MPI_ERR_ARG, "Parrived out of range");
    flag = 0;
    OK(MPI_Parrived(r, 3, &flag));
    CHECK(flag, "Parrived on an inactive request is true");
    OK(MPI_Start(&r));
    OK(MPI_Start(&s));
    expect_error(MPI_Start(&s), MPI_ERR_REQUEST, "Start of an active request");
    expect_error(MPI_Pready(4, s), MPI_ERR_ARG, "Pready past the last partition");
    expect_error(MPI_Pready(-1, s), MPI_ERR_ARG, "Pready of a negative partition");
    expect_error(MPI_Pready_range(2, 4, s), MPI_ERR_ARG, "Pready_range past the last");
    expect_error(MPI_Pready_range(3, 2, s), MPI_ERR_ARG, "Pready_range backwards");
    int outside[] = {1, 9};
    expect_error(MPI_Pready_list(2, outside, s), MPI_ERR_ARG, "Pready_list past the last");
    expect_error(MPI_Pready(1, s), MPI_ERR_ARG, "Pready of a partition ready already");
    OK(MPI_Pready_range(2, 3, s));
    OK(MPI_Pready(0, s));
    MPI_Request both[2] = {s, r};
    OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    expect_error(MPI_Pready(0, s), MPI_ERR_REQUEST, "Pready after the round");
    OK(MPI_Request_free(&s));
    OK(MPI_Request_free(&r));

    /* sizes that disagree: both sides' rounds fail */
    OK(MPI_Psend_init(buf, 2, 4, MPI_INT, next, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    OK(MPI_Precv_init(buf + 8, 2, 3, MPI_INT, prev, 15, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    OK(MPI_Start(&s));
    OK(MPI_Start(&r));
    OK(MPI_Pready_range(0, 1, s));
    expect_error(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "receive of another size");
    expect_error(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "send of another size");
    OK(MPI_Request_free(&s));
    OK(MPI_Request_free(&r));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- MPI_THREAD_MULTIPLE ---- */

enum { THREADS = 4, PER_THREAD = 6, TCOUNT = 1000 };
static int *tbuf;
static MPI_Request treq;
static int tround;
static pthread_barrier_t started, finished;

/* Thread t computes and marks partitions t, t + THREADS, ...; odd threads mark their
 * last two with one Pready_list. */
static void *marker(void *arg) {
    int t = (int)(long)arg;
    for (;;) {
        pthread_barrier_wait(&started);
        if (tround < 0) return NULL;
        int mine[PER_THREAD];
        for (int j = 0; j < PER_THREAD; j++) {
            int k = t + j * THREADS;
            mine[j] = k;
            for (long i = 0; i < TCOUNT; i++)
                tbuf[k * TCOUNT + i] = value(tround, rank, k * TCOUNT + i);
            if (t % 2 && j >= PER_THREAD - 2) continue;
            CHECK(MPI_Pready(k, treq) == MPI_SUCCESS, "thread %d: Pready(%d)", t, k);
        }
        if (t % 2)
            CHECK(MPI_Pready_list(2, mine + PER_THREAD - 2, treq) == MPI_SUCCESS,
                  "thread %d: Pready_list", t);
        pthread_barrier_wait(&finished);
    }
}

static void threads(void) {
    int parts = THREADS * PER_THREAD;
    long n = (long)parts * TCOUNT;
    tbuf = malloc((size_t)n * sizeof *tbuf);
    int *rbuf = malloc((size_t)n * sizeof *rbuf);
    CHECK(tbuf && rbuf, "no memory");
    MPI_Request rreq;
    OK(MPI_Psend_init(tbuf, parts, TCOUNT, MPI_INT, next, 16, MPI_COMM_WORLD, MPI_INFO_NULL,
                      &treq));
    /* the receiver cuts it in 3 */
    OK(MPI_Precv_init(rbuf, 3, n / 3, MPI_INT, prev, 16, MPI_COMM_WORLD, MPI_INFO_NULL, &rreq));
    pthread_t th[THREADS];
    pthread_barrier_init(&started, NULL, THREADS + 1);
    pthread_barrier_init(&finished, NULL, THREADS + 1);
    for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, marker, (void *)t);
    for (tround = 0; tround < 20; tround++) {
        MPI_Request both[2] = {rreq, treq};
        OK(MPI_Startall(2, both));
        pthread_barrier_wait(&started);
        /* the main thread waits while the others mark */
        OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
        OK(MPI_Wait(&treq, MPI_STATUS_IGNORE));
        pthread_barrier_wait(&finished);
        expect_data(rbuf, n, tround, prev, "threads");
    }
    tround = -1;
    pthread_barrier_wait(&started);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    OK(MPI_Request_free(&treq));
    OK(MPI_Request_free(&rreq));
    free(tbuf);
    free(rbuf);
}

int main(int argc, char **argv) {
    int multiple = argc > 1 && !strcmp(argv[1], "threads");
    int provided;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    if (multiple) {
        CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
        threads();
    } else {
        ring(1, 8, 1, 8, 5, 0);              /* 1 vs 1 */
        ring(4, 1024, 2, 2048, 10, 0);       /* 4 vs 2 */
        ring(3, 7 * 333, 7, 3 * 333, 10, 1); /* 3 vs 7, partitions that straddle */
        ring(7, 3, 3, 7, 10, 2);             /* small partitions of uneven sizes */
        ring(2, 1 << 18, 8, 1 << 16, 4, 0);  /* 2 MiB */
        ring(64, 100, 100, 64, 6, 2);        /* many partitions */
        if (size >= 2) arrivals();
        ordering();
        corners();
        errors();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("partitioned%s: ok\n", multiple ? " threads" : "");
    MPI_Finalize();
    return 0;
}
