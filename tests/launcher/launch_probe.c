/* A rank for the launcher tests: speaks raw PMI-1 over PMI_FD and misbehaves on
 * request. Every rank first leaves a shared-memory object named for the job, so
 * the tests can check that twrun removes it, and records its job id.
 *
 *   ok             put k<rank>=v<rank>, barrier, get every rank's key, finalize
 *   sleep          sleep up to 30 s
 *   exit R CODE    rank R exits with CODE, the others sleep
 *   kill R         rank R raises SIGKILL, the others sleep
 *   stuck R        rank R exits 3, the others wait forever in a PMI barrier
 *   stubborn R     rank R exits 3, the others ignore SIGTERM and sleep
 *   leave R        rank R exits 0, the others wait forever in a PMI barrier
 *   abort R CODE   rank R sends cmd=abort exitcode=CODE, the others sleep
 *   garbage        over-long, malformed and pipelined lines, then a barrier
 *   appnum         print "<rank> <size> <appnum>", the appnum asked through PMI
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/pmi_wire.h"

static int rank, size, pmi_fd = -1;
static char kvsname[TW_PMI_KEY_MAX];
static char inbuf[TW_PMI_LINE_MAX];
static size_t inlen;

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...);

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "launch_probe rank %d: ", rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static int env_int(const char *name) {
    const char *s = getenv(name);
    if (!s) die("%s is not set", name);
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v > 1 << 20) die("%s='%s' is not a number", name, s);
    return (int)v;
}

static void send_bytes(const char *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(pmi_fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("write to PMI_FD: %s", strerror(errno));
        data += n;
        len -= (size_t)n;
    }
}

static void send_line(const char *line) {
    send_bytes(line, strlen(line));
}

/* Reads one reply and checks it is cmd=expect with rc=0 (or rc as given). */
static void recv_reply(tw_pmi_msg_t *msg, const char *expect, const char *rc_expect) {
    for (;;) {
        char *nl = memchr(inbuf, '\n', inlen);
        if (nl) {
            size_t len = (size_t)(nl - inbuf);
            if (tw_pmi_parse(msg, inbuf, len)) die("malformed reply '%.*s'", (int)len, inbuf);
            memmove(inbuf, nl + 1, inlen - len - 1);
            inlen -= len + 1;
            const char *cmd = tw_pmi_find(msg, "cmd");
            if (!cmd || strcmp(cmd, expect) != 0)
                die("wanted cmd=%s, got cmd=%s", expect, cmd ? cmd : "(none)");
            const char *rc = tw_pmi_find(msg, "rc");
            if (rc_expect && (!rc || strcmp(rc, rc_expect) != 0))
                die("cmd=%s: wanted rc=%s, got rc=%s", expect, rc_expect, rc ? rc : "(none)");
            return;
        }
        if (inlen == sizeof inbuf) die("reply too long");
        ssize_t n = read(pmi_fd, inbuf + inlen, sizeof inbuf - inlen);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("lost the PMI connection");
        inlen += (size_t)n;
    }
}

static void pmi_init(void) {
    tw_pmi_msg_t m;
    pmi_fd = env_int("PMI_FD");
    send_line("cmd=init pmi_version=1 pmi_subversion=1\n");
    recv_reply(&m, "response_to_init", "0");
    send_line("cmd=get_my_kvsname\n");
    recv_reply(&m, "my_kvsname", "0");
    const char *name = tw_pmi_find(&m, "kvsname");
    if (!name || strlen(name) >= sizeof kvsname) die("bad kvsname");
    strcpy(kvsname, name);
    send_line("cmd=get_universe_size\n");
    recv_reply(&m, "universe_size", "0");
    /* the slots twrun has: PROBE_UNIVERSE_SIZE when the test knows them, and never
     * fewer than the job's ranks */
    const char *s = tw_pmi_find(&m, "size"), *want = getenv("PROBE_UNIVERSE_SIZE");
    if (!s || atoi(s) < size || (want && atoi(s) != atoi(want)))
        die("universe size %s, expected %s", s ? s : "(none)", want ? want : "the job's at least");
}

static void pmi_barrier(void) {
    tw_pmi_msg_t m;
    send_line("cmd=barrier_in\n");
    recv_reply(&m, "barrier_out", NULL);
}

static void pmi_finalize(void) {
    tw_pmi_msg_t m;
    send_line("cmd=finalize\n");
    recv_reply(&m, "finalize_ack", NULL);
    close(pmi_fd);
}

static void mode_ok(void) {
    char line[512];
    tw_pmi_msg_t m;
    pmi_init();
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=k%d value=v%d\n", kvsname, rank, rank);
    send_line(line);
    recv_reply(&m, "put_result", "0");
    pmi_barrier();
    for (int i = 0; i < size; i++) {
        snprintf(line, sizeof line, "cmd=get kvsname=%s key=k%d\n", kvsname, i);
        send_line(line);
        recv_reply(&m, "get_result", "0");
        char want[32];
        snprintf(want, sizeof want, "v%d", i);
        const char *v = tw_pmi_find(&m, "value");
        if (!v || strcmp(v, want) != 0) die("k%d is '%s', expected '%s'", i, v ? v : "", want);
    }
    pmi_finalize();
}

