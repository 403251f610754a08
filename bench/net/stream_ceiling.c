/* What the kernel alone moves between two hosts, with no MPI and no reliability on
 * top: the ceiling that any MPI over one socket per pair works under.
 *
 *   tcp        one TCP stream, written 256 KiB at a time
 *   udp        64 KiB datagrams (the most one IPv4 datagram holds)
 *   udp-crc32c the same with CRC32C computed over every datagram by the sender
 *              before it goes and by the receiver once it came (src/link/crc32c.c,
 *              as the udp link does)
 *
 * The sender sends as fast as the socket takes for the given time, from a 256 KiB
 * buffer (so its data stays in cache, as a benchmark's message does); the receiver
 * counts what arrives (datagrams the receiver had no room for are lost, not counted)
 * and prints "stream,MODE,MB/s", over the time from the first arrival to the last.
 * A receiver that hears nothing for IDLE_SECONDS (no sender, or one that stopped)
 * ends: with the figure so far, or an error when nothing came.
 *
 * usage: stream_ceiling recv|send MODE ADDRESS PORT SECONDS */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "link/udp/crc32c.h"

enum {
    BUFFER = 256 << 10,
    TCP_WRITE = 256 << 10,
    DATAGRAM = 65507,
    SOCKET_BUFFER = 16 << 20,
    IDLE_SECONDS = 5,
};

/* the CRCs' results go here, so that computing them is not optimised away */
static volatile uint32_t crc_sink;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int usage(const char *why) {
    fprintf(stderr,
            "stream_ceiling: %s\nusage: stream_ceiling recv|send tcp|udp|udp-crc32c ADDRESS "
            "PORT SECONDS\n",
            why);
    return 2;
}

/* A whole number in [min, max], or -1. */
static long number(const char *s, long min, long max) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || end == s || *end || v < min || v > max ? -1 : v;
}

int main(int argc, char **argv) {
    if (argc != 6) return usage("five arguments expected");
    int sending = !strcmp(argv[1], "send"), tcp = !strcmp(argv[2], "tcp");
    int crc = !strcmp(argv[2], "udp-crc32c");
    long port = number(argv[4], 1, 65535), seconds = number(argv[5], 1, 3600);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (!sending && strcmp(argv[1], "recv")) return usage("the first argument is recv or send");
    if (!tcp && !crc && strcmp(argv[2], "udp")) return usage("MODE is tcp, udp or udp-crc32c");
    if (inet_pton(AF_INET, argv[3], &addr.sin_addr) != 1)
        return usage("ADDRESS is an IPv4 address");
    if (port < 0) return usage("PORT is a number from 1 to 65535");
    if (seconds < 0) return usage("SECONDS is a whole number from 1 to 3600");
    static unsigned char buf[BUFFER];
    int fd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("stream_ceiling");
        return 1;
    }
    memset(buf, 0x5a, BUFFER);
    /* room for what is in flight, past the system's default limits (root) */
    int size = SOCKET_BUFFER, one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size))
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size))
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct timeval idle = {.tv_sec = IDLE_SECONDS}; /* accept and recv give up then */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle);
    size_t piece = tcp ? TCP_WRITE : DATAGRAM, at = 0;
    uint32_t sum = 0;
    if (sending) {
        double start = now();
        if (tcp)
            while (connect(fd, (struct sockaddr *)&addr, sizeof addr)) {
                if (now() - start > 10) {
                    perror("stream_ceiling: connect");
                    return 1;
                }
                usleep(10000);
            }
        else
            usleep(200000); /* the receiver binds first */
        /* a little longer than the receiver counts, so that it never waits at the end */
        for (start = now(); now() - start < (double)seconds + 0.5;) {
            if (crc) sum += tw_crc32c(0, buf + at, piece);
            /* the receiver closes after its seconds while this side still sends: the
             * end, not a SIGPIPE that kills the sender */
            ssize_t n = tcp ? send(fd, buf + at, piece, MSG_NOSIGNAL)
                            : sendto(fd, buf + at, piece, 0, (struct sockaddr *)&addr, sizeof addr);
            if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR) break;
            at = (at + piece) % (BUFFER - BUFFER % piece);
        }
        crc_sink = sum;
        return 0;
    }
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr)) {
        perror("stream_ceiling: bind");
        return 1;
    }
    if (tcp) {
        listen(fd, 1);
        fd = accept(fd, NULL, NULL);
        if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle);
        if (fd < 0) {
            perror("stream_ceiling: accept");
            return 1;
        }
    }
    double start = 0, last = 0;
    uint64_t bytes = 0;
    for (;;) {
        ssize_t n = recv(fd, buf + at, tcp ? BUFFER - at : piece, 0);
        if (n <= 0) break;
        last = now();
        if (!start)
            start = last; /* from the first arrival */
        else
            bytes += (uint64_t)n;
        if (crc) sum += tw_crc32c(0, buf + at, (size_t)n);
        at = tcp ? (at + (size_t)n) % BUFFER : (at + piece) % (BUFFER - BUFFER % piece);
        if (last - start >= (double)seconds) break;
    }
    double elapsed = last - start;
    if (!start || elapsed <= 0) {
        fprintf(stderr, "stream_ceiling: nothing arrived within %d s\n", IDLE_SECONDS);
        return 1;
    }
    crc_sink = sum;
    printf("stream,%s,%.1f\n", argv[2], (double)bytes / elapsed / 1e6);
    return 0;
}
