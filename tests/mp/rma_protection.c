/* Protection: put, get, immediate put and atomics against a wrong key, an NLA past
 * the end or a length running past it, a deregistered region, a write to a
 * read-only and a read from a write-only registration, an unaligned atomic, and an
 * old NLA after the same memory was deregistered and registered again. Each must
 * give exactly one error notification to the initiator with the right status and
 * nothing at the target; the target's memory stays byte for byte as it was, the
 * initiator's get buffer and fetched word too, and the target's fault counter for
 * that status goes up by exactly one (the others not at all). Valid accesses to the
 * same regions, interleaved, show the faults are not the regions' fault.
 * Rank 0 initiates, rank 1 owns the memory; each case is a READY/DONE handshake. */
#include <stdint.h>
#include <string.h>

#include "mp_rma.h"

enum { TAG_REGIONS = 1, TAG_READY, TAG_DONE };

/* The owner's registrations. */
enum { RW, RO, WO, HEAP, HEAP_RO, HEAP_WO, ST, HST, OLD, NEW, ZERO, MAXNLA, LOCKS, NREG };
static const char *const reg_name[] = {"rw",      "read-only", "write-only", "heap", "heap-ro",
                                       "heap-wo", "stale",     "stale-heap", "old",  "new",
                                       "nla 0",   "nla max",   "locks"};
/* The owner's memory, compared with a copy after every case. */
enum { B_RW, B_RO, B_WO, B_HEAP, B_ST, B_RR, NBUF };
static const size_t buf_len[NBUF] = {65536, 65536, 65536, 8192, 4096, 4096};

enum { KEY_OWN, KEY_WRONG, KEY_NEW };

#define ANY_FAULT 1 /* as alt: any translation fault */

typedef struct fcase {
    int op; /* tw_op_t */
    int reg;
    int64_t off; /* from the region's NLA */
    size_t len;  /* bytes, immediate length or atomic width */
    int key;
    unsigned notify;
    int want; /* TW_OK for the valid accesses */
    int alt;  /* another acceptable fault, ANY_FAULT, or 0 */
} fcase_t;

typedef struct done_msg {
    uint64_t round;
    int32_t status;
} done_msg_t;

typedef struct ctx {
    tw_ep_t *ep;
    int rank;
    tw_region_t reg[NREG];
    unsigned char *buf[NBUF]; /* rank 1 */
    unsigned char *copy[NBUF];
    unsigned char *local; /* rank 0 */
    uint64_t round;
} ctx_t;

static int buf_of(int reg) {
    static const int map[NREG] = {B_RW, B_RO, B_WO, B_HEAP, B_HEAP, B_HEAP, B_ST,
                                  -1,   B_RR, B_RR, -1,     -1,     -1};
    return map[reg];
}

static uint64_t fault_count(const tw_ep_stats_t *s, int status) {
    switch (status) {
    case TW_ERR_KEY:
        return s->faults_key;
    case TW_ERR_BOUNDS:
        return s->faults_bounds;
    case TW_ERR_STALE:
        return s->faults_stale;
    case TW_ERR_PERM:
        return s->faults_perm;
    case TW_ERR_ALIGN:
        return s->faults_align;
    }
    return 0;
}

static const int fault_codes[] = {TW_ERR_KEY, TW_ERR_BOUNDS, TW_ERR_STALE, TW_ERR_PERM,
                                  TW_ERR_ALIGN};

static int acceptable(const fcase_t *f, int status) {
    if (status == f->want) return 1;
    if (f->alt == ANY_FAULT) /* an unaligned NLA: an atomic may fault on that first */
        return status == TW_ERR_KEY || status == TW_ERR_BOUNDS || status == TW_ERR_STALE ||
               (f->op == TW_OP_ATOMIC && status == TW_ERR_ALIGN);
    return f->alt != 0 && status == f->alt;
}

/* What a valid access does to the owner's memory, applied to its copy. */
static void apply_valid(ctx_t *c, const fcase_t *f, uint64_t round) {
    int b = buf_of(f->reg);
    unsigned char *m = c->copy[b] + f->off;
    if (f->op == TW_OP_PUT) fill_pattern(m, f->len, round);
    if (f->op == TW_OP_PUT_IMM)
        for (size_t i = 0; i < f->len; i++)
            m[i] = (unsigned char)(0xa1b2c3d4e5f60718ull >> (8 * i));
    if (f->op == TW_OP_ATOMIC) {
        uint64_t v;
        memcpy(&v, m, 8);
        v++;
        memcpy(m, &v, 8);
    }
}

