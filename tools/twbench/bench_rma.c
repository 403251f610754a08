/* RMA benchmarks: the latency of every RMA operation beside VELO, put and get
 * bandwidth beside memcpy, the cost of registration, and the EXTOLL thesis's
 * Table 9-1 measured here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

enum {
    BATCHES = 25,
    BW_BATCHES = 11,
    TAG_REGIONS = 7, /* the sender's shared-heap and registered regions */
    TAG_DONE = 8,    /* rank 0 finished a one-sided series; rank 1 stops serving */
};

#define BW_BATCH_BYTES ((size_t)16 << 20) /* bytes per bandwidth batch, for steady figures */
#define BW_WINDOW_MAX  4096L              /* operations per window at most */

/* The state of ranks 0 and 1. Both own a shared-heap block and an ordinary
 * registered buffer and know the peer's, so every ping-pong is symmetric. */
typedef struct rma {
    tw_ep_t *ep;
    int rank, peer;
    size_t size;                       /* bytes per operation */
    char *local, *copy;                /* unregistered source / destination, memcpy target */
    char *heap, *plain;                /* ours: shared heap, and malloc'd + tw_reg */
    tw_region_t heap_reg, plain_reg;   /* ours */
    tw_region_t peer_heap, peer_plain; /* the peer's, as it sent them */
    const tw_region_t *target;         /* the peer region the current series uses */
    long window, posted;               /* rma-bw gets: window length, posted so far */
    uint64_t count;                    /* cookies and immediate values */
    tw_notification_t last;
    char vbuf[TW_VELO_MAX_SIZE];
} rma_t;

/* Posts, making progress while a notification queue is full. */
#define POST(r, what, call)                                                                        \
    do {                                                                                           \
        int rc_;                                                                                   \
        while ((rc_ = (call)) == TW_RETRY) tw_progress((r)->ep);                                   \
        if (rc_) bench_fail(what, rc_);                                                            \
    } while (0)

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) bench_fail("malloc", TW_ERR_NOMEM);
    memset(p, 0x5a, n); /* fault the pages in before anything is timed */
    return p;
}

static void note(rma_t *r, tw_op_t op, unsigned cls) {
    int rc = tw_nq_wait(r->ep, &r->last);
    if (rc) bench_fail("tw_nq_wait", rc);
    if (r->last.status != TW_OK || r->last.op != op || r->last.cls != cls) {
        fprintf(stderr,
                "twbench: rank %d expected op %d class %u, got op %u class %u status %s from %d\n",
                r->rank, (int)op, cls, r->last.op, r->last.cls, tw_strerror(r->last.status),
                (int)r->last.peer);
        exit(1);
    }
}

/* Ranks 0 and 1 allocate and register their buffers and swap the region
 * descriptors in one VELO message each way. Other ranks take no part. */
static int rma_setup(rma_t *r, const bench_ctx_t *ctx, size_t local_len, size_t heap_len,
                     size_t plain_len) {
    memset(r, 0, sizeof *r);
    r->ep = ctx->ep;
    r->rank = ctx->rank;
    r->peer = 1 - ctx->rank;
    if (ctx->rank > 1) return 0;
    r->local = xmalloc(local_len);
    r->copy = xmalloc(local_len);
    r->heap = tw_heap_alloc(r->ep, heap_len, &r->heap_reg);
    if (!r->heap) {
        fprintf(stderr, "twbench: tw_heap_alloc of %zu bytes failed\n", heap_len);
        return 1;
    }
    memset(r->heap, 0, heap_len);
    r->plain = xmalloc(plain_len);
    int rc = tw_reg(r->ep, r->plain, plain_len, TW_PERM_READ | TW_PERM_WRITE, &r->plain_reg);
    if (rc) bench_fail("tw_reg", rc);

    tw_region_t mine[2] = {r->heap_reg, r->plain_reg}, theirs[2];
    tw_velo_msg_t msg;
    bench_send(r->ep, r->peer, TAG_REGIONS, mine, sizeof mine);
    rc = tw_velo_recv(r->ep, &msg, theirs, sizeof theirs);
    if (rc) bench_fail("tw_velo_recv", rc);
    if (msg.tag != TAG_REGIONS || msg.length != sizeof theirs) {
        fprintf(stderr, "twbench: unexpected message (tag %u) instead of the regions\n", msg.tag);
        return 1;
    }
    r->peer_heap = theirs[0];
    r->peer_plain = theirs[1];
    r->target = &r->peer_heap;
    return 0;
}

