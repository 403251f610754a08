/* Two-phase collective buffering. The plan: each rank lists its file runs (runs.c);
 * one allgather of each rank's range, runs and bytes decides (the hints, and when
 * automatic the rule below) and gives the range all ranks touch, cut into one file
 * domain per aggregator (hints.c chose them: one per node unless cb_nodes). Each rank
 * sends each aggregator its runs inside the aggregator's domain (once, an alltoallv),
 * so that in every round both sides know what moves without asking. A round is one
 * window of cb_buffer_size bytes per domain and one alltoallv of data: a rank's bytes
 * in a window are one stretch of its stream (the runs are in file order), sent from
 * the stream or received into it in place; the aggregator reads the window's span
 * with one pread, or writes it with one pwrite (holes: read-modify-write of the span
 * when the file is readable and the holes are small, else one pwrite per covered run).
 * A failure anywhere is every rank's: the worst class, as the open agrees. */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/aliased_copy.h"
#include "mpi/env/error.h"
#include "mpi/coll/coll.h"
#include "mpi/io/progress.h"
#include "mpi/io/runs.h"
#include "mpi/io/spare.h"
#include "mpi/io/two_phase.h"
#include "mpi/io/two_phase_wire.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/pt2pt/request.h"

/* Automatic: collective buffering across nodes when the ranks' accesses interleave
 * (ROMIO's rule); on one node never, for a rank's own pwrite/pread (data sieved) was as
 * fast or faster in what was measured (docs/io.md: records of 64 bytes to 64 KiB, 2 and
 * 4 ranks on a tmpfs), and large disjoint blocks are at the file system's ceiling. */

typedef struct run {
    MPI_Offset at, len, pos; /* file bytes [at, at + len), stream bytes from pos */
} run_t;

/* What each rank tells every other at the plan; S_SHM: a non-blocking plan's, the
 * shared window free and now held for it; S_BUSY: a blocking plan's, the rank has other
 * accesses of the file under way (tw_io_file_busy; a non-blocking plan never writes a
 * span back, so it does not ask). */
enum { S_LO, S_HI, S_RUNS, S_BYTES, S_USABLE, S_SHM, S_BUSY, S_N };

struct tw_io_two_phase {
    tw_io_file_t *f;
    int write, naggs, me_agg; /* me_agg: my aggregator index, or -1 */
    const int *aggs;
    MPI_Offset len, lo, hi, domain, window, rounds;
    run_t *runs; /* mine, in file order */
    size_t nruns, cap;
    size_t *cursor; /* per aggregator: my first run not wholly before its window */
    /* an aggregator's: each rank's runs in my domain, in file order */
    run_t *theirs;
    MPI_Count *their_n;
    MPI_Aint *their_first;
    size_t *their_cursor;
    run_t *pieces;       /* a round's pieces, with where they sit in the received bytes */
    run_t *merged;       /* as many: where order_pieces merges them */
    size_t *piece_first; /* per rank, and one past: its first piece of the round */
    int shm;             /* the ranks copy into the aggregators' buffers in a shared window */
    /* an aggregator writes its covered runs only, never its span read and written back
     * whole: another access of the file may write in the span's holes meanwhile, and the
     * span written back would put back the bytes read before that write. A blocking
     * access's when a rank told of accesses under way (S_BUSY), a non-blocking one's
     * always (the program may start one while it is under way) */
    int no_rmw;
    char *buf, *recv; /* the aggregator's window (the file's, or in the shared window) */
    MPI_Count *scount, *rcount;
    MPI_Aint *sdisp, *rdisp;
};

static int rank0_aggregator = 0; /* hints.c's fallback when it had no memory */

static int add_run(void *arg, MPI_Offset at, MPI_Offset len) {
    tw_io_two_phase_t *p = arg;
    if (p->nruns == p->cap) {
        size_t grown = p->cap ? 2 * p->cap : 64;
        run_t *more = realloc(p->runs, grown * sizeof *more);
        if (!more) return ENOMEM;
        p->runs = more, p->cap = grown;
    }
    MPI_Offset pos = p->nruns ? p->runs[p->nruns - 1].pos + p->runs[p->nruns - 1].len : 0;
    p->runs[p->nruns++] = (run_t){at, len, pos};
    return 0;
}

/* Stream bytes of runs[0, n) before file offset x; *j moves forward (x does not go
 * back for one cursor). */
static MPI_Offset before(const run_t *r, size_t n, size_t *j, MPI_Offset x) {
    while (*j < n && r[*j].at + r[*j].len <= x) (*j)++;
    if (*j == n) return n ? r[n - 1].pos + r[n - 1].len : 0;
    MPI_Offset in = x - r[*j].at;
    return r[*j].pos + (in < 0 ? 0 : in);
}

/* A buffer of at least bytes kept in the file from one collective to the next, and in
 * the process from one file to the next (a fresh one costs a page fault per page each
 * time: measured, the largest cost of a round). */
static char *kept(char **buf, MPI_Offset *have, MPI_Offset bytes) {
    if (bytes <= *have && *buf) return *buf;
    tw_io_spare_give(*buf, *have);
    *buf = tw_io_spare_take(bytes, have);
    return *buf;
}

void tw_io_two_phase_free(tw_io_two_phase_t *p) {
    if (!p) return;
    free(p->runs);
    free(p->cursor);
    free(p->theirs);
    free(p->their_n);
    free(p->their_first);
    free(p->their_cursor);
    free(p->pieces);
    free(p->merged);
    free(p->piece_first);
    free(p->scount);
    free(p->rcount);
    free(p->sdisp);
    free(p->rdisp);
    free(p);
}

/* The automatic rule, on what every rank told (the same answer everywhere). */
static int by_low_end(const void *a, const void *b) {
    const MPI_Offset *x = a, *y = b; /* what a rank told: S_LO first */
    return (x[S_LO] > y[S_LO]) - (x[S_LO] < y[S_LO]);
}

/* Whether two ranks' ranges overlap: sorted by their low ends (the answers, in place:
 * nothing to allocate, so every rank decides alike), one starts before the furthest
 * end of those before it. n log n, not every pair. */
static int worth_it(MPI_Offset *all, int size) {
    qsort(all, (size_t)size, S_N * sizeof(MPI_Offset), by_low_end);
    MPI_Offset reach = -1; /* the furthest end so far; -1: no range yet */
    for (int r = 0; r < size; r++) {
        const MPI_Offset *s = all + S_N * r;
        if (!s[S_BYTES]) continue;
        if (reach >= 0 && s[S_LO] < reach) return 1;
        if (s[S_HI] > reach) reach = s[S_HI];
    }
    return 0;
}

