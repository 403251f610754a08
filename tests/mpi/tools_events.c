/* MPI_T events (MPI-4.1 15.3.8): every event type and the source listed, their
 * information checked against one another; the error codes of bad indices, names,
 * objects and handles, and of an instance read outside its callback; an unexpected
 * message (rank 1 sends before rank 0 receives) seen by a callback at
 * MPI_T_CB_REQUIRE_MPI_RESTRICTED with its source, tag and bytes; a rendezvous begun
 * for a 1 MiB send; a burst of unexpected messages seen by a callback at
 * MPI_T_CB_REQUIRE_NONE, whose ring keeps some and whose dropped handler counts the
 * rest (together: every message); the free callback.
 *
 * usage: tools_events               (2 ranks)
 *        tools_events retransmits   (2 ranks over the udp link with packets dropped:
 *                                    the udp_retransmits event counts what the link's
 *                                    counter counts, and something was sent again)
 *        tools_events lost          (2 ranks over the udp link, a short TW_UDP_TIMEOUT:
 *                                    rank 1 stops itself, rank 0's receive from it fails
 *                                    and the mpi_peer_lost event names it, with the
 *                                    receive's error code; prints "tools_events: lost ok") */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "mpi_check.h"

static int event_index(const char *name) {
    int i = -1;
    CHECK(MPI_T_event_get_index(name, &i) == MPI_SUCCESS);
    return i;
}