static void run_case(ctx_t *c, const fcase_t *f) {
    c->round++;
    snprintf(where, sizeof where, "case %llu: %s on %s off %lld len %zu key %d notify %u want %s",
             (unsigned long long)c->round, op_name(f->op), reg_name[f->reg], (long long)f->off,
             f->len, f->key, f->notify, tw_strerror(f->want));
    if (c->rank == 1) {
        tw_ep_stats_t before = *tw_ep_stats(c->ep);
        send_msg(c->ep, 0, TAG_READY, &c->round, sizeof c->round);
        done_msg_t done;
        recv_msg(c->ep, TAG_DONE, &done, sizeof done);
        CHECK(done.round == c->round);
        nq_empty(c->ep); /* a fault tells only the initiator */
        if (done.status == TW_OK) apply_valid(c, f, c->round);
        for (int b = 0; b < NBUF; b++) {
            if (memcmp(c->buf[b], c->copy[b], buf_len[b]) != 0) {
                size_t i = 0;
                while (c->buf[b][i] == c->copy[b][i]) i++;
                fprintf(stderr, "rank 1: buffer %d changed at byte %zu\n", b, i);
            }
            CHECK(memcmp(c->buf[b], c->copy[b], buf_len[b]) == 0);
        }
        const tw_ep_stats_t *after = tw_ep_stats(c->ep);
        for (int k = 0; k < 5; k++) {
            uint64_t delta =
                fault_count(after, fault_codes[k]) - fault_count(&before, fault_codes[k]);
            if (delta != (fault_codes[k] == done.status))
                fprintf(stderr, "rank 1: fault counter for %s rose by %llu\n",
                        tw_strerror(fault_codes[k]), (unsigned long long)delta);
            CHECK(delta == (fault_codes[k] == done.status));
        }
        return;
    }
    uint64_t ready;
    recv_msg(c->ep, TAG_READY, &ready, sizeof ready);
    CHECK(ready == c->round);
    const tw_region_t *r = &c->reg[f->reg];
    uint64_t nla = r->nla + (uint64_t)f->off;
    uint64_t key = f->key == KEY_OWN   ? r->key
                   : f->key == KEY_NEW ? c->reg[NEW].key
                                       : r->key ^ 0x1000;
    unsigned char *buf = c->local + 64 + 3; /* unaligned, guarded */
    size_t span = f->len + 128;
    if (f->op == TW_OP_PUT)
        fill_pattern(buf, f->len, c->round);
    else
        memset(c->local, 0x5a, span);
    uint64_t fetched = 0x5a5a5a5a5a5a5a5aull;
    int rc;
    do {
        switch (f->op) {
        case TW_OP_PUT:
            rc = tw_put(c->ep, 1, buf, f->len, nla, key, f->notify, c->round);
            break;
        case TW_OP_GET:
            rc = tw_get(c->ep, 1, buf, f->len, nla, key, f->notify, c->round);
            break;
        case TW_OP_PUT_IMM:
            rc = tw_put_imm(c->ep, 1, 0xa1b2c3d4e5f60718ull, f->len, nla, key, f->notify, c->round);
            break;
        default:
            rc = tw_atomic(c->ep, 1, TW_ATOMIC_FADD, (unsigned)f->len, nla, key, 1, 0, &fetched,
                           f->notify, c->round);
            break;
        }
    } while (rc == TW_RETRY && (sched_yield(), 1));
    CHECK_RC(rc, TW_OK); /* posted: faults come as notifications */
    tw_notification_t n;
    nq_next(c->ep, &n);
    if (!acceptable(f, n.status) || n.op != f->op || n.peer != 1 || n.cookie != c->round ||
        n.nla != nla)
        print_notification("notification", &n);
    CHECK(acceptable(f, n.status));
    CHECK(n.op == f->op);
    CHECK(n.peer == 1);
    CHECK(n.cookie == c->round);
    CHECK(n.nla == nla);
    CHECK(n.cls == REQ || n.cls == COMP || n.cls == RESP);
    if (f->want == TW_OK) CHECK(n.cls == f->notify); /* the one asked for */
    CHECK_RC(tw_rma_flush(c->ep, 1), TW_OK);
    nq_empty(c->ep); /* exactly one, whatever was asked */
    if (f->op == TW_OP_GET) {
        if (n.status == TW_OK) {
            for (size_t i = 0; i < f->len; i++)
                CHECK(buf[i] == pat((size_t)f->off + i, 100 + B_RO));
            for (size_t i = 0; i < span; i++)
                if (i < 67 || i >= 67 + f->len) CHECK(c->local[i] == 0x5a);
        } else {
            for (size_t i = 0; i < span; i++) CHECK(c->local[i] == 0x5a);
        }
    }
    if (f->op == TW_OP_ATOMIC && n.status != TW_OK) CHECK(fetched == 0x5a5a5a5a5a5a5a5aull);
    if (f->op == TW_OP_ATOMIC && n.status == TW_OK) {
        uint64_t old = 0;
        for (int i = 7; i >= 0; i--) old = old << 8 | pat((size_t)f->off + (size_t)i, 100 + B_HEAP);
        CHECK(fetched == old);
        CHECK(n.value == old);
    }
    done_msg_t done = {c->round, n.status};
    send_msg(c->ep, 1, TAG_DONE, &done, sizeof done);
}