/* The aggregators' buffers of at least bytes each in a window shared on the node (the
 * file's ranks are all on one node), made at the first use and grown when a larger one
 * is wanted; kept until the close. Whether it is there (the same on every rank). */
static int shared_window(tw_io_file_t *f, MPI_Offset bytes) {
    tw_io_hints_t *h = &f->hints;
    if (h->cb_win != MPI_WIN_NULL && h->cb_win_size >= bytes && h->cb_bases) return 1;
    if (h->cb_win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(h->cb_win);
        MPI_Win_free(&h->cb_win);
    }
    free(h->cb_bases);
    h->cb_bases = NULL;
    h->cb_win_size = 0;
    int me_agg = 0;
    for (int i = 0; i < h->naggregators && h->aggregators; i++)
        if (h->aggregators[i] == f->rank) me_agg = 1;
    if (!h->aggregators) me_agg = f->rank == 0;
    /* a window that cannot be made (no room in /dev/shm) leaves the exchange to
     * messages: its error comes back here, not through the handler the file's
     * communicator took from the user's (fatal by default) */
    MPI_Errhandler keep;
    MPI_Comm_get_errhandler(f->comm, &keep);
    MPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
    char *base = NULL;
    int rc = MPI_Win_allocate_shared(me_agg ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL, f->comm, &base,
                                     &h->cb_win);
    MPI_Comm_set_errhandler(f->comm, keep);
    MPI_Errhandler_free(&keep);
    h->cb_bases = malloc(sizeof(char *) * (size_t)h->naggregators);
    int ok = rc == MPI_SUCCESS && h->cb_bases;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, f->comm);
    for (int i = 0; ok && i < h->naggregators; i++) {
        MPI_Aint size;
        int unit;
        int rank = h->aggregators ? h->aggregators[i] : 0;
        if (MPI_Win_shared_query(h->cb_win, rank, &size, &unit, &h->cb_bases[i]) != MPI_SUCCESS)
            ok = 0;
    }
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, f->comm);
    if (ok) {
        MPI_Win_lock_all(MPI_MODE_NOCHECK, h->cb_win); /* loads and stores, synced by hand */
        h->cb_win_size = bytes;
        return 1;
    }
    if (h->cb_win != MPI_WIN_NULL) MPI_Win_free(&h->cb_win);
    free(h->cb_bases);
    h->cb_bases = NULL;
    return 0;
}

/* The stores to the shared buffers before it are seen by every rank after it. */
static void shared_fence(tw_io_file_t *f) {
    MPI_Win_sync(f->hints.cb_win);
    MPI_Barrier(f->comm);
    MPI_Win_sync(f->hints.cb_win);
}

/* Copies my pieces in aggregator i's window [from, to) between my stream and its buffer. */
static void copy_mine(tw_io_two_phase_t *p, int i, MPI_Offset from, MPI_Offset to, char *packed) {
    char *base = p->f->hints.cb_bases[i];
    before(p->runs, p->nruns, &p->cursor[i], from);
    for (size_t k = p->cursor[i]; k < p->nruns && p->runs[k].at < to; k++) {
        const run_t *r = &p->runs[k];
        MPI_Offset a = r->at > from ? r->at : from;
        MPI_Offset e = r->at + r->len < to ? r->at + r->len : to;
        if (e <= a) continue;
        char *mine = packed + r->pos + (a - r->at), *theirs = base + (a - from);
        if (p->write)
            tw_copy_long(theirs, mine, (size_t)(e - a));
        else
            tw_copy_long(mine, theirs, (size_t)(e - a));
    }
}

/* My runs of the access; whether the plan can use them. */
static int plan_runs(tw_io_two_phase_t *p, MPI_Offset first, MPI_Offset len) {
    if (len > 0 && tw_io_runs(&p->f->view, first, len, add_run, p)) return 0;
    /* in file order, none over another (the views' filetypes are monotone; a resized
     * one whose tiles overlap is not) */
    for (size_t j = 1; j < p->nruns; j++)
        if (p->runs[j].at < p->runs[j - 1].at + p->runs[j - 1].len) return 0;
    return 1;
}

/* What I tell every rank at the plan. */
static void tell(const tw_io_two_phase_t *p, int usable, MPI_Offset mine[S_N]) {
    for (int k = 0; k < S_N; k++) mine[k] = 0;
    if (p && p->nruns) {
        mine[S_LO] = p->runs[0].at;
        mine[S_HI] = p->runs[p->nruns - 1].at + p->runs[p->nruns - 1].len;
        mine[S_RUNS] = (MPI_Offset)p->nruns;
        mine[S_BYTES] = p->len;
    }
    mine[S_USABLE] = usable;
}

/* The mean run, in bytes, below which the automatic rule buffers a collective write of
 * interleaved ranges on one node: each rank's sieved writes of runs that short wait on
 * each other's locks (4 ranks, tmpfs, interleaved records: 64 bytes 91-117 MB/s sieved,
 * 182-229 buffered; 128 bytes 166-203 against 273-295; 512 bytes and more even or
 * better sieved). Reads sieve faster at every size. */
enum { ONE_NODE_SMALL_RUN = 512 };

/* Whether the ranks' runs are shorter than ONE_NODE_SMALL_RUN on average. */
static int small_runs(const MPI_Offset *all, int size) {
    MPI_Offset bytes = 0, runs = 0;
    for (int r = 0; r < size; r++) {
        bytes += all[S_N * r + S_BYTES];
        runs += all[S_N * r + S_RUNS];
    }
    return runs && bytes / runs < ONE_NODE_SMALL_RUN;
}

/* From what every rank told: whether collective buffering goes (the same answer on
 * every rank), and the range [lo, hi) the ranks touch. Automatic: across nodes when the
 * ranges interleave (ROMIO's rule); on one node (a write: tw_io_two_phase_may) when they
 * interleave in short runs as well. */
static int decide(MPI_Offset *all, int size, int mode, int one_node, MPI_Offset *lo,
                  MPI_Offset *hi) {
    int go = 1;
    *lo = -1, *hi = 0;
    for (int r = 0; go && r < size; r++) {
        const MPI_Offset *s = all + S_N * r;
        if (!s[S_USABLE]) go = 0;
        if (!s[S_BYTES]) continue;
        if (*lo < 0 || s[S_LO] < *lo) *lo = s[S_LO];
        if (s[S_HI] > *hi) *hi = s[S_HI];
    }
    if (go && *lo < 0) go = 0; /* nobody moves a byte */
    if (go && mode == TW_IO_AUTOMATIC)
        go = (!one_node || small_runs(all, size)) && worth_it(all, size);
    return go;
}

