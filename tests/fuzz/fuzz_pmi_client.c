/* Fuzz target of the library's PMI client reading what it is given: the process
 * manager's replies (tw_pmi_take_reply, src/runtime/pmi.c), the numbers in PMI_FD,
 * PMI_RANK and PMI_SIZE (tw_pmi_parse_number) and the job key and secret rank 0 hands
 * the other ranks through the key-value store (tw_job_key_parse, tw_job_secret_parse,
 * src/runtime/job.c).
 *
 * The input's first byte says what the rest is: 'N' a number from the environment,
 * 'K' a job key from the store, 'S' a job secret from the store (or TW_JOB_SECRET),
 * anything else the bytes the process manager sends,
 * arriving in pieces of sizes drawn from that first byte, while the client awaits the
 * replies of its start-up in turn (init, kvsname, put, barrier, two gets, finalize).
 *   - A reply is taken exactly when a whole line is there: the line and its '\n' go,
 *     the bytes after it stay in order; a full buffer without a line is refused.
 *   - It is accepted exactly when it is a well-formed line naming the reply awaited,
 *     and read as a failure exactly when its rc is there and not 0.
 *   - A number is accepted exactly when it is decimal (strtol's spaces and sign
 *     allowed) and from 0 to 2^30, with that value.
 *   - A job key is accepted exactly when it is 16 lowercase hex digits, the way rank 0
 *     writes it, and reads back as the same digits; a job secret likewise with 32. */
#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "runtime/job.h"
#include "runtime/pmi.h"

static long replies_taken, replies_refused, numbers_accepted, keys_accepted, secrets_accepted;

static void check_number(const char *s) {
    int v = -1, rc = tw_pmi_parse_number(s, &v);
    FUZZ_CHECK(rc == 0 || rc == -1);
    /* the format, read by hand: spaces, a sign, digits and nothing after them */
    const char *p = s;
    while (isspace((unsigned char)*p)) p++;
    int negative = *p == '-';
    if (*p == '-' || *p == '+') p++;
    size_t digits = strspn(p, "0123456789");
    long long value = 0;
    for (size_t i = 0; i < digits && value <= (1LL << 31); i++) value = value * 10 + (p[i] - '0');
    int expect =
        digits > 0 && p[digits] == '\0' && (value == 0 || !negative) && value <= (1LL << 30);
    FUZZ_CHECK((rc == 0) == expect);
    if (rc == 0) {
        FUZZ_CHECK(v == value);
        numbers_accepted++;
    }
}

static void check_job_key(const char *s) {
    uint64_t key = 0;
    int rc = tw_job_key_parse(s, &key);
    FUZZ_CHECK(rc == 0 || rc == -1);
    int expect = strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
    FUZZ_CHECK((rc == 0) == expect);
    if (rc == 0) {
        char again[17];
        snprintf(again, sizeof again, "%016" PRIx64, key);
        FUZZ_CHECK(strcmp(again, s) == 0);
        keys_accepted++;
    }
}

static void check_job_secret(const char *s) {
    unsigned char secret[TW_JOB_SECRET_SIZE] = {0};
    int rc = tw_job_secret_parse(s, secret);
    FUZZ_CHECK(rc == 0 || rc == -1);
    int expect = strlen(s) == 2 * TW_JOB_SECRET_SIZE && strspn(s, "0123456789abcdef") == strlen(s);
    FUZZ_CHECK((rc == 0) == expect);
    if (rc == 0) {
        char again[2 * TW_JOB_SECRET_SIZE + 1];
        for (int i = 0; i < TW_JOB_SECRET_SIZE; i++) snprintf(again + 2 * i, 3, "%02x", secret[i]);
        FUZZ_CHECK(strcmp(again, s) == 0);
        secrets_accepted++;
    }
}

/* The reply that line is, for a client awaiting expect: what tw_pmi_take_reply must say. */
static int expected_verdict(const char *line, size_t len, const char *expect) {
    static tw_pmi_msg_t m;
    if (tw_pmi_parse(&m, line, len)) return TW_PMI_REPLY_UNEXPECTED;
    const char *cmd = tw_pmi_find(&m, "cmd"), *rc = tw_pmi_find(&m, "rc");
    if (!cmd || strcmp(cmd, expect)) return TW_PMI_REPLY_UNEXPECTED;
    return rc && strcmp(rc, "0") ? TW_PMI_REPLY_FAILED : TW_PMI_REPLY_OK;
}

