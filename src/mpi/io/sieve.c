/* Data sieving. The runs of the access (runs.c) gather into groups: a group grows while
 * the next run starts close after the last (the gap rule below, unless the hint says
 * enable) and its span fits the buffer; a group of several runs moves as one span, a
 * lone run as itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "common/aliased_copy.h"
#include "mpi/io/runs.h"
#include "mpi/io/sieve.h"

/* Automatic: the largest hole inside a sieved span. Reading a hole costs a copy out of
 * the page cache, a run read alone a system call; a write's span costs a read and the
 * lock's two calls besides, so a write groups closer runs and at least WRITE_RUNS of
 * them. A span more holes than data is sieved only when its runs average below
 * SPARSE_RUN bytes (4 ranks' 1 KiB records read sieved: slower at the median).
 * Measured: docs/io.md. */
enum { READ_GAP = 8 << 10, WRITE_GAP = 4 << 10, WRITE_RUNS = 4, SPARSE_RUN = 256 };
enum { GROUP_RUNS = 1024 };

typedef struct group {
    tw_io_file_t *f;
    int write, enable;
    MPI_Offset gap, cap; /* the rule: largest hole, largest span */
    MPI_Offset at[GROUP_RUNS], len[GROUP_RUNS];
    size_t n;
    char *mem, *span; /* the stream at the group's first run; the spans' buffer (paged) */
    MPI_Offset moved;
    int err, short_read;
} group_t;

static int lock(int fd, short type, MPI_Offset at, MPI_Offset len) {
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = at, .l_len = len};
    while (fcntl(fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR) return errno;
    return 0;
}

/* Moves the group: one span, or its lone run. Nonzero stops the walk. */
static int flush(group_t *g) {
    if (!g->n) return 0;
    int fd = g->f->fd;
    MPI_Offset got = 0, from = g->at[0], to = g->at[g->n - 1] + g->len[g->n - 1];
    size_t n = g->n;
    g->n = 0;
    /* laid out as the file's pages: the kernel copies page to page (aliased_copy.h) */
    char *span = g->span + (from & 4095);
    MPI_Offset data = 0;
    for (size_t k = 0; k < n; k++) data += g->len[k];
    /* automatic: a span mostly holes pays only when the runs are small */
    int sparse = !g->enable && to - from - data > data && data / (MPI_Offset)n >= SPARSE_RUN;
    if (sparse || n < (g->write && !g->enable ? WRITE_RUNS : 2)) { /* each run by itself */
        for (size_t k = 0; k < n; k++) {
            g->err = tw_io_move(fd, g->write, g->mem, g->at[k], g->len[k], &got);
            g->moved += got, g->mem += got;
            if (g->err || got < g->len[k]) return 1;
        }
        return 0;
    }
    int locked = g->write && !g->f->atomic; /* atomic mode holds a lock of it all already */
    if (locked && (g->err = lock(fd, F_WRLCK, from, to - from))) return 1;
    g->err = tw_io_move(fd, 0, span, from, to - from, &got);
    if (!g->err && g->write) {
        if (got < to - from) memset(span + got, 0, (size_t)(to - from - got)); /* past the end */
        MPI_Offset bytes = 0;
        for (size_t k = 0; k < n; k++) {
            tw_copy_long(span + (g->at[k] - from), g->mem + bytes, (size_t)g->len[k]);
            bytes += g->len[k];
        }
        MPI_Offset put = 0;
        g->err = tw_io_move(fd, 1, span, from, to - from, &put);
        if (!g->err && put < to - from) g->err = EIO;
        if (!g->err) g->mem += bytes, g->moved += bytes;
    }
    if (locked) lock(fd, F_UNLCK, from, to - from);
    if (g->err) return 1;
    if (g->write) return 0;
    for (size_t k = 0; k < n; k++) { /* a read stops short at the end of the file */
        MPI_Offset have = from + got - g->at[k];
        MPI_Offset take = have < 0 ? 0 : have < g->len[k] ? have : g->len[k];
        tw_copy_long(g->mem, span + (g->at[k] - from), (size_t)take);
        g->mem += take, g->moved += take;
        if (take < g->len[k]) return 1;
    }
    return 0;
}

static int add(void *arg, MPI_Offset at, MPI_Offset len) {
    group_t *g = arg;
    if (g->n) {
        MPI_Offset last = g->at[g->n - 1] + g->len[g->n - 1];
        if (g->n == GROUP_RUNS || at < last || at + len - g->at[0] > g->cap ||
            (!g->enable && at - last > g->gap))
            if (flush(g)) return 1;
    }
    g->at[g->n] = at, g->len[g->n] = len, g->n++;
    return 0;
}

int tw_io_sieve(tw_io_file_t *f, int write, MPI_Offset first, char *packed, MPI_Offset len,
                MPI_Offset *done, int *taken) {
    const tw_io_hints_t *h = &f->hints;
    int mode = write ? h->ds_write : h->ds_read;
    *taken = 0;
    /* a write's span is read first: not in a file open write-only */
    if (mode == TW_IO_DISABLE || (write && (f->amode & MPI_MODE_WRONLY))) return 0;
    group_t *g = malloc(sizeof *g);
    MPI_Offset cap = write ? h->ind_wr_buffer_size : h->ind_rd_buffer_size;
    MPI_Offset reach = tw_io_stream_to_file(&f->view, first + len - 1) + 1 -
                       tw_io_stream_to_file(&f->view, first); /* the access's whole span */
    if (reach > 0 && reach < cap) cap = reach;
    /* a page more, to start each span at its file offset's place in a page */
    size_t span_size = ((size_t)cap + 2 * 4096 - 1) & ~(size_t)4095;
    char *span = g ? aligned_alloc(4096, span_size) : NULL;
    if (!span) { /* no memory: the way without sieving */
        free(g);
        return 0;
    }
    *g = (group_t){.f = f,
                   .write = write,
                   .enable = mode == TW_IO_ENABLE,
                   .gap = write ? WRITE_GAP : READ_GAP,
                   .cap = cap,
                   .mem = packed,
                   .span = span};
    *taken = 1;
    if (!tw_io_runs(&f->view, first, len, add, g)) flush(g);
    int err = g->err;
    *done = write && !err ? len : g->moved;
    free(span);
    free(g);
    return err;
}