/* The domains: the range in naggs equal parts, whole 4 KiB pages when larger. */
static void cut_domains(tw_io_two_phase_t *p, MPI_Offset lo, MPI_Offset hi) {
    const tw_io_hints_t *h = &p->f->hints;
    p->naggs = h->naggregators;
    p->aggs = h->aggregators ? h->aggregators : &rank0_aggregator;
    p->me_agg = -1;
    for (int i = 0; i < p->naggs; i++)
        if (p->aggs[i] == p->f->rank) p->me_agg = i;
    p->lo = lo, p->hi = hi;
    p->domain = (hi - lo + p->naggs - 1) / p->naggs;
    if (p->domain > 4096) p->domain = (p->domain + 4095) / 4096 * 4096;
    p->window = h->cb_buffer_size < p->domain ? h->cb_buffer_size : p->domain;
    p->rounds = (p->domain + p->window - 1) / p->window;
}

/* The plan's arrays by rank and by aggregator; whether there was memory. */
static int plan_arrays(tw_io_two_phase_t *p) {
    size_t size = (size_t)p->f->size;
    p->scount = calloc(size, sizeof *p->scount);
    p->rcount = calloc(size, sizeof *p->rcount);
    p->sdisp = calloc(size, sizeof *p->sdisp);
    p->rdisp = calloc(size, sizeof *p->rdisp);
    p->their_n = calloc(size, sizeof *p->their_n);
    p->their_first = calloc(size, sizeof *p->their_first);
    p->their_cursor = calloc(size, sizeof *p->their_cursor);
    return p->scount && p->rcount && p->sdisp && p->rdisp && p->their_n && p->their_first &&
           p->their_cursor;
}

/* My runs cut at the domains' edges, as pairs (offset, length) to each aggregator, in
 * the order of the aggregators' ranks (the exchange's); scount and sdisp: each rank's
 * values. NULL when out of memory. */
static MPI_Offset *runs_for_aggregators(tw_io_two_phase_t *p) {
    int size = p->f->size;
    p->cursor = calloc((size_t)p->naggs, sizeof *p->cursor);
    MPI_Offset *out = malloc(sizeof(MPI_Offset) * 2 * (p->nruns + (size_t)p->naggs + 1));
    MPI_Offset *sorted = malloc(sizeof(MPI_Offset) * 2 * (p->nruns + (size_t)p->naggs + 1));
    MPI_Aint *start = calloc((size_t)size, sizeof *start);
    if (!p->cursor || !out || !sorted || !start) {
        free(out);
        free(sorted);
        free(start);
        return NULL;
    }
    size_t n_out = 0, j = 0;
    for (int r = 0; r < size; r++) p->scount[r] = 0;
    for (int i = 0; i < p->naggs; i++) {
        MPI_Offset from = p->lo + i * p->domain, to = from + p->domain;
        MPI_Count k = 0;
        for (; j < p->nruns && p->runs[j].at < to; j++) {
            MPI_Offset a = p->runs[j].at, e = a + p->runs[j].len;
            if (a < from) a = from;
            if (e > to) e = to;
            if (e > a) out[2 * n_out] = a, out[2 * n_out + 1] = e - a, n_out++, k++;
            if (p->runs[j].at + p->runs[j].len > to) break; /* the rest is the next one's */
        }
        p->scount[p->aggs[i]] += 2 * k;
    }
    MPI_Aint place = 0;
    for (int r = 0; r < size; r++) p->sdisp[r] = place, place += (MPI_Aint)p->scount[r];
    /* out is in aggregator order; a rank that is an aggregator twice cannot be
     * (hints.c lists distinct ranks) */
    size_t w = 0, rd = 0;
    for (int i = 0; i < p->naggs; i++)
        start[p->aggs[i]] = (MPI_Aint)rd, rd += (size_t)p->scount[p->aggs[i]];
    for (int r = 0; r < size; r++) {
        memcpy(sorted + w, out + start[r], sizeof(MPI_Offset) * (size_t)p->scount[r]);
        w += (size_t)p->scount[r];
    }
    free(start);
    free(out);
    return sorted;
}

/* Once the counts are exchanged: where each rank's runs land; their number of values,
 * or -1 when a rank's count cannot be (negative, odd, or more runs than the bytes of my
 * domain, which runs of a byte or more, none over another, cannot exceed): it sized a
 * receive into this rank's buffer. */
static MPI_Count their_places(tw_io_two_phase_t *p) {
    MPI_Count total = 0;
    for (int r = 0; r < p->f->size; r++) {
        if (p->rcount[r] < 0 || p->rcount[r] % 2 || p->rcount[r] / 2 > p->domain) return -1;
        p->rdisp[r] = (MPI_Aint)total, total += p->rcount[r];
    }
    return total;
}

/* The runs each rank sent me (total values at in), with where each run's bytes sit in
 * what that rank sends; 0 when out of memory or when a rank's runs lie outside my
 * domain (they would be copied outside my buffer). */
static int take_theirs(tw_io_two_phase_t *p, const MPI_Offset *in, MPI_Count total) {
    size_t ntheirs = (size_t)total / 2;
    p->theirs = malloc(sizeof(run_t) * (ntheirs ? ntheirs : 1));
    p->pieces = malloc(sizeof(run_t) * (ntheirs ? ntheirs : 1));
    p->merged = malloc(sizeof(run_t) * (ntheirs ? ntheirs : 1));
    p->piece_first = malloc(sizeof(size_t) * ((size_t)p->f->size + 1));
    if (!p->theirs || !p->pieces || !p->merged || !p->piece_first) return 0;
    MPI_Offset my_from = p->lo + (MPI_Offset)(p->me_agg < 0 ? 0 : p->me_agg) * p->domain;
    for (int r = 0; r < p->f->size; r++)
        if (!tw_io_runs_take(in + p->rdisp[r], p->rcount[r], my_from, my_from + p->domain))
            return 0;
    for (int r = 0, t = 0; r < p->f->size; r++) {
        p->their_n[r] = p->rcount[r] / 2;
        p->their_first[r] = t;
        MPI_Offset pos = 0;
        for (MPI_Count k = 0; k < p->their_n[r]; k++, t++) {
            const MPI_Offset *q = in + p->rdisp[r] + 2 * k;
            p->theirs[t] = (run_t){q[0], q[1], pos};
            pos += q[1];
        }
    }
    return 1;
}

