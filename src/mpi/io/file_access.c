/* The data access calls of files (MPI-4.1 section 14.4): explicit offsets, the
 * individual and the shared file pointer, ordered access; blocking, non-blocking,
 * collective and split collective, and their large-count forms.
 *
 * One access is: the memory side packed into one contiguous stream (or used in
 * place when contiguous and native), the stream's bytes mapped through the view's
 * filetype onto file pieces, and each run of adjacent pieces moved by one pread or
 * pwrite (move_stream: the seam where data sieving goes). A collective access is
 * each rank's own access, then the collective completes together (collective_end:
 * the seam where two-phase collective buffering goes). A non-blocking access is
 * done at the call and its request complete at once (a generalized request). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/external32.h"
#include "mpi/datatype/typemap.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"
#include "mpi/io/file.h"
#include "mpi/io/sieve.h"
#include "mpi/io/two_phase.h"
#include "mpi/pt2pt/status.h"

enum { AT, INDIVIDUAL, SHARED, ORDERED };             /* where an access starts */
enum { INDEPENDENT, COLLECTIVE, COLLECTIVE_STARTED }; /* how it completes */

/* Moves one run of file bytes [at, at + len) to or from mem; *done: bytes moved (a read
 * stops short at the end of the file). 0 or an errno. */