static void rma_teardown(rma_t *r) {
    tw_ep_barrier(r->ep); /* the peer no longer touches our memory */
    if (r->rank > 1) return;
    int rc = tw_dereg(r->ep, &r->plain_reg);
    if (rc) bench_fail("tw_dereg", rc);
    rc = tw_heap_free(r->ep, r->heap);
    if (rc) bench_fail("tw_heap_free", rc);
    free(r->plain);
    free(r->local);
    free(r->copy);
}

/* Rank 1 during a one-sided series: serves pipelined requests (the target's share of
 * the work when cross-process copies are refused) until rank 0 says done. */
static void serve(rma_t *r) {
    for (;;) {
        tw_velo_msg_t msg;
        int rc = tw_velo_poll(r->ep, &msg, r->vbuf, sizeof r->vbuf);
        if (rc == TW_OK) {
            if (msg.tag == TAG_DONE) return;
            fprintf(stderr, "twbench: unexpected message (tag %u) while serving\n", msg.tag);
            exit(1);
        }
        if (rc != TW_EMPTY) bench_fail("tw_velo_poll", rc);
        rc = tw_progress(r->ep);
        if (rc < 0) bench_fail("tw_progress", rc);
    }
}

/* Seconds per call of one(). A ping-pong runs on both ranks and gives the half round
 * trip; otherwise rank 0 runs alone and rank 1 serves. Every rank of the job calls it
 * (the barrier); ranks above 1 return 0. */
static double measure(rma_t *r, int pingpong, int batches, long per_batch, void (*one)(void *),
                      void (*end)(void *)) {
    tw_ep_barrier(r->ep);
    if (r->rank > 1) return 0;
    if (pingpong) return bench_time_batches(batches, per_batch, one, end, r) / 2;
    if (r->rank == 1) {
        serve(r);
        return 0;
    }
    double t = bench_time_batches(batches, per_batch, one, end, r);
    bench_send(r->ep, 1, TAG_DONE, r->vbuf, 0);
    return t;
}

/* ---- one operation each; r->target names the peer's region ---- */

static void send_put_completer(rma_t *r) {
    POST(r, "tw_put",
         tw_put(r->ep, r->peer, r->local, r->size, r->target->nla, r->target->key,
                TW_NOTIFY_COMPLETER, r->count++));
}

static void send_put_imm_completer(rma_t *r) {
    POST(r, "tw_put_imm",
         tw_put_imm(r->ep, r->peer, r->count, 8, r->target->nla, r->target->key,
                    TW_NOTIFY_COMPLETER, r->count));
    r->count++;
}

static void send_notify_put(rma_t *r) {
    POST(r, "tw_notify_put",
         tw_notify_put(r->ep, r->peer, r->count, TW_NOTIFY_COMPLETER, r->count));
    r->count++;
}

/* Rank 0 sends first, rank 1 answers what it received. */
static void pingpong(rma_t *r, void (*send)(rma_t *), tw_op_t op) {
    if (r->rank == 0) {
        send(r);
        note(r, op, TW_NOTIFY_COMPLETER);
    } else {
        note(r, op, TW_NOTIFY_COMPLETER);
        send(r);
    }
}

static void op_put_pp(void *arg) {
    pingpong(arg, send_put_completer, TW_OP_PUT);
}
static void op_put_imm_pp(void *arg) {
    pingpong(arg, send_put_imm_completer, TW_OP_PUT_IMM);
}
static void op_notify_pp(void *arg) {
    pingpong(arg, send_notify_put, TW_OP_NOTIFY_PUT);
}