tw_io_two_phase_t *tw_io_two_phase_plan(tw_io_file_t *f, int write, MPI_Offset first,
                                        MPI_Offset len) {
    const tw_io_hints_t *h = &f->hints;
    int mode = write ? h->cb_write : h->cb_read;
    if (!tw_io_two_phase_may(f, write)) return NULL;
    tw_io_two_phase_t *p = calloc(1, sizeof *p);
    int usable = p != NULL;
    if (p) {
        p->f = f, p->write = write, p->len = len;
        usable = plan_runs(p, first, len);
    }
    MPI_Offset mine[S_N], *all = malloc(sizeof(MPI_Offset) * S_N * (size_t)f->size);
    tell(p, usable, mine);
    mine[S_BUSY] = tw_io_file_busy(f);
    /* a rank short of memory for the answers says so first, and all go the other way */
    int ok = all != NULL, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, f->comm);
    if (all_ok) MPI_Allgather(mine, S_N, MPI_OFFSET, all, S_N, MPI_OFFSET, f->comm);
    MPI_Offset lo, hi;
    int go = all_ok && decide(all, f->size, mode, h->nodes < 2, &lo, &hi);
    for (int r = 0; go && r < f->size; r++) p->no_rmw |= all[S_N * r + S_BUSY] != 0;
    free(all);
    if (!go) {
        tw_io_two_phase_free(p);
        return NULL;
    }
    cut_domains(p, lo, hi);
    /* on one node the ranks copy straight into the aggregators' buffers (measured: up to
     * three times as fast as the exchange of messages, docs/io.md); a non-blocking
     * collective of the file that holds the window ends first (shared_window may make it
     * anew): every rank is in this call or comes to it, moving that one on meanwhile */
    for (unsigned spins = 0; h->cb_win_held;) {
        tw_mpi_progress();
        if (h->cb_win_held) tw_mpi_relax(&spins);
    }
    p->shm = h->nodes == 1 && h->cb_shm != TW_IO_DISABLE && shared_window(f, p->window);

    MPI_Offset *sorted = NULL;
    ok = plan_arrays(p) && (sorted = runs_for_aggregators(p)) != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, f->comm);
    if (!ok) goto out_of_memory;
    MPI_Alltoall(p->scount, 1, MPI_COUNT, p->rcount, 1, MPI_COUNT, f->comm);
    MPI_Count total = their_places(p);
    MPI_Offset *in = total < 0 ? NULL : malloc(sizeof(MPI_Offset) * (size_t)(total ? total : 1));
    ok = in != NULL;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, f->comm);
    if (!ok) {
        free(in);
        goto out_of_memory;
    }
    MPI_Alltoallv_c(sorted, p->scount, p->sdisp, MPI_OFFSET, in, p->rcount, p->rdisp, MPI_OFFSET,
                    f->comm);
    free(sorted);
    sorted = NULL;
    p->buf =
        p->me_agg >= 0 && !p->shm ? kept(&f->hints.cb_buf, &f->hints.cb_buf_size, p->window) : NULL;
    if (p->shm && p->me_agg >= 0) p->buf = h->cb_bases[p->me_agg];
    ok = take_theirs(p, in, total) && (p->me_agg < 0 || p->buf);
    free(in);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, f->comm);
    if (!ok) goto out_of_memory;
    return p;
out_of_memory: /* every rank knows: each goes the independent way */
    free(sorted);
    tw_io_two_phase_free(p);
    return NULL;
}

/* The aggregator's pieces of window [from, to): each rank's, in rank order, pos their
 * place in the received bytes; their count; *bytes their sum. */
static size_t window_pieces(tw_io_two_phase_t *p, MPI_Offset from, MPI_Offset to,
                            MPI_Offset *bytes) {
    size_t n = 0;
    MPI_Offset got = 0;
    for (int r = 0; r < p->f->size; r++) {
        const run_t *t = p->theirs + p->their_first[r];
        size_t nt = (size_t)p->their_n[r], *c = &p->their_cursor[r];
        p->piece_first[r] = n;
        before(t, nt, c, from); /* past the runs wholly before the window */
        p->rcount[r] = 0;
        p->rdisp[r] = (MPI_Aint)got;
        for (size_t k = *c; k < nt && t[k].at < to; k++) {
            MPI_Offset a = t[k].at > from ? t[k].at : from;
            MPI_Offset e = t[k].at + t[k].len < to ? t[k].at + t[k].len : to;
            if (e <= a) continue;
            p->pieces[n++] = (run_t){a, e - a, got};
            got += e - a;
            p->rcount[r] += e - a;
        }
    }
    p->piece_first[p->f->size] = n;
    *bytes = got;
    return n;
}

/* The round's pieces in file order. Each rank's are in file order already (its runs
 * are, as tw_io_runs_take checked), so the ranks' lists are merged pairwise, log2(ranks) passes
 * over them, where a sort took a sixth of a 2-rank write of 64-byte records. Stable: of pieces at
 * the same offset (an erroneous overlap) the lower rank's comes first. */
static void order_pieces(tw_io_two_phase_t *p) {
    int lists = p->f->size;
    const size_t *first = p->piece_first;
    run_t *in = p->pieces, *out = p->merged;
    for (int width = 1; width < lists; width *= 2) {
        for (int l = 0; l < lists; l += 2 * width) {
            int mid = l + width < lists ? l + width : lists;
            int end = l + 2 * width < lists ? l + 2 * width : lists;
            size_t i = first[l], j = first[mid], o = first[l];
            while (i < first[mid] && j < first[end])
                out[o++] = in[j].at < in[i].at ? in[j++] : in[i++];
            while (i < first[mid]) out[o++] = in[i++];
            while (j < first[end]) out[o++] = in[j++];
        }
        run_t *t = in;
        in = out, out = t;
    }
    p->pieces = in, p->merged = out;
}

static int move_whole(int fd, int write, char *mem, MPI_Offset at, MPI_Offset len,
                      MPI_Offset *got) {
    int err = tw_io_move(fd, write, mem, at, len, got);
    if (!err && write && *got < len) err = EIO;
    return err;
}

/* One round at the aggregator, before the exchange: a read's span read; a write's span
 * read when it is to be written whole over small holes. *span_*: the bytes to write. */
