/* Every RMA operation with every notification combination it allows, rank 0 the
 * initiator and rank 1 the target: data checked byte for byte (with guard bytes
 * around it) at the side where it lands, every notification checked field by
 * field, and exactly the asked-for notifications at each side — nothing more.
 * Sizes from 1 byte to 64 MiB, to shared-heap memory and to ordinary registered
 * memory, from unaligned local buffers and to unaligned remote offsets. Then
 * ordering (the last of 1000 puts to one word wins; data is in place before its
 * completer notification) and every bad argument answered with its error code.
 * Each round is a handshake: the target prepares its memory and says READY, the
 * initiator runs the operation, takes its own notifications, flushes, checks its
 * queue is empty and says DONE; only then does the target look at its queue. The
 * target waits inside tw_velo_poll, so it serves pipelined copies meanwhile. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "mp_rma.h"

#define BIG     ((size_t)64 << 20)
#define MID     (((size_t)1 << 20) + 3)
#define GUARD   64
#define MEMLEN  (BIG + 3 * 4096)
#define LOCALEN (BIG + 4 * GUARD + 64)

enum { TAG_REGIONS = 1, TAG_READY, TAG_DONE };
enum { MEM_HEAP, MEM_REG, MEM_LOCK };
static const char *const mem_name[] = {"heap", "reg", "lock"};

/* Word offsets in the target's heap block for the atomic series: a width-8 word
 * and a width-4 word that is 4- but not 8-aligned, with guard bytes around both. */
#define ATOM8_OFF    128
#define ATOM4_OFF    140
#define ATOM_WIN_OFF 112
#define ATOM_WIN_LEN 48

static uint64_t width_mask(unsigned width) {
    return width == 4 ? 0xffffffffu : UINT64_MAX;
}

