/* twrun's forwarded output: whole lines after their prefix, an unfinished last line, lines
 * longer than the buffer, untagged bytes passed as they came, the raw copy to a file, and
 * a reader that has gone. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "output.h"

static twr_stream_t stream;
static int rank_w, out_r; /* the rank's end of its pipe; twrun's reader's end */

static void feed(const char *data) {
    size_t len = strlen(data);
    assert_int_equal(write(rank_w, data, len), (ssize_t)len);
}

/* Everything the reader has been given so far, NUL-terminated (static). */
static const char *taken(void) {
    static char buf[1 << 16];
    ssize_t n = read(out_r, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* A stream from a fresh pipe to another, to a file when file >= 0, its lines after
 * prefix. */
static void open_stream_tagged(int file, const char *prefix) {
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    fcntl(in[0], F_SETFL, O_NONBLOCK);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    rank_w = in[1];
    out_r = out[0];
    twr_stream_init(&stream, in[0], out[1], file, prefix);
}

static void open_stream(int file) {
    open_stream_tagged(file, "[3] ");
}

static void close_stream(void) {
    twr_stream_close(&stream);
    close(stream.to);
    close(rank_w);
    close(out_r);
}

static void test_lines(void **state) {
    (void)state;
    open_stream(-1);
    feed("one\ntw");
    assert_int_equal(twr_stream_drain(&stream, 16), 0);
    assert_string_equal(taken(), "[3] one\n"); /* the half line waits */
    feed("o\nthree\nfour\n");
    assert_int_equal(twr_stream_drain(&stream, 16), 0);
    assert_string_equal(taken(), "[3] two\n[3] three\n[3] four\n");
    feed("\n");
    assert_int_equal(twr_stream_drain(&stream, 16), 0);
    assert_string_equal(taken(), "[3] \n"); /* an empty line is a line */
    feed("last, unfinished");
    close(rank_w);
    rank_w = -1;
    assert_int_equal(twr_stream_drain(&stream, TWR_DRAIN_ALL), 1);
    assert_string_equal(taken(), "[3] last, unfinished\n");
    assert_int_equal(stream.fd, -1);
    close_stream();
}

static void test_long_line(void **state) {
    (void)state;
    open_stream(-1);
    size_t len = 2 * TWR_LINE_MAX + 100;
    char *line = malloc(len + 2);
    memset(line, 'x', len);
    strcpy(line + len, "\n");
    feed(line);
    assert_int_equal(twr_stream_drain(&stream, TWR_DRAIN_ALL), 0);
    /* in pieces of the buffer's size, each after the prefix, then the rest */
    const char *got = taken();
    for (int piece = 0; piece < 3; piece++) {
        size_t n = piece < 2 ? TWR_LINE_MAX : 100;
        assert_memory_equal(got, "[3] ", 4);
        got += 4;
        assert_true(strspn(got, "x") == n);
        got += n;
        assert_int_equal(*got++, '\n');
    }
    assert_int_equal(*got, '\0');
    free(line);
    close_stream();
}

/* Untagged (twrun's stdout a regular file): whole lines when they come together, an
 * unfinished one once the pipe is empty (a rank computing after "step 3 ..." is seen
 * there), and no byte added to it or to the pieces of a long line. */
static void test_untagged(void **state) {
    (void)state;
    open_stream_tagged(-1, "");
    feed("one\ntw");
    assert_int_equal(twr_stream_drain(&stream, 16), 0);
    assert_string_equal(taken(), "one\ntw");
    feed("o\n");
    assert_int_equal(twr_stream_drain(&stream, 16), 0);
    assert_string_equal(taken(), "o\n");
    size_t len = TWR_LINE_MAX + 10;
    char *line = malloc(len + 1);
    memset(line, 'x', len);
    line[len] = '\0';
    feed(line);
    assert_int_equal(twr_stream_drain(&stream, TWR_DRAIN_ALL), 0);
    const char *got = taken();
    assert_int_equal(strspn(got, "x"), len); /* a piece, then the rest: nothing added */
    assert_int_equal(got[len], '\0');
    close(rank_w);
    rank_w = -1;
    assert_int_equal(twr_stream_drain(&stream, TWR_DRAIN_ALL), 1);
    assert_string_equal(taken(), "");
    free(line);
    close_stream();
}

static void test_file_copy(void **state) {
    (void)state;
    char path[] = "/tmp/twrun-output-XXXXXX";
    int file = mkstemp(path);
    assert_true(file >= 0);
    open_stream(file);
    feed("a\nb");
    assert_int_equal(twr_stream_drain(&stream, 16), 0);
    close(rank_w);
    rank_w = -1;
    assert_int_equal(twr_stream_drain(&stream, 16), 1);
    assert_string_equal(taken(), "[3] a\n[3] b\n");
    FILE *f = fopen(path, "r");
    char buf[16] = "";
    assert_non_null(fgets(buf, sizeof buf, f));
    assert_string_equal(buf, "a\n");
    assert_non_null(fgets(buf, sizeof buf, f));
    assert_string_equal(buf, "b"); /* the rank's own bytes */
    fclose(f);
    unlink(path);
    close_stream();
}

static void test_reader_gone(void **state) {
    (void)state;
    open_stream(-1);
    close(out_r);
    out_r = open("/dev/null", O_RDONLY);
    feed("nobody reads this\n");
    /* the stream closes, so the rank's next write fails as it would on a closed pipe */
    assert_int_equal(twr_stream_drain(&stream, 16), 1);
    assert_int_equal(stream.fd, -1);
    assert_int_equal(write(rank_w, "x", 1), -1);
    close_stream();
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),       cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_untagged),    cmocka_unit_test(test_file_copy),
        cmocka_unit_test(test_reader_gone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
