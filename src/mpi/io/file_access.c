/* The data access calls of files (MPI-4.1 section 14.4): explicit offsets, the
 * individual and the shared file pointer, ordered access; blocking, non-blocking,
 * collective and split collective, and their large-count forms.
 *
 * One access is: the memory side packed into one contiguous stream (or used in
 * place when contiguous and native; converted a chunk at a time in another
 * representation, datarep.c), the stream's bytes mapped through the view's filetype
 * onto file runs (runs.c), each run moved by one pread or pwrite or a group of them
 * sieved (move_stream, sieve.c). A collective access is planned together first: either
 * the aggregators move every rank's stream (two_phase.c) or each rank its own, and the
 * collective completes together (collective_end). A non-blocking access is started
 * at the call and moved on the library's I/O thread (file_iaccess, progress.c). */
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
#include "mpi/io/progress.h"
#include "mpi/io/runs.h"
#include "mpi/io/sieve.h"
#include "mpi/io/two_phase.h"
#include "mpi/pt2pt/request.h"
#include "mpi/pt2pt/status.h"

enum { AT, INDIVIDUAL, SHARED, ORDERED };             /* where an access starts */
enum { INDEPENDENT, COLLECTIVE, COLLECTIVE_STARTED }; /* how it completes */

/* move_stream's walk: each run moved in turn from the packed stream. */
typedef struct stream_move {
    int fd, write, err;
    char *mem;
    MPI_Offset moved;
} stream_move_t;

static int move_one_run(void *arg, MPI_Offset at, MPI_Offset len) {
    stream_move_t *s = arg;
    MPI_Offset got = 0;
    s->err = tw_io_move(s->fd, s->write, s->mem, at, len, &got);
    s->moved += got;
    s->mem += got;
    return s->err || got < len; /* an error, or the end of the file: stop */
}

/* Moves bytes [first, first + len) of the view's stream between the file and packed;
 * *done: bytes moved. 0 or an errno. Each run of adjacent file pieces (runs.c) moves
 * with one pread or pwrite, unless data sieving takes the access (sieve.c). */
static int move_stream(tw_io_file_t *f, int write, MPI_Offset first, char *packed, MPI_Offset len,
                       MPI_Offset *done) {
    const tw_io_view_t *v = &f->view;
    const tw_typemap_t *m = v->fmap;
    const tw_typemap_block_t *one = m->nblocks == 1 ? &m->blocks[0] : NULL;
    if (one && (one->reps == 1 || one->stride == (MPI_Aint)one->len) &&
        (MPI_Offset)m->size == v->fextent) {
        /* the filetype's tiles abut (the default view of bytes, any contiguous type):
         * the stream is one run of the file, moved at once, not a tile at a time */
        return tw_io_move(f->fd, write, packed, v->disp + one->disp + first, len, done);
    }
    int sieved = 0, sieve_err = tw_io_sieve(f, write, first, packed, len, done, &sieved);
    if (sieved) return sieve_err; /* data sieving took it (sieve.c) */
    stream_move_t s = {.fd = f->fd, .write = write, .mem = packed};
    tw_io_runs(v, first, len, move_one_run, &s);
    *done = s.moved;
    return s.err;
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
    MPI_Count stream_item;        /* bytes one item of the access takes in the view's stream */
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
    a->stream_item = layout->size;
    if (f->view.rep != TW_IO_NATIVE && count) { /* the item's size in the file */
        int rc = tw_io_datarep_type_size(f->view.conv, type, &a->stream_item, &a->detail);
        if (rc == MPI_SUCCESS) rc = tw_io_datarep_check(f->view.conv, a->write, type, &a->detail);
        if (rc != MPI_SUCCESS) return rc;
    }
    if (a->stream_item % f->view.esize)
        return a->detail = "the datatype's data is not a whole number of the view's etypes",
               MPI_ERR_TYPE;
    if (count && layout->size && !f->view.fmap->size)
        return a->detail = "the view's filetype holds no data", MPI_ERR_IO;
    return MPI_SUCCESS;
}

static int move_stream_of(void *file, int write, MPI_Offset first, char *bytes, MPI_Offset len,
                          MPI_Offset *done) {
    return move_stream(file, write, first, bytes, len, done);
}

/* An access in a representation other than native: converted a chunk at a time
 * (datarep.c); *done: stream bytes moved, *got: their items' native bytes. */