static int aggregate_before(tw_io_two_phase_t *p, MPI_Offset from, size_t n, int *whole,
                            MPI_Offset *span_at, MPI_Offset *span_len) {
    *whole = 0;
    if (!n) return 0;
    order_pieces(p);
    MPI_Offset a = p->pieces[0].at, e = a, covered = 0;
    size_t runs = 0;
    for (size_t k = 0; k < n; k++) {
        MPI_Offset pe = p->pieces[k].at + p->pieces[k].len;
        if (k == 0 || p->pieces[k].at > e) runs++;
        covered += p->pieces[k].len; /* counts overlaps twice: only for the rule */
        if (pe > e) e = pe;
    }
    *span_at = a, *span_len = e - a;
    char *at = p->buf + (a - from);
    MPI_Offset got = 0;
    if (!p->write) {
        int err = tw_io_move(p->f->fd, 0, at, a, e - a, &got);
        if (got < e - a) memset(at + got, 0, (size_t)(e - a - got)); /* past the end */
        return err;
    }
    if (runs == 1) return *whole = 1, 0;
    /* holes: read-modify-write of the span when they are at most as large as the data,
     * the file is readable and no other collective access is under way, else a pwrite
     * per covered run */
    if ((p->f->amode & MPI_MODE_WRONLY) || e - a - covered > covered || p->no_rmw) return 0;
    *whole = 1;
    int err = tw_io_move(p->f->fd, 0, at, a, e - a, &got);
    if (got < e - a) memset(at + got, 0, (size_t)(e - a - got));
    return err;
}

/* Where a piece of the round is on the exchange's side: the aggregator's own in its
 * packed stream when given, which the blocking exchange of messages then skips (two
 * copies fewer of its share, a rank's part of the data), else in the receive buffer. */
static char *exchanged(const tw_io_two_phase_t *p, const run_t *piece, char *packed) {
    int me = p->f->rank;
    MPI_Offset mine = piece->pos - (MPI_Offset)p->rdisp[me];
    if (packed && mine >= 0 && mine < (MPI_Offset)p->rcount[me])
        return packed + p->sdisp[me] + mine;
    return p->recv + piece->pos;
}

/* After the exchange: a write's pieces into the window, then written. */
static int aggregate_write(tw_io_two_phase_t *p, MPI_Offset from, size_t n, int whole,
                           MPI_Offset span_at, MPI_Offset span_len, char *packed) {
    if (!n) return 0;
    for (size_t k = 0; k < n && !p->shm; k++) /* (shm: the ranks copied them there) */
        tw_copy_long(p->buf + (p->pieces[k].at - from), exchanged(p, &p->pieces[k], packed),
                     (size_t)p->pieces[k].len);
    MPI_Offset got;
    if (whole) return move_whole(p->f->fd, 1, p->buf + (span_at - from), span_at, span_len, &got);
    for (size_t k = 0; k < n;) { /* the covered runs, one pwrite each */
        MPI_Offset a = p->pieces[k].at, e = a + p->pieces[k].len;
        for (k++; k < n && p->pieces[k].at <= e; k++)
            if (p->pieces[k].at + p->pieces[k].len > e) e = p->pieces[k].at + p->pieces[k].len;
        int err = move_whole(p->f->fd, 1, p->buf + (a - from), a, e - a, &got);
        if (err) return err;
    }
    return 0;
}

/* A read's pieces each rank asked for, in its order, out of the window. */
static void read_out(tw_io_two_phase_t *p, MPI_Offset from, size_t n, char *packed) {
    for (size_t k = 0; k < n; k++)
        tw_copy_long(exchanged(p, &p->pieces[k], packed), p->buf + (p->pieces[k].at - from),
                     (size_t)p->pieces[k].len);
}

/* Aggregator i's window of a round: [from, *to), empty when from >= *to. */
static MPI_Offset window_of(const tw_io_two_phase_t *p, int i, MPI_Offset round, MPI_Offset *to) {
    MPI_Offset from = p->lo + i * p->domain + round * p->window;
    MPI_Offset end = p->lo + (i + 1) * p->domain;
    *to = from + p->window;
    if (*to > end) *to = end;
    if (*to > p->hi) *to = p->hi;
    return from;
}

/* My bytes in each aggregator's window of a round: one stretch of my stream each
 * (scount, sdisp by rank). */
static void my_round(tw_io_two_phase_t *p, MPI_Offset round) {
    for (int r = 0; r < p->f->size; r++) p->scount[r] = 0, p->sdisp[r] = 0;
    for (int i = 0; i < p->naggs; i++) {
        MPI_Offset to, from = window_of(p, i, round, &to);
        if (from >= to) continue;
        MPI_Offset s = before(p->runs, p->nruns, &p->cursor[i], from);
        MPI_Offset e = before(p->runs, p->nruns, &p->cursor[i], to);
        p->scount[p->aggs[i]] = e - s;
        p->sdisp[p->aggs[i]] = (MPI_Aint)s;
    }
}

/* The aggregator's window of a round: its pieces (their number), *from, and *bytes
 * the ranks' bytes in it (rcount, rdisp by rank); none for a rank not an aggregator. */
static size_t aggregator_round(tw_io_two_phase_t *p, MPI_Offset round, MPI_Offset *from,
                               MPI_Offset *bytes) {
    *from = 0, *bytes = 0;
    MPI_Offset to = 0;
    if (p->me_agg >= 0) *from = window_of(p, p->me_agg, round, &to);
    if (p->me_agg >= 0 && *from < to) return window_pieces(p, *from, to, bytes);
    for (int r = 0; r < p->f->size; r++) p->rcount[r] = 0, p->rdisp[r] = 0;
    return 0;
}

/* The class of a rank's part, what the ranks agreed, and *detail for it. */
static int outcome(int err, int mine, int worst, const char **detail) {
    if (err)
        *detail = strerror(err);
    else if (worst != MPI_SUCCESS && worst != mine)
        *detail = "an aggregator of collective buffering failed";
    return worst;
}

/* My stream bytes moved by a plan that succeeded: a read stops short at the end of the
 * file, as each rank's own would. */
static MPI_Offset moved(const tw_io_two_phase_t *p) {
    if (p->write) return p->len;
    struct stat st;
    size_t c = 0;
    return fstat(p->f->fd, &st) == 0 ? before(p->runs, p->nruns, &c, st.st_size) : p->len;
}

