/* MPI point-to-point, black box through mpi.h: sizes across every protocol threshold
 * with data and status checked, pipelined messages (received as they come, kept
 * unexpected, probed before their last piece, from two senders at once, of a derived
 * datatype, truncated), non-overtaking order under mixed protocols,
 * wildcards, truncation, self and MPI_PROC_NULL messages, Ssend semantics, probe,
 * many outstanding requests, Testall, and invalid arguments under
 * MPI_ERRORS_RETURN. Needs 3 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/pt2pt/wire.h"
#include "mpi_check.h"

static unsigned char pat(size_t i, int salt) {
    return (unsigned char)(i * 131 + (size_t)salt * 7 + 1);
}

static void sizes_and_status(void) {
    /* eager up to TW_MPI_EAGER_MAX; pipelined to TW_PIPELINE_LIMIT (default 8192; first
     * piece TW_MPI_FIRST_PIECE bytes, then TW_VELO_MAX_SIZE each): one piece and a byte,
     * the default limit and a byte past it, exactly two pieces, two and a byte;
     * rendezvous beyond (mpi_p2p_3_pipelined_all pipelines up to 256 KiB) */
    enum { EAGER = TW_MPI_EAGER_MAX, TWO = TW_MPI_FIRST_PIECE + TW_VELO_MAX_SIZE };
    static const int sizes[] = {0,    1,    47,  48,      49,    EAGER - 1, EAGER,        EAGER + 1,
                                8192, 8193, TWO, TWO + 1, 65536, 65537,     (1 << 20) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k];
        unsigned char *b = malloc((size_t)n + 64);
        CHECK(b);
        if (rank == 0) {
            for (int i = 0; i < n; i++) b[i] = pat((size_t)i, (int)k);
            CHECK(MPI_Send(b, n, MPI_BYTE, 1, 100 + (int)k, MPI_COMM_WORLD) == MPI_SUCCESS);
        } else if (rank == 1) {
            memset(b, 0xee, (size_t)n + 64);
            MPI_Status st;
            CHECK(MPI_Recv(b, n + 64, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st) ==
                  MPI_SUCCESS);
            int count;
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == n && st.MPI_SOURCE == 0 && st.MPI_TAG == 100 + (int)k);
            for (int i = 0; i < n; i++) CHECK(b[i] == pat((size_t)i, (int)k));
            for (int i = n; i < n + 64; i++) CHECK(b[i] == 0xee); /* nothing past the message */
        }
        free(b);
    }
    /* a count in elements of a wider type */
    if (rank == 0) {
        double d[5] = {1, 2, 3, 4, 5};
        MPI_Send(d, 5, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        double d[8];
        MPI_Status st;
        int count;
        MPI_Recv(d, 8, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == 5 && d[4] == 5);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 10);
    }
}