static int transfer_converted(tw_io_file_t *f, access_t *a, MPI_Offset first, MPI_Offset bytes,
                              void *buf, MPI_Count count, MPI_Datatype type, MPI_Offset *done,
                              MPI_Offset *got) {
    tw_io_converted_t moved = {0};
    int err = f->atomic ? range_lock(f, a->write, first, bytes, 1) : 0;
    int rc = MPI_SUCCESS;
    if (!err) {
        rc = tw_io_datarep_access(f->view.conv, a->write, buf, count, type, first,
                                  tw_io_datarep_buffer_size(f->info), move_stream_of, f, &moved,
                                  &a->detail);
        if (f->atomic) range_lock(f, a->write, first, bytes, 0);
        err = moved.err;
    }
    *done = moved.file_bytes;
    *got = moved.native_bytes;
    if (rc == MPI_SUCCESS && err) rc = tw_io_errno_class(err), a->detail = strerror(err);
    return rc;
}

/* Moves count items of type at buf to or from the view's stream at etype pos;
 * *done: stream bytes moved, *got: the native packed bytes of the items moved. */
static int transfer(tw_io_file_t *f, access_t *a, MPI_Offset pos, void *buf, MPI_Count count,
                    MPI_Datatype type, const tw_mpi_type_layout_t *layout, MPI_Offset *done,
                    MPI_Offset *got) {
    MPI_Offset bytes = (MPI_Offset)count * a->stream_item, first = pos * f->view.esize;
    *done = *got = 0;
    if (!bytes) return MPI_SUCCESS;
    if (f->view.rep != TW_IO_NATIVE)
        return transfer_converted(f, a, first, bytes, buf, count, type, done, got);
    char *packed;
    int staged = !layout->contiguous;
    if (staged) {
        packed = malloc((size_t)bytes);
        if (!packed) return a->detail = "no memory for the packed data", MPI_ERR_NO_MEM;
    } else {
        packed = (char *)((uintptr_t)buf + (uintptr_t)layout->lb);
    }
    int rc = MPI_SUCCESS, err = 0;
    if (a->write && staged) tw_mpi_type_pack(buf, count, type, packed);
    if (a->two_phase) { /* the aggregators move it (never in atomic mode) */
        a->joined = 1;
        rc = tw_io_two_phase_move(a->two_phase, packed, MPI_SUCCESS, done, &a->detail);
    } else {
        if (f->atomic) err = range_lock(f, a->write, first, bytes, 1);
        if (!err) {
            err = move_stream(f, a->write, first, packed, bytes, done);
            if (f->atomic) range_lock(f, a->write, first, bytes, 0);
        }
    }
    if (err) {
        rc = tw_io_errno_class(err);
        a->detail = strerror(err);
    } else if (rc == MPI_SUCCESS && !a->write && staged && *done) {
        tw_mpi_type_unpack_range(packed, count, type, 0, (size_t)*done, buf);
    }
    *got = *done;
    if (staged) free(packed);
    return rc;
}

/* a rank's bytes of a collective write from which its writeback starts at once */
enum { TW_IO_WRITE_BEHIND = 1 << 20 };

/* The collective's completion: every rank has done its part. With collective buffering
 * a rank that did not move data through the plan (it failed before, or had none) takes
 * part in the aggregators' rounds here, and its class joins the agreement. */