static void all_cases(ctx_t *c) {
    static const unsigned put_combos[] = {0, REQ, COMP, REQ | COMP};
    static const unsigned get_combos[] = {0, REQ, COMP, RESP, COMP | RESP, REQ | COMP | RESP};
    int k = 0;
    for (int op = TW_OP_PUT; op <= TW_OP_ATOMIC; op++) {
        if (op == TW_OP_NOTIFY_PUT) continue; /* names no memory */
        int atomic = op == TW_OP_ATOMIC;
        int writes = op != TW_OP_GET;
        size_t len = op == TW_OP_PUT_IMM || atomic ? 8 : 64;
        int base = atomic ? HEAP : RW;
        int64_t end = (int64_t)c->reg[base].length;
        fcase_t cases[] = {
            {op, base, 0, len, KEY_WRONG, 0, TW_ERR_KEY, 0},
            {op, base, end, atomic ? 8 : 1, KEY_OWN, 0, TW_ERR_BOUNDS, 0},
            {op, base, end + 4096, len, KEY_OWN, 0, TW_ERR_BOUNDS, 0},
            /* running past the end (for an atomic also unaligned: either fault) */
            {op, base, end - 4, len, KEY_OWN, 0, TW_ERR_BOUNDS, atomic ? TW_ERR_ALIGN : 0},
            {op, base, -1, len, KEY_OWN, 0, TW_ERR_BOUNDS, ANY_FAULT},
            {op, atomic ? HST : ST, 0, len, KEY_OWN, 0, TW_ERR_STALE, 0},
            {op, writes ? (atomic ? HEAP_RO : RO) : WO, 0, len, KEY_OWN, 0, TW_ERR_PERM, 0},
            /* an atomic reads too: write-only memory is never readable, a fetch-and-add of 0
             * included */
            {op, HEAP_WO, 0, len, KEY_OWN, 0, atomic ? TW_ERR_PERM : -1, 0},
            /* the old NLA of memory registered again: old key, and the new one */
            {op, OLD, 0, len, KEY_OWN, 0, TW_ERR_STALE, TW_ERR_KEY},
            {op, OLD, 0, len, KEY_NEW, 0, TW_ERR_STALE, TW_ERR_KEY},
            /* unaligned atomics on heap memory */
            {op, HEAP, 1, 4, KEY_OWN, 0, atomic ? TW_ERR_ALIGN : -1, 0},
            {op, HEAP, 4, 8, KEY_OWN, 0, atomic ? TW_ERR_ALIGN : -1, 0},
            {op, HEAP, 4094, 8, KEY_OWN, 0, atomic ? TW_ERR_ALIGN : -1, 0},
        };
        if (op == TW_OP_PUT) cases[0].len = cases[2].len = 4097; /* more than a page */
        if (op == TW_OP_PUT_IMM) cases[3].off = end - 2, cases[3].len = 4;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++, k++) {
            fcase_t *f = &cases[i];
            if (f->want == -1) continue;
            f->notify = atomic || op == TW_OP_GET ? get_combos[k % 6] : put_combos[k % 4];
            run_case(c, f);
        }
        /* valid accesses, each with one notification at the initiator */
        fcase_t valid[] = {
            {op, writes ? RW : RO, 100, len, KEY_OWN, atomic ? COMP : REQ, TW_OK, 0},
            {op, writes ? WO : RO, 0, len, KEY_OWN, COMP, TW_OK, 0},
            {op, writes ? NEW : RO, writes ? 8 : end - 64, len, KEY_OWN, COMP, TW_OK, 0},
        };
        if (writes) valid[0].off = end - (int64_t)len;
        if (op == TW_OP_PUT || op == TW_OP_PUT_IMM) valid[0].notify = valid[1].notify = REQ;
        if (op == TW_OP_PUT || op == TW_OP_PUT_IMM) valid[2].notify = REQ;
        for (size_t i = 0; i < 3; i++) {
            if (atomic && i > 0) break; /* atomics work on the heap only */
            if (atomic) valid[i].reg = HEAP;
            run_case(c, &valid[i]);
        }
        /* made-up NLAs: no such registration, or an NLA at the very top */
        fcase_t made_up[] = {
            {op, ZERO, 0, len, KEY_WRONG, 0, TW_ERR_STALE, ANY_FAULT},
            {op, MAXNLA, 0, atomic ? 8 : 1, KEY_WRONG, 0, TW_ERR_BOUNDS, ANY_FAULT},
        };
        for (size_t i = 0; i < 2; i++, k++) {
            made_up[i].notify = atomic || op == TW_OP_GET ? get_combos[k % 6] : put_combos[k % 4];
            run_case(c, &made_up[i]);
        }
    }
    /* the lock region: past its end, and unaligned */
    const int64_t lock_end = TW_LOCKS * 8;
    fcase_t locks[] = {
        {TW_OP_ATOMIC, LOCKS, lock_end, 8, KEY_OWN, COMP, TW_ERR_BOUNDS, 0},
        {TW_OP_ATOMIC, LOCKS, lock_end - 4, 8, KEY_OWN, 0, TW_ERR_BOUNDS, TW_ERR_ALIGN},
        {TW_OP_ATOMIC, LOCKS, 4, 8, KEY_OWN, RESP, TW_ERR_ALIGN, 0},
        {TW_OP_ATOMIC, LOCKS, 2, 4, KEY_OWN, COMP | RESP, TW_ERR_ALIGN, 0},
    };
    for (size_t i = 0; i < 4; i++) run_case(c, &locks[i]);
}

