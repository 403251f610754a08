/* Fuzz target of the PMI-1 line codec (src/runtime/pmi_wire.c), which both the
 * library's client and twrun's server use on every line the other side sends.
 *
 * The input is one line. tw_pmi_parse must agree with a plain reading of the format
 * (tokens separated by spaces, each key=value with a non-empty key, printable ASCII
 * only, at most TW_PMI_TOKENS tokens, shorter than TW_PMI_LINE_MAX); what it accepts
 * must read back the same through tw_pmi_find and survive being written out and
 * parsed again; and tw_pmi_token_ok must agree with its own rules. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "runtime/pmi_wire.h"

static long accepted, refused;

/* The line as the format describes it: token spans, or -1 when it is not a line. */
typedef struct span {
    size_t key, key_len, value, value_len;
} span_t;

static int reference_parse(const uint8_t *s, size_t len, span_t *spans) {
    if (len >= TW_PMI_LINE_MAX) return -1;
    for (size_t i = 0; i < len; i++)
        if (s[i] < 0x20 || s[i] > 0x7e) return -1;
    int count = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] == ' ') {
            i++;
            continue;
        }
        size_t start = i, eq = 0;
        int has_eq = 0;
        while (i < len && s[i] != ' ') {
            if (s[i] == '=' && !has_eq) {
                has_eq = 1;
                eq = i;
            }
            i++;
        }
        if (!has_eq || eq == start || count == TW_PMI_TOKENS) return -1;
        spans[count++] = (span_t){start, eq - start, eq + 1, i - eq - 1};
    }
    return count > 0 ? count : -1;
}

static int reference_token_ok(const char *s, size_t max, int is_key) {
    size_t n = 0;
    while (n < max && s[n]) n++;
    if (n == 0 || n == max) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c > '~' || (is_key && c == '=')) return 0;
    }
    return 1;
}

static void check_token_ok(const char *s) {
    static const size_t maxes[] = {1, 2, 8, TW_PMI_KEY_MAX, TW_PMI_VALUE_MAX};
    for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++)
        for (int is_key = 0; is_key < 2; is_key++)
            FUZZ_CHECK(!!tw_pmi_token_ok(s, maxes[i], is_key) ==
                       reference_token_ok(s, maxes[i], is_key));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static tw_pmi_msg_t msg, again;
    span_t spans[TW_PMI_TOKENS];
    int expect = reference_parse(data, size, spans);
    int rc = tw_pmi_parse(&msg, (const char *)data, size);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK((rc == 0) == (expect > 0));

    /* the input as a C string, for the token rules */
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    check_token_ok(text);
    free(text);

    if (rc) {
        refused++;
        return 0;
    }
    accepted++;
    FUZZ_CHECK(msg.count == expect);
    const char *end = msg.buf + sizeof msg.buf;
    for (int i = 0; i < msg.count; i++) {
        const tw_pmi_token_t *t = &msg.tokens[i];
        /* each token is the span of the line the format gives, copied into msg.buf */
        FUZZ_CHECK(t->key >= msg.buf && t->key < end && t->value >= msg.buf && t->value < end);
        FUZZ_CHECK(strlen(t->key) == spans[i].key_len && strlen(t->value) == spans[i].value_len);
        FUZZ_CHECK(memcmp(t->key, data + spans[i].key, spans[i].key_len) == 0);
        FUZZ_CHECK(memcmp(t->value, data + spans[i].value, spans[i].value_len) == 0);
        FUZZ_CHECK(tw_pmi_token_ok(t->key, TW_PMI_KEY_MAX, 1) ==
                   (spans[i].key_len < TW_PMI_KEY_MAX));
        check_token_ok(t->key);
        check_token_ok(t->value);
        /* find gives the first token of that key */
        const char *found = tw_pmi_find(&msg, t->key);
        int first = i;
        for (int j = 0; j < i; j++)
            if (strcmp(msg.tokens[j].key, t->key) == 0) {
                first = j;
                break;
            }
        FUZZ_CHECK(found == msg.tokens[first].value);
    }
    FUZZ_CHECK(tw_pmi_find(&msg, "") == NULL);

    /* written out as a sender would, the tokens read back the same */
    char line[TW_PMI_LINE_MAX + 1];
    size_t n = 0;
    for (int i = 0; i < msg.count; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s=%s", i ? " " : "", msg.tokens[i].key,
                              msg.tokens[i].value);
    FUZZ_CHECK(n <= size && tw_pmi_parse(&again, line, n) == 0 && again.count == msg.count);
    for (int i = 0; i < msg.count; i++)
        FUZZ_CHECK(strcmp(again.tokens[i].key, msg.tokens[i].key) == 0 &&
                   strcmp(again.tokens[i].value, msg.tokens[i].value) == 0);
    return 0;
}

/* Lines both sides of the protocol send. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    static const char *const lines[] = {
        "cmd=init pmi_version=1 pmi_subversion=1",
        "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0",
        "cmd=get_maxes",
        "cmd=maxes rc=0 kvsname_max=256 keylen_max=256 vallen_max=1024",
        "cmd=get_my_kvsname",
        "cmd=my_kvsname rc=0 kvsname=tw-00c0ffee",
        ("cmd=put kvsname=tw-00c0ffee key=tw.ep0.1 "
         "value=shm:node~f0:/tw-00c0ffee-ep0-1,udp:10.0.0.2:4711"),
        "cmd=put_result rc=0 msg=success",
        "cmd=barrier_in",
        "cmd=get kvsname=tw-00c0ffee key=tw.jobkey",
        "cmd=get_result rc=0 value=0123456789abcdef msg=success",
        "cmd=get_result rc=-1 msg=key_not_found",
        "cmd=abort exitcode=3",
        "  cmd=error rc=-1  msg=malformed_line ",
    };
    (void)rand32;
    return fuzz_seed_text(buf, cap, lines[index % (sizeof lines / sizeof lines[0])]);
}

void fuzz_report(FILE *out) {
    fprintf(out, "; %ld lines accepted, %ld refused, all as the format says", accepted, refused);
}
