/* Liveness of the udp link's peers (liveness.h): a peer that does not poll but whose
 * process runs is alive; one that is gone, or stopped, is declared lost although
 * nothing is outstanding to it; one that comes back after it was declared lost is
 * reset and declares us lost in turn; and one that gave up data we never received,
 * on an acknowledgement forged with the job's secret, is declared lost for it rather
 * than waited for, while the same traffic without the forgery completes. Every wait is for a state,
 * bounded only against a hang: nothing here depends on how fast the machine is. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "link/udp/udp.h"
#include "tollway/status.h"

enum { TIMEOUT_MS = 2000, HANG_S = 120 };

static const unsigned char SECRET[TW_UDP_SECRET_SIZE] = {9, 8, 7, 6, 5, 4, 3, 2,
                                                         1, 0, 1, 2, 3, 4, 5, 6};

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A link of a job of two with liveness; its data and liveness addresses. */
/* Links opened from now on lose every packet of data and acknowledgement they send
 * (liveness and resets still go). */
static int drop_sends;
/* Links opened from now on lose each such packet with this probability. */
static double drop_rate;

static tw_udp_link_t *open_live(uint32_t self, struct sockaddr_in *addr, unsigned *live_port) {
    tw_udp_config_t cfg;
    tw_udp_config_default(&cfg);
    cfg.faults.drop = drop_sends ? 1.0 : drop_rate;
    memcpy(cfg.secret, SECRET, sizeof cfg.secret);
    cfg.self = self;
    cfg.peers = 2;
    cfg.peer_timeout_ms = TIMEOUT_MS;
    cfg.liveness = 1;
    *live_port = 0;
    *addr = (struct sockaddr_in){.sin_family = AF_INET};
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    tw_udp_link_t *l = tw_udp_open(&cfg, addr);
    if (l) *live_port = tw_udp_liveness_port(l);
    return l;
}

static int connect_peer(tw_udp_link_t *l, uint32_t peer, const struct sockaddr_in *addr,
                        unsigned live_port) {
    if (tw_udp_set_peer(l, peer, addr) != TW_OK) return -1;
    return tw_udp_set_peer_liveness(l, peer, live_port) == TW_OK ? 0 : -1;
}

static int count_messages(void *ctx, uint32_t peer, const void *msg, size_t len) {
    (void)peer, (void)msg, (void)len;
    ++*(unsigned *)ctx;
    return 0;
}

/* Polls l for secs, or until cond(l) holds; the latter's value. */
static int poll_until(tw_udp_link_t *l, double secs, int (*cond)(tw_udp_link_t *),
                      unsigned *received) {
    unsigned none = 0;
    double end = now_s() + secs;
    while (now_s() < end) {
        tw_udp_poll(l, count_messages, received ? received : &none);
        if (cond && cond(l)) return 1;
        usleep(1000);
    }
    return cond ? cond(l) : 0;
}

static int peer1_lost(tw_udp_link_t *l) {
    return tw_udp_peer_lost(l, 1) != 0;
}

/* In one process: B never polls, as a rank that computes; A, which waits on it with a
 * message unacknowledged, does not declare it lost over three timeouts, because B's
 * thread answers. Once B is gone, A declares it lost with nothing outstanding. */
static void test_computing_peer_alive_gone_peer_lost(void **state) {
    (void)state;
    struct sockaddr_in a_addr, b_addr;
    unsigned a_live, b_live;
    tw_udp_link_t *a = open_live(0, &a_addr, &a_live);
    tw_udp_link_t *b = open_live(1, &b_addr, &b_live);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_not_equal(a_live, 0);
    assert_int_equal(connect_peer(a, 1, &b_addr, b_live), 0);
    assert_int_equal(connect_peer(b, 0, &a_addr, a_live), 0);

    assert_int_equal(tw_udp_send(a, 1, "work", 4), TW_OK);
    assert_false(poll_until(a, 3.0 * TIMEOUT_MS / 1000, peer1_lost, NULL));
    assert_int_equal(tw_udp_peer_lost(a, 1), 0);
    uint64_t probes, echoes, resets_out, resets_in;
    tw_udp_liveness_counters(a, &probes, &echoes, &resets_out, &resets_in);
    assert_true(probes > 0); /* it was silent, and asked */
    tw_udp_liveness_counters(b, &probes, &echoes, &resets_out, &resets_in);
    assert_true(echoes > 0); /* and answered without polling */

    unsigned got = 0; /* B takes the message at last: the data was kept for it */
    double end = now_s() + HANG_S;
    while (got == 0 && now_s() < end) {
        tw_udp_poll(b, count_messages, &got);
        tw_udp_poll(a, count_messages, NULL);
    }
    assert_int_equal(got, 1);
    /* until a has heard the acknowledgement, nothing stays outstanding */
    end = now_s() + HANG_S;
    while (tw_udp_in_flight(a, 1) && now_s() < end) {
        tw_udp_poll(b, count_messages, &got);
        tw_udp_poll(a, count_messages, NULL);
    }
    assert_int_equal(tw_udp_in_flight(a, 1), 0);

    tw_udp_close(b); /* gone without a word (no FIN: it never finished) */
    assert_true(poll_until(a, HANG_S, peer1_lost, NULL));
    assert_int_equal(tw_udp_peer_lost(a, 1), TW_ERR_LOST);
    assert_int_equal(tw_udp_send(a, 1, "x", 1), TW_ERR_LOST);
    tw_udp_close(a);
}