/* A full table: registration says TW_ERR_NOMEM, the registrations made still work,
 * and a freed entry can be registered again. Then bad registration arguments. */
static void table_full(ctx_t *c) {
    snprintf(where, sizeof where, "full table");
    typedef struct full_msg {
        tw_region_t gone, last, again;
    } full_msg_t;
    if (c->rank == 0) {
        full_msg_t m;
        recv_msg(c->ep, TAG_REGIONS, &m, sizeof m);
        uint64_t v1 = 0x1111222233334444ull, v2 = 0x5555666677778888ull, x = 7;
        tw_notification_t n;
        CHECK_RC(tw_put(c->ep, 1, &v1, 8, m.last.nla, m.last.key, REQ, 1), TW_OK);
        CHECK_RC(tw_put(c->ep, 1, &v2, 8, m.again.nla + 8, m.again.key, REQ, 2), TW_OK);
        CHECK_RC(tw_get(c->ep, 1, &x, 8, m.gone.nla, m.gone.key, COMP, 3), TW_OK);
        for (uint64_t i = 1; i <= 3; i++) {
            nq_next(c->ep, &n);
            CHECK(n.cookie == i);
            CHECK(n.status == (i == 3 ? TW_ERR_STALE : TW_OK));
        }
        CHECK(x == 7);
        CHECK_RC(tw_rma_flush(c->ep, 1), TW_OK);
        nq_empty(c->ep);
        done_msg_t done = {0, 0};
        send_msg(c->ep, 1, TAG_DONE, &done, sizeof done);
        return;
    }
    tw_ep_t *ep = c->ep;
    static unsigned char small[64];
    size_t cap = 70000, n = 0;
    tw_region_t *regs = malloc(cap * sizeof *regs);
    CHECK(regs != NULL);
    int rc;
    while ((rc = tw_reg(ep, small, sizeof small, TW_PERM_READ | TW_PERM_WRITE, &regs[n])) == TW_OK)
        CHECK(++n < cap);
    CHECK_RC(rc, TW_ERR_NOMEM);
    CHECK(n >= 1);
    tw_region_t spare;
    CHECK_RC(tw_reg(ep, small, 8, TW_PERM_READ, &spare), TW_ERR_NOMEM);
    CHECK(tw_heap_alloc(ep, 4096, &spare) == NULL); /* a heap block needs an entry too */
    full_msg_t m = {regs[0], regs[n - 1], {0}};
    CHECK_RC(tw_dereg(ep, &regs[0]), TW_OK);
    CHECK_RC(tw_reg(ep, small, sizeof small, TW_PERM_READ | TW_PERM_WRITE, &m.again), TW_OK);
    CHECK_RC(tw_reg(ep, small, sizeof small, TW_PERM_READ | TW_PERM_WRITE, &spare), TW_ERR_NOMEM);
    fprintf(stderr, "rank 1: the table took %zu more registrations\n", n);
    uint64_t stale_before = tw_ep_stats(ep)->faults_stale;
    send_msg(ep, 0, TAG_REGIONS, &m, sizeof m);
    done_msg_t done;
    recv_msg(ep, TAG_DONE, &done, sizeof done);
    nq_empty(ep);
    uint64_t v;
    memcpy(&v, small, 8);
    CHECK(v == 0x1111222233334444ull);
    memcpy(&v, small + 8, 8);
    CHECK(v == 0x5555666677778888ull);
    CHECK(tw_ep_stats(ep)->faults_stale == stale_before + 1);
    for (size_t i = 1; i < n; i++) CHECK_RC(tw_dereg(ep, &regs[i]), TW_OK);
    CHECK_RC(tw_dereg(ep, &m.again), TW_OK);
    free(regs);

    tw_region_t r;
    CHECK_RC(tw_reg(ep, NULL, 64, TW_PERM_READ, &r), TW_ERR_ARG);
    CHECK_RC(tw_reg(ep, small, 0, TW_PERM_READ, &r), TW_ERR_ARG);
    CHECK_RC(tw_reg(ep, small, 64, 0, &r), TW_ERR_ARG);
    CHECK_RC(tw_reg(ep, small, 64, 4, &r), TW_ERR_ARG);
    CHECK_RC(tw_reg(ep, small, 64, TW_PERM_READ, NULL), TW_ERR_ARG);
    CHECK_RC(tw_reg(NULL, small, 64, TW_PERM_READ, &r), TW_ERR_ARG);
    CHECK_RC(tw_dereg(NULL, &r), TW_ERR_ARG);
    CHECK(tw_dereg(ep, &m.last) < 0);   /* a copy of a region already deregistered */
    CHECK(tw_heap_free(ep, small) < 0); /* not a heap block */
    CHECK(tw_heap_free(ep, NULL) < 0);
}