int tw_io_two_phase_move(tw_io_two_phase_t *p, char *packed, int mine, MPI_Offset *done,
                         const char **detail) {
    tw_io_file_t *f = p->f;
    int size = f->size, err = 0;
    char *scratch = NULL;
    *done = 0;
    if (!packed && p->len > 0) { /* the rank failed before: its bytes are not there */
        scratch = calloc(1, (size_t)p->len);
        if (!scratch) /* the other ranks wait for these bytes: ending the job names why */
            tw_mpi_raise(MPI_ERRORS_ARE_FATAL, NULL, NULL, "collective buffering", MPI_ERR_NO_MEM,
                         "no memory for a failed rank's share of the exchange");
        packed = scratch;
    }
    for (int i = 0; i < p->naggs; i++) p->cursor[i] = 0;
    for (int r = 0; r < size; r++) p->their_cursor[r] = 0;
    for (MPI_Offset round = 0; round < p->rounds; round++) {
        if (!p->shm) my_round(p, round);
        MPI_Offset from, bytes, span_at = 0, span_len = 0;
        size_t n = aggregator_round(p, round, &from, &bytes);
        int whole = 0;
        if (p->me_agg >= 0) {
            if (!p->shm) {
                p->recv = kept(&f->hints.cb_recv, &f->hints.cb_recv_size, bytes);
                if (!p->recv) /* the exchange needs it, and the other ranks wait on it */
                    tw_mpi_raise(MPI_ERRORS_ARE_FATAL, NULL, NULL, "collective buffering",
                                 MPI_ERR_NO_MEM, "no memory for an aggregator's receive buffer");
            }
            if (!err) err = aggregate_before(p, from, n, &whole, &span_at, &span_len);
        }
        if (p->shm) {
            shared_fence(f); /* the span read, or the last round's written */
            for (int i = 0; i < p->naggs; i++) {
                MPI_Offset wt, wf = window_of(p, i, round, &wt);
                if (wf < wt) copy_mine(p, i, wf, wt, packed);
            }
            shared_fence(f); /* every rank's pieces in */
            if (p->write && p->me_agg >= 0 && !err)
                err = aggregate_write(p, from, n, whole, span_at, span_len, NULL);
        } else if (p->write) {
            MPI_Count self = p->rcount[f->rank]; /* moved by aggregate_write, not sent */
            p->scount[f->rank] = p->rcount[f->rank] = 0;
            MPI_Alltoallv_c(packed, p->scount, p->sdisp, MPI_BYTE, p->recv, p->rcount, p->rdisp,
                            MPI_BYTE, f->comm);
            p->rcount[f->rank] = self;
            if (p->me_agg >= 0 && !err)
                err = aggregate_write(p, from, n, whole, span_at, span_len, packed);
        } else {
            read_out(p, from, n, packed);
            p->scount[f->rank] = p->rcount[f->rank] = 0; /* read_out put them in place */
            MPI_Alltoallv_c(p->recv, p->rcount, p->rdisp, MPI_BYTE, packed, p->scount, p->sdisp,
                            MPI_BYTE, f->comm);
        }
    }
    free(scratch);
    int class = err ? tw_io_errno_class(err) : MPI_SUCCESS, worst = class;
    if (mine > worst) worst = mine;
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, f->comm);
    if (outcome(err, mine, worst, detail) != MPI_SUCCESS) return worst;
    *done = moved(p);
    return MPI_SUCCESS;
}

int tw_io_two_phase_may(const tw_io_file_t *f, int write) {
    const tw_io_hints_t *h = &f->hints;
    int mode = write ? h->cb_write : h->cb_read;
    /* atomic mode locks each rank's range around its own access: not an aggregator's;
     * automatic never buffers a read on one node (decide says which writes). Every rank
     * knows these alike (the mode is rank 0's, the nodes every rank's same count). */
    return !(mode == TW_IO_DISABLE || f->atomic ||
             (mode == TW_IO_AUTOMATIC && h->nodes < 2 && !write));
}

/* ---- non-blocking: the same plan and rounds as steps of a schedule ----
 *
 * The plan's allgather, the exchanges of counts and runs, each round's exchange of
 * data and the final agreement are collectives written into one schedule on the
 * file's communicator, which progress moves on; each step that needs what the last
 * one received is a call that writes the next ones. The aggregator's preads and
 * pwrites of a round are a job on the I/O thread, which the schedule waits for. The
 * exchange goes by messages, or on one node through the blocking form's shared window
 * where a blocking collective made it (it is made collectively, at a call) and no other
 * non-blocking access holds it (hold_window): the ranks copy their pieces in or out
 * between two barriers of the schedule, the aggregator's read of the span before them
 * and its write after. A failure at an aggregator, or a rank's before it started, is
 * every rank's at the end, as in the blocking form; a lost peer ends the schedule. */

typedef struct nb {
    tw_io_two_phase_t *p;
    tw_io_job_t job; /* the aggregator's file access of a round */
    MPI_Request job_done;
    tw_io_two_phase_end_fn *end;
    void *arg;
    char *packed;
    int mine, mode, declined;
    int holds_window; /* the file's shared window held for this access (S_SHM) */
    int whole;        /* shared window: the round's span written whole (aggregate_before) */
    MPI_Offset span_at, span_len;
    int phase;          /* what nb_file_run does: NB_ROUND, NB_BEFORE, NB_WRITE */
    int err;            /* the aggregator's first failed system call's errno */
    int usable, agreed; /* whether a rank had memory, and all did */
    int class, worst;
    MPI_Offset told[S_N], *all, *sorted, *in;
    MPI_Offset round, from, bytes, recv_size, buf_size; /* the last two: p->recv's, p->buf's */
    size_t n;
    tw_sched_block_t *sblocks, *rblocks;
} nb_t;

static const tw_coll_red_t int_max = {MPI_MAX, MPI_INT, sizeof(int), 1};
static const tw_coll_red_t int_min = {MPI_MIN, MPI_INT, sizeof(int), 1};

static void nb_round(tw_sched_t *s, void *arg);

/* The exchange of a round (or of the plan): rank r's scount[r] units at
 * send + sdisp[r] units, into recv + rdisp[r] units (unit bytes each). */
