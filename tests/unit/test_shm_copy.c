/* The shm link's cross-process copy (src/link/shm/copy.c): read from and written into a
 * child's memory, straight and through the bounce buffer (what tw_shm_copy takes at a
 * distance where the CPU's copies slow down), at every distance modulo a page and across
 * the buffer's chunks: the same bytes land, and nothing outside the range is written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <tollway/status.h>

#include "common/aliased_copy.h"
#include "link/shm/shm.h"

enum { SPAN = (1 << 20) + 3 * 4096, GUARD = 64 };

static unsigned char byte_at(size_t i, unsigned salt) {
    return (unsigned char)(i * 131 + salt);
}

/* The child's memory (before the fork, so the same address in both), its pid. */
static unsigned char *theirs;
static pid_t child;
static int to_child[2];

static int start(void **state) {
    (void)state;
    theirs = aligned_alloc(4096, SPAN);
    assert_non_null(theirs);
    for (size_t i = 0; i < SPAN; i++) theirs[i] = byte_at(i, 0);
    assert_int_equal(pipe(to_child), 0);
    child = fork();
    if (child == 0) {
        char c;
        (void)read(to_child[0], &c, 1); /* until the parent is done */
        _exit(0);
    }
    return child > 0 ? 0 : -1;
}

static int stop(void **state) {
    (void)state;
    (void)write(to_child[1], "x", 1);
    waitpid(child, NULL, 0);
    free(theirs);
    return 0;
}

static int copy(int bounced, void *local, uint64_t remote, size_t len, int write) {
    static char *bounce;
    if (!bounce) bounce = aligned_alloc(4096, TW_COPY_BOUNCE_CHUNK + 4096);
    assert_non_null(bounce);
    return bounced ? tw_shm_copy_bounced(child, local, remote, len, write, bounce)
                   : tw_shm_copy(child, local, remote, len, write);
}

static void read_and_write_at_every_distance(void **state) {
    (void)state;
    const size_t skews[] = {0, 1, 16, 31, 48, 63, 64, 2048, 4095};
    const size_t froms[] = {0, 8, 4096 + 100};
    const size_t lens[] = {1, 4096, 65536 + 17, (256 << 10) + 4096 + 5};
    unsigned char *mine = aligned_alloc(4096, SPAN + 2 * 4096);
    assert_non_null(mine);
    unsigned salt = 1;
    for (size_t s = 0; s < sizeof skews / sizeof skews[0]; s++)
        for (size_t f = 0; f < sizeof froms / sizeof froms[0]; f++)
            for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
                for (int bounced = 0; bounced < 2; bounced++, salt++) {
                    size_t len = lens[l], from = froms[f];
                    unsigned char *at = mine + 4096 + skews[s];
                    uint64_t remote = (uint64_t)(uintptr_t)(theirs + from);
                    /* a read of the child's original bytes */
                    memset(mine, 0xee, SPAN + 2 * 4096);
                    assert_int_equal(copy(bounced, at, remote, len, 0), TW_OK);
                    for (size_t i = 0; i < len; i++)
                        if (at[i] != byte_at(from + i, 0))
                            fail_msg("read: byte %zu of %zu (skew %zu, %s)", i, len, skews[s],
                                     bounced ? "bounced" : "straight");
                    for (size_t i = 1; i <= GUARD; i++)
                        assert_true(at[-(ptrdiff_t)i] == 0xee && at[len - 1 + i] == 0xee);
                    /* a write of new bytes, read back with the guards around them */
                    for (size_t i = 0; i < len; i++) at[i] = byte_at(from + i, salt);
                    assert_int_equal(copy(bounced, at, remote, len, 1), TW_OK);
                    unsigned char *back = malloc(len + 2 * GUARD);
                    assert_non_null(back);
                    size_t lo = from >= GUARD ? GUARD : from;
                    assert_int_equal(copy(0, back, remote - lo, len + lo + GUARD, 0), TW_OK);
                    for (size_t i = 0; i < len; i++)
                        if (back[lo + i] != byte_at(from + i, salt))
                            fail_msg("write: byte %zu of %zu (skew %zu, %s)", i, len, skews[s],
                                     bounced ? "bounced" : "straight");
                    for (size_t i = 0; i < lo; i++)
                        assert_int_equal(back[i], byte_at(from - lo + i, 0));
                    for (size_t i = 0; i < GUARD; i++)
                        assert_int_equal(back[lo + len + i], byte_at(from + len + i, 0));
                    /* the child's bytes as they were, for the next case */
                    for (size_t i = 0; i < len; i++) at[i] = byte_at(from + i, 0);
                    assert_int_equal(copy(0, at, remote, len, 1), TW_OK);
                    free(back);
                }
    free(mine);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_and_write_at_every_distance),
    };
    return cmocka_run_group_tests(tests, start, stop);
}