static void collective_end(tw_io_file_t *f, access_t *a, int *rc) {
    if (!a->two_phase) {
        /* Programs read what the others wrote right after a collective write (even
         * without the sync-barrier-sync the standard asks for): the data is in the page
         * cache once every rank's write has returned. A read leaves nothing for others
         * to see, and an ordered write's ranks already waited for rank 0's answer, as
         * ROMIO's wait for the rank before: across nodes the barrier was a second round
         * trip of every ordered access. */
        if (a->write && a->where != ORDERED) MPI_Barrier(f->comm);
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
    MPI_Offset n = rc == MPI_SUCCESS ? (MPI_Offset)count * a.stream_item / f->view.esize : 0;
    MPI_Offset pos = 0, done = 0, got = 0;
    if (a.where == AT) {
        pos = offset;
    } else if (a.where == INDIVIDUAL) {
        pos = f->pointer;
    } else if (a.where == SHARED) {
        if (rc == MPI_SUCCESS) {
            rc = tw_io_shared_fetch_add(f, n, &pos);
            if (rc != MPI_SUCCESS) a.detail = "moving the shared file pointer";
        }
    } else { /* ordered: rank 0, where the pointer lives, gathers the counts, moves the
              * pointer by their sum and sends each rank where its stretch starts in rank
              * order, with the move's class: two steps, where a scan, a reduction and a
              * broadcast were three (each a latency across nodes) */
        MPI_Offset *all = NULL, mine[2] = {0, MPI_SUCCESS};
        if (f->rank == 0 && !(all = malloc(sizeof(MPI_Offset) * 2 * (size_t)f->size)))
            tw_mpi_raise(MPI_ERRORS_ARE_FATAL, NULL, NULL, a.call, MPI_ERR_NO_MEM,
                         "no memory for the ranks' counts of an ordered access");
        MPI_Gather(&n, 1, MPI_OFFSET, all, 1, MPI_OFFSET, 0, f->comm);
        if (f->rank == 0) {
            MPI_Offset total = 0, base = 0;
            for (int r = 0; r < f->size; r++) { /* each count becomes the sum before it */
                MPI_Offset items = all[r];
                all[r] = total;
                total += items;
            }
            int class = tw_io_shared_fetch_add(f, total, &base);
            for (int r = f->size - 1; r >= 0; r--) { /* pairs, from the end: none read yet */
                all[2 * r] = base + all[r];
                all[2 * r + 1] = class;
            }
        }
        MPI_Scatter(all, 2, MPI_OFFSET, mine, 2, MPI_OFFSET, 0, f->comm);
        free(all);
        if (rc == MPI_SUCCESS && mine[1] != MPI_SUCCESS)
            rc = (int)mine[1], a.detail = "moving the shared file pointer";
        pos = mine[0];
    }
    /* collective: each rank's stretch of its stream, planned together (native views
     * only: the representation is the same on every rank, and the converted path
     * moves its own chunks). Ordered stretches follow one another in the file (a
     * view's displacements never decrease), so they never interleave, and the
     * automatic rule, which buffers only interleaved accesses, needs no plan to say no:
     * an ordered access then costs its scan, reduction, broadcast and closing barrier. */
    int mode = a.write ? f->hints.cb_write : f->hints.cb_read;
    if (a.completion == COLLECTIVE && f->view.rep == TW_IO_NATIVE &&
        !(a.where == ORDERED && mode == TW_IO_AUTOMATIC))
        a.two_phase = tw_io_two_phase_plan(f, a.write, rc == MPI_SUCCESS ? pos * f->view.esize : 0,
                                           rc == MPI_SUCCESS ? n * f->view.esize : 0);
    if (rc == MPI_SUCCESS) rc = transfer(f, &a, pos, buf, count, type, &layout, &done, &got);
    /* A large collective write is most often a checkpoint about to be synced: its
     * writeback starts now, while the slower ranks still write, rather than after the
     * barrier that ends the collective (2 ranks, 16 MiB each to ext4 then
     * MPI_File_sync: 0.72 -> 0.94 of ROMIO's bandwidth, whose ranks do not wait for
     * each other there). Small ones, often rewritten, wait for the kernel's writeback. */
    if (a.completion == COLLECTIVE && a.write && !a.two_phase && done >= TW_IO_WRITE_BEHIND)
        (void)sync_file_range(f->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    if (a.completion == COLLECTIVE) collective_end(f, &a, &rc);
    if (rc != MPI_SUCCESS) return tw_io_error(f, a.call, rc, a.detail);
    if (a.where == INDIVIDUAL) f->pointer = pos + done / f->view.esize;
    if (status != MPI_STATUS_IGNORE)
        tw_mpi_status_fill(status, MPI_ANY_SOURCE, MPI_ANY_TAG, (size_t)got, 0);
    return MPI_SUCCESS;
}

/* ---- non-blocking: started at the call, moved on the I/O thread (progress.c) ----
 *
 * At the call: the checks, the memory side of a write packed (or used in place), the
 * file pointer moved past the access (MPI-4.1 section 14.4.3). On the I/O thread: the
 * preads or pwrites (and atomic mode's lock). At the completion, in progress: a staged
 * read unpacked, and the request done with the bytes moved or the error. The
 * collective forms (i*_all) go through collective buffering as the blocking ones do
 * (two_phase.c's schedule), when the hints allow it; when they do not, or the ranks
 * decide against it, each rank's own access runs the same way as an independent one:
 * it needs no synchronisation of the ranks. Once started an access is not cancelled
 * (MPI_Cancel leaves it to complete, as the standard allows). */

typedef struct iaccess {
    tw_io_job_t job; /* first: the engine's part */
    access_t a;
    MPI_Request request;
    MPI_Offset first, bytes; /* the stream's bytes */
    char *packed;            /* the stream (staged: ours, else the program's buffer) */
    int staged, atomic;
    /* a staged read's memory side, unpacked at the completion (a derived type: our
     * duplicate, as the program may free its own before) */
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    tw_mpi_type_layout_t layout;
    MPI_Offset done; /* stream bytes moved */
    int err;         /* the move's errno */
    int errclass;    /* collective buffering's outcome */
} iaccess_t;

/* On the I/O thread: system calls on the file only. */
static void iaccess_run(tw_io_job_t *job) {
    iaccess_t *x = (iaccess_t *)job;
    tw_io_file_t *f = job->file;
    x->err = x->atomic ? range_lock(f, x->a.write, x->first, x->bytes, 1) : 0;
    if (!x->err) {
        x->err = move_stream(f, x->a.write, x->first, x->packed, x->bytes, &x->done);
        if (x->atomic) range_lock(f, x->a.write, x->first, x->bytes, 0);
    }
}

static void iaccess_free(iaccess_t *x) {
    if (x->staged) free(x->packed);
    if (x->type != MPI_DATATYPE_NULL && !tw_io_type_is_named(x->type)) MPI_Type_free(&x->type);
    free(x);
}

/* In progress, once run returned: the memory side of a read, then the request. */
static void iaccess_finish(tw_io_job_t *job) {
    iaccess_t *x = (iaccess_t *)job;
    int rc = x->errclass;
    if (x->err) {
        rc = tw_io_errno_class(x->err);
        x->a.detail = strerror(x->err);
    } else if (rc != MPI_SUCCESS) {
        /* collective buffering's detail is set */
    } else if (!x->a.write && x->staged && x->done) {
        tw_mpi_type_unpack_range(x->packed, x->count, x->type, 0, (size_t)x->done, x->buf);
    }
    if (rc != MPI_SUCCESS) tw_io_request_failed(job->file, x->a.call, x->a.detail);
    MPI_Status status;
    tw_mpi_status_fill(&status, MPI_ANY_SOURCE, MPI_ANY_TAG, (size_t)x->done, 0);
    MPI_Request request = x->request;
    iaccess_free(x);
    tw_mpi_coll_request_done_as_recv(request, rc, &status);
}

/* Starts the independent access x, or moves it here when there is nothing to move or
 * no thread to move it. */
static void iaccess_start(iaccess_t *x) {
    if (!x->bytes || tw_io_job_start(&x->job) != MPI_SUCCESS) {
        if (x->bytes) iaccess_run(&x->job);
        iaccess_finish(&x->job);
    }
}

/* A non-blocking collective's end through collective buffering (two_phase.h). */
static void iaccess_collective_end(void *arg, int declined, int errclass, MPI_Offset done,
                                   const char *detail) {
    iaccess_t *x = arg;
    if (declined) { /* each rank its own */
        iaccess_start(x);
        return;
    }
    x->errclass = errclass;
    x->done = done;
    if (detail) x->a.detail = detail;
    iaccess_finish(&x->job);
}

/* A view in another representation than native: the access is done at the call (the
 * conversion calls the program's functions, which must run on its own thread), and
 * the request given back complete. */
static int iaccess_at_call(tw_io_file_t *f, access_t a, MPI_Offset offset, const void *buf,
                           MPI_Count count, MPI_Datatype type, MPI_Request *request) {
    uint32_t context = 0;
    int rc = tw_io_request_context(f, &context);
    if (rc != MPI_SUCCESS)
        return tw_io_error(f, a.call, rc, "making the file's communicator for its requests");
    MPI_Status status;
    rc = file_access(f->handle, a, offset, buf, count, type, &status);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Request done = MPI_REQUEST_NULL;
    if ((rc = tw_mpi_coll_request(context, &done)) != MPI_SUCCESS)
        return tw_io_error(f, a.call, rc, "no request left");
    tw_mpi_coll_request_done_as_recv(done, MPI_SUCCESS, &status);
    *request = done;
    return MPI_SUCCESS;
}

static int file_iaccess(MPI_File fh, access_t a, MPI_Offset offset, const void *cbuf,
                        MPI_Count count, MPI_Datatype type, MPI_Request *request) {
    NEED_INIT(a.call);
    tw_io_file_t *f = tw_io_file(fh);
    if (!f) return tw_io_error(NULL, a.call, MPI_ERR_FILE, "not an open file");
    if (!request) return tw_io_error(f, a.call, MPI_ERR_ARG, "request is NULL");
    *request = MPI_REQUEST_NULL;
    tw_mpi_type_layout_t layout;
    int rc = check(f, &a, offset, count, type, &layout);
    /* a collective through collective buffering: every rank takes part, one that fails
     * here too, or the others would wait for it */
    int joins = a.completion == COLLECTIVE_STARTED && f->view.rep == TW_IO_NATIVE &&
                tw_io_two_phase_may(f, a.write);
    if (rc != MPI_SUCCESS) {
        if (joins) tw_io_two_phase_start(f, a.write, 0, 0, NULL, rc, NULL, NULL);
        return tw_io_error(f, a.call, rc, a.detail);
    }
    if (f->view.rep != TW_IO_NATIVE)
        return iaccess_at_call(f, a, offset, cbuf, count, type, request);
    iaccess_t *x = calloc(1, sizeof *x);
    if (!x) return tw_io_error(f, a.call, MPI_ERR_NO_MEM, "no memory for the request");
    *x = (iaccess_t){.job = {.run = iaccess_run, .finish = iaccess_finish, .file = f},
                     .a = a,
                     .bytes = (MPI_Offset)count * layout.size,
                     .atomic = f->atomic,
                     .buf = (void *)(uintptr_t)cbuf,
                     .count = count,
                     .type = MPI_DATATYPE_NULL,
                     .layout = layout};
    x->staged = x->bytes && !layout.contiguous;
    if (x->staged) {
        x->packed = malloc((size_t)x->bytes);
        if (!x->packed) rc = MPI_ERR_NO_MEM, x->a.detail = "no memory for the packed data";
    } else {
        x->packed = (char *)((uintptr_t)cbuf + (uintptr_t)layout.lb);
    }
    uint32_t context = 0;
    if (rc == MPI_SUCCESS && (rc = tw_io_request_context(f, &context)) != MPI_SUCCESS)
        x->a.detail = "making the file's communicator for its requests";
    if (rc == MPI_SUCCESS && x->staged && a.write) /* the memory side at the call */
        tw_mpi_type_pack(x->buf, count, type, x->packed);
    if (rc == MPI_SUCCESS && x->staged && !a.write) {
        if (tw_io_type_is_named(type))
            x->type = type;
        else if ((rc = MPI_Type_dup(type, &x->type)) != MPI_SUCCESS)
            x->type = MPI_DATATYPE_NULL, x->a.detail = "keeping the datatype for the read";
    }
    /* where the access starts: the pointers move at the call */
    MPI_Offset n = x->bytes / f->view.esize, pos = 0;
    if (rc == MPI_SUCCESS && a.where == AT) {
        pos = offset;
    } else if (rc == MPI_SUCCESS && a.where == INDIVIDUAL) {
        pos = f->pointer;
    } else if (rc == MPI_SUCCESS && (rc = tw_io_shared_fetch_add(f, n, &pos)) != MPI_SUCCESS) {
        x->a.detail = "moving the shared file pointer";
    }
    if (rc == MPI_SUCCESS && (rc = tw_mpi_coll_request(context, &x->request)) != MPI_SUCCESS)
        x->a.detail = "no request left";
    if (rc != MPI_SUCCESS) {
        const char *detail = x->a.detail;
        iaccess_free(x);
        if (joins) tw_io_two_phase_start(f, a.write, 0, 0, NULL, rc, NULL, NULL);
        return tw_io_error(f, a.call, rc, detail);
    }
    if (a.where == INDIVIDUAL) f->pointer = pos + n;
    x->first = pos * f->view.esize;
    *request = x->request;
    if (joins)
        tw_io_two_phase_start(f, a.write, x->first, x->bytes, x->packed, MPI_SUCCESS,
                              iaccess_collective_end, x);
    else
        iaccess_start(x);
    return MPI_SUCCESS;
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
    if (status != MPI_STATUS_IGNORE) { /* its MPI_ERROR field left alone, as by every call */
        int keep = status->MPI_ERROR;
        *status = f->split_status;
        status->MPI_ERROR = keep;
    }
    return MPI_SUCCESS;
}

#define ACCESS(call, write, where, completion)                                                     \
    ((access_t){call, write, where, completion, NULL, 0, NULL, 0})

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