/* Every type and the source, before MPI_Init. */
static void enumerate(void) {
    int n = -1;
    CHECK(MPI_T_event_get_num(&n) == MPI_SUCCESS && n >= 4);
    for (int i = 0; i < n; i++) {
        char name[64], desc[512];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, nel = 0;
        MPI_T_enum e;
        MPI_Info info;
        CHECK(MPI_T_event_get_info(i, NULL, NULL, NULL, NULL, NULL, &nel, NULL, NULL, NULL, NULL,
                                   NULL) == MPI_SUCCESS);
        CHECK(nel > 0 && nel <= 16);
        MPI_Datatype types[16];
        MPI_Aint displs[16];
        int got = nel;
        CHECK(MPI_T_event_get_info(i, name, &name_len, &verbosity, types, displs, &got, &e, &info,
                                   desc, &desc_len, &bind) == MPI_SUCCESS);
        CHECK(got == nel && name_len == (int)strlen(name) + 1 && desc_len > 1);
        CHECK(e == MPI_T_ENUM_NULL && info == MPI_INFO_NULL);
        CHECK(bind == MPI_T_BIND_NO_OBJECT || bind == MPI_T_BIND_MPI_COMM);
        CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL);
        for (int k = 1; k < nel; k++) CHECK(displs[k] > displs[k - 1]);
        CHECK(event_index(name) == i);
    }
    int ns = -1;
    CHECK(MPI_T_source_get_num(&ns) == MPI_SUCCESS && ns == 1);
    char name[64];
    int name_len = sizeof name;
    MPI_T_source_order order;
    MPI_Count ticks, max;
    MPI_Info info;
    CHECK(MPI_T_source_get_info(0, name, &name_len, NULL, NULL, &order, &ticks, &max, &info) ==
          MPI_SUCCESS);
    CHECK(order == MPI_T_SOURCE_ORDERED && ticks == 1000000000 && max > 0 && info == MPI_INFO_NULL);
    MPI_Count t1, t2;
    CHECK(MPI_T_source_get_timestamp(0, &t1) == MPI_SUCCESS);
    CHECK(MPI_T_source_get_timestamp(0, &t2) == MPI_SUCCESS && t2 >= t1);
    /* the category of every event */
    int cat = -1, ne = -1, idx[16];
    CHECK(MPI_T_category_get_index("events", &cat) == MPI_SUCCESS);
    CHECK(MPI_T_category_get_num_events(cat, &ne) == MPI_SUCCESS && ne == n && n <= 16);
    CHECK(MPI_T_category_get_events(cat, n, idx) == MPI_SUCCESS);
    for (int i = 0; i < n; i++) CHECK(idx[i] == i);
    CHECK(MPI_T_category_get_num_events(0, &ne) == MPI_SUCCESS && ne == 0);
    int ncat;
    CHECK(MPI_T_category_get_num(&ncat) == MPI_SUCCESS);
    CHECK(MPI_T_category_get_num_events(ncat, &ne) == MPI_T_ERR_INVALID_INDEX);
    /* bad indices and names */
    CHECK(MPI_T_event_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                               NULL) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_source_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_source_get_timestamp(-1, &t1) == MPI_T_ERR_INVALID_INDEX);
    int i;
    CHECK(MPI_T_event_get_index("no_such_event", &i) == MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration r;
    CHECK(MPI_T_event_handle_alloc(n, NULL, MPI_INFO_NULL, &r) == MPI_T_ERR_INVALID_INDEX);
    /* bound to a communicator: none before MPI_Init */
    MPI_Comm world = MPI_COMM_WORLD;
    CHECK(MPI_T_event_handle_alloc(event_index("mpi_unexpected_message"), &world, MPI_INFO_NULL,
                                   &r) == MPI_T_ERR_INVALID_HANDLE);
    /* bound to nothing: any time */
    CHECK(MPI_T_event_handle_alloc(event_index("mpi_peer_lost"), NULL, MPI_INFO_NULL, &r) ==
          MPI_SUCCESS);
    CHECK(MPI_T_event_handle_free(r, NULL, NULL) == MPI_SUCCESS);
    CHECK(MPI_T_event_handle_free(r, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE);
}

/* ---- the callbacks ---- */

typedef struct {
    int count, source, tag;
    MPI_Count bytes, time;
    int source_index, copy_agrees;
    MPI_T_event_instance seen; /* for a read after the callback */
    MPI_T_cb_safety level;
} seen_t;

static void on_message(MPI_T_event_instance in, MPI_T_event_registration r, MPI_T_cb_safety level,
                       void *user_data) {
    (void)r;
    seen_t *s = user_data;
    int src, tag;
    MPI_Count bytes;
    CHECK(MPI_T_event_read(in, 0, &src) == MPI_SUCCESS);
    CHECK(MPI_T_event_read(in, 1, &tag) == MPI_SUCCESS);
    CHECK(MPI_T_event_read(in, 2, &bytes) == MPI_SUCCESS);
    CHECK(MPI_T_event_read(in, 99, &bytes) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_event_get_timestamp(in, &s->time) == MPI_SUCCESS);
    CHECK(MPI_T_event_get_source(in, &s->source_index) == MPI_SUCCESS);
    /* the whole instance, laid out as MPI_T_event_get_info's displacements say */
    MPI_Aint displs[8];
    int nel = 8;
    CHECK(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, displs, &nel, NULL, NULL, NULL, NULL,
                               NULL) == MPI_SUCCESS);
    unsigned char copy[64];
    CHECK(MPI_T_event_copy(in, copy) == MPI_SUCCESS);
    int csrc, ctag;
    memcpy(&csrc, copy + displs[0], sizeof csrc);
    memcpy(&ctag, copy + displs[1], sizeof ctag);
    s->copy_agrees = csrc == src && ctag == tag;
    s->count++;
    s->source = src;
    s->tag = tag;
    s->bytes = bytes;
    s->seen = in;
    s->level = level;
}

static int freed;
static void on_free(MPI_T_event_registration r, MPI_T_cb_safety level, void *user_data) {
    (void)r;
    (void)level;
    CHECK(user_data == &freed);
    freed++;
}

