/* VELO benchmarks: ping-pong latency and many-to-one message rate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { BATCHES = 25, RATE_REPS = 7 };

static void recv_or_die(tw_ep_t *ep, void *buf, size_t cap) {
    tw_velo_msg_t msg;
    int rc = tw_velo_recv(ep, &msg, buf, cap);
    if (rc) bench_fail("tw_velo_recv", rc);
}

/* Half round trip of one size: the median over batches of the batch average, so
 * one descheduled moment on a shared machine does not move the figure. */
static double pingpong(const bench_ctx_t *ctx, char *buf, size_t size, long iters) {
    tw_ep_t *ep = ctx->ep;
    long per_batch = iters / BATCHES > 0 ? iters / BATCHES : 1;
    double t[BATCHES];
    for (int b = -1; b < BATCHES; b++) { /* batch -1 warms up */
        double t0 = bench_now();
        for (long i = 0; i < per_batch; i++) {
            if (ctx->rank == 0) {
                bench_send(ep, 1, 0, buf, size);
                recv_or_die(ep, buf, TW_VELO_MAX_SIZE);
            } else {
                recv_or_die(ep, buf, TW_VELO_MAX_SIZE);
                bench_send(ep, 0, 0, buf, size);
            }
        }
        if (b >= 0) t[b] = (bench_now() - t0) / (2.0 * (double)per_batch);
    }
    return bench_median(t, BATCHES) * 1e6;
}

int bench_velo_latency(const bench_ctx_t *ctx) {
    if (ctx->size < 2) {
        fprintf(stderr, "twbench: velo-latency needs 2 ranks (twrun -n 2)\n");
        return 2;
    }
    char *buf = calloc(1, TW_VELO_MAX_SIZE);
    if (!buf) return 1;
    bench_header(ctx, "ping-pong, half round trip (median of batch averages)", "latency (us)");
    tw_ep_barrier(ctx->ep);
    for (size_t s = ctx->opts->min_size; s <= ctx->opts->max_size; s = s ? s * 2 : 1) {
        long iters = ctx->opts->iters ? ctx->opts->iters : (s <= 1024 ? 200000 : 50000);
        double us = 0;
        if (ctx->rank < 2) us = pingpong(ctx, buf, s, iters);
        bench_row(ctx, "pingpong", s, us, "us");
        if (s == ctx->opts->max_size) break;
    }
    free(buf);
    return 0;
}

/* Senders stream messages at rank 0; rank 0 times from the start barrier to the
 * last message. The median of several repetitions is reported. */
int bench_velo_rate(const bench_ctx_t *ctx) {
    int senders = ctx->opts->senders;
    if (ctx->size < senders + 1) {
        fprintf(stderr, "twbench: velo-rate with %d senders needs %d ranks\n", senders,
                senders + 1);
        return 2;
    }
    char buf[TW_VELO_MAX_SIZE];
    memset(buf, 0x5a, sizeof buf);
    bench_header(ctx, "messages per second into one receiver (median of repetitions)",
                 "rate (msg/s)");
    char op[32];
    snprintf(op, sizeof op, "%d-to-1", senders);
    for (size_t s = ctx->opts->min_size; s <= ctx->opts->max_size; s = s ? s * 2 : 1) {
        long iters = ctx->opts->iters ? ctx->opts->iters : 1000000;
        double rate[RATE_REPS];
        for (int r = 0; r < RATE_REPS; r++) {
            tw_ep_barrier(ctx->ep);
            if (ctx->rank == 0) {
                long expect = iters * senders;
                tw_velo_msg_t msg;
                double t0 = bench_now();
                for (long got = 0; got < expect;) {
                    int rc = tw_velo_poll(ctx->ep, &msg, buf, sizeof buf);
                    if (rc == TW_OK)
                        got++;
                    else if (rc != TW_EMPTY)
                        bench_fail("tw_velo_poll", rc);
                }
                rate[r] = (double)expect / (bench_now() - t0);
            } else if (ctx->rank <= senders) {
                for (long i = 0; i < iters; i++) bench_send(ctx->ep, 0, 1, buf, s);
            }
        }
        bench_row(ctx, op, s, ctx->rank == 0 ? bench_median(rate, RATE_REPS) : 0, "msg/s");
        if (s == ctx->opts->max_size) break;
    }
    return 0;
}
