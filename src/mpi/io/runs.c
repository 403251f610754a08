/* The file runs of a stretch of a view's stream, and the pread/pwrite loop: what
 * every access's file side walks (file_access.c, sieve.c, two_phase.c). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/aliased_copy.h"

#include "mpi/io/runs.h"

int tw_io_runs(const tw_io_view_t *v, MPI_Offset first, MPI_Offset len, tw_io_run_fn *fn,
               void *arg) {
    const tw_typemap_t *m = v->fmap;
    if (len <= 0) return 0;
    const tw_typemap_block_t *one = m->nblocks == 1 ? &m->blocks[0] : NULL;
    if (one && (one->reps == 1 || one->stride == (MPI_Aint)one->len) &&
        (MPI_Offset)m->size == v->fextent)
        return fn(arg, v->disp + one->disp + first, len); /* the tiles abut */
    MPI_Offset tile = first / m->size, in = first % m->size, left = len;
    MPI_Offset run_at = -1, run_len = 0;
    while (left > 0) {
        MPI_Offset base = v->disp + tile * v->fextent;
        for (size_t b = 0; b < m->nblocks && left > 0; b++) {
            const tw_typemap_block_t *bl = &m->blocks[b];
            MPI_Offset blen = (MPI_Offset)bl->len, bytes = blen * (MPI_Offset)bl->reps;
            if (!bytes || in >= (MPI_Offset)bl->pos + bytes) continue;
            MPI_Offset k = (in - (MPI_Offset)bl->pos) / blen;
            MPI_Offset off = (in - (MPI_Offset)bl->pos) % blen;
            for (; k < (MPI_Offset)bl->reps && left > 0; k++, off = 0) {
                MPI_Offset take = blen - off < left ? blen - off : left;
                MPI_Offset at = base + bl->disp + k * bl->stride + off;
                if (run_at >= 0 && at == run_at + run_len) {
                    run_len += take;
                } else {
                    int stop = run_at >= 0 ? fn(arg, run_at, run_len) : 0;
                    if (stop) return stop;
                    run_at = at;
                    run_len = take;
                }
                in += take;
                left -= take;
            }
        }
        tile++;
        in = 0;
    }
    return run_at >= 0 ? fn(arg, run_at, run_len) : 0;
}

/* Reads through the bounce buffer from a page on: below it the copies' speed matters
 * less than the second copy. */
enum { BOUNCE_MIN = 4096 };

int tw_io_read_bounced(int fd, char *mem, MPI_Offset at, MPI_Offset len, MPI_Offset *done) {
    char *bounce = tw_copy_bounce_buffer();
    if (!bounce) return ENOMEM;
    MPI_Offset moved = 0;
    while (moved < len) {
        /* half a page from the file's page offset: neither the kernel's copy into the
         * buffer nor ours out of it is then one that slows down */
        size_t page_off = tw_copy_bounce_offset((uintptr_t)(at + moved));
        size_t chunk =
            len - moved < TW_COPY_BOUNCE_CHUNK ? (size_t)(len - moved) : TW_COPY_BOUNCE_CHUNK;
        ssize_t n = pread(fd, bounce + page_off, chunk, at + moved);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            *done = moved;
            return errno;
        }
        if (n == 0) break; /* the end of the file */
        memcpy(mem + moved, bounce + page_off, (size_t)n);
        moved += n;
    }
    *done = moved;
    return 0;
}

int tw_io_move(int fd, int write, char *mem, MPI_Offset at, MPI_Offset len, MPI_Offset *done) {
    if (!write && len >= BOUNCE_MIN && tw_copy_aliased((uintptr_t)mem, (uintptr_t)at)) {
        int rc = tw_copy_aliased_slow() ? tw_io_read_bounced(fd, mem, at, len, done) : ENOMEM;
        if (rc != ENOMEM) return rc; /* else without a buffer, as any read */
    }
    MPI_Offset moved = 0;
    while (moved < len) {
        size_t chunk = (size_t)(len - moved < (1 << 30) ? len - moved : (1 << 30));
        ssize_t n = write ? pwrite(fd, mem + moved, chunk, at + moved)
                          : pread(fd, mem + moved, chunk, at + moved);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) break; /* the end of the file */
        moved += n;
    }
    *done = moved;
    return 0;
}
