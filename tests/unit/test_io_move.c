/* The read path of MPI-IO's file moves (src/mpi/io/runs.c) on its own: a read through
 * the bounce buffer (tw_io_read_bounced, what tw_io_move takes for long reads into
 * memory a few bytes past the file's page offset on CPUs whose copies slow down there)
 * lands the same bytes as pread, at every distance modulo a page, across the buffer's
 * chunks and short at the end of the file, and writes nothing outside the range asked;
 * tw_io_move agrees with it whichever path it takes on this CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mpi/io/runs.h"

enum { FILE_LEN = (1 << 20) + 12345, GUARD = 64 };

static unsigned char byte_at(MPI_Offset at) {
    return (unsigned char)(at * 131 + (at >> 12));
}

static int file_of_pattern(void) {
    char name[] = "/tmp/tw-io-move-XXXXXX";
    int fd = mkstemp(name);
    assert_true(fd >= 0);
    unlink(name);
    unsigned char *all = malloc(FILE_LEN);
    assert_non_null(all);
    for (MPI_Offset i = 0; i < FILE_LEN; i++) all[i] = byte_at(i);
    assert_int_equal(pwrite(fd, all, FILE_LEN, 0), FILE_LEN);
    free(all);
    return fd;
}

/* Reads [at, at + len) into memory skew bytes past a page with each path; checks the
 * bytes, the count and the guards on both sides. */
static void read_and_check(int fd, int bounced, size_t skew, MPI_Offset at, MPI_Offset len) {
    size_t size = ((size_t)len + 4 * 4096) & ~(size_t)4095; /* the skew and a page each side */
    unsigned char *mem = aligned_alloc(4096, size);
    assert_non_null(mem);
    unsigned char *to = mem + 4096 + skew;
    memset(mem, 0xee, size);
    MPI_Offset done = -1;
    int rc = bounced ? tw_io_read_bounced(fd, (char *)to, at, len, &done)
                     : tw_io_move(fd, 0, (char *)to, at, len, &done);
    assert_int_equal(rc, 0);
    MPI_Offset expect = at >= FILE_LEN ? 0 : at + len > FILE_LEN ? FILE_LEN - at : len;
    assert_int_equal(done, expect);
    for (MPI_Offset i = 0; i < expect; i++)
        if (to[i] != byte_at(at + i))
            fail_msg("byte %lld of a read at %lld (skew %zu): %u, not %u", (long long)i,
                     (long long)at, skew, to[i], byte_at(at + i));
    for (MPI_Offset i = expect; i < len + GUARD; i++)
        if (to[i] != 0xee)
            fail_msg("byte %lld past a read of %lld at %lld (skew %zu, %s) written", (long long)i,
                     (long long)len, (long long)at, skew, bounced ? "bounced" : "moved");
    for (size_t i = 1; i <= GUARD && i <= 4096 + skew; i++)
        assert_int_equal(to[-(ptrdiff_t)i], 0xee);
    free(mem);
}

static void same_bytes_at_every_distance(void **state) {
    (void)state;
    int fd = file_of_pattern();
    const size_t skews[] = {0, 1, 15, 16, 17, 31, 32, 48, 63, 64, 2048, 4095};
    const MPI_Offset ats[] = {0, 1, 4095, 4096 + 17, 3 * 4096};
    const MPI_Offset lens[] = {1, 4096, 65536 + 3, (256 << 10) - 1, (256 << 10) + 5000, 600000};
    for (size_t s = 0; s < sizeof skews / sizeof skews[0]; s++)
        for (size_t a = 0; a < sizeof ats / sizeof ats[0]; a++)
            for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
                for (int bounced = 0; bounced < 2; bounced++)
                    read_and_check(fd, bounced, skews[s], ats[a], lens[l]);
    close(fd);
}

static void short_at_the_end_of_the_file(void **state) {
    (void)state;
    int fd = file_of_pattern();
    for (int bounced = 0; bounced < 2; bounced++) {
        read_and_check(fd, bounced, 16, FILE_LEN - 5000, 300000); /* crosses the end */
        read_and_check(fd, bounced, 16, FILE_LEN - (256 << 10) - 100, 600000);
        read_and_check(fd, bounced, 16, FILE_LEN, 8192);            /* at the end */
        read_and_check(fd, bounced, 16, FILE_LEN + 4096 * 3, 8192); /* past it */
    }
    close(fd);
}

static void error_of_a_bad_descriptor(void **state) {
    (void)state;
    char buf[8192];
    MPI_Offset done = -1;
    assert_int_not_equal(tw_io_read_bounced(-1, buf + 16, 0, 4096, &done), 0);
    assert_int_equal(done, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_bytes_at_every_distance),
        cmocka_unit_test(short_at_the_end_of_the_file),
        cmocka_unit_test(error_of_a_bad_descriptor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