static int peer0_lost(tw_udp_link_t *l) {
    return tw_udp_peer_lost(l, 0) != 0;
}

/* Two links of a job of two where only A was told where B is, as when A sends first. */
static void open_pair_told_one_way(tw_udp_link_t **a, tw_udp_link_t **b) {
    struct sockaddr_in a_addr, b_addr;
    unsigned a_live, b_live;
    *a = open_live(0, &a_addr, &a_live);
    *b = open_live(1, &b_addr, &b_live);
    assert_non_null(*a);
    assert_non_null(*b);
    assert_int_equal(connect_peer(*a, 1, &b_addr, b_live), 0);
}

/* Only A was told where B is, as when A sends first: B's link learns A's data address
 * from its first packet, its thread A's liveness address from A's first probe. B
 * computes (never polls) while A waits with a message unacknowledged: B's thread must
 * answer the probes of a peer it was never told of, or A declares the living lost. */
static void test_peer_never_told_of_answers(void **state) {
    (void)state;
    tw_udp_link_t *a, *b;
    open_pair_told_one_way(&a, &b);

    assert_int_equal(tw_udp_send(a, 1, "work", 4), TW_OK);
    assert_false(poll_until(a, 3.0 * TIMEOUT_MS / 1000, peer1_lost, NULL));
    uint64_t probes, echoes, resets_out, resets_in;
    tw_udp_liveness_counters(a, &probes, &echoes, &resets_out, &resets_in);
    assert_true(probes > 0);
    tw_udp_liveness_counters(b, &probes, &echoes, &resets_out, &resets_in);
    assert_true(echoes > 0);

    unsigned got = 0;
    double end = now_s() + HANG_S;
    while (got == 0 && now_s() < end) {
        tw_udp_poll(b, count_messages, &got);
        tw_udp_poll(a, count_messages, NULL);
    }
    assert_int_equal(got, 1);
    assert_int_equal(tw_udp_peer_lost(a, 1), 0);
    assert_int_equal(tw_udp_peer_lost(b, 0), 0);
    tw_udp_close(b);
    tw_udp_close(a);
}

/* Only A was told where B is; A sends once, then computes (never polls) while B waits
 * for more. A's introduction taught B where A's liveness socket is, so B probes A —
 * and A's thread answers: no verdict over three timeouts. Once A is gone, B, which
 * was never told of A, still declares it lost instead of waiting for ever. */
static void test_peer_that_spoke_first_is_watched(void **state) {
    (void)state;
    tw_udp_link_t *a, *b;
    open_pair_told_one_way(&a, &b);
    assert_int_equal(tw_udp_send(a, 1, "once", 4), TW_OK);
    unsigned got = 0;
    double end = now_s() + HANG_S;
    while ((got == 0 || tw_udp_in_flight(a, 1)) && now_s() < end) {
        tw_udp_poll(b, count_messages, &got);
        tw_udp_poll(a, count_messages, NULL);
    }
    assert_int_equal(got, 1);
    assert_int_equal(tw_udp_in_flight(a, 1), 0);

    assert_false(poll_until(b, 3.0 * TIMEOUT_MS / 1000, peer0_lost, NULL));
    uint64_t probes, echoes, resets_out, resets_in;
    tw_udp_liveness_counters(b, &probes, &echoes, &resets_out, &resets_in);
    assert_true(probes > 0); /* it knew where to ask */
    tw_udp_liveness_counters(a, &probes, &echoes, &resets_out, &resets_in);
    assert_true(echoes > 0);

    tw_udp_close(a);
    assert_true(poll_until(b, HANG_S, peer0_lost, NULL));
    assert_int_equal(tw_udp_peer_lost(b, 0), TW_ERR_LOST);
    tw_udp_close(b);
}

/* An acknowledgement of data in flight, forged with the job's secret as from B and
 * sent from B's own socket: A, whose data to B is all lost on the way, takes it and
 * gives the data up. B, which never got it, must not wait for it for good: A's probes
 * announce an una past every acknowledgement B sent, and B declares A lost for it
 * (TW_ERR_DESYNC), naming A; A, reset, declares B lost in turn. */
