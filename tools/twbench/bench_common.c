#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

void bench_header(const bench_ctx_t *ctx, const char *what, const char *value_title) {
    if (ctx->rank != 0 || ctx->opts->csv) return;
    printf("# %s: %s\n", ctx->name, what);
    printf("%-18s %12s %16s\n", "op", "size (B)", value_title);
}

void bench_row(const bench_ctx_t *ctx, const char *op, size_t size, double value,
               const char *unit) {
    if (ctx->rank != 0) return;
    if (ctx->opts->csv)
        printf("%s,%s,%zu,%.4g,%s\n", ctx->name, op, size, value, unit);
    else
        printf("%-18s %12zu %16.4g\n", op, size, value);
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_time_batches(int batches, long per_batch, void (*one)(void *), void (*end)(void *),
                          void *arg) {
    double *t = malloc((size_t)batches * sizeof *t);
    if (!t) bench_fail("malloc", TW_ERR_NOMEM);
    for (int b = -1; b < batches; b++) { /* batch -1 warms up */
        double t0 = bench_now();
        for (long i = 0; i < per_batch; i++) one(arg);
        if (end) end(arg);
        if (b >= 0) t[b] = (bench_now() - t0) / (double)per_batch;
    }
    double m = bench_median(t, batches);
    free(t);
    return m;
}

void bench_fail(const char *what, int rc) {
    fprintf(stderr, "twbench: %s failed: %s\n", what, tw_strerror(rc));
    exit(1);
}

void bench_send(tw_ep_t *ep, int dest, unsigned tag, const void *buf, size_t len) {
    int rc;
    while ((rc = tw_velo_send(ep, dest, tag, buf, len)) == TW_RETRY) {
    }
    if (rc) bench_fail("tw_velo_send", rc);
}