static int64_t as_signed(uint64_t v, unsigned width) {
    return width == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* The reference semantics of tw_atomic_op_t on a word of the given width. */
static uint64_t model_atomic(unsigned width, int op, uint64_t *word, uint64_t a, uint64_t b,
                             int *ok) {
    uint64_t m = width_mask(width), old = *word & m;
    a &= m;
    b &= m;
    *ok = 0;
    switch (op) {
    case TW_ATOMIC_FCAA:
        if (as_signed(old, width) <= as_signed(a, width)) *word = (old + b) & m, *ok = 1;
        break;
    case TW_ATOMIC_FADD:
        *word = (old + a) & m;
        break;
    case TW_ATOMIC_CAS:
        if (old == a) *word = b, *ok = 1;
        break;
    case TW_ATOMIC_SWAP:
        *word = a;
        break;
    }
    return old;
}

typedef struct round {
    int op; /* tw_op_t */
    unsigned notify;
    size_t len; /* bytes; immediate length; atomic width */
    int mem;
    size_t loff, roff; /* local misalignment, remote offset */
    int aop;
    uint64_t a, b, want_old;
    int want_ok;
    uint64_t value;       /* immediate and notification put */
    int first_atomic;     /* the target resets its atomic words first */
    uint64_t model_after; /* the heap word after the atomic */
} round_t;

typedef struct done_msg {
    uint64_t round;
    int32_t rc;
} done_msg_t;

typedef struct ctx {
    tw_ep_t *ep;
    int rank;
    tw_region_t region[3]; /* the target's heap block, registered buffer, lock word */
    unsigned char *mem[2]; /* rank 1: the heap block and the registered buffer */
    unsigned char *local;  /* rank 0: source of puts, destination of gets */
    uint64_t round;
} ctx_t;

static void describe(const ctx_t *c, const round_t *r) {
    snprintf(where, sizeof where,
             "round %llu: %s notify %u len %zu mem %s loff %zu roff %zu aop %d a %#llx b %#llx",
             (unsigned long long)c->round, op_name(r->op), r->notify, r->len, mem_name[r->mem],
             r->loff, r->roff, r->aop, (unsigned long long)r->a, (unsigned long long)r->b);
}

/* The notifications one side expects, matched by class in any order. */
typedef struct want {
    unsigned cls;
    int seen;
} want_t;

static void take_notifications(const ctx_t *c, const round_t *r, int rc, int initiator) {
    want_t want[3];
    int nwant = 0;
    if (rc == TW_OK) {
        switch (r->op) {
        case TW_OP_PUT:
        case TW_OP_PUT_IMM:
        case TW_OP_NOTIFY_PUT:
            if (initiator && (r->notify & REQ)) want[nwant++] = (want_t){REQ, 0};
            if (!initiator && ((r->notify & COMP) || r->op == TW_OP_NOTIFY_PUT))
                want[nwant++] = (want_t){COMP, 0};
            break;
        case TW_OP_GET:
        case TW_OP_ATOMIC:
            if (initiator && (r->notify & REQ)) want[nwant++] = (want_t){REQ, 0};
            if (initiator && (r->notify & COMP)) want[nwant++] = (want_t){COMP, 0};
            if (!initiator && (r->notify & RESP)) want[nwant++] = (want_t){RESP, 0};
            break;
        }
    }
    uint64_t length = r->op == TW_OP_NOTIFY_PUT ? 0 : r->len;
    uint64_t nla = c->region[r->mem].nla + r->roff;
    for (int k = 0; k < nwant; k++) {
        tw_notification_t n;
        nq_next(c->ep, &n);
        int match = -1;
        for (int j = 0; j < nwant; j++)
            if (!want[j].seen && want[j].cls == n.cls) match = j;
        if (match < 0) print_notification("notification of a class not asked for", &n);
        CHECK(match >= 0);
        want[match].seen = 1;
        if (n.op != r->op || n.status != TW_OK || n.peer != (initiator ? 1 : 0) ||
            n.length != length || n.cookie != c->round)
            print_notification("notification", &n);
        CHECK(n.op == r->op);
        CHECK(n.status == TW_OK);
        CHECK(n.peer == (initiator ? 1 : 0));
        CHECK(n.length == length);
        CHECK(n.cookie == c->round);
        if (r->op != TW_OP_NOTIFY_PUT) CHECK(n.nla == nla);
        if (r->op == TW_OP_NOTIFY_PUT && n.cls == COMP) CHECK(n.value == r->value);
        if (r->op == TW_OP_PUT_IMM && n.cls == COMP) {
            /* the value as given, or its low len bytes (the bytes written) */
            uint64_t low = r->len == 8 ? r->value : r->value & ((1ull << (8 * r->len)) - 1);
            CHECK(n.value == r->value || n.value == low);
        }
        if (r->op == TW_OP_ATOMIC && n.cls == COMP) {
            /* width 4: the old 32-bit value (how it is widened is not specified) */
            CHECK((n.value & width_mask((unsigned)r->len)) == r->want_old);
            if (r->aop == TW_ATOMIC_FCAA || r->aop == TW_ATOMIC_CAS) CHECK(n.success == r->want_ok);
        }
    }
    nq_empty(c->ep);
}

static unsigned char background(uint64_t round) {
    return (unsigned char)(0x41 + round % 151);
}

static void target_prepare(ctx_t *c, const round_t *r) {
    if (r->mem == MEM_LOCK) return;
    unsigned char *m = c->mem[r->mem];
    unsigned char bg = background(c->round);
    switch (r->op) {
    case TW_OP_PUT:
    case TW_OP_PUT_IMM:
        memset(m + r->roff - GUARD, bg, r->len + 2 * GUARD);
        break;
    case TW_OP_GET:
        memset(m + r->roff - GUARD, bg, GUARD);
        fill_pattern(m + r->roff, r->len, c->round);
        memset(m + r->roff + r->len, bg, GUARD);
        break;
    case TW_OP_ATOMIC:
        if (r->first_atomic) {
            memset(m + ATOM_WIN_OFF, 0xc3, ATOM_WIN_LEN);
            memset(m + (r->len == 8 ? ATOM8_OFF : ATOM4_OFF), 0, r->len);
        }
        break;
    }
}

static void target_check(ctx_t *c, const round_t *r, int rc) {
    if (r->mem == MEM_LOCK) return;
    unsigned char *m = c->mem[r->mem];
    unsigned char bg = background(c->round);
    switch (r->op) {
    case TW_OP_PUT:
        CHECK(all_bytes(m + r->roff - GUARD, GUARD, bg));
        if (rc == TW_OK) {
            size_t bad = check_pattern(m + r->roff, r->len, c->round);
            if (bad != r->len) fprintf(stderr, "rank 1: put data differs at byte %zu\n", bad);
            CHECK(bad == r->len);
        }
        CHECK(all_bytes(m + r->roff + r->len, GUARD, bg));
        break;
    case TW_OP_PUT_IMM:
        CHECK(all_bytes(m + r->roff - GUARD, GUARD, bg));
        for (size_t i = 0; i < r->len; i++)
            CHECK(m[r->roff + i] == (unsigned char)(r->value >> (8 * i)));
        CHECK(all_bytes(m + r->roff + r->len, GUARD, bg));
        break;
    case TW_OP_GET: /* the source is left as it was */
        CHECK(all_bytes(m + r->roff - GUARD, GUARD, bg));
        CHECK(check_pattern(m + r->roff, r->len, c->round) == r->len);
        CHECK(all_bytes(m + r->roff + r->len, GUARD, bg));
        break;
    case TW_OP_ATOMIC: {
        size_t off = r->len == 8 ? ATOM8_OFF : ATOM4_OFF;
        uint64_t v = 0;
        memcpy(&v, m + off, r->len);
        CHECK(v == r->model_after);
        CHECK(all_bytes(m + ATOM_WIN_OFF, off - ATOM_WIN_OFF, 0xc3));
        CHECK(all_bytes(m + off + r->len, ATOM_WIN_OFF + ATOM_WIN_LEN - off - r->len, 0xc3));
        break;
    }
    }
}

static int initiator_issue(ctx_t *c, const round_t *r, unsigned char *buf, uint64_t *fetched) {
    const tw_region_t *reg = &c->region[r->mem];
    uint64_t nla = reg->nla + r->roff;
    switch (r->op) {
    case TW_OP_PUT:
        return tw_put(c->ep, 1, buf, r->len, nla, reg->key, r->notify, c->round);
    case TW_OP_GET:
        return tw_get(c->ep, 1, buf, r->len, nla, reg->key, r->notify, c->round);
    case TW_OP_PUT_IMM:
        return tw_put_imm(c->ep, 1, r->value, r->len, nla, reg->key, r->notify, c->round);
    case TW_OP_NOTIFY_PUT:
        return tw_notify_put(c->ep, 1, r->value, r->notify, c->round);
    case TW_OP_ATOMIC:
        return tw_atomic(c->ep, 1, (tw_atomic_op_t)r->aop, (unsigned)r->len, nla, reg->key, r->a,
                         r->b, fetched, r->notify, c->round);
    }
    return TW_ERR_ARG;
}

static void run_round(ctx_t *c, round_t *r) {
    c->round++;
    describe(c, r);
    if (c->rank == 1) {
        target_prepare(c, r);
        send_msg(c->ep, 0, TAG_READY, &c->round, sizeof c->round);
        done_msg_t done;
        recv_msg(c->ep, TAG_DONE, &done, sizeof done);
        CHECK(done.round == c->round);
        take_notifications(c, r, done.rc, 0);
        target_check(c, r, done.rc);
        return;
    }
    uint64_t ready;
    recv_msg(c->ep, TAG_READY, &ready, sizeof ready);
    CHECK(ready == c->round);
    unsigned char *buf = c->local + 2 * GUARD + r->loff;
    unsigned char bg = background(c->round);
    if (r->op == TW_OP_PUT) fill_pattern(buf, r->len, c->round);
    if (r->op == TW_OP_GET) memset(buf - GUARD, bg, r->len + 2 * GUARD);
    uint64_t fetched = 0x5a5a5a5a5a5a5a5aull;
    int rc;
    while ((rc = initiator_issue(c, r, buf, &fetched)) == TW_RETRY) sched_yield();
    if (r->len == 0 && (r->op == TW_OP_PUT || r->op == TW_OP_GET))
        CHECK(rc == TW_OK || rc == TW_ERR_ARG); /* an empty transfer may be refused */
    else
        CHECK_RC(rc, TW_OK);
    take_notifications(c, r, rc, 1);
    /* The requester notification frees the source buffer: scribbling on it now must
     * not change what the target receives. */
    if (r->op == TW_OP_PUT && (r->notify & REQ)) memset(buf, 0xee, r->len);
    CHECK_RC(tw_rma_flush(c->ep, 1), TW_OK);
    nq_empty(c->ep);
    if (r->op == TW_OP_GET) {
        CHECK(all_bytes(buf - GUARD, GUARD, bg));
        if (rc == TW_OK) {
            size_t bad = check_pattern(buf, r->len, c->round);
            if (bad != r->len) fprintf(stderr, "rank 0: get data differs at byte %zu\n", bad);
            CHECK(bad == r->len);
        }
        CHECK(all_bytes(buf + r->len, GUARD, bg));
    }
    if (r->op == TW_OP_ATOMIC) CHECK((fetched & width_mask((unsigned)r->len)) == r->want_old);
    done_msg_t done = {c->round, rc};
    send_msg(c->ep, 1, TAG_DONE, &done, sizeof done);
}

static const unsigned put_combos[] = {0, REQ, COMP, REQ | COMP};
static const unsigned get_combos[] = {0, REQ, COMP, RESP, COMP | RESP, REQ | COMP | RESP};
#define NPUT (sizeof put_combos / sizeof put_combos[0])
#define NGET (sizeof get_combos / sizeof get_combos[0])

/* The largest transfer: BIG, or the program's argument (a slow link takes less). */
static size_t big_len = BIG;

static void transfers(ctx_t *c) {
    static const size_t sizes[] = {1, 7, 8, 4096, 4097};
    static const size_t roffs[] = {GUARD, GUARD + 1, GUARD + 4095};
    int k = 0;
    for (int op = TW_OP_PUT; op <= TW_OP_GET; op++) {
        const unsigned *combos = op == TW_OP_PUT ? put_combos : get_combos;
        size_t ncombos = op == TW_OP_PUT ? NPUT : NGET;
        for (size_t ci = 0; ci < ncombos; ci++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                for (int mem = MEM_HEAP; mem <= MEM_REG; mem++, k++) {
                    round_t r = {.op = op,
                                 .notify = combos[ci],
                                 .len = sizes[si],
                                 .mem = mem,
                                 .loff = (size_t)(k % 4) * 3,
                                 .roff = roffs[k % 3]};
                    run_round(c, &r);
                }
        /* Empty transfers: refused as an argument error, or carried out with
         * notifications of length 0. */
        for (int mem = MEM_HEAP; mem <= MEM_REG; mem++) {
            round_t r = {.op = op,
                         .notify = op == TW_OP_PUT ? REQ | COMP : REQ | COMP | RESP,
                         .len = 0,
                         .mem = mem,
                         .roff = GUARD};
            run_round(c, &r);
        }
        /* Large ones, which the device splits: the fullest combination, and none. */
        for (int mem = MEM_HEAP; mem <= MEM_REG; mem++)
            for (int big = 0; big < 2; big++, k++) {
                unsigned all = op == TW_OP_PUT ? REQ | COMP : REQ | COMP | RESP;
                round_t r = {.op = op,
                             .notify = big ? (mem ? 0 : all) : (mem ? all : COMP),
                             .len = big ? big_len : MID,
                             .mem = mem,
                             .loff = mem ? 1 : 0,
                             .roff = GUARD + (size_t)mem * 4093};
                run_round(c, &r);
            }
    }
}

static void immediates(ctx_t *c) {
    static const size_t lens[] = {1, 2, 4, 8};
    int k = 0;
    for (size_t li = 0; li < 4; li++)
        for (size_t ci = 0; ci < NPUT; ci++)
            for (int mem = MEM_HEAP; mem <= MEM_REG; mem++, k++) {
                /* high bytes set: only the low len bytes may be written */
                round_t r = {.op = TW_OP_PUT_IMM,
                             .notify = put_combos[ci],
                             .len = lens[li],
                             .mem = mem,
                             .roff = GUARD + (size_t)(k % 3),
                             .value = 0xf1e2d3c4b5a69788ull ^ ((uint64_t)k << 8)};
                run_round(c, &r);
            }
    for (size_t ci = 0; ci < NPUT; ci++) {
        round_t r = {.op = TW_OP_NOTIFY_PUT,
                     .notify = put_combos[ci],
                     .mem = MEM_HEAP,
                     .value = 0x0123456789abcdefull + ci};
        run_round(c, &r);
    }
}

/* One series of atomics on one word, every operation and outcome, checked against
 * the model; the word ends at 0 (a lock word is left as it was found). */
static void atomics(ctx_t *c) {
    int k = 0;
    for (int mem = MEM_HEAP; mem <= MEM_LOCK; mem += MEM_LOCK - MEM_HEAP)
        for (unsigned width = 8; width >= 4; width -= 4) {
            /* width 4: a and b are 32-bit; the high halves must be ignored */
            uint64_t junk = width == 4 ? 0xa5a5a5a500000000ull : 0;
            uint64_t m = width_mask(width), word = 0;
            uint64_t int_max = width == 4 ? INT32_MAX : INT64_MAX;
            struct {
                int op;
                uint64_t a, b;
            } steps[] = {
                {TW_ATOMIC_SWAP, 0x1122334455667788ull, 0},
                {TW_ATOMIC_FADD, 5, 0},
                {TW_ATOMIC_FCAA, 0, 1},                  /* positive > 0: fails */
                {TW_ATOMIC_CAS, 0, 7},                   /* a filled in: wrong value, fails */
                {TW_ATOMIC_CAS, 0, m & ~0xfull},         /* a filled in: succeeds, now -16 */
                {TW_ATOMIC_FCAA, 5, 3},                  /* -16 <= 5 only as a signed compare */
                {TW_ATOMIC_FCAA, (uint64_t)-20, 1},      /* -13 <= -20 is false */
                {TW_ATOMIC_FCAA, int_max, (uint64_t)-5}, /* fetch-and-add as FCAA */
                {TW_ATOMIC_FADD, m, 0},                  /* adding all ones wraps: minus one */
                {TW_ATOMIC_SWAP, 0, 0},
                {TW_ATOMIC_FADD, 0, 0}, /* fetch only */
            };
            size_t nsteps = sizeof steps / sizeof steps[0];
            for (size_t s = 0; s < nsteps; s++, k++) {
                uint64_t a = steps[s].a, b = steps[s].b;
                if (s == 3) a = word + 1;
                if (s == 4) a = word;
                round_t r = {.op = TW_OP_ATOMIC,
                             .notify = get_combos[k % NGET],
                             .len = width,
                             .mem = mem,
                             .aop = steps[s].op,
                             .a = a | junk,
                             .b = b | junk,
                             .first_atomic = s == 0};
                r.roff = mem == MEM_LOCK ? 0 : width == 8 ? ATOM8_OFF : ATOM4_OFF;
                r.want_old = model_atomic(width, r.aop, &word, a, b, &r.want_ok);
                r.model_after = word;
                run_round(c, &r);
            }
            CHECK(word == 0);
            if (mem == MEM_LOCK) c->region[MEM_LOCK].nla = tw_lock_nla(9); /* fresh for width 4 */
        }
}

/* 1000 puts (and then 1000 immediate puts) of increasing values to one word, only
 * the last asking for a completer notification: it must find the last value. */
static void same_word(ctx_t *c, int mem) {
    enum { N = 1000 };
    const tw_region_t *reg = &c->region[mem];
    size_t off = 256;
    snprintf(where, sizeof where, "1000 puts to one word of %s", mem_name[mem]);
    if (c->rank == 1) {
        for (int pass = 0; pass < 2; pass++) {
            memset(c->mem[mem] + off, 0, 8);
            send_msg(c->ep, 0, TAG_READY, &c->round, sizeof c->round);
            tw_notification_t n;
            nq_next(c->ep, &n);
            CHECK(n.cls == COMP && n.status == TW_OK && n.cookie == N - 1);
            CHECK(n.op == (pass ? TW_OP_PUT_IMM : TW_OP_PUT));
            uint64_t v;
            memcpy(&v, c->mem[mem] + off, 8);
            CHECK(v == (pass ? 2000u : 1000u));
            done_msg_t done;
            recv_msg(c->ep, TAG_DONE, &done, sizeof done);
            nq_empty(c->ep);
        }
        return;
    }
    uint64_t *vals = malloc(N * sizeof *vals);
    CHECK(vals);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t ready;
        recv_msg(c->ep, TAG_READY, &ready, sizeof ready);
        for (unsigned i = 0; i < N; i++) {
            unsigned notify = i == N - 1 ? COMP : 0;
            vals[i] = i + 1 + (uint64_t)pass * 1000;
            int rc;
            do {
                rc = pass ? tw_put_imm(c->ep, 1, vals[i], 8, reg->nla + off, reg->key, notify, i)
                          : tw_put(c->ep, 1, &vals[i], 8, reg->nla + off, reg->key, notify, i);
                if (rc == TW_RETRY) sched_yield();
            } while (rc == TW_RETRY);
            CHECK_RC(rc, TW_OK);
        }
        CHECK_RC(tw_rma_flush(c->ep, 1), TW_OK);
        nq_empty(c->ep);
        done_msg_t done = {0, TW_OK};
        send_msg(c->ep, 1, TAG_DONE, &done, sizeof done);
    }
    free(vals);
}

/* A stream of puts of assorted lengths to distinct places, each with a completer
 * notification: when the target sees a notification, that put's data is there. */
static void stream(ctx_t *c, int mem) {
    enum { N = 200 };
    size_t off[N + 1], len[N];
    off[0] = GUARD;
    for (int i = 0; i < N; i++) {
        len[i] = 1 + (size_t)(i * 997) % 9000;
        if (i % 50 == 7) len[i] = 200000 + (size_t)i;
        off[i + 1] = off[i] + len[i] + (size_t)i % 5;
    }
    CHECK(off[N] < MEMLEN);
    snprintf(where, sizeof where, "stream of puts to %s", mem_name[mem]);
    if (c->rank == 1) {
        memset(c->mem[mem], 0, off[N]);
        send_msg(c->ep, 0, TAG_READY, &c->round, sizeof c->round);
        for (int i = 0; i < N; i++) {
            tw_notification_t n;
            nq_next(c->ep, &n);
            CHECK(n.cls == COMP && n.op == TW_OP_PUT && n.status == TW_OK && n.peer == 0);
            CHECK(n.cookie == (uint64_t)i); /* in order */
            CHECK(n.length == len[i]);
            CHECK(n.nla == c->region[mem].nla + off[i]);
            CHECK(check_pattern(c->mem[mem] + off[i], len[i], 7000 + (uint64_t)i) == len[i]);
        }
        done_msg_t done;
        recv_msg(c->ep, TAG_DONE, &done, sizeof done);
        nq_empty(c->ep);
        return;
    }
    uint64_t ready;
    recv_msg(c->ep, TAG_READY, &ready, sizeof ready);
    for (int i = 0; i < N; i++) fill_pattern(c->local + off[i], len[i], 7000 + (uint64_t)i);
    for (int i = 0; i < N; i++) {
        int rc;
        while ((rc = tw_put(c->ep, 1, c->local + off[i], len[i], c->region[mem].nla + off[i],
                            c->region[mem].key, COMP, (uint64_t)i)) == TW_RETRY)
            sched_yield();
        CHECK_RC(rc, TW_OK);
    }
    CHECK_RC(tw_rma_flush(c->ep, 1), TW_OK);
    nq_empty(c->ep);
    done_msg_t done = {0, TW_OK};
    send_msg(c->ep, 1, TAG_DONE, &done, sizeof done);
}

/* Bad arguments: each refused with its code, and no notification anywhere. */
static void bad_arguments(ctx_t *c, int size) {
    snprintf(where, sizeof where, "bad arguments");
    if (c->rank == 1) {
        done_msg_t done;
        recv_msg(c->ep, TAG_DONE, &done, sizeof done);
        nq_empty(c->ep);
        return;
    }
    tw_ep_t *ep = c->ep;
    const tw_region_t *h = &c->region[MEM_HEAP];
    unsigned char buf[16] = {0};
    uint64_t f, nla = h->nla + GUARD, key = h->key;
    /* notification bits an operation does not allow, or that do not exist */
    CHECK_RC(tw_put(ep, 1, buf, 8, nla, key, RESP, 0), TW_ERR_ARG);
    CHECK_RC(tw_put(ep, 1, buf, 8, nla, key, REQ | RESP, 0), TW_ERR_ARG);
    CHECK_RC(tw_put(ep, 1, buf, 8, nla, key, 8, 0), TW_ERR_ARG);
    CHECK_RC(tw_get(ep, 1, buf, 8, nla, key, 8, 0), TW_ERR_ARG);
    CHECK_RC(tw_get(ep, 1, buf, 8, nla, key, 0x100 | COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_put_imm(ep, 1, 1, 8, nla, key, RESP, 0), TW_ERR_ARG);
    CHECK_RC(tw_put_imm(ep, 1, 1, 8, nla, key, COMP | 8, 0), TW_ERR_ARG);
    CHECK_RC(tw_notify_put(ep, 1, 1, RESP, 0), TW_ERR_ARG);
    CHECK_RC(tw_notify_put(ep, 1, 1, 8, 0), TW_ERR_ARG);
    CHECK_RC(tw_atomic(ep, 1, TW_ATOMIC_FADD, 8, nla, key, 1, 0, &f, 8, 0), TW_ERR_ARG);
    /* immediate lengths, atomic widths and operations */
    CHECK_RC(tw_put_imm(ep, 1, 1, 0, nla, key, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_put_imm(ep, 1, 1, 3, nla, key, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_put_imm(ep, 1, 1, 16, nla, key, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_atomic(ep, 1, TW_ATOMIC_FADD, 2, nla, key, 1, 0, &f, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_atomic(ep, 1, TW_ATOMIC_FADD, 16, nla, key, 1, 0, &f, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_atomic(ep, 1, (tw_atomic_op_t)0, 8, nla, key, 1, 0, &f, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_atomic(ep, 1, (tw_atomic_op_t)5, 8, nla, key, 1, 0, &f, COMP, 0), TW_ERR_ARG);
    /* missing buffers and endpoint */
    CHECK_RC(tw_put(ep, 1, NULL, 8, nla, key, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_get(ep, 1, NULL, 8, nla, key, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_put(NULL, 1, buf, 8, nla, key, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_get(NULL, 1, buf, 8, nla, key, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_put_imm(NULL, 1, 1, 8, nla, key, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_notify_put(NULL, 1, 1, 0, 0), TW_ERR_ARG);
    CHECK_RC(tw_atomic(NULL, 1, TW_ATOMIC_FADD, 8, nla, key, 1, 0, &f, COMP, 0), TW_ERR_ARG);
    CHECK_RC(tw_nq_poll(ep, NULL), TW_ERR_ARG);
    CHECK_RC(tw_rma_flush(NULL, -1), TW_ERR_ARG);
    int bad[] = {-1, size, INT_MAX, INT_MIN};
    /* an offer names a registration; on every link it is taken (TW_OK), and one whose put
     * never comes goes with its tw_dereg */
    tw_region_t none = {0}, offered;
    CHECK_RC(tw_offer_put(ep, 1, NULL), TW_ERR_ARG);
    CHECK_RC(tw_offer_put(NULL, 1, h), TW_ERR_ARG);
    CHECK_RC(tw_offer_put(ep, 1, &none), TW_ERR_ARG);
    CHECK_RC(tw_reg(ep, buf, sizeof buf, TW_PERM_WRITE, &offered), TW_OK);
    CHECK_RC(tw_offer_put(ep, 1, &offered), TW_OK);
    for (int i = 0; i < 4; i++) CHECK_RC(tw_offer_put(ep, bad[i], &offered), TW_ERR_RANK);
    CHECK_RC(tw_dereg(ep, &offered), TW_OK);
    /* ranks outside the job */
    for (int i = 0; i < 4; i++) {
        int d = bad[i];
        CHECK_RC(tw_put(ep, d, buf, 8, nla, key, REQ | COMP, 0), TW_ERR_RANK);
        CHECK_RC(tw_get(ep, d, buf, 8, nla, key, REQ | COMP | RESP, 0), TW_ERR_RANK);
        CHECK_RC(tw_put_imm(ep, d, 1, 8, nla, key, REQ | COMP, 0), TW_ERR_RANK);
        CHECK_RC(tw_notify_put(ep, d, 1, REQ, 0), TW_ERR_RANK);
        CHECK_RC(tw_atomic(ep, d, TW_ATOMIC_FADD, 8, tw_lock_nla(0), 0, 1, 0, &f, COMP, 0),
                 TW_ERR_RANK);
        if (d != -1) CHECK_RC(tw_rma_flush(ep, d), TW_ERR_RANK); /* -1 means every rank */
    }
    CHECK_RC(tw_rma_flush(ep, -2), TW_ERR_RANK);
    CHECK_RC(tw_rma_flush(ep, -1), TW_OK);
    nq_empty(ep);
    done_msg_t done = {0, TW_OK};
    send_msg(ep, 1, TAG_DONE, &done, sizeof done);
}

int main(int argc, char **argv) {
    atexit(print_where);
    if (argc > 1) big_len = strtoull(argv[1], NULL, 0);
    CHECK(big_len > MID && big_len <= BIG);
    ctx_t c = {0};
    CHECK_RC(tw_ep_open(&c.ep), TW_OK);
    c.rank = mp_rank = tw_ep_rank(c.ep);
    int size = tw_ep_size(c.ep);
    CHECK(size >= 2);
    if (c.rank == 1) {
        c.mem[MEM_HEAP] = tw_heap_alloc(c.ep, MEMLEN, &c.region[MEM_HEAP]);
        CHECK(c.mem[MEM_HEAP] != NULL);
        CHECK(c.region[MEM_HEAP].addr == c.mem[MEM_HEAP]);
        CHECK(c.region[MEM_HEAP].length == MEMLEN);
        CHECK(c.region[MEM_HEAP].perms == (TW_PERM_READ | TW_PERM_WRITE));
        c.mem[MEM_REG] = malloc(MEMLEN);
        CHECK(c.mem[MEM_REG] != NULL);
        CHECK_RC(
            tw_reg(c.ep, c.mem[MEM_REG], MEMLEN, TW_PERM_READ | TW_PERM_WRITE, &c.region[MEM_REG]),
            TW_OK);
        CHECK(c.region[MEM_REG].addr == c.mem[MEM_REG]);
        CHECK(c.region[MEM_REG].length == MEMLEN);
        send_msg(c.ep, 0, TAG_REGIONS, c.region, 2 * sizeof c.region[0]);
    } else if (c.rank == 0) {
        c.local = malloc(LOCALEN);
        CHECK(c.local != NULL);
        recv_msg(c.ep, TAG_REGIONS, c.region, 2 * sizeof c.region[0]);
    }
    c.region[MEM_LOCK] = (tw_region_t){.nla = tw_lock_nla(8), .key = 0};
    if (c.rank <= 1) {
        transfers(&c);
        immediates(&c);
        atomics(&c);
        for (int mem = MEM_HEAP; mem <= MEM_REG; mem++) {
            same_word(&c, mem);
            stream(&c, mem);
        }
        bad_arguments(&c, size);
        if (c.rank == 0) CHECK(tw_ep_stats(c.ep)->rma_ops > 0);
    }
    where[0] = 0;
    CHECK_RC(tw_ep_barrier(c.ep), TW_OK);
    if (c.rank == 1) {
        CHECK_RC(tw_dereg(c.ep, &c.region[MEM_REG]), TW_OK);
        CHECK_RC(tw_heap_free(c.ep, c.mem[MEM_HEAP]), TW_OK);
        free(c.mem[MEM_REG]);
    }
    free(c.local);
    CHECK_RC(tw_ep_barrier(c.ep), TW_OK);
    CHECK_RC(tw_ep_close(c.ep), TW_OK);
    return 0;
}