static void op_velo_pp(void *arg) {
    rma_t *r = arg;
    tw_velo_msg_t msg;
    if (r->rank == 0) bench_send(r->ep, r->peer, 0, r->local, r->size);
    int rc = tw_velo_recv(r->ep, &msg, r->vbuf, sizeof r->vbuf);
    if (rc) bench_fail("tw_velo_recv", rc);
    if (r->rank == 1) bench_send(r->ep, r->peer, 0, r->local, r->size);
}

static void op_put(void *arg) {
    rma_t *r = arg;
    POST(r, "tw_put",
         tw_put(r->ep, r->peer, r->local, r->size, r->target->nla, r->target->key, 0, r->count++));
}

static void op_put_imm(void *arg) {
    rma_t *r = arg;
    POST(r, "tw_put_imm",
         tw_put_imm(r->ep, r->peer, r->count, 8, r->target->nla, r->target->key, 0, r->count));
    r->count++;
}

static void end_flush(void *arg) {
    rma_t *r = arg;
    int rc = tw_rma_flush(r->ep, r->peer);
    if (rc) bench_fail("tw_rma_flush", rc);
}

/* Full operation latency: the initiator waits for its completer notification. */
static void op_get(void *arg) {
    rma_t *r = arg;
    POST(r, "tw_get",
         tw_get(r->ep, r->peer, r->local, r->size, r->target->nla, r->target->key,
                TW_NOTIFY_COMPLETER, r->count++));
    note(r, TW_OP_GET, TW_NOTIFY_COMPLETER);
}

/* One fetch-and-add (FCAA with the compare open) on lock word 0 of the peer. */
static void op_fcaa(void *arg) {
    rma_t *r = arg;
    uint64_t fetched = ~(uint64_t)0;
    POST(r, "tw_atomic",
         tw_atomic(r->ep, r->peer, TW_ATOMIC_FCAA, 4, tw_lock_nla(0), 0, INT32_MAX, 1, &fetched,
                   TW_NOTIFY_COMPLETER, r->count++));
    note(r, TW_OP_ATOMIC, TW_NOTIFY_COMPLETER);
    if (fetched != r->last.value || !r->last.success) {
        fprintf(stderr, "twbench: FCAA fetched %llu, notification says %llu (success %u)\n",
                (unsigned long long)fetched, (unsigned long long)r->last.value, r->last.success);
        exit(1);
    }
}

/* A window of gets whose last asks for the completer: operations to one target
 * complete in order, so its notification closes the whole window. */
static void op_get_window(void *arg) {
    rma_t *r = arg;
    unsigned notify = ++r->posted == r->window ? TW_NOTIFY_COMPLETER : 0;
    POST(r, "tw_get",
         tw_get(r->ep, r->peer, r->local, r->size, r->target->nla, r->target->key, notify,
                r->count++));
}

static void end_get_window(void *arg) {
    rma_t *r = arg;
    note(r, TW_OP_GET, TW_NOTIFY_COMPLETER);
    r->posted = 0;
}

static void op_memcpy(void *arg) {
    rma_t *r = arg;
    memcpy(r->copy, r->local, r->size);
    __asm__ volatile("" ::: "memory"); /* the copy is observable: keep every one */
}

/* ---- latency ---- */

typedef struct lat_row {
    const char *op;
    int pingpong; /* half round trip of a ping-pong; otherwise rank 0's time per call */
    int plain;    /* target: the peer's ordinary registered memory, not its shared heap */
    size_t fixed; /* the operation's only size (0: any size) */
    size_t max;   /* largest size (0: no limit) */
    void (*one)(void *);
    void (*end)(void *);
} lat_row_t;

