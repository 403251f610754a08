/* twbench: shared pieces of the benchmarks (options, timing, output). */
#ifndef TW_BENCH_H
#define TW_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <tollway/tollway.h>

typedef struct bench_opts {
    int csv;
    size_t min_size, max_size;
    long iters;  /* 0: the benchmark's default */
    int senders; /* velo-rate */
} bench_opts_t;

typedef struct bench_ctx {
    tw_ep_t *ep;
    int rank, size;
    const bench_opts_t *opts;
    const char *name;
} bench_ctx_t;

static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Prints the table heading (rank 0 only). */
void bench_header(const bench_ctx_t *ctx, const char *what, const char *value_title);
/* One result row: op, size in bytes, value, unit ("us", "msg/s", "MB/s"). */
void bench_row(const bench_ctx_t *ctx, const char *op, size_t size, double value, const char *unit);
double bench_median(double *v, int n);
/* Times `batches` batches of per_batch calls of one(arg), each batch closed by
 * end(arg) (may be NULL) inside the timed span, after one untimed warm-up batch.
 * Returns seconds per call: the median of the batch averages, so one descheduled
 * moment on a shared machine does not move the figure. */
double bench_time_batches(int batches, long per_batch, void (*one)(void *), void (*end)(void *),
                          void *arg);
/* Sends, retrying while the receiver's mailbox is full (draining our own meanwhile
 * is the caller's business; benchmarks only send where nothing comes back). */
void bench_send(tw_ep_t *ep, int dest, unsigned tag, const void *buf, size_t len);
void bench_fail(const char *what, int rc);

int bench_velo_latency(const bench_ctx_t *ctx);
int bench_velo_rate(const bench_ctx_t *ctx);
int bench_rma_latency(const bench_ctx_t *ctx);
int bench_rma_bw(const bench_ctx_t *ctx);
int bench_reg_cost(const bench_ctx_t *ctx);
int bench_thesis(const bench_ctx_t *ctx);

#endif