static void test_forged_ack_of_data_in_flight_ends_in_a_loss(void **state) {
    (void)state;
    struct sockaddr_in a_addr, b_addr;
    unsigned a_live, b_live;
    drop_sends = 1;
    tw_udp_link_t *a = open_live(0, &a_addr, &a_live);
    drop_sends = 0;
    tw_udp_link_t *b = open_live(1, &b_addr, &b_live);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(connect_peer(a, 1, &b_addr, b_live), 0);
    assert_int_equal(connect_peer(b, 0, &a_addr, a_live), 0);
    assert_int_equal(tw_udp_send(a, 1, "never there", 11), TW_OK);
    assert_int_equal(tw_udp_in_flight(a, 1), 1);

    unsigned char pkt[TW_UDP_HDR_SIZE];
    tw_udp_hdr_t h = {.src = 1, .dst = 0, .ack = 2, .flags = TW_UDP_ACK};
    tw_siphash_key_t key = tw_siphash_key(SECRET);
    tw_udp_encode(pkt, &h, NULL, &key);
    assert_int_equal(
        sendto(tw_udp_fd(b), pkt, sizeof pkt, 0, (const struct sockaddr *)&a_addr, sizeof a_addr),
        (ssize_t)sizeof pkt);
    double end = now_s() + HANG_S;
    while (tw_udp_in_flight(a, 1) && now_s() < end) tw_udp_poll(a, count_messages, NULL);
    assert_int_equal(tw_udp_in_flight(a, 1), 0); /* taken: the data is given up */

    unsigned got = 0;
    end = now_s() + HANG_S;
    while (!peer0_lost(b) && got == 0 && now_s() < end) {
        tw_udp_poll(a, count_messages, NULL);
        tw_udp_poll(b, count_messages, &got);
        usleep(1000);
    }
    assert_int_equal(got, 0);
    assert_int_equal(tw_udp_peer_lost(b, 0), TW_ERR_DESYNC);
    assert_int_equal(tw_udp_peer_lost(b, 1), 0);
    assert_true(poll_until(a, HANG_S, peer1_lost, NULL));
    assert_int_equal(tw_udp_peer_lost(a, 1), TW_ERR_RESET);
    assert_int_equal(tw_udp_send(a, 1, "x", 1), TW_ERR_LOST);
    tw_udp_close(b);
    tw_udp_close(a);
}

enum { STREAM = 300 };

static int a_done_b_all(tw_udp_link_t *a, tw_udp_link_t *b, unsigned got_b, unsigned got_a) {
    return got_b == STREAM && got_a == STREAM && !tw_udp_in_flight(a, 1) && !tw_udp_in_flight(b, 0);
}

/* The same pair without the forgery, a stream each way with a third of all data and
 * acknowledgements lost, and a pause in which neither polls: everything arrives, and
 * the announcements, which go on while both wait, never find an una past what was
 * acknowledged. */
static void test_same_traffic_under_drops_completes(void **state) {
    (void)state;
    struct sockaddr_in a_addr, b_addr;
    unsigned a_live, b_live;
    drop_rate = 0.3;
    tw_udp_link_t *a = open_live(0, &a_addr, &a_live);
    tw_udp_link_t *b = open_live(1, &b_addr, &b_live);
    drop_rate = 0;
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(connect_peer(a, 1, &b_addr, b_live), 0);
    assert_int_equal(connect_peer(b, 0, &a_addr, a_live), 0);
    unsigned sent_a = 0, sent_b = 0, got_a = 0, got_b = 0;
    int paused = 0;
    double end = now_s() + HANG_S;
    while (!a_done_b_all(a, b, got_b, got_a) && !peer1_lost(a) && !peer0_lost(b) && now_s() < end) {
        if (sent_a < STREAM && tw_udp_send(a, 1, "from a", 6) == TW_OK) sent_a++;
        if (sent_b < STREAM && tw_udp_send(b, 0, "from b", 6) == TW_OK) sent_b++;
        if (!paused && sent_a >= STREAM / 2 && sent_b >= STREAM / 2) {
            paused = 1; /* neither polls for two probe intervals, data in flight */
            usleep(1000 * TIMEOUT_MS / 5);
        }
        tw_udp_poll(a, count_messages, &got_a);
        tw_udp_poll(b, count_messages, &got_b);
    }
    assert_int_equal(tw_udp_peer_lost(a, 1), 0);
    assert_int_equal(tw_udp_peer_lost(b, 0), 0);
    assert_int_equal(got_b, STREAM);
    assert_int_equal(got_a, STREAM);
    assert_true(tw_udp_stats(a)->injected_drop > 0 && tw_udp_stats(b)->injected_drop > 0);
    /* both wait on nothing, probing and answering: still no verdict */
    end = now_s() + 2.0 * TIMEOUT_MS / 1000;
    while (now_s() < end) {
        tw_udp_poll(a, count_messages, &got_a);
        tw_udp_poll(b, count_messages, &got_b);
        usleep(1000);
    }
    assert_int_equal(tw_udp_peer_lost(a, 1), 0);
    assert_int_equal(tw_udp_peer_lost(b, 0), 0);
    tw_udp_close(b);
    tw_udp_close(a);
}