int main(void) {
    atexit(print_where);
    ctx_t c = {0};
    CHECK_RC(tw_ep_open(&c.ep), TW_OK);
    c.rank = mp_rank = tw_ep_rank(c.ep);
    CHECK(tw_ep_size(c.ep) >= 2);
    if (c.rank == 1) {
        tw_ep_t *ep = c.ep;
        for (int b = 0; b < NBUF; b++) {
            c.buf[b] =
                b == B_HEAP ? tw_heap_alloc(ep, buf_len[b], &c.reg[HEAP]) : malloc(buf_len[b]);
            c.copy[b] = malloc(buf_len[b]);
            CHECK(c.buf[b] && c.copy[b]);
            fill_pattern(c.buf[b], buf_len[b], 100 + (uint64_t)b);
        }
        CHECK(c.reg[HEAP].length == buf_len[B_HEAP]);
        CHECK_RC(tw_reg(ep, c.buf[B_RW], buf_len[B_RW], TW_PERM_READ | TW_PERM_WRITE, &c.reg[RW]),
                 TW_OK);
        CHECK_RC(tw_reg(ep, c.buf[B_RO], buf_len[B_RO], TW_PERM_READ, &c.reg[RO]), TW_OK);
        CHECK_RC(tw_reg(ep, c.buf[B_WO], buf_len[B_WO], TW_PERM_WRITE, &c.reg[WO]), TW_OK);
        CHECK_RC(tw_reg(ep, c.buf[B_HEAP], buf_len[B_HEAP], TW_PERM_READ, &c.reg[HEAP_RO]), TW_OK);
        CHECK_RC(tw_reg(ep, c.buf[B_HEAP], buf_len[B_HEAP], TW_PERM_WRITE, &c.reg[HEAP_WO]), TW_OK);
        CHECK_RC(tw_reg(ep, c.buf[B_ST], buf_len[B_ST], TW_PERM_READ | TW_PERM_WRITE, &c.reg[ST]),
                 TW_OK);
        tw_region_t gone = c.reg[ST]; /* tw_dereg may clear what it is given */
        CHECK_RC(tw_dereg(ep, &gone), TW_OK);
        void *hst = tw_heap_alloc(ep, 4096, &c.reg[HST]);
        CHECK(hst != NULL);
        CHECK_RC(tw_heap_free(ep, hst), TW_OK);
        CHECK_RC(tw_reg(ep, c.buf[B_RR], buf_len[B_RR], TW_PERM_READ | TW_PERM_WRITE, &c.reg[OLD]),
                 TW_OK);
        gone = c.reg[OLD];
        CHECK_RC(tw_dereg(ep, &gone), TW_OK);
        CHECK_RC(tw_reg(ep, c.buf[B_RR], buf_len[B_RR], TW_PERM_READ | TW_PERM_WRITE, &c.reg[NEW]),
                 TW_OK);
        CHECK(c.reg[NEW].key != c.reg[OLD].key);
        CHECK(c.reg[ST].nla != 0 && c.reg[OLD].nla != 0);
        for (int b = 0; b < NBUF; b++) memcpy(c.copy[b], c.buf[b], buf_len[b]);
        send_msg(ep, 0, TAG_REGIONS, c.reg, sizeof c.reg);
    } else if (c.rank == 0) {
        c.local = malloc(8192);
        CHECK(c.local);
        recv_msg(c.ep, TAG_REGIONS, c.reg, sizeof c.reg);
    }
    c.reg[ZERO] = (tw_region_t){.nla = 0, .key = 0};
    c.reg[MAXNLA] = (tw_region_t){.nla = UINT64_MAX, .key = 0};
    c.reg[LOCKS] = (tw_region_t){.nla = tw_lock_nla(0), .key = 0};
    if (c.rank <= 1) {
        all_cases(&c);
        table_full(&c);
    }
    where[0] = 0;
    CHECK_RC(tw_ep_barrier(c.ep), TW_OK);
    if (c.rank == 1) {
        const tw_ep_stats_t *s = tw_ep_stats(c.ep);
        CHECK(s->faults_key + s->faults_stale >= 8);
        CHECK(s->faults_perm == 5 && s->faults_align >= 3);
        CHECK_RC(tw_dereg(c.ep, &c.reg[RW]), TW_OK);
        CHECK_RC(tw_dereg(c.ep, &c.reg[RO]), TW_OK);
        CHECK_RC(tw_dereg(c.ep, &c.reg[WO]), TW_OK);
        CHECK_RC(tw_dereg(c.ep, &c.reg[HEAP_RO]), TW_OK);
        CHECK_RC(tw_dereg(c.ep, &c.reg[HEAP_WO]), TW_OK);
        CHECK_RC(tw_dereg(c.ep, &c.reg[NEW]), TW_OK);
        CHECK_RC(tw_heap_free(c.ep, c.buf[B_HEAP]), TW_OK);
        for (int b = 0; b < NBUF; b++) {
            if (b != B_HEAP) free(c.buf[b]);
            free(c.copy[b]);
        }
    }
    free(c.local);
    CHECK_RC(tw_ep_barrier(c.ep), TW_OK);
    CHECK_RC(tw_ep_close(c.ep), TW_OK);
    return 0;
}
