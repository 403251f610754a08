#include "output.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

void twr_stream_init(twr_stream_t *s, int fd, int to, int file, const char *prefix) {
    s->fd = fd;
    s->to = to;
    s->file = file;
    s->len = 0;
    strncpy(s->prefix, prefix, sizeof s->prefix - 1);
    s->prefix[sizeof s->prefix - 1] = '\0';
}

/* Writes every byte of iov (one writev, so a pipe reader sees the line whole when it
 * fits PIPE_BUF), waiting when fd is non-blocking and full. */
static int write_all(int fd, struct iovec *iov, int n) {
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, -1);
            continue;
        }
        if (w < 0) return -1;
        size_t left = (size_t)w;
        for (; n > 0 && left >= iov->iov_len; iov++, n--) left -= iov->iov_len;
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    return 0;
}

int twr_write_line(int fd, const char *prefix, const char *data, size_t len) {
    struct iovec iov[3] = {{(void *)prefix, strlen(prefix)}, {(void *)data, len}, {"\n", 1}};
    /* a prefix starts a line, so what follows one ends it; untagged bytes go as they came */
    int n = (len > 0 && data[len - 1] == '\n') || !*prefix ? 2 : 3;
    return write_all(fd, iov, n);
}

/* Writes n bytes at data as a line to s->to. When that reader is gone (EPIPE) the
 * stream stops going there. */
static void emit(twr_stream_t *s, const char *data, size_t n) {
    if (n > 0 && s->to >= 0 && twr_write_line(s->to, s->prefix, data, n) != 0) s->to = -1;
}

/* Writes out the whole lines in buf (and, when full, the rest as a piece). */
static void emit_lines(twr_stream_t *s) {
    size_t done = 0;
    for (;;) {
        char *nl = memchr(s->buf + done, '\n', s->len - done);
        if (!nl) break;
        size_t n = (size_t)(nl - (s->buf + done)) + 1;
        emit(s, s->buf + done, n);
        done += n;
    }
    if (done == 0 && s->len == sizeof s->buf) { /* a line longer than buf: a piece */
        emit(s, s->buf, s->len);
        done = s->len;
    }
    memmove(s->buf, s->buf + done, s->len - done);
    s->len -= done;
}

void twr_stream_close(twr_stream_t *s) {
    if (s->fd < 0) return;
    emit(s, s->buf, s->len);
    s->len = 0;
    close(s->fd);
    s->fd = -1;
    if (s->file >= 0) close(s->file);
    s->file = -1;
}

int twr_stream_drain(twr_stream_t *s, int reads) {
    for (; s->fd >= 0 && reads > 0; reads--) {
        ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* the pipe is empty: an untagged unfinished line (a prompt, "step 3 ...")
             * goes now, as the rank flushed it, not once the rank ends it */
            if (!*s->prefix) {
                emit(s, s->buf, s->len);
                s->len = 0;
            }
            return 0;
        }
        if (n <= 0) {
            twr_stream_close(s);
            return 1;
        }
        if (s->file >= 0) {
            struct iovec iov = {s->buf + s->len, (size_t)n};
            if (write_all(s->file, &iov, 1) != 0) {
                close(s->file); /* a full disk: the copy to twrun's output goes on */
                s->file = -1;
            }
        }
        s->len += (size_t)n;
        emit_lines(s);
        if (s->to < 0 && s->file < 0) { /* nobody reads it: the rank learns so (EPIPE) */
            s->len = 0;
            twr_stream_close(s);
            return 1;
        }
    }
    return s->fd < 0;
}