#ifndef TW_NO_FORK_TESTS

/* The child: its own link, its addresses to the parent, then a message every 50 ms
 * until the parent is lost to it. Exit status: 0 when that was a reset, 2 when it was
 * something else, 3 on a setup failure, 4 on a hang. */
static void child(int to_parent, const struct sockaddr_in *parent, unsigned parent_live) {
    struct sockaddr_in addr;
    unsigned live;
    tw_udp_link_t *l = open_live(1, &addr, &live);
    if (!l || connect_peer(l, 0, parent, parent_live)) _exit(3);
    if (write(to_parent, &addr, sizeof addr) != sizeof addr ||
        write(to_parent, &live, sizeof live) != sizeof live)
        _exit(3);
    double end = now_s() + HANG_S, next = 0;
    while (!peer0_lost(l) && now_s() < end) {
        if (now_s() >= next) {
            tw_udp_send(l, 0, "tick", 4);
            next = now_s() + 0.05;
        }
        tw_udp_poll(l, count_messages, &(unsigned){0});
        usleep(1000);
    }
    int cause = tw_udp_peer_lost(l, 0);
    tw_udp_close(l);
    _exit(cause == TW_ERR_RESET ? 0 : cause ? 2 : 4);
}

/* A peer stopped (SIGSTOP) while we only wait is declared lost; continued, it is
 * reset at once and ends with TW_ERR_RESET, not with a timeout of its own. With
 * acknowledging, the stopped child has nothing outstanding; without (the parent's
 * data and acknowledgements all lost, its liveness and resets not), the child's ticks
 * stay unacknowledged across the stop, and the reset the parent sent when it declared
 * the child lost, waiting in the child's socket, must come before the child's own
 * timeout. */
static void stopped_peer_lost_and_reset_when_back(int acknowledging) {
    struct sockaddr_in addr, child_addr;
    unsigned live, child_live;
    drop_sends = !acknowledging;
    tw_udp_link_t *l = open_live(0, &addr, &live);
    drop_sends = 0;
    assert_non_null(l);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], &addr, live);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &child_addr, sizeof child_addr), (ssize_t)sizeof child_addr);
    assert_int_equal(read(fds[0], &child_live, sizeof child_live), (ssize_t)sizeof child_live);
    close(fds[0]);
    assert_int_equal(connect_peer(l, 1, &child_addr, child_live), 0);

    unsigned got = 0; /* it talks: it is watched */
    double end = now_s() + HANG_S;
    while (got < 3 && now_s() < end) tw_udp_poll(l, count_messages, &got);
    assert_true(got >= 3);

    assert_int_equal(kill(pid, SIGSTOP), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
    assert_true(WIFSTOPPED(status));
    /* nothing outstanding to it (its ticks are acknowledged, none go to it): only the
     * probes find it silent */
    assert_true(poll_until(l, HANG_S, peer1_lost, NULL));
    assert_int_equal(tw_udp_peer_lost(l, 1), TW_ERR_LOST);

    assert_int_equal(kill(pid, SIGCONT), 0);
    pid_t done = 0;
    end = now_s() + HANG_S;
    while (done == 0 && now_s() < end) {
        tw_udp_poll(l, count_messages, NULL); /* its ticks are answered with resets */
        done = waitpid(pid, &status, WNOHANG);
        usleep(1000);
    }
    if (done == 0) kill(pid, SIGKILL);
    assert_int_equal(done, pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(tw_udp_stats(l)->resets_sent > 0);
    tw_udp_close(l);
}

static void test_stopped_peer_lost_and_reset_when_back(void **state) {
    (void)state;
    stopped_peer_lost_and_reset_when_back(1);
}

static void test_stopped_peer_with_data_outstanding_reset_when_back(void **state) {
    (void)state;
    stopped_peer_lost_and_reset_when_back(0);
}
#endif

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_computing_peer_alive_gone_peer_lost),
        cmocka_unit_test(test_peer_never_told_of_answers),
        cmocka_unit_test(test_peer_that_spoke_first_is_watched),
        cmocka_unit_test(test_forged_ack_of_data_in_flight_ends_in_a_loss),
        cmocka_unit_test(test_same_traffic_under_drops_completes),
#ifndef TW_NO_FORK_TESTS
        cmocka_unit_test(test_stopped_peer_lost_and_reset_when_back),
        cmocka_unit_test(test_stopped_peer_with_data_outstanding_reset_when_back),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