static const lat_row_t lat_rows[] = {
    {"put", 0, 0, 0, 0, op_put, end_flush},
    {"put+completer", 1, 0, 0, 0, op_put_pp, NULL},
    {"get", 0, 0, 0, 0, op_get, NULL},
    {"put-reg+completer", 1, 1, 0, 0, op_put_pp, NULL},
    {"get-reg", 0, 1, 0, 0, op_get, NULL},
    {"velo", 1, 0, 0, TW_VELO_MAX_SIZE, op_velo_pp, NULL},
    {"put-imm", 0, 0, 8, 0, op_put_imm, end_flush},
    {"put-imm+completer", 1, 0, 8, 0, op_put_imm_pp, NULL},
    {"notify-put", 1, 0, 8, 0, op_notify_pp, NULL},
    {"fcaa", 0, 0, 4, 0, op_fcaa, NULL},
};
enum { LAT_ROWS = sizeof lat_rows / sizeof lat_rows[0] };

static const lat_row_t *lat_row(const char *op) {
    for (int i = 0; i < LAT_ROWS; i++)
        if (!strcmp(lat_rows[i].op, op)) return &lat_rows[i];
    abort();
}

/* Microseconds per operation of one row at one size (ranks above 1: 0). */
static double lat_measure(rma_t *r, const bench_ctx_t *ctx, const lat_row_t *row, size_t size) {
    long iters = ctx->opts->iters;
    if (!iters) {
        iters = 100000;
        if (size > 4096) iters = (long)((size_t)iters * 4096 / size);
        if (iters < 250) iters = 250;
    }
    long per_batch = iters / BATCHES > 0 ? iters / BATCHES : 1;
    r->size = size;
    r->target = row->plain ? &r->peer_plain : &r->peer_heap;
    return measure(r, row->pingpong, BATCHES, per_batch, row->one, row->end) * 1e6;
}

static int need_two(const bench_ctx_t *ctx) {
    if (ctx->size >= 2) return 0;
    fprintf(stderr, "twbench: %s needs 2 ranks (twrun -n 2)\n", ctx->name);
    return 2;
}

int bench_rma_latency(const bench_ctx_t *ctx) {
    if (need_two(ctx)) return 2;
    size_t max = ctx->opts->max_size, min = ctx->opts->min_size ? ctx->opts->min_size : 1;
    size_t len = max > 64 ? max : 64;
    rma_t *r = malloc(sizeof *r);
    if (!r || rma_setup(r, ctx, len, len, len)) return 1;
    bench_header(ctx,
                 "latency (us): ping-pongs give the half round trip; put and put-imm the time "
                 "per call of a batch closed by tw_rma_flush; get and fcaa (4-byte word) the "
                 "full operation until the initiator's completer notification",
                 "latency (us)");
    for (size_t s = min; s <= max; s *= 2) {
        for (int i = 0; i < LAT_ROWS; i++) {
            const lat_row_t *row = &lat_rows[i];
            if (row->fixed || (row->max && s > row->max)) continue;
            bench_row(ctx, row->op, s, lat_measure(r, ctx, row, s), "us");
        }
        if (s > max / 2) break;
    }
    /* fixed-size operations once, whatever the range */
    for (int i = 0; i < LAT_ROWS; i++) {
        const lat_row_t *row = &lat_rows[i];
        if (row->fixed)
            bench_row(ctx, row->op, row->fixed, lat_measure(r, ctx, row, row->fixed), "us");
    }
    rma_teardown(r);
    free(r);
    return 0;
}

/* ---- the thesis's Table 9-1 ---- */

static const struct {
    const char *label, *op;
    double us; /* Nuessle 2008, Table 9-1: two Opteron nodes, FPGA NIC, one switch */
} thesis[] = {
    {"VELO half round trip", "velo", 1.3},
    {"notification put", "notify-put", 1.40},
    {"immediate put", "put-imm", 1.47},
    {"immediate put + completer", "put-imm+completer", 1.67},
    {"put", "put", 1.99},
    {"put + notification", "put+completer", 2.10},
    {"get (round trip)", "get", 2.82},
    {"lock (FCAA)", "fcaa", 2.70},
};
enum { THESIS_ROWS = sizeof thesis / sizeof thesis[0], THESIS_REPS = 5 };