static void nb_exchange(tw_sched_t *s, nb_t *x, char *send, const MPI_Count *scount,
                        const MPI_Aint *sdisp, char *recv, const MPI_Count *rcount,
                        const MPI_Aint *rdisp, size_t unit) {
    for (int r = 0; r < x->p->f->size; r++) {
        x->sblocks[r] = (tw_sched_block_t){.at = send ? send + (size_t)sdisp[r] * unit : NULL,
                                           .bytes = (size_t)scount[r] * unit};
        x->rblocks[r] = (tw_sched_block_t){.at = recv ? recv + (size_t)rdisp[r] * unit : NULL,
                                           .bytes = (size_t)rcount[r] * unit};
    }
    tw_coll_alltoallv(s, x->sblocks, x->rblocks);
    tw_sched_fence(s);
}

/* What the aggregator's file access of a round is: all of it after the exchange of
 * messages; through the shared window, the span read (a read's, or a write's over
 * small holes) before the ranks copy, and the write after. */
enum { NB_ROUND, NB_BEFORE, NB_WRITE };

/* On the I/O thread: the aggregator's system calls of a round. */
static void nb_file_run(tw_io_job_t *job) {
    nb_t *x = (nb_t *)((char *)job - offsetof(nb_t, job));
    tw_io_two_phase_t *p = x->p;
    int err = 0;
    if (x->phase != NB_WRITE)
        err = aggregate_before(p, x->from, x->n, &x->whole, &x->span_at, &x->span_len);
    if (!err && p->write && x->phase != NB_BEFORE)
        err = aggregate_write(p, x->from, x->n, x->whole, x->span_at, x->span_len, NULL);
    if (!p->write && x->phase == NB_ROUND) read_out(p, x->from, x->n, NULL);
    if (err && !x->err) x->err = err;
}

static void nb_file_done(tw_io_job_t *job) {
    nb_t *x = (nb_t *)((char *)job - offsetof(nb_t, job));
    tw_mpi_coll_request_done(x->job_done, MPI_SUCCESS);
}

/* The aggregator's file access of this round, waited for by the schedule (moved at
 * once when the I/O thread cannot be had). */
static void nb_file(tw_sched_t *s, nb_t *x, int phase) {
    if (x->p->me_agg < 0 || !x->n) return;
    if (x->err && x->p->write) return; /* as the blocking form: no more writes */
    x->phase = phase;
    x->job = (tw_io_job_t){.run = nb_file_run, .finish = nb_file_done, .file = x->p->f};
    if (tw_mpi_coll_request(s->context - TW_CTX_COLL, &x->job_done) != MPI_SUCCESS) {
        nb_file_run(&x->job); /* no request to wait for: at once */
        return;
    }
    if (tw_io_job_start(&x->job) != MPI_SUCCESS) { /* no thread: at once */
        nb_file_run(&x->job);
        nb_file_done(&x->job);
    }
    tw_sched_wait(s, x->job_done);
    tw_sched_fence(s);
}

static void nb_next_round(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    x->round++;
    nb_round(s, x);
}

/* After a write's exchange: the aggregator writes. */
static void nb_write_file(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    nb_file(s, x, NB_ROUND);
    tw_sched_call(s, nb_next_round, x);
}

/* Shared window, after the barrier that follows every rank's copy: the aggregator
 * writes (a job starts when its step is written, so after the barrier, not before). */
static void nb_shm_write(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    nb_file(s, x, NB_WRITE);
    tw_sched_call(s, nb_next_round, x);
}

/* Shared window: every rank's pieces of the round copied between its stream and the
 * aggregators' buffers, as the blocking form does between its fences. The barriers
 * around this step order the copies after the aggregator's read of the span and before
 * its write; the fences order this process's stores and loads with them. */
static void nb_shm_copy(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    tw_io_two_phase_t *p = x->p;
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < p->naggs; i++) {
        MPI_Offset wt, wf = window_of(p, i, x->round, &wt);
        if (wf < wt) copy_mine(p, i, wf, wt, x->packed);
    }
    atomic_thread_fence(memory_order_seq_cst);
    tw_coll_barrier(s); /* every rank's pieces in, or out */
    tw_sched_call(s, p->write ? nb_shm_write : nb_next_round, x);
}

/* After a read's file access: the pieces go back. */
static void nb_read_send(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    tw_io_two_phase_t *p = x->p;
    nb_exchange(s, x, p->recv, p->rcount, p->rdisp, x->packed, p->scount, p->sdisp, 1);
    tw_sched_call(s, nb_next_round, x);
}

static void nb_round(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    tw_io_two_phase_t *p = x->p;
    if (x->round == p->rounds) { /* the end: the worst class of any rank */
        x->class = x->err ? tw_io_errno_class(x->err) : MPI_SUCCESS;
        if (x->mine > x->class) x->class = x->mine;
        tw_coll_allreduce(s, &x->class, &x->worst, 1, &int_max);
        return;
    }
    if (!p->shm) my_round(p, x->round);
    x->n = aggregator_round(p, x->round, &x->from, &x->bytes);
    if (p->me_agg >= 0 && !p->shm && x->bytes > x->recv_size) {
        tw_io_spare_give(p->recv, x->recv_size);
        p->recv = tw_io_spare_take(x->bytes, &x->recv_size);
        if (!p->recv) /* the exchange needs it, and the other ranks wait on it */
            tw_mpi_raise(MPI_ERRORS_ARE_FATAL, NULL, NULL, "collective buffering", MPI_ERR_NO_MEM,
                         "no memory for an aggregator's receive buffer");
    }
    if (p->shm) { /* the span read (or last round's written) before the ranks copy */
        nb_file(s, x, NB_BEFORE);
        tw_coll_barrier(s);
        tw_sched_call(s, nb_shm_copy, x);
    } else if (p->write) {
        nb_exchange(s, x, x->packed, p->scount, p->sdisp, p->recv, p->rcount, p->rdisp, 1);
        tw_sched_call(s, nb_write_file, x);
    } else {
        nb_file(s, x, NB_ROUND);
        tw_sched_call(s, nb_read_send, x);
    }
}

/* Every rank has its runs and the aggregators' buffers, or all go each their own way. */
static void nb_agreed(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    if (!x->agreed) {
        x->declined = 1;
        return;
    }
    tw_sched_call(s, nb_round, x);
}

/* The runs each rank sent me. */
static void nb_theirs(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    tw_io_two_phase_t *p = x->p;
    x->usable = take_theirs(p, x->in, their_places(p));
    if (x->usable && p->me_agg >= 0)
        x->usable = (p->buf = p->shm ? p->f->hints.cb_bases[p->me_agg]
                                     : tw_io_spare_take(p->window, &x->buf_size)) != NULL;
    free(x->in);
    x->in = NULL;
    tw_coll_allreduce(s, &x->usable, &x->agreed, 1, &int_min);
    tw_sched_fence(s);
    tw_sched_call(s, nb_agreed, x);
}