static void replies(const uint8_t *stream, size_t size, unsigned pace) {
    static const char *const awaited[] = {"response_to_init", "my_kvsname", "put_result",
                                          "barrier_out",      "get_result", "get_result",
                                          "finalize_ack"};
    static tw_pmi_t pmi;
    static tw_pmi_msg_t msg;
    static char before[sizeof pmi.inbuf];
    pmi.inlen = 0;
    size_t fed = 0;
    for (unsigned step = 0;;) {
        const char *expect = awaited[step % (sizeof awaited / sizeof awaited[0])];
        size_t had = pmi.inlen;
        memcpy(before, pmi.inbuf, had);
        const char *nl = memchr(before, '\n', had);
        int rc = tw_pmi_take_reply(&pmi, &msg, expect);
        if (!nl) {
            FUZZ_CHECK(pmi.inlen == had && memcmp(pmi.inbuf, before, had) == 0);
            if (had == sizeof pmi.inbuf) {
                FUZZ_CHECK(rc == TW_PMI_REPLY_TOO_LONG);
                return; /* the client gives up */
            }
            FUZZ_CHECK(rc == TW_PMI_REPLY_PARTIAL);
            if (fed == size) return; /* the connection ends */
            /* what one read() brings: a piece of the stream */
            pace = pace * 1103515245u + 12345u;
            size_t piece = 1 + (pace >> 16) % 600, room = sizeof pmi.inbuf - pmi.inlen;
            if (piece > room) piece = room;
            if (piece > size - fed) piece = size - fed;
            memcpy(pmi.inbuf + pmi.inlen, stream + fed, piece);
            pmi.inlen += piece;
            fed += piece;
            continue;
        }
        size_t len = (size_t)(nl - before);
        FUZZ_CHECK(pmi.inlen == had - len - 1);
        FUZZ_CHECK(memcmp(pmi.inbuf, before + len + 1, pmi.inlen) == 0);
        FUZZ_CHECK(rc == expected_verdict(before, len, expect));
        if (rc == TW_PMI_REPLY_UNEXPECTED) {
            replies_refused++;
            return; /* the client gives up */
        }
        replies_taken++;
        /* what the client then reads out of the reply */
        const char *value = tw_pmi_find(&msg, "value");
        if (value) {
            FUZZ_CHECK(value >= msg.buf && value < msg.buf + sizeof msg.buf);
            check_job_key(value);
            check_job_secret(value);
        }
        step++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    if (data[0] == 'N' || data[0] == 'K' || data[0] == 'S') {
        char *s = malloc(size);
        if (!s) abort();
        memcpy(s, data + 1, size - 1);
        s[size - 1] = '\0';
        if (data[0] == 'N')
            check_number(s);
        else if (data[0] == 'K')
            check_job_key(s);
        else
            check_job_secret(s);
        free(s);
        return 0;
    }
    replies(data + 1, size - 1, data[0]);
    return 0;
}

/* What a process manager sends (twrun's replies, MPICH's Hydra's), numbers and keys. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    static const char *const seeds[] = {
        ("Rcmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
         "cmd=my_kvsname rc=0 kvsname=tw-00c0ffee\n"
         "cmd=put_result rc=0 msg=success\n"
         "cmd=barrier_out\n"
         "cmd=get_result rc=0 value=0123456789abcdef msg=success\n"
         "cmd=get_result rc=0 value=shm:n~f0:/tw-00c0ffee-ep0-1,udp:10.0.0.2:4711 msg=success\n"
         "cmd=finalize_ack\n"),
        ("\x07"
         "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
         "cmd=my_kvsname rc=0 kvsname=kvs_4711_0\n"
         "cmd=put_result rc=-1 msg=duplicate_key\n"),
        ("Rcmd=response_to_init rc=0\ncmd=my_kvsname rc=0 kvsname=x\ncmd=put_result rc=0\n"
         "cmd=barrier_out\ncmd=get_result rc=-1 msg=key_not_found\n"),
        "Rcmd=error rc=-1 msg=malformed_line\n",
        "N4711",
        "N 1073741824",
        "N-0",
        "K0123456789abcdef",
        "Kffffffffffffffff",
        "S000102030405060708090a0b0c0d0e0f",
        "Sffffffffffffffffffffffffffffffff",
    };
    (void)rand32;
    return fuzz_seed_text(buf, cap, seeds[index % (sizeof seeds / sizeof seeds[0])]);
}

void fuzz_report(FILE *out) {
    fprintf(out,
            "; %ld replies taken, %ld refused, %ld numbers, %ld job keys and %ld secrets accepted",
            replies_taken, replies_refused, numbers_accepted, keys_accepted, secrets_accepted);
}