int bench_thesis(const bench_ctx_t *ctx) {
    if (need_two(ctx)) return 2;
    rma_t *r = malloc(sizeof *r);
    if (!r || rma_setup(r, ctx, 64, 64, 64)) return 1;
    /* The rows alternate, THESIS_REPS times round, so that a slow minute of a shared
     * machine does not land on one row alone and skew its ratio to VELO. */
    bench_opts_t opts = *ctx->opts;
    opts.iters = (opts.iters ? opts.iters : 100000) / THESIS_REPS;
    if (opts.iters < BATCHES) opts.iters = BATCHES;
    bench_ctx_t rep_ctx = *ctx;
    rep_ctx.opts = &opts;
    double us[THESIS_ROWS], rep[THESIS_ROWS][THESIS_REPS];
    for (int k = 0; k < THESIS_REPS; k++)
        for (int i = 0; i < THESIS_ROWS; i++) {
            const lat_row_t *row = lat_row(thesis[i].op);
            rep[i][k] = lat_measure(r, &rep_ctx, row, row->fixed ? row->fixed : 8);
        }
    for (int i = 0; i < THESIS_ROWS; i++) us[i] = bench_median(rep[i], THESIS_REPS);
    rma_teardown(r);
    free(r);
    if (ctx->rank != 0) return 0;

    if (ctx->opts->csv) {
        for (int i = 0; i < THESIS_ROWS; i++) {
            const lat_row_t *row = lat_row(thesis[i].op);
            printf("thesis,%s,%zu,%.4g,us\n", thesis[i].op, row->fixed ? row->fixed : 8, us[i]);
        }
        return 0;
    }
    printf("# thesis: EXTOLL thesis Table 9-1 (two nodes, FPGA NIC) beside Tollway on one node;"
           " 8 B (FCAA: a 4-byte word)\n");
    printf("%-28s %10s %11s %12s %13s\n", "operation", "thesis us", "tollway us", "thesis/VELO",
           "tollway/VELO");
    for (int i = 0; i < THESIS_ROWS; i++)
        printf("%-28s %10.2f %11.3f %12.2f %13.2f\n", thesis[i].label, thesis[i].us, us[i],
               thesis[i].us / thesis[0].us, us[i] / us[0]);

    static const struct {
        const char *label;
        int num, den; /* rows of thesis[] */
    } ratios[] = {
        {"get / put", 6, 4},
        {"put / VELO", 4, 0},
        {"FCAA / VELO", 7, 0},
        {"put+notification / put", 5, 4},
    };
    printf("\n%-28s %10s %11s\n", "ratio", "thesis", "tollway");
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++)
        printf("%-28s %10.2f %11.2f\n", ratios[i].label,
               thesis[ratios[i].num].us / thesis[ratios[i].den].us,
               us[ratios[i].num] / us[ratios[i].den]);
    printf("\nput and immediate put without notification: time per call of a batch closed by "
           "tw_rma_flush (nothing observes their arrival); the others: completion seen by the "
           "side that waits. Median of %d alternating rounds.\n",
           THESIS_REPS);
    fflush(stdout);
    return 0;
}

/* ---- bandwidth ---- */