static int move_run(int fd, int write, char *mem, MPI_Offset at, MPI_Offset len, MPI_Offset *done) {
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

/* Moves bytes [first, first + len) of the view's stream between the file and packed;
 * *done: bytes moved. 0 or an errno. */
static int move_stream(tw_io_file_t *f, int write, MPI_Offset first, char *packed, MPI_Offset len,
                       MPI_Offset *done) {
    const tw_io_view_t *v = &f->view;
    const tw_typemap_t *m = v->fmap;
    const tw_typemap_block_t *one = m->nblocks == 1 ? &m->blocks[0] : NULL;
    if (one && (one->reps == 1 || one->stride == (MPI_Aint)one->len) &&
        (MPI_Offset)m->size == v->fextent) {
        /* the filetype's tiles abut (the default view of bytes, any contiguous type):
         * the stream is one run of the file, moved at once, not a tile at a time */
        return move_run(f->fd, write, packed, v->disp + one->disp + first, len, done);
    }
    int sieved = 0, sieve_err = tw_io_sieve(f, write, first, packed, len, done, &sieved);
    if (sieved) return sieve_err; /* data sieving took it (sieve.c) */
    MPI_Offset tile = first / m->size, in = first % m->size, left = len;
    MPI_Offset run_at = -1, run_len = 0, moved = 0;
    char *run_mem = packed;
    *done = 0;
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
                    if (run_at >= 0) {
                        MPI_Offset got = 0;
                        int err = move_run(f->fd, write, run_mem, run_at, run_len, &got);
                        moved += got;
                        if (err || got < run_len) {
                            *done = moved;
                            return err;
                        }
                        run_mem += run_len;
                    }
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
    if (run_at >= 0) {
        MPI_Offset got = 0;
        int err = move_run(f->fd, write, run_mem, run_at, run_len, &got);
        moved += got;
        if (err) {
            *done = moved;
            return err;
        }
    }
    *done = moved;
    return 0;
}

/* Atomic mode: a byte-range lock over the file bytes an access touches. */
static int range_lock(tw_io_file_t *f, int write, MPI_Offset first, MPI_Offset len, int lock) {
    MPI_Offset from = tw_io_stream_to_file(&f->view, first);
    MPI_Offset to = tw_io_stream_to_file(&f->view, first + len - 1) + 1;
    struct flock fl = {.l_type = (short)(lock ? (write ? F_WRLCK : F_RDLCK) : F_UNLCK),
                       .l_whence = SEEK_SET,
                       .l_start = from,
                       .l_len = to - from};
    while (fcntl(f->fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR) return errno;
    return 0;
}

typedef struct access {
    const char *call;
    int write, where, completion;
    const char *detail;           /* what went wrong, for the report */
    tw_io_two_phase_t *two_phase; /* a collective's plan of collective buffering, or NULL */
    int joined;                   /* whether this rank moved its data through the plan */
} access_t;

/* The checks of an access; MPI_SUCCESS or the class (a->detail says why). */
static int check(tw_io_file_t *f, access_t *a, MPI_Offset offset, MPI_Count count,
                 MPI_Datatype type, tw_mpi_type_layout_t *layout) {
    if (a->write && (f->amode & MPI_MODE_RDONLY))
        return a->detail = "the file is open MPI_MODE_RDONLY", MPI_ERR_READ_ONLY;
    if (!a->write && (f->amode & MPI_MODE_WRONLY))
        return a->detail = "the file is open MPI_MODE_WRONLY", MPI_ERR_ACCESS;
    if ((a->where == AT || a->where == INDIVIDUAL) && (f->amode & MPI_MODE_SEQUENTIAL))
        return a->detail = "the file is open MPI_MODE_SEQUENTIAL: only the shared file pointer",
               MPI_ERR_UNSUPPORTED_OPERATION;
    if (a->where == AT && offset < 0) return a->detail = "the offset is negative", MPI_ERR_ARG;
    if (count < 0) return a->detail = "the count is negative", MPI_ERR_COUNT;
    if (tw_mpi_type_layout(type, layout) != MPI_SUCCESS)
        return a->detail = "the datatype is no committed datatype", MPI_ERR_TYPE;
    if (layout->size % f->view.esize)
        return a->detail = "the datatype's data is not a whole number of the view's etypes",
               MPI_ERR_TYPE;
    if (f->view.rep == TW_IO_EXTERNAL32 && count && !tw_io_external32_same_size(type))
        return a->detail = "external32 of types whose sizes differ from native ones is not "
                           "implemented yet",
               MPI_ERR_UNSUPPORTED_DATAREP;
    if (count && layout->size && !f->view.fmap->size)
        return a->detail = "the view's filetype holds no data", MPI_ERR_IO;
    return MPI_SUCCESS;
}

/* Moves count items of type at buf to or from the view's stream at etype pos;
 * *done: stream bytes moved. */
static int transfer(tw_io_file_t *f, access_t *a, MPI_Offset pos, void *buf, MPI_Count count,
                    MPI_Datatype type, const tw_mpi_type_layout_t *layout, MPI_Offset *done) {
    MPI_Offset bytes = (MPI_Offset)count * layout->size, first = pos * f->view.esize;
    *done = 0;
    if (!bytes) return MPI_SUCCESS;
    int external = f->view.rep == TW_IO_EXTERNAL32;
    char *packed;
    int staged = external || !layout->contiguous;
    if (staged) {
        packed = malloc((size_t)bytes);
        if (!packed) return a->detail = "no memory for the packed data", MPI_ERR_NO_MEM;
    } else {
        packed = (char *)((uintptr_t)buf + (uintptr_t)layout->lb);
    }
    int rc = MPI_SUCCESS;
    if (a->write && staged) {
        if (external) {
            MPI_Aint position = 0;
            rc = tw_mpi_pack_external(a->call, 0, "external32", buf, count, type, packed,
                                      (MPI_Aint)bytes, &position);
        } else {
            tw_mpi_type_pack(buf, count, type, packed);
        }
    }
    int err = 0;
    if (a->two_phase) { /* the aggregators move it (never in atomic mode) */
        a->joined = 1;
        rc = tw_io_two_phase_move(a->two_phase, rc == MPI_SUCCESS ? packed : NULL, rc, done,
                                  &a->detail);
    } else if (rc == MPI_SUCCESS && f->atomic) {
        err = range_lock(f, a->write, first, bytes, 1);
    }
    if (rc == MPI_SUCCESS && !err && !a->two_phase) {
        err = move_stream(f, a->write, first, packed, bytes, done);
        if (f->atomic) range_lock(f, a->write, first, bytes, 0);
    }
    if (err) {
        rc = tw_io_errno_class(err);
        a->detail = strerror(err);
    } else if (rc == MPI_SUCCESS && !a->write && staged && *done) {
        if (external) {
            MPI_Aint position = 0;
            MPI_Count whole = *done / layout->size; /* the items read whole */
            rc = tw_mpi_pack_external(a->call, 1, "external32", buf, whole, type, packed,
                                      (MPI_Aint)*done, &position);
        } else {
            tw_mpi_type_unpack_range(packed, count, type, 0, (size_t)*done, buf);
        }
    }
    if (staged) free(packed);
    return rc;
}

/* The collective's completion: every rank has done its part. With collective buffering
 * a rank that did not move data through the plan (it failed before, or had none) takes
 * part in the aggregators' rounds here, and its class joins the agreement. */
static void collective_end(tw_io_file_t *f, access_t *a, int *rc) {
    if (!a->two_phase) {
        MPI_Barrier(f->comm);
        return;
    }
    if (!a->joined) {
        MPI_Offset ignored = 0;
        int worst = tw_io_two_phase_move(a->two_phase, NULL, *rc, &ignored, &a->detail);
        if (*rc == MPI_SUCCESS) *rc = worst;
    }
    tw_io_two_phase_free(a->two_phase);
    a->two_phase = NULL;
}

static int file_access(MPI_File fh, access_t a, MPI_Offset offset, const void *cbuf,
                       MPI_Count count, MPI_Datatype type, MPI_Status *status) {
    NEED_INIT(a.call);
    tw_io_file_t *f = tw_io_file(fh);
    if (!f) return tw_io_error(NULL, a.call, MPI_ERR_FILE, "not an open file");
    void *buf = (void *)(uintptr_t)cbuf;
    tw_mpi_type_layout_t layout;
    int rc = check(f, &a, offset, count, type, &layout);
    MPI_Offset n = rc == MPI_SUCCESS ? (MPI_Offset)count * layout.size / f->view.esize : 0;
    MPI_Offset pos = 0, done = 0;
    if (a.where == AT) {
        pos = offset;
    } else if (a.where == INDIVIDUAL) {
        pos = f->pointer;
    } else if (a.where == SHARED) {
        if (rc == MPI_SUCCESS) {
            rc = tw_io_shared_fetch_add(f, n, &pos);
            if (rc != MPI_SUCCESS) a.detail = "moving the shared file pointer";
        }
    } else { /* ordered: rank order, by an exclusive scan of the counts */
        MPI_Offset before = 0, total = 0, base = 0;
        MPI_Exscan(&n, &before, 1, MPI_OFFSET, MPI_SUM, f->comm);
        if (f->rank == 0) before = 0;
        MPI_Allreduce(&n, &total, 1, MPI_OFFSET, MPI_SUM, f->comm);
        int moved = MPI_SUCCESS;
        if (f->rank == 0) moved = tw_io_shared_fetch_add(f, total, &base);
        MPI_Bcast(&base, 1, MPI_OFFSET, 0, f->comm);
        MPI_Bcast(&moved, 1, MPI_INT, 0, f->comm);
        if (rc == MPI_SUCCESS && moved != MPI_SUCCESS)
            rc = moved, a.detail = "moving the shared file pointer";
        pos = base + before;
    }
    if (a.completion == COLLECTIVE) /* collective: each rank's stretch of its stream */
        a.two_phase = tw_io_two_phase_plan(f, a.write, rc == MPI_SUCCESS ? pos * f->view.esize : 0,
                                           rc == MPI_SUCCESS ? n * f->view.esize : 0);
    if (rc == MPI_SUCCESS) rc = transfer(f, &a, pos, buf, count, type, &layout, &done);
    if (a.completion == COLLECTIVE) collective_end(f, &a, &rc);
    if (rc != MPI_SUCCESS) return tw_io_error(f, a.call, rc, a.detail);
    if (a.where == INDIVIDUAL) f->pointer = pos + done / f->view.esize;
    if (status != MPI_STATUS_IGNORE)
        tw_mpi_status_fill(status, MPI_ANY_SOURCE, MPI_ANY_TAG, (size_t)done, 0);
    return MPI_SUCCESS;
}

/* ---- non-blocking: done at the call, complete at once ---- */

static int done_query(void *state, MPI_Status *status) {
    *status = *(MPI_Status *)state;
    return MPI_SUCCESS;
}

static int done_free(void *state) {
    free(state);
    return MPI_SUCCESS;
}

static int done_cancel(void *state, int complete) {
    (void)state;
    (void)complete;
    return MPI_SUCCESS; /* complete from the start: nothing to cancel */
}

static int file_iaccess(MPI_File fh, access_t a, MPI_Offset offset, const void *buf,
                        MPI_Count count, MPI_Datatype type, MPI_Request *request) {
    NEED_INIT(a.call);
    tw_io_file_t *f = tw_io_file(fh);
    if (!f) return tw_io_error(NULL, a.call, MPI_ERR_FILE, "not an open file");
    if (!request) return tw_io_error(f, a.call, MPI_ERR_ARG, "request is NULL");
    MPI_Status *status = calloc(1, sizeof *status);
    if (!status) return tw_io_error(f, a.call, MPI_ERR_NO_MEM, NULL);
    int rc = file_access(fh, a, offset, buf, count, type, status);
    if (rc != MPI_SUCCESS) {
        free(status);
        *request = MPI_REQUEST_NULL;
        return rc;
    }
    status->MPI_ERROR = MPI_SUCCESS;
    rc = MPI_Grequest_start(done_query, done_free, done_cancel, status, request);
    if (rc != MPI_SUCCESS) {
        free(status);
        return tw_io_error(f, a.call, rc, "making the request");
    }
    return MPI_Grequest_complete(*request);
}

/* ---- split collectives: the whole access at the begin, its status at the end ---- */

static int split_begin(MPI_File fh, access_t a, MPI_Offset offset, const void *buf, MPI_Count count,
                       MPI_Datatype type) {
    NEED_INIT(a.call);
    tw_io_file_t *f = tw_io_file(fh);
    if (!f) return tw_io_error(NULL, a.call, MPI_ERR_FILE, "not an open file");
    if (f->split_active)
        return tw_io_error(f, a.call, MPI_ERR_OTHER,
                           "a split collective of this file is begun and not ended");
    int rc = file_access(fh, a, offset, buf, count, type, &f->split_status);
    if (rc == MPI_SUCCESS) f->split_active = 1;
    return rc;
}

static int split_end(MPI_File fh, const char *call, MPI_Status *status) {
    NEED_INIT(call);
    tw_io_file_t *f = tw_io_file(fh);
    if (!f) return tw_io_error(NULL, call, MPI_ERR_FILE, "not an open file");
    if (!f->split_active)
        return tw_io_error(f, call, MPI_ERR_OTHER, "no split collective of this file is begun");
    f->split_active = 0;
    if (status != MPI_STATUS_IGNORE) *status = f->split_status;
    return MPI_SUCCESS;
}

#define ACCESS(call, write, where, completion)                                                     \
    ((access_t){call, write, where, completion, NULL, NULL, 0})

/* The calls, each with its large-count form: name, write, where, completion. */
#define BLOCKING(NAME, W, WHERE, HOW)                                                              \
    int MPI_File_##NAME(MPI_File fh, BUF(W) buf, int count, MPI_Datatype datatype,                 \
                        MPI_Status *status) {                                                      \
        return file_access(fh, ACCESS("MPI_File_" #NAME, W, WHERE, HOW), 0, buf, count, datatype,  \
                           status);                                                                \
    }                                                                                              \
    int MPI_File_##NAME##_c(MPI_File fh, BUF(W) buf, MPI_Count count, MPI_Datatype datatype,       \
                            MPI_Status *status) {                                                  \
        return file_access(fh, ACCESS("MPI_File_" #NAME "_c", W, WHERE, HOW), 0, buf, count,       \
                           datatype, status);                                                      \
    }
#define BLOCKING_AT(NAME, W, HOW)                                                                  \
    int MPI_File_##NAME(MPI_File fh, MPI_Offset offset, BUF(W) buf, int count,                     \
                        MPI_Datatype datatype, MPI_Status *status) {                               \
        return file_access(fh, ACCESS("MPI_File_" #NAME, W, AT, HOW), offset, buf, count,          \
                           datatype, status);                                                      \
    }                                                                                              \
    int MPI_File_##NAME##_c(MPI_File fh, MPI_Offset offset, BUF(W) buf, MPI_Count count,           \
                            MPI_Datatype datatype, MPI_Status *status) {                           \
        return file_access(fh, ACCESS("MPI_File_" #NAME "_c", W, AT, HOW), offset, buf, count,     \
                           datatype, status);                                                      \
    }
#define NONBLOCKING(NAME, W, WHERE, HOW)                                                           \
    int MPI_File_##NAME(MPI_File fh, BUF(W) buf, int count, MPI_Datatype datatype,                 \
                        MPI_Request *request) {                                                    \
        return file_iaccess(fh, ACCESS("MPI_File_" #NAME, W, WHERE, HOW), 0, buf, count, datatype, \
                            request);                                                              \
    }                                                                                              \
    int MPI_File_##NAME##_c(MPI_File fh, BUF(W) buf, MPI_Count count, MPI_Datatype datatype,       \
                            MPI_Request *request) {                                                \
        return file_iaccess(fh, ACCESS("MPI_File_" #NAME "_c", W, WHERE, HOW), 0, buf, count,      \
                            datatype, request);                                                    \
    }
#define NONBLOCKING_AT(NAME, W, HOW)                                                               \
    int MPI_File_##NAME(MPI_File fh, MPI_Offset offset, BUF(W) buf, int count,                     \
                        MPI_Datatype datatype, MPI_Request *request) {                             \
        return file_iaccess(fh, ACCESS("MPI_File_" #NAME, W, AT, HOW), offset, buf, count,         \
                            datatype, request);                                                    \
    }                                                                                              \
    int MPI_File_##NAME##_c(MPI_File fh, MPI_Offset offset, BUF(W) buf, MPI_Count count,           \
                            MPI_Datatype datatype, MPI_Request *request) {                         \
        return file_iaccess(fh, ACCESS("MPI_File_" #NAME "_c", W, AT, HOW), offset, buf, count,    \
                            datatype, request);                                                    \
    }
#define SPLIT(NAME, W, WHERE)                                                                      \
    int MPI_File_##NAME##_begin(MPI_File fh, BUF(W) buf, int count, MPI_Datatype datatype) {       \
        return split_begin(fh, ACCESS("MPI_File_" #NAME "_begin", W, WHERE, COLLECTIVE), 0, buf,   \
                           count, datatype);                                                       \
    }                                                                                              \
    int MPI_File_##NAME##_begin_c(MPI_File fh, BUF(W) buf, MPI_Count count,                        \
                                  MPI_Datatype datatype) {                                         \
        return split_begin(fh, ACCESS("MPI_File_" #NAME "_begin_c", W, WHERE, COLLECTIVE), 0, buf, \
                           count, datatype);                                                       \
    }                                                                                              \
    int MPI_File_##NAME##_end(MPI_File fh, BUF(W) buf, MPI_Status *status) {                       \
        (void)buf;                                                                                 \
        return split_end(fh, "MPI_File_" #NAME "_end", status);                                    \
    }
#define SPLIT_AT(NAME, W)                                                                          \
    int MPI_File_##NAME##_begin(MPI_File fh, MPI_Offset offset, BUF(W) buf, int count,             \
                                MPI_Datatype datatype) {                                           \
        return split_begin(fh, ACCESS("MPI_File_" #NAME "_begin", W, AT, COLLECTIVE), offset, buf, \
                           count, datatype);                                                       \
    }                                                                                              \
    int MPI_File_##NAME##_begin_c(MPI_File fh, MPI_Offset offset, BUF(W) buf, MPI_Count count,     \
                                  MPI_Datatype datatype) {                                         \
        return split_begin(fh, ACCESS("MPI_File_" #NAME "_begin_c", W, AT, COLLECTIVE), offset,    \
                           buf, count, datatype);                                                  \
    }                                                                                              \
    int MPI_File_##NAME##_end(MPI_File fh, BUF(W) buf, MPI_Status *status) {                       \
        (void)buf;                                                                                 \
        return split_end(fh, "MPI_File_" #NAME "_end", status);                                    \
    }

#define BUF_0  void *
#define BUF_1  const void *
#define BUF(W) BUF_##W

BLOCKING(read, 0, INDIVIDUAL, INDEPENDENT)
BLOCKING(write, 1, INDIVIDUAL, INDEPENDENT)
BLOCKING(read_all, 0, INDIVIDUAL, COLLECTIVE)
BLOCKING(write_all, 1, INDIVIDUAL, COLLECTIVE)
BLOCKING(read_shared, 0, SHARED, INDEPENDENT)
BLOCKING(write_shared, 1, SHARED, INDEPENDENT)
BLOCKING(read_ordered, 0, ORDERED, COLLECTIVE)
BLOCKING(write_ordered, 1, ORDERED, COLLECTIVE)
BLOCKING_AT(read_at, 0, INDEPENDENT)
BLOCKING_AT(write_at, 1, INDEPENDENT)
BLOCKING_AT(read_at_all, 0, COLLECTIVE)
BLOCKING_AT(write_at_all, 1, COLLECTIVE)
NONBLOCKING(iread, 0, INDIVIDUAL, INDEPENDENT)
NONBLOCKING(iwrite, 1, INDIVIDUAL, INDEPENDENT)
NONBLOCKING(iread_all, 0, INDIVIDUAL, COLLECTIVE_STARTED)
NONBLOCKING(iwrite_all, 1, INDIVIDUAL, COLLECTIVE_STARTED)
NONBLOCKING(iread_shared, 0, SHARED, INDEPENDENT)
NONBLOCKING(iwrite_shared, 1, SHARED, INDEPENDENT)
NONBLOCKING_AT(iread_at, 0, INDEPENDENT)
NONBLOCKING_AT(iwrite_at, 1, INDEPENDENT)
NONBLOCKING_AT(iread_at_all, 0, COLLECTIVE_STARTED)
NONBLOCKING_AT(iwrite_at_all, 1, COLLECTIVE_STARTED)
SPLIT(read_all, 0, INDIVIDUAL)
SPLIT(write_all, 1, INDIVIDUAL)
SPLIT(read_ordered, 0, ORDERED)
SPLIT(write_ordered, 1, ORDERED)
SPLIT_AT(read_at_all, 0)
SPLIT_AT(write_at_all, 1)
