/* The link table: every link's row complete for its kind, links found by name and by
 * the tag of an address field (an unknown tag finds none), and the mapped link's
 * field of an address read back, refused when malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "link/link.h"

static const tw_link_t *mapped_link(void) {
    for (unsigned i = 0; i < tw_links_count; i++)
        if (tw_links[i]->caps & TW_LINK_MAPPED) return tw_links[i];
    return NULL;
}

/* A new link brings every operation its kind needs, and a name that can tag a field
 * and be TW_LINK's value. */
static void test_rows_complete(void **state) {
    (void)state;
    assert_non_null(mapped_link());
    for (unsigned i = 0; i < tw_links_count; i++) {
        const tw_link_t *l = tw_links[i];
        size_t n = strlen(l->name);
        assert_true(n > 0 && n < 16 &&
                    strspn(l->name, "abcdefghijklmnopqrstuvwxyz0123456789") == n);
        assert_string_not_equal(l->name, "auto");
        for (unsigned j = 0; j < i; j++) assert_string_not_equal(l->name, tw_links[j]->name);
        assert_non_null(l->probe);
        if (l->caps & TW_LINK_MAPPED) {
            assert_true(l->hold && l->segment_name && l->segment_create && l->segment_map &&
                        l->segment_populate && l->segment_unmap && l->segment_unlink &&
                        l->segment_field && l->segment_of && l->copy);
        } else {
            assert_true(l->open && l->connect && l->velo_send && l->rma_request &&
                        l->rma_can_request && l->rma_chunk && l->rma_can_answer && l->rma_answer &&
                        l->poll && l->close && l->print_stats);
            assert_true(!l->ncounters || (l->counters && l->counter));
        }
    }
}

static void test_lookup(void **state) {
    (void)state;
    for (unsigned i = 0; i < tw_links_count; i++) {
        const tw_link_t *l = tw_links[i];
        char field[64], addr[160];
        assert_ptr_equal(tw_link_named(l->name, strlen(l->name)), l);
        assert_null(tw_link_named(l->name, strlen(l->name) - 1)); /* a prefix is no name */
        snprintf(field, sizeof field, "%sx:x:1", l->name);        /* a longer tag is another's */
        assert_null(tw_link_of_field(field));
        snprintf(field, sizeof field, "%s:x:1", l->name);
        assert_ptr_equal(tw_link_of_field(field), l);
        assert_ptr_equal(tw_link_field(field, l), field); /* the first field */
        snprintf(addr, sizeof addr, "nolink:a:b,%sx:y,%s,other:c", l->name, field);
        const char *f = tw_link_field(addr, l);
        assert_non_null(f);
        assert_int_equal(strncmp(f, field, strlen(field)), 0);
    }
    /* a tag no link has, and fields without a tag, find nothing */
    assert_null(tw_link_named("auto", 4));
    assert_null(tw_link_of_field("tcp:10.0.0.1:7000"));
    assert_null(tw_link_of_field("nocolon"));
    assert_null(tw_link_of_field(""));
    assert_null(tw_link_of_field(":x"));
    assert_null(tw_link_of_field("a,b:c")); /* the tag ends at the field's end */
    assert_null(tw_link_field("tcp:1:2,verbs:3", mapped_link()));
    assert_null(tw_link_field("", mapped_link()));
}

static tw_job_t job_on(const char *node) {
    tw_job_t job = {.rank = 0, .size = 2, .local_size = 2};
    snprintf(job.job_id, sizeof job.job_id, "0123456789abcdef");
    snprintf(job.node, sizeof job.node, "%s", node);
    return job;
}

/* The mapped link's field: written for a segment, read back on this node and on
 * another, refused when malformed; a field ends at the next ','. */
static void test_mapped_field(void **state) {
    (void)state;
    const tw_link_t *m = mapped_link();
    tw_job_t here = job_on("n1"), there = job_on("n2");
    char name[TW_LINK_SEGMENT_NAME_MAX], heap[TW_LINK_SEGMENT_NAME_MAX];
    m->segment_name(&here, 3, 0, 0, name, sizeof name);
    m->segment_name(&here, 3, 0, 7, heap, sizeof heap);
    assert_string_not_equal(name, heap); /* an endpoint's segment and its heap block differ */

    char field[256], addr[300], got[TW_LINK_SEGMENT_NAME_MAX];
    int n = m->segment_field(&here, name, field, sizeof field);
    assert_true(n > 0 && (size_t)n == strlen(field));
    assert_ptr_equal(tw_link_of_field(field), m);
    assert_int_equal(m->segment_field(&here, name, field, 4), -1); /* no room */
    n = m->segment_field(&here, name, field, sizeof field);
    assert_int_equal(m->segment_of(&here, field, got, sizeof got), 1);
    assert_string_equal(got, name);
    assert_int_equal(m->segment_of(&there, field, got, sizeof got), 0);
    snprintf(addr, sizeof addr, "%s,udp:127.0.0.1:1:2", field);
    assert_int_equal(m->segment_of(&here, addr, got, sizeof got), 1);
    assert_string_equal(got, name);
    assert_int_equal(m->segment_of(&here, field, got, strlen(name)), -1); /* too long */

    char bad[64];
    const char *tails[] = {"", ":", ":n1", ":n1:", ":n1:noslash", ":n1,:/x", "x:n1:/x"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        snprintf(bad, sizeof bad, "%s%s", m->name, tails[i]);
        if (m->segment_of(&here, bad, got, sizeof got) != -1) fail_msg("'%s' was taken", bad);
    }
    assert_int_equal(m->segment_of(&here, "tcp:n1:/x", got, sizeof got), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_complete),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_mapped_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