int bench_rma_bw(const bench_ctx_t *ctx) {
    if (need_two(ctx)) return 2;
    size_t max = ctx->opts->max_size, min = ctx->opts->min_size ? ctx->opts->min_size : 1;
    /* rank 0 moves data from `local`; rank 1 is the target */
    size_t big = max > 64 ? max : 64;
    size_t local = ctx->rank == 0 ? big : 64, target = ctx->rank == 1 ? big : 64;
    rma_t *r = malloc(sizeof *r);
    if (!r || rma_setup(r, ctx, local, target, target)) return 1;
    bench_header(ctx,
                 "rank 0 -> rank 1, windows of operations closed by tw_rma_flush (gets: by the "
                 "last one's completer); memcpy: rank 0 alone (median of windows)",
                 "bandwidth (MB/s)");
    static const struct {
        const char *op;
        int plain;
        void (*one)(void *), (*end)(void *);
    } series[] = {
        {"put-heap", 0, op_put, end_flush}, {"get-heap", 0, op_get_window, end_get_window},
        {"put-reg", 1, op_put, end_flush},  {"get-reg", 1, op_get_window, end_get_window},
        {"memcpy", 0, op_memcpy, NULL},
    };
    for (size_t k = 0; k < sizeof series / sizeof series[0]; k++) {
        r->target = series[k].plain ? &r->peer_plain : &r->peer_heap;
        for (size_t s = min; s <= max; s *= 2) {
            long window = ctx->opts->iters ? ctx->opts->iters : (long)(BW_BATCH_BYTES / s);
            if (window > BW_WINDOW_MAX && !ctx->opts->iters) window = BW_WINDOW_MAX;
            if (window < 1) window = 1;
            r->size = s;
            r->window = window;
            r->posted = 0;
            double t = measure(r, 0, BW_BATCHES, window, series[k].one, series[k].end);
            bench_row(ctx, series[k].op, s, t > 0 ? (double)s / t / 1e6 : 0, "MB/s");
            if (s > max / 2) break;
        }
    }
    rma_teardown(r);
    free(r);
    return 0;
}

/* ---- registration ---- */

static void op_reg(void *arg) {
    rma_t *r = arg;
    tw_region_t reg;
    int rc = tw_reg(r->ep, r->plain, r->size, TW_PERM_READ | TW_PERM_WRITE, &reg);
    if (rc) bench_fail("tw_reg", rc);
    rc = tw_dereg(r->ep, &reg);
    if (rc) bench_fail("tw_dereg", rc);
}

/* Registration of up to 1 GiB of address space that was never touched: it must cost
 * the same for every size and make no page resident. Rank 0 alone. */
int bench_reg_cost(const bench_ctx_t *ctx) {
    size_t span = ctx->opts->max_size, min = ctx->opts->min_size ? ctx->opts->min_size : 1;
    rma_t r = {.ep = ctx->ep, .rank = ctx->rank};
    r.plain = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (r.plain == MAP_FAILED) {
        perror("twbench: mmap");
        return 1;
    }
    bench_header(ctx, "tw_reg + tw_dereg of untouched memory, per pair (median of batches)",
                 "time (us)");
    for (size_t s = min;; s = s > span / 4 ? span : s * 4) {
        double us = 0;
        if (ctx->rank == 0) {
            r.size = s;
            long per_batch = ctx->opts->iters / BATCHES;
            if (!ctx->opts->iters) { /* about 2 ms per batch, whatever one pair costs */
                double t0 = bench_now();
                for (int i = 0; i < 100; i++) op_reg(&r);
                double each = (bench_now() - t0) / 100;
                per_batch = each > 0 ? (long)(2e-3 / each) : 20000;
                if (per_batch > 20000) per_batch = 20000;
            }
            if (per_batch < 1) per_batch = 1;
            us = bench_time_batches(BATCHES, per_batch, op_reg, NULL, &r) * 1e6;
        }
        bench_row(ctx, "reg+dereg", s, us, "us");
        if (s >= span) break;
    }
    /* registration must not have faulted any page in */
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = (span + (size_t)page - 1) / (size_t)page, resident = 0;
    unsigned char *vec = malloc(pages);
    if (vec && mincore(r.plain, span, vec) == 0)
        for (size_t i = 0; i < pages; i++) resident += vec[i] & 1;
    if (resident)
        fprintf(stderr, "twbench: reg-cost: registration made %zu of %zu pages resident\n",
                resident, pages);
    free(vec);
    munmap(r.plain, span);
    return 0;
}