static void mode_garbage(void) {
    tw_pmi_msg_t m;
    pmi_init();
    /* Longer than any line: one error, and the rest of it is skipped. */
    size_t long_len = 3 * TW_PMI_LINE_MAX;
    char *longline = malloc(long_len + 1);
    if (!longline) die("out of memory");
    memset(longline, 'x', long_len);
    memcpy(longline, "cmd=put key=", 12);
    longline[long_len] = '\n';
    send_bytes(longline, long_len + 1);
    free(longline);
    recv_reply(&m, "error", "-1");
    const char *msg = tw_pmi_find(&m, "msg");
    if (!msg || strcmp(msg, "line_too_long") != 0) die("over-long line: msg=%s", msg);
    send_line("no equals sign\n");
    recv_reply(&m, "error", "-1");
    send_line("cmd=what\n");
    recv_reply(&m, "error", "-1");
    /* Many requests in one write, more than the server buffers at once. */
    enum { BURST = 200 };
    static const char one[] = "cmd=get_maxes\n";
    char *burst = malloc(BURST * (sizeof one - 1));
    if (!burst) die("out of memory");
    for (int i = 0; i < BURST; i++) memcpy(burst + i * (sizeof one - 1), one, sizeof one - 1);
    send_bytes(burst, BURST * (sizeof one - 1));
    free(burst);
    for (int i = 0; i < BURST; i++) recv_reply(&m, "maxes", "0");
    pmi_barrier();
    pmi_finalize();
}

static void make_shm_and_record(void) {
    const char *id = getenv("TW_JOB_ID");
    if (!id) die("TW_JOB_ID is not set");
    char name[128];
    snprintf(name, sizeof name, "/tw-%s-probe-%d", id, rank);
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0) die("shm_open %s: %s", name, strerror(errno));
    if (ftruncate(fd, 4096) != 0) die("ftruncate: %s", strerror(errno));
    close(fd);
    const char *file = getenv("PROBE_JOBID_FILE");
    if (file) {
        int f = open(file, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (f < 0) die("open %s: %s", file, strerror(errno));
        char line[64];
        int n = snprintf(line, sizeof line, "%s\n", id);
        if (write(f, line, (size_t)n) != n) die("write %s: %s", file, strerror(errno));
        close(f);
    }
}

static int arg_int(int argc, char **argv, int i) {
    if (i >= argc) die("mode %s needs more arguments", argv[1]);
    return atoi(argv[i]);
}

static void nap(void) {
    for (int i = 0; i < 30; i++) sleep(1);
}

int main(int argc, char **argv) {
    if (argc < 2) die("usage: launch_probe MODE [ARGS]");
    rank = env_int("PMI_RANK");
    size = env_int("PMI_SIZE");
    make_shm_and_record();
    const char *mode = argv[1];
    if (strcmp(mode, "ok") == 0) {
        mode_ok();
    } else if (strcmp(mode, "garbage") == 0) {
        mode_garbage();
    } else if (strcmp(mode, "appnum") == 0) {
        tw_pmi_msg_t m;
        pmi_init();
        send_line("cmd=get_appnum\n");
        recv_reply(&m, "appnum", "0");
        const char *a = tw_pmi_find(&m, "appnum");
        printf("%d %d %s\n", rank, size, a ? a : "(none)");
        pmi_barrier();
        pmi_finalize();
    } else if (strcmp(mode, "sleep") == 0) {
        nap();
    } else if (strcmp(mode, "exit") == 0) {
        int r = arg_int(argc, argv, 2), code = arg_int(argc, argv, 3);
        if (rank == r) exit(code);
        nap();
    } else if (strcmp(mode, "kill") == 0) {
        if (rank == arg_int(argc, argv, 2)) raise(SIGKILL);
        nap();
    } else if (strcmp(mode, "stubborn") == 0) {
        if (rank == arg_int(argc, argv, 2)) exit(3);
        signal(SIGTERM, SIG_IGN);
        nap();
    } else if (strcmp(mode, "stuck") == 0 || strcmp(mode, "leave") == 0) {
        int r = arg_int(argc, argv, 2);
        pmi_init();
        if (rank == r) {
            usleep(200 * 1000); /* most often, the others are in the barrier by now */
            exit(strcmp(mode, "stuck") == 0 ? 3 : 0);
        }
        send_line("cmd=barrier_in\n");
        for (;;) pause(); /* the barrier never completes */
    } else if (strcmp(mode, "abort") == 0) {
        int r = arg_int(argc, argv, 2), code = arg_int(argc, argv, 3);
        if (rank != r) {
            nap();
            return 0;
        }
        pmi_init();
        char line[64];
        snprintf(line, sizeof line, "cmd=abort exitcode=%d\n", code);
        send_line(line);
        exit(code);
    } else {
        die("unknown mode '%s'", mode);
    }
    return 0;
}