/* Non-overtaking: one tag, sizes alternating between eager and rendezvous. */
static void ordering(void) {
    enum { N = 200 };
    if (rank == 0) {
        MPI_Request r[N];
        int *bufs[N];
        for (int i = 0; i < N; i++) {
            int n = i % 3 == 0 ? 3000 : i % 3 == 1 ? 2 : 20000; /* ints */
            bufs[i] = malloc((size_t)n * sizeof(int));
            for (int j = 0; j < n; j++) bufs[i][j] = i;
            MPI_Isend(bufs[i], n, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[i]);
        }
        CHECK(MPI_Waitall(N, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < N; i++) {
            CHECK(r[i] == MPI_REQUEST_NULL);
            free(bufs[i]);
        }
    } else if (rank == 1) {
        int *b = malloc(20000 * sizeof(int));
        for (int i = 0; i < N; i++) {
            MPI_Status st;
            MPI_Recv(b, 20000, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
            int count;
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == (i % 3 == 0 ? 3000 : i % 3 == 1 ? 2 : 20000));
            CHECK(b[0] == i && b[count - 1] == i);
        }
        free(b);
    }
}

/* Pipelined messages (longer than eager, up to TW_PIPELINE_LIMIT) between ranks 0 and 1,
 * and from ranks 0 and 2 to rank 1 at once. */
static void pipelined(void) {
    enum { N = 65536, M = 20000, LONGEST = 262144 };
    unsigned char *b = malloc(LONGEST + 64);
    CHECK(b);
    MPI_Status st;
    int count, flag;
    if (rank == 0) {
        /* kept unexpected: tag 11 is received after tag 12, which follows it (a
         * rendezvous, across nodes, completes only then: non-blocking) */
        MPI_Request first;
        for (int i = 0; i < N; i++) b[i] = pat((size_t)i, 11);
        CHECK(MPI_Isend(b, N, MPI_BYTE, 1, 11, MPI_COMM_WORLD, &first) == MPI_SUCCESS);
        CHECK(MPI_Send(b + N, 1, MPI_BYTE, 1, 12, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Wait(&first, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        /* probed, and matched by a probe, most likely before the last piece (longer
         * than the mailbox holds): the receive completes when it has come */
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < LONGEST; i++) b[i] = pat((size_t)i, 13 + k);
            CHECK(MPI_Send(b, LONGEST, MPI_BYTE, 1, 13 + k, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        /* a derived datatype on both sides: every other int of 2 M */
        int *v = malloc(2 * M * sizeof *v);
        CHECK(v);
        for (int i = 0; i < 2 * M; i++) v[i] = i;
        MPI_Datatype every_other;
        MPI_Type_vector(M, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        CHECK(MPI_Send(v, 1, every_other, 1, 15, MPI_COMM_WORLD) == MPI_SUCCESS);
        MPI_Type_free(&every_other);
        free(v);
        /* truncated */
        for (int i = 0; i < 16384; i++) b[i] = pat((size_t)i, 16);
        CHECK(MPI_Send(b, 16384, MPI_BYTE, 1, 16, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else if (rank == 1) {
        CHECK(MPI_Recv(b, 1, MPI_BYTE, 0, 12, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        memset(b, 0xee, N + 64);
        CHECK(MPI_Recv(b, N + 64, MPI_BYTE, 0, 11, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == N && st.MPI_TAG == 11);
        for (int i = 0; i < N; i++) CHECK(b[i] == pat((size_t)i, 11));
        for (int i = N; i < N + 64; i++) CHECK(b[i] == 0xee);

        CHECK(MPI_Probe(0, 13, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == LONGEST);
        memset(b, 0, LONGEST);
        CHECK(MPI_Recv(b, LONGEST, MPI_BYTE, 0, 13, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        for (int i = 0; i < LONGEST; i++) CHECK(b[i] == pat((size_t)i, 13));
        MPI_Message msg;
        do {
            CHECK(MPI_Improbe(0, 14, MPI_COMM_WORLD, &flag, &msg, &st) == MPI_SUCCESS);
        } while (!flag);
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == LONGEST);
        memset(b, 0, LONGEST);
        CHECK(MPI_Mrecv(b, LONGEST, MPI_BYTE, &msg, &st) == MPI_SUCCESS);
        for (int i = 0; i < LONGEST; i++) CHECK(b[i] == pat((size_t)i, 14));

        int *v = malloc(3 * M * sizeof *v);
        CHECK(v);
        for (int i = 0; i < 3 * M; i++) v[i] = -1;
        MPI_Datatype every_third;
        MPI_Type_vector(M, 1, 3, MPI_INT, &every_third);
        MPI_Type_commit(&every_third);
        CHECK(MPI_Recv(v, 1, every_third, 0, 15, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        for (int i = 0; i < 3 * M; i++) CHECK(v[i] == (i % 3 ? -1 : 2 * (i / 3)));
        MPI_Type_free(&every_third);
        free(v);

        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        memset(b, 0xee, 10000 + 64);
        CHECK(MPI_Recv(b, 10000, MPI_BYTE, 0, 16, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        for (int i = 0; i < 10000; i++) CHECK(b[i] == pat((size_t)i, 16));
        for (int i = 10000; i < 10000 + 64; i++) CHECK(b[i] == 0xee);
    }
    /* ranks 0 and 2 each send rank 1 ten messages of 8 to 64 KiB at once, non-blocking:
     * their pieces come interleaved; taken from any source, each in its sender's order */
    enum { K = 10 };
    if (rank == 0 || rank == 2) {
        MPI_Request r[K];
        unsigned char *m = malloc((size_t)K * N);
        CHECK(m);
        for (int k = 0; k < K; k++) {
            int n = 8192 * (1 + k % 8);
            for (int i = 0; i < n; i++) m[(size_t)k * N + (size_t)i] = pat((size_t)i, rank * K + k);
            MPI_Isend(m + (size_t)k * N, n, MPI_BYTE, 1, 20, MPI_COMM_WORLD, &r[k]);
        }
        CHECK(MPI_Waitall(K, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        free(m);
    } else if (rank == 1) {
        int next[3] = {0, 0, 0};
        for (int k = 0; k < 2 * K; k++) {
            CHECK(MPI_Recv(b, N, MPI_BYTE, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
            int s = st.MPI_SOURCE, j = next[s]++;
            CHECK(s == 0 || s == 2);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == 8192 * (1 + j % 8));
            for (int i = 0; i < count; i++) CHECK(b[i] == pat((size_t)i, s * K + j));
        }
        CHECK(next[0] == K && next[2] == K);
    }
    free(b);
}

/* Every rank but 0 sends two messages to rank 0, which takes them with wildcards. */
static void wildcards(void) {
    if (rank != 0) {
        int v[2] = {rank, 1000 + rank};
        MPI_Send(&v[0], 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
        MPI_Send(&v[1], 1, MPI_INT, 0, 999, MPI_COMM_WORLD);
        return;
    }
    int seen[64] = {0}, seen999[64] = {0};
    for (int k = 0; k < 2 * (size - 1); k++) {
        int v;
        MPI_Status st;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < size);
        if (st.MPI_TAG == 999) {
            CHECK(v == 1000 + st.MPI_SOURCE && seen[st.MPI_SOURCE]); /* in order per sender */
            seen999[st.MPI_SOURCE]++;
        } else {
            CHECK(st.MPI_TAG == st.MPI_SOURCE && v == st.MPI_SOURCE);
            seen[st.MPI_SOURCE]++;
        }
    }
    for (int s = 1; s < size; s++) CHECK(seen[s] == 1 && seen999[s] == 1);
}

static void truncation_self_procnull(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* to self: eager and rendezvous, each truncated */
    static char big[100000], small[10];
    for (int n = 20; n <= 100000; n *= 5000) {
        MPI_Request r;
        MPI_Status st;
        memset(big, 'x', (size_t)n);
        CHECK(MPI_Isend(big, n, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        CHECK(MPI_Recv(small, 10, MPI_CHAR, rank, 3, MPI_COMM_WORLD, &st) == MPI_ERR_TRUNCATE);
        CHECK(small[9] == 'x');
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    /* MPI_PROC_NULL */
    MPI_Status st;
    CHECK(MPI_Send(big, 5, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Recv(big, 5, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    int count;
    MPI_Get_count(&st, MPI_CHAR, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0);
    /* MPI_COMM_SELF */
    int v = 42, w = 0, srank, ssize;
    MPI_Comm_rank(MPI_COMM_SELF, &srank);
    MPI_Comm_size(MPI_COMM_SELF, &ssize);
    CHECK(srank == 0 && ssize == 1);
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &st);
    CHECK(w == 42 && st.MPI_SOURCE == 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* An Issend cannot complete before its receive is posted: the receiver posts it only
 * after the sender has seen the request incomplete. Sizes of every synchronous
 * protocol: eager (none, a few bytes, the most), one piece, several (up to 16 KiB on
 * one node by pieces), a get. Then each with its receive posted first. */
static void ssend_semantics(void) {
    static const int sizes[] = {0,     100,  (int)TW_MPI_SYNC_MAX, (int)TW_MPI_SYNC_MAX + 1, 16384,
                                16385, 70000};
    char go = 1, *data = malloc(70000), *b = malloc(70000 + 1);
    CHECK(data && b);
    for (int i = 0; i < 70000; i++) data[i] = (char)(i * 13 + 1);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        if (rank == 0) {
            MPI_Request r;
            int flag = 1;
            MPI_Issend(data, n, MPI_CHAR, 1, 11, MPI_COMM_WORLD, &r);
            for (int i = 0; i < 1000; i++) {
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
                CHECK(!flag);
            }
            MPI_Send(&go, 1, MPI_CHAR, 1, 12, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Status st;
            int got = -1;
            memset(b, 0, (size_t)n + 1);
            MPI_Recv(&go, 1, MPI_CHAR, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(b, n + 1, MPI_CHAR, 0, 11, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &got);
            CHECK(got == n && !memcmp(b, data, (size_t)n) && b[n] == 0);
        }
        if (rank == 0) { /* the receive is there before the message */
            MPI_Recv(&go, 1, MPI_CHAR, 1, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Ssend(data, n, MPI_CHAR, 1, 14, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Request r;
            int got = -1;
            MPI_Status st;
            memset(b, 0, (size_t)n + 1);
            MPI_Irecv(b, n + 1, MPI_CHAR, 0, 14, MPI_COMM_WORLD, &r);
            MPI_Send(&go, 1, MPI_CHAR, 0, 13, MPI_COMM_WORLD);
            MPI_Wait(&r, &st);
            MPI_Get_count(&st, MPI_CHAR, &got);
            CHECK(got == n && !memcmp(b, data, (size_t)n) && b[n] == 0);
        }
    }
    free(data);
    free(b);
}

/* An Issend to this rank itself: incomplete until its receive is posted, then whole. */
static void ssend_to_self(void) {
    static const int sizes[] = {0, 100, (int)TW_MPI_SYNC_MAX + 1, 70000};
    char *data = malloc(70000), *b = malloc(70000);
    CHECK(data && b);
    for (int i = 0; i < 70000; i++) data[i] = (char)(i * 7 + rank);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k], flag = 1, got = -1;
        MPI_Request r;
        MPI_Status st;
        CHECK(MPI_Issend(data, n, MPI_CHAR, rank, 15, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
        for (int i = 0; i < 100; i++) {
            CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(!flag);
        }
        memset(b, 0, (size_t)n);
        CHECK(MPI_Recv(b, n, MPI_CHAR, rank, 15, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_CHAR, &got);
        CHECK(got == n && !memcmp(b, data, (size_t)n));
    }
    free(data);
    free(b);
}

static void probe_then_recv(void) {
    if (rank == 0) {
        int *v = malloc(2000 * sizeof(int));
        for (int i = 0; i < 2000; i++) v[i] = i;
        MPI_Send(v, 300, MPI_INT, 1, 21, MPI_COMM_WORLD);  /* eager */
        MPI_Send(v, 2000, MPI_INT, 1, 22, MPI_COMM_WORLD); /* rendezvous */
        free(v);
    } else if (rank == 1) {
        MPI_Status st;
        int flag = 0, count;
        while (!flag) MPI_Iprobe(0, 21, MPI_COMM_WORLD, &flag, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 300 && st.MPI_TAG == 21);
        MPI_Probe(MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &st); /* the rendezvous one */
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 2000 && st.MPI_SOURCE == 0);
        int *b = malloc(2000 * sizeof(int));
        MPI_Recv(b, 300, MPI_INT, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(b[299] == 299);
        MPI_Recv(b, 2000, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(b[0] == 0 && b[1999] == 1999);
        free(b);
    }
}

/* Thousands of outstanding requests, completed with Testall and Waitall. */
static void many_requests(void) {
    enum { N = 3000 };
    if (rank > 1) return;
    int peer = 1 - rank;
    int *out = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));
    MPI_Request *r = malloc(2 * N * sizeof(MPI_Request));
    MPI_Status *st = malloc(2 * N * sizeof(MPI_Status));
    for (int i = 0; i < N; i++) {
        out[i] = rank * 100000 + i;
        MPI_Irecv(&in[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[i]);
    }
    for (int i = 0; i < N; i++) MPI_Isend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[N + i]);
    int flag = 0;
    while (!flag) CHECK(MPI_Testall(2 * N, r, &flag, st) == MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        CHECK(in[i] == peer * 100000 + i);
        CHECK(r[i] == MPI_REQUEST_NULL && st[i].MPI_TAG == i && st[i].MPI_SOURCE == peer);
    }
    free(out);
    free(in);
    free(r);
    free(st);
}

/* Waitany, Waitsome, Testany, Testsome and Request_free, with null requests mixed in;
 * Rsend and Sendrecv_replace. */
static void completion_calls(void) {
    enum { N = 8 };
    if (rank > 1) return;
    int peer = 1 - rank, in[N], out[N];
    MPI_Request r[N + 2];
    for (int i = 0; i < N; i++) {
        out[i] = 100 * rank + i;
        MPI_Irecv(&in[i], 1, MPI_INT, peer, 40 + i, MPI_COMM_WORLD, &r[i]);
    }
    r[N] = r[N + 1] = MPI_REQUEST_NULL;
    /* both sides' receives are posted before either ready-sends */
    char hello = 0;
    MPI_Sendrecv(&hello, 1, MPI_CHAR, peer, 39, &hello, 1, MPI_CHAR, peer, 39, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = N - 1; i >= 0; i--) MPI_Rsend(&out[i], 1, MPI_INT, peer, 40 + i, MPI_COMM_WORLD);
    int seen = 0, idx, flag, outcount, indices[N + 2];
    MPI_Status st, sts[N + 2];
    CHECK(MPI_Waitany(N + 2, r, &idx, &st) == MPI_SUCCESS);
    CHECK(idx >= 0 && idx < N && r[idx] == MPI_REQUEST_NULL && st.MPI_TAG == 40 + idx);
    seen++;
    do {
        CHECK(MPI_Testany(N + 2, r, &idx, &flag, &st) == MPI_SUCCESS);
    } while (!flag);
    CHECK(idx >= 0 && idx < N && in[idx] == 100 * peer + idx);
    seen++;
    while (seen < N) {
        CHECK(MPI_Waitsome(N + 2, r, &outcount, indices, sts) == MPI_SUCCESS);
        CHECK(outcount >= 1);
        for (int k = 0; k < outcount; k++) CHECK(in[indices[k]] == 100 * peer + indices[k]);
        seen += outcount;
    }
    CHECK(seen == N);
    CHECK(MPI_Testsome(N + 2, r, &outcount, indices, sts) == MPI_SUCCESS);
    CHECK(outcount == MPI_UNDEFINED); /* nothing active any more */
    CHECK(MPI_Waitany(N + 2, r, &idx, &st) == MPI_SUCCESS && idx == MPI_UNDEFINED);
    /* Request_free on a running send: it still completes and the data arrives */
    int v = 77 + rank, w = 0;
    MPI_Request s;
    MPI_Isend(&v, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &s);
    CHECK(MPI_Request_free(&s) == MPI_SUCCESS && s == MPI_REQUEST_NULL);
    MPI_Recv(&w, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(w == 77 + peer);
    /* Freed running requests go back to the pool: more of them than the pool holds */
    enum { FREED = 70000 };
    static int sent[FREED]; /* a freed send still owns its buffer until it completes */
    for (int i = 0; i < FREED; i++) {
        if (rank == 0) {
            MPI_Request f;
            sent[i] = i;
            CHECK(MPI_Isend(&sent[i], 1, MPI_INT, 1, 62, MPI_COMM_WORLD, &f) == MPI_SUCCESS);
            CHECK(MPI_Request_free(&f) == MPI_SUCCESS);
        } else {
            int got;
            MPI_Recv(&got, 1, MPI_INT, 0, 62, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(got == i);
        }
    }
    /* Sendrecv_replace: swap through the same buffer */
    int x[3] = {rank, rank, rank};
    MPI_Sendrecv_replace(x, 3, MPI_INT, peer, 61, peer, 61, MPI_COMM_WORLD, &st);
    CHECK(x[0] == peer && x[2] == peer && st.MPI_SOURCE == peer);
}

static void invalid_arguments(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int v = 0;
    MPI_Request r;
    MPI_Status st;
    CHECK(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    CHECK(MPI_Send(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
    CHECK(MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD) == MPI_ERR_TAG);
    CHECK(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
    CHECK(MPI_Send(&v, 1, (MPI_Datatype)12345, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
    CHECK(MPI_Send(&v, 1, MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE); /* wrong kind */
    CHECK(MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    CHECK(MPI_Recv(&v, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD, &st) == MPI_ERR_RANK);
    CHECK(MPI_Recv(&v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &st) == MPI_ERR_TAG);
    CHECK(MPI_Irecv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL) == MPI_ERR_REQUEST);
    r = (MPI_Request)0x2c00ffff;
    CHECK(MPI_Wait(&r, &st) == MPI_ERR_REQUEST);
    r = MPI_REQUEST_NULL;
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS); /* a null request is complete */
    int s;
    CHECK(MPI_Comm_size((MPI_Comm)0x44000123, &s) == MPI_ERR_COMM);
    CHECK(MPI_Comm_rank(MPI_DATATYPE_NULL, &s) == MPI_ERR_COMM);
    char str[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_ERR_TRUNCATE, str, &len);
    CHECK(len > 0 && strstr(str, "trunc"));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
    int provided, flag;
    MPI_Initialized(&flag);
    CHECK(!flag);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    CHECK(provided == MPI_THREAD_FUNNELED);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 3);
    sizes_and_status();
    pipelined();
    ordering();
    wildcards();
    truncation_self_procnull();
    ssend_semantics();
    ssend_to_self();
    probe_then_recv();
    many_requests();
    completion_calls();
    invalid_arguments();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag);
    if (rank == 0) printf("p2p: all checks passed on %d ranks\n", size);
    return 0;
}