/* the burst: instances delivered at the end of a progress pass, and those dropped */
static int burst_seen, burst_order_ok = 1, last_tag;
static MPI_Count burst_dropped;
static void on_burst(MPI_T_event_instance in, MPI_T_event_registration r, MPI_T_cb_safety level,
                     void *user_data) {
    (void)r;
    (void)user_data;
    CHECK(level == MPI_T_CB_REQUIRE_NONE);
    int tag;
    CHECK(MPI_T_event_read(in, 1, &tag) == MPI_SUCCESS);
    if (tag < last_tag) burst_order_ok = 0;
    last_tag = tag;
    burst_seen++;
}
static void on_dropped(MPI_Count count, MPI_T_event_registration r, int source_index,
                       MPI_T_cb_safety level, void *user_data) {
    (void)r;
    (void)level;
    (void)user_data;
    CHECK(source_index == 0 && count > 0);
    burst_dropped += count;
}

enum { BURST = 300, BIG = 1 << 20 };

static void events(void) {
    MPI_Comm world = MPI_COMM_WORLD, gone;
    int unexpected = event_index("mpi_unexpected_message");
    int rndv = event_index("mpi_rendezvous_begin");
    MPI_T_event_registration r;
    /* bad objects */
    CHECK(MPI_T_event_handle_alloc(unexpected, NULL, MPI_INFO_NULL, &r) ==
          MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &gone) == MPI_SUCCESS);
    MPI_Comm stale = gone;
    CHECK(MPI_Comm_free(&gone) == MPI_SUCCESS);
    CHECK(MPI_T_event_handle_alloc(unexpected, &stale, MPI_INFO_NULL, &r) ==
          MPI_T_ERR_INVALID_HANDLE);
    MPI_Comm null = MPI_COMM_NULL;
    CHECK(MPI_T_event_handle_alloc(unexpected, &null, MPI_INFO_NULL, &r) ==
          MPI_T_ERR_INVALID_HANDLE);

    /* one unexpected message */
    seen_t s = {0};
    CHECK(MPI_T_event_handle_alloc(unexpected, &world, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    CHECK(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &s,
                                        on_message) == MPI_SUCCESS);
    CHECK(MPI_T_event_register_callback(r, (MPI_T_cb_safety)7, MPI_INFO_NULL, &s, on_message) ==
          MPI_T_ERR_INVALID);
    CHECK(MPI_T_event_handle_set_info(r, MPI_INFO_NULL) == MPI_SUCCESS);
    CHECK(MPI_T_event_callback_set_info(r, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL) ==
          MPI_SUCCESS);
    MPI_Info info;
    int nkeys = -1;
    CHECK(MPI_T_event_handle_get_info(r, &info) == MPI_SUCCESS && info != MPI_INFO_NULL);
    CHECK(MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 0);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS);
    CHECK(MPI_T_event_callback_get_info(r, MPI_T_CB_REQUIRE_NONE, &info) == MPI_SUCCESS);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS);
    MPI_Count before;
    CHECK(MPI_T_source_get_timestamp(0, &before) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS); /* rank 0 listens */
    long long payload = 42;
    if (rank == 1) CHECK(MPI_Send(&payload, 1, MPI_LONG_LONG, 0, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) {
        int flag = 0;
        while (!flag) /* the probe takes the message into the unexpected queue */
            CHECK(MPI_Iprobe(1, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(s.count == 1 && s.source == 1 && s.tag == 7 && s.bytes == 8);
        CHECK(s.copy_agrees && s.source_index == 0 && s.time >= before);
        CHECK(s.level == MPI_T_CB_REQUIRE_MPI_RESTRICTED);
        long long got = 0;
        CHECK(MPI_Recv(&got, 1, MPI_LONG_LONG, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        CHECK(got == 42);
        /* an instance lives only while its callback runs */
        int v;
        MPI_Count t;
        CHECK(MPI_T_event_read(s.seen, 0, &v) == MPI_T_ERR_INVALID_HANDLE);
        CHECK(MPI_T_event_copy(s.seen, &v) == MPI_T_ERR_INVALID_HANDLE);
        CHECK(MPI_T_event_get_timestamp(s.seen, &t) == MPI_T_ERR_INVALID_HANDLE);
        CHECK(MPI_T_event_get_source(NULL, &v) == MPI_T_ERR_INVALID_HANDLE);
    }
    CHECK(MPI_T_event_handle_free(r, &freed, on_free) == MPI_SUCCESS);
    CHECK(freed == 1);
    /* rank 1's next message must not reach rank 0 while it still counts unexpected ones */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);

    /* a rendezvous begun, at the sender */
    seen_t big = {0};
    CHECK(MPI_T_event_handle_alloc(rndv, &world, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    CHECK(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &big,
                                        on_message) == MPI_SUCCESS);
    char *buf = calloc(BIG, 1);
    CHECK(buf);
    if (rank == 1) {
        CHECK(MPI_Send(buf, BIG, MPI_BYTE, 0, 9, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(big.count == 1 && big.source == 0 && big.tag == 9 && big.bytes == BIG);
        CHECK(big.level == MPI_T_CB_REQUIRE_THREAD_SAFE);
    }
    if (rank == 0) {
        CHECK(MPI_Recv(buf, BIG, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(big.count == 0); /* the receiver sent nothing */
    }
    free(buf);
    CHECK(MPI_T_event_handle_free(r, NULL, NULL) == MPI_SUCCESS);

    /* a burst, to a callback at MPI_T_CB_REQUIRE_NONE: kept in a ring, delivered at the
     * end of a progress pass, what the ring could not keep counted */
    CHECK(MPI_T_event_handle_alloc(unexpected, &world, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    CHECK(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_burst) ==
          MPI_SUCCESS);
    CHECK(MPI_T_event_set_dropped_handler(r, on_dropped) == MPI_SUCCESS);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 1) {
        for (int i = 0; i < BURST; i++)
            CHECK(MPI_Send(&i, 1, MPI_INT, 0, 100 + i, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    if (rank == 0) {
        int flag = 0;
        long spins = 0;
        while (burst_seen + burst_dropped < BURST && spins++ < 100000000L)
            CHECK(MPI_Iprobe(1, 100 + BURST, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
        printf("burst of %d: %d delivered, %lld dropped\n", BURST, burst_seen,
               (long long)burst_dropped);
        CHECK(burst_seen + burst_dropped == BURST);
        CHECK(burst_seen > 0 && burst_order_ok);
        for (int i = 0; i < BURST; i++) {
            int v = -1;
            CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
            CHECK(v == i);
        }
    }
    CHECK(MPI_T_event_handle_free(r, &freed, on_free) == MPI_SUCCESS);
    CHECK(freed == 2);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
}

/* ---- retransmissions over a lossy udp link ---- */

static unsigned long long re_sum, re_last, re_first_base;
static int re_count, re_consistent = 1;
static void on_retransmits(MPI_T_event_instance in, MPI_T_event_registration r,
                           MPI_T_cb_safety level, void *user_data) {
    (void)r;
    (void)level;
    (void)user_data;
    unsigned long long count, total;
    CHECK(MPI_T_event_read(in, 0, &count) == MPI_SUCCESS);
    CHECK(MPI_T_event_read(in, 1, &total) == MPI_SUCCESS);
    if (re_count == 0)
        re_first_base = total - count;
    else if (total - count != re_last)
        re_consistent = 0;
    re_count++;
    re_sum += count;
    re_last = total;
}

static void retransmits(void) {
    MPI_T_event_registration r;
    CHECK(MPI_T_event_handle_alloc(event_index("udp_retransmits"), NULL, MPI_INFO_NULL, &r) ==
          MPI_SUCCESS);
    CHECK(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL,
                                        on_retransmits) == MPI_SUCCESS);
    enum { ROUNDS = 300, LEN = 4096 };
    char *buf = calloc(LEN, 1);
    CHECK(buf);
    int peer = 1 - rank;
    for (int i = 0; i < ROUNDS; i++)
        CHECK(MPI_Sendrecv_replace(buf, LEN, MPI_BYTE, peer, i, peer, i, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE) == MPI_SUCCESS);
    free(buf);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    int flag; /* one more pass: what the link sent again meanwhile */
    CHECK(MPI_Iprobe(peer, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(re_consistent);
    CHECK(re_count == 0 || re_sum == re_last - re_first_base);
    int all = 0;
    CHECK(MPI_Allreduce(&re_count, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) printf("retransmits: %d instances over the ranks\n", all);
    CHECK(all > 0);
    CHECK(MPI_T_event_handle_free(r, NULL, NULL) == MPI_SUCCESS);
}

/* ---- a peer lost ---- */

/* Generous bounds for a loaded machine: how long rank 0 waits to see rank 1 stop,
 * and how long rank 1 stays stopped if rank 0 never lets it continue. */
enum { STOP_SEEN_S = 120, STOP_MAX_S = 600 };

static int lost_count, lost_rank = -1, lost_code, lost_by = -1;
static void on_lost(MPI_T_event_instance in, MPI_T_event_registration r, MPI_T_cb_safety level,
                    void *user_data) {
    (void)r;
    (void)level;
    (void)user_data;
    CHECK(MPI_T_event_read(in, 0, &lost_rank) == MPI_SUCCESS);
    CHECK(MPI_T_event_read(in, 1, &lost_code) == MPI_SUCCESS);
    CHECK(MPI_T_event_read(in, 2, &lost_by) == MPI_SUCCESS);
    lost_count++;
}

/* Rank 1: stops until rank 0 continues it; a child of its own continues it after
 * STOP_MAX_S should rank 0 not. */
static void stop_self(void) {
    pid_t self = getpid();
    if (fork() == 0) {
        fclose(stdout);
        fclose(stderr);
        for (int i = 0; i < STOP_MAX_S * 10 && getppid() == self; i++) {
            struct timespec t = {0, 100000000L};
            nanosleep(&t, NULL);
        }
        if (getppid() == self) kill(self, SIGCONT);
        _exit(0);
    }
    raise(SIGSTOP);
}

/* Rank 0: waits until process pid is stopped: 1, or 0 after STOP_SEEN_S. */
static int wait_stopped(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (int i = 0; i < STOP_SEEN_S * 100; i++) {
        FILE *f = fopen(path, "r");
        char state = 0, line[512];
        if (f) {
            if (fgets(line, sizeof line, f)) { /* the state follows the last ')' */
                char *p = strrchr(line, ')');
                if (p && p[1] == ' ') state = p[2];
            }
            fclose(f);
        }
        if (state == 'T' || state == 't') return 1;
        struct timespec t = {0, 10000000L};
        nanosleep(&t, NULL);
    }
    return 0;
}

static void lost(void) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_T_event_registration r;
    CHECK(MPI_T_event_handle_alloc(event_index("mpi_peer_lost"), NULL, MPI_INFO_NULL, &r) ==
          MPI_SUCCESS);
    CHECK(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL,
                                        on_lost) == MPI_SUCCESS);
    int pid = (int)getpid(), pids[2];
    CHECK(MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 1) {
        stop_self(); /* continued: rank 0 declared it lost; nothing more is checked */
        return;
    }
    CHECK(wait_stopped((pid_t)pids[1]));
    int v, cls = -1;
    int rc = MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) == MPI_SUCCESS);
    CHECK(cls == MPIX_ERR_PROC_FAILED);
    CHECK(lost_count == 1 && lost_rank == 1 && lost_by == 0 && lost_code == rc);
    kill((pid_t)pids[1], SIGCONT);
    CHECK(MPI_T_event_handle_free(r, NULL, NULL) == MPI_SUCCESS);
    printf("tools_events: lost ok\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    int provided;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    int lossy = argc > 1 && !strcmp(argv[1], "retransmits");
    int losing = argc > 1 && !strcmp(argv[1], "lost");
    if (!lossy && !losing) enumerate();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    if (losing) {
        lost();
        MPI_Finalize(); /* with a peer lost: its result is not checked */
        return 0;
    }
    if (lossy)
        retransmits();
    else
        events();
    MPI_Finalize();
    CHECK(MPI_T_finalize() == MPI_SUCCESS);
    int n;
    CHECK(MPI_T_event_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    if (rank == 0) printf("tools_events: ok\n");
    return 0;
}