/* The counts known: the runs themselves. */
static void nb_runs(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    tw_io_two_phase_t *p = x->p;
    MPI_Count total = their_places(p);
    if (total < 0) /* the others send them into a receive it would size: ending names why */
        tw_mpi_raise(MPI_ERRORS_ARE_FATAL, NULL, NULL, "collective buffering", MPI_ERR_INTERN,
                     "a rank sent a count of runs no access can have");
    x->in = malloc(sizeof(MPI_Offset) * (size_t)(total ? total : 1));
    if (!x->in) /* the others send them: ending the job names why */
        tw_mpi_raise(MPI_ERRORS_ARE_FATAL, NULL, NULL, "collective buffering", MPI_ERR_NO_MEM,
                     "no memory for the runs of the ranks' accesses");
    nb_exchange(s, x, (char *)x->sorted, p->scount, p->sdisp, (char *)x->in, p->rcount, p->rdisp,
                sizeof(MPI_Offset));
    tw_sched_call(s, nb_theirs, x);
}

/* The file's shared window for this access, when it is there and no other non-blocking
 * access holds it: held from the call (in the program's order, the same on every rank),
 * so two accesses under way never share it; used only where every rank held it. */
static int hold_window(nb_t *x) {
    tw_io_hints_t *h = &x->p->f->hints;
    if (h->nodes != 1 || h->cb_shm == TW_IO_DISABLE || h->cb_win == MPI_WIN_NULL || !h->cb_bases ||
        h->cb_win_held)
        return 0;
    return h->cb_win_held = x->holds_window = 1;
}

static void release_window(nb_t *x) {
    if (!x->holds_window) return;
    x->p->f->hints.cb_win_held = x->holds_window = 0;
}

/* What every rank told: collective buffering or not, and its domains. */
static void nb_decide(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    tw_io_two_phase_t *p = x->p;
    MPI_Offset lo, hi;
    int all_free = 1;
    for (int r = 0; r < p->f->size; r++) all_free &= x->all[S_N * r + S_SHM] != 0;
    if (!decide(x->all, p->f->size, x->mode, p->f->hints.nodes < 2, &lo, &hi)) {
        release_window(x);
        x->declined = 1;
        return;
    }
    cut_domains(p, lo, hi);
    /* the shared window, where every rank held it for this access and it is as large as
     * the blocking form would make it (its size is every rank's same) */
    p->shm = all_free && p->window <= p->f->hints.cb_win_size;
    if (!p->shm) release_window(x);
    if (!(x->sorted = runs_for_aggregators(p))) /* the others send their counts */
        tw_mpi_raise(MPI_ERRORS_ARE_FATAL, NULL, NULL, "collective buffering", MPI_ERR_NO_MEM,
                     "no memory for the runs of this rank's access");
    for (int r = 0; r < p->f->size; r++) {
        x->sblocks[r] = (tw_sched_block_t){.at = (char *)&p->scount[r], .bytes = sizeof(MPI_Count)};
        x->rblocks[r] = (tw_sched_block_t){.at = (char *)&p->rcount[r], .bytes = sizeof(MPI_Count)};
    }
    tw_coll_alltoallv(s, x->sblocks, x->rblocks);
    tw_sched_fence(s);
    tw_sched_call(s, nb_runs, x);
}

static void nb_free(nb_t *x) {
    if (x->p) {
        if (!x->p->shm) tw_io_spare_give(x->p->buf, x->buf_size);
        tw_io_spare_give(x->p->recv, x->recv_size);
    }
    tw_io_two_phase_free(x->p);
    free(x->all);
    free(x->sorted);
    free(x->in);
    free(x->sblocks);
    free(x->rblocks);
    free(x);
}

/* In progress, once the schedule has ended. */
static void nb_ended(tw_sched_t *s, void *arg) {
    nb_t *x = arg;
    tw_io_file_t *f = x->p->f;
    tw_io_two_phase_end_fn *end = x->end;
    void *end_arg = x->arg;
    int declined = x->declined && !s->error, class = s->error;
    const char *detail = class ? "the exchange of collective buffering failed" : NULL;
    MPI_Offset done = 0;
    if (!class && !declined) {
        class = outcome(x->err, x->mine, x->worst, &detail);
        if (class == MPI_SUCCESS) done = moved(x->p);
    }
    release_window(x);
    nb_free(x);
    f->collectives_running--;
    if (end) end(end_arg, declined, class, done, detail);
}

void tw_io_two_phase_start(tw_io_file_t *f, int write, MPI_Offset first, MPI_Offset len,
                           char *packed, int mine, tw_io_two_phase_end_fn *end, void *arg) {
    nb_t *x = calloc(1, sizeof *x);
    tw_io_two_phase_t *p = x ? calloc(1, sizeof *p) : NULL;
    size_t size = (size_t)f->size;
    if (x) {
        x->p = p;
        x->all = malloc(sizeof(MPI_Offset) * S_N * size);
        x->sblocks = malloc(sizeof(tw_sched_block_t) * size);
        x->rblocks = malloc(sizeof(tw_sched_block_t) * size);
    }
    tw_sched_t *s = x ? tw_sched_new(tw_mpi_comm_get(f->comm)) : NULL;
    if (!s || !p || !x->all || !x->sblocks || !x->rblocks) /* the others wait for my part */
        tw_mpi_raise(MPI_ERRORS_ARE_FATAL, NULL, NULL, "collective buffering", MPI_ERR_NO_MEM,
                     "no memory to start a non-blocking collective access");
    *p = (tw_io_two_phase_t){
        .f = f, .write = write, .len = mine == MPI_SUCCESS ? len : 0, .no_rmw = 1};
    x->end = end, x->arg = arg, x->packed = packed, x->mine = mine;
    x->mode = write ? f->hints.cb_write : f->hints.cb_read;
    x->job_done = MPI_REQUEST_NULL;
    tell(p, plan_runs(p, first, p->len) && plan_arrays(p), x->told);
    x->told[S_SHM] = hold_window(x);
    f->collectives_running++;
    tw_coll_allgather(s, x->told, x->all, sizeof x->told);
    tw_sched_fence(s);
    tw_sched_call(s, nb_decide, x);
    tw_sched_start_then(s, nb_ended, x);
}
