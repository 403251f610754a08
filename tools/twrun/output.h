/* The ranks' stdout and stderr when they come through twrun: when it is asked to tag
 * them (-l) or keep them in files (--output-filename), and when its own stdout or
 * stderr is a regular file. Each stream comes through a pipe and leaves twrun a whole
 * line at a time, so the lines of different ranks never mix. Otherwise the ranks write
 * to twrun's own stdout and stderr, and nothing here runs. */
#ifndef TWRUN_OUTPUT_H
#define TWRUN_OUTPUT_H

#include <stddef.h>

enum {
    TWR_LINE_MAX = 8192, /* a longer line leaves in pieces, each with the prefix */
    TWR_PREFIX_MAX = 32,
};

typedef struct twr_stream {
    int fd;     /* the pipe's read end; -1 when closed */
    int to;     /* twrun's descriptor the lines go to; -1: none (files only) */
    int file;   /* the rank's file the bytes go to as they come; -1: none */
    size_t len; /* of a line begun in buf */
    char prefix[TWR_PREFIX_MAX];
    char buf[TWR_LINE_MAX];
} twr_stream_t;

/* A stream from fd (non-blocking) to descriptor to and file, its lines after prefix. */
void twr_stream_init(twr_stream_t *s, int fd, int to, int file, const char *prefix);

/* Reads what the pipe holds, at most reads times (a rank that writes without end
 * must not keep twrun from the others), and writes out every whole line; untagged, an
 * unfinished line too once the pipe is empty. Returns 1
 * when the pipe has ended (the stream is then closed, a last unfinished line written
 * with a '\n' after a prefix, as it came without one), else 0. */
int twr_stream_drain(twr_stream_t *s, int reads);

/* Reads enough to empty a full pipe (a rank that has exited wrote no more than that). */
enum { TWR_DRAIN_ALL = 2 * (1 << 20) / TWR_LINE_MAX };

/* Writes out what is buffered (with a '\n') and closes the stream. */
void twr_stream_close(twr_stream_t *s);

/* Writes len bytes of data at once to a consumer of "prefix + data" lines (ended by a
 * '\n' when prefix is not empty): used for the pieces above; exposed for the tests.
 * Returns 0, or -1 when fd is gone. */
int twr_write_line(int fd, const char *prefix, const char *data, size_t len);

#endif
