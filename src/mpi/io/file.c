/* Files (MPI-4.1 chapter 14): the table of open files, opening and closing, deleting,
 * size and preallocation, group, access mode, hints, sync, atomic mode, views and the
 * file pointers. The data access calls are file_access.c's.
 *
 * File i has handle 0x30000001 + i (MPI_FILE_NULL is 0x30000000); a closed slot is
 * reused. The open is collective: rank 0 creates (when asked), the others open the
 * file it made, and all agree on the outcome. The shared file pointer is an
 * MPI_Offset at rank 0 of a window on the file's communicator, moved by one
 * fetch-and-add per access. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/external32.h"
#include "mpi/datatype/typemap.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"
#include "mpi/io/file.h"
#include "mpi/io/progress.h"
#include "mpi/rma/win.h"

enum { FILE_BASE = 0x30000001, FILES_MAX = 1 << 20 };

static tw_io_file_t **files;
static int n_files;

tw_io_file_t *tw_io_file(MPI_File fh) {
    unsigned i = (unsigned)fh - FILE_BASE;
    return i < (unsigned)n_files ? files[i] : NULL;
}

static MPI_Errhandler *eh_slot(MPI_File fh) {
    tw_io_file_t *f = tw_io_file(fh);
    return f ? &f->eh : NULL;
}

/* The handlers the open files hold, for the handlers' sweep (env/errhandler.c). */
static void eh_holders(tw_mpi_eh_mark_fn *mark, unsigned char *in_use) {
    for (int i = 0; i < n_files; i++)
        if (files[i]) mark(in_use, files[i]->eh);
}

int tw_io_error(tw_io_file_t *f, const char *call, int errclass, const char *detail) {
    MPI_Errhandler h = f ? f->eh : tw_mpi_file_eh;
    MPI_File handle = f ? f->handle : MPI_FILE_NULL;
    if (h == MPI_ERRORS_RETURN) return errclass;
    if (tw_mpi_eh_call(h, &handle, &errclass)) return errclass;
    return tw_mpi_raise(h == MPI_ERRORS_ABORT ? MPI_ERRORS_ABORT : MPI_ERRORS_ARE_FATAL, NULL,
                        f ? f->path : "MPI_FILE_NULL", call, errclass, detail);
}

int tw_io_errno_class(int err) {
    switch (err) {
    case ENOENT:
    case ENOTDIR:
        return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case ENOSPC:
        return MPI_ERR_NO_SPACE;
    case EDQUOT:
        return MPI_ERR_QUOTA;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case ETXTBSY:
        return MPI_ERR_FILE_IN_USE;
    case ENAMETOOLONG:
    case EISDIR:
        return MPI_ERR_BAD_FILE;
    default:
        return MPI_ERR_IO;
    }
}

/* The name a program gave less a "ufs:" or "nfs:" prefix (ROMIO's file system
 * names); NULL for another prefix, which names a file system we do not drive. */
static const char *strip_prefix(const char *name) {
    const char *colon = strchr(name, ':');
    const char *slash = strchr(name, '/');
    if (!colon || colon - name < 2 || (slash && slash < colon)) return name;
    if (!strncmp(name, "ufs:", 4) || !strncmp(name, "nfs:", 4)) return name + 4;
    return NULL;
}

/* A file call's argument checks: the file, and when must_write or must_read, its mode. */
#define GET_FILE(call, fh)                                                                         \
    NEED_INIT(call);                                                                               \
    tw_io_file_t *f = tw_io_file(fh);                                                              \
    if (!f) return tw_io_error(NULL, call, MPI_ERR_FILE, "not an open file")

/* Agreement of a collective step: the worst class any rank had (0: all succeeded). */
static int agree(MPI_Comm comm, int rc) {
    int worst = rc;
    if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
    return worst;
}

/* ---- the view ---- */

/* The large-count envelope: the int one refuses a type made by a large-count
 * constructor (as mpi4py makes them). */
int tw_io_type_is_named(MPI_Datatype type) {
    MPI_Count ni, na, nc, nd;
    int combiner;
    return MPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
}

static void view_release(tw_io_view_t *v) {
    MPI_Datatype *types[3] = {&v->etype, &v->filetype, &v->file_filetype};
    for (int k = 0; k < 3; k++) {
        if (*types[k] == MPI_DATATYPE_NULL) continue;
        if (!tw_io_type_is_named(*types[k])) MPI_Type_free(types[k]);
        *types[k] = MPI_DATATYPE_NULL;
    }
}

/* Our own copy of a view's type: derived ones duplicated, predefined ones as they are. */
static int type_keep(MPI_Datatype type, MPI_Datatype *kept) {
    if (tw_io_type_is_named(type)) {
        *kept = type;
        return MPI_SUCCESS;
    }
    return MPI_Type_dup(type, kept);
}

/* MPI-4.1 section 14.1: the typemap displacements of an etype and a filetype are
 * non-negative and monotonically non-decreasing, and for a file open for writing
 * their pieces do not overlap (no_overlap). Checked in one tile, in typemap order, pieces of no
 * bytes skipped, as ROMIO does; the class is ROMIO's too (MPI_ERR_IO). NULL: legal. */
static const char *view_type_problem(MPI_Datatype type, int no_overlap, int is_etype) {
    const tw_typemap_t *m = tw_mpi_type_map(type);
    if (!m) return NULL;
    int started = 0;
    MPI_Aint last_start = 0, last_end = 0;
    for (size_t b = 0; b < m->nblocks; b++) {
        const tw_typemap_block_t *blk = &m->blocks[b];
        if (blk->len == 0) continue;
        for (size_t k = 0; k < blk->reps; k++) {
            MPI_Aint start = blk->disp + (MPI_Aint)k * blk->stride;
            if (start < 0)
                return is_etype ? "a displacement in the etype's typemap is negative"
                                : "a displacement in the filetype's typemap is negative";
            if (started && start < last_start)
                return is_etype ? "the etype's typemap displacements decrease"
                                : "the filetype's typemap displacements decrease";
            if (started && no_overlap && start < last_end)
                return is_etype ? "the etype's pieces overlap in a file open for writing"
                                : "the filetype's pieces overlap in a file open for writing";
            started = 1;
            last_start = start;
            last_end = start + (MPI_Aint)blk->len;
            /* the rest of a block repeats its stride: one more look decides them all */
            if (k == 1 && blk->reps > 2) k = blk->reps - 2;
        }
    }
    return NULL;
}

static int set_view(tw_io_file_t *f, const char *call, MPI_Offset disp, MPI_Datatype etype,
                    MPI_Datatype filetype, const char *datarep) {
    tw_mpi_type_layout_t el, fl;
    if (tw_mpi_type_layout(etype, &el) != MPI_SUCCESS)
        return tw_io_error(f, call, MPI_ERR_TYPE, "the etype is no committed datatype");
    if (tw_mpi_type_layout(filetype, &fl) != MPI_SUCCESS)
        return tw_io_error(f, call, MPI_ERR_TYPE, "the filetype is no committed datatype");
    if (el.size <= 0) return tw_io_error(f, call, MPI_ERR_TYPE, "the etype holds no data");
    /* an access walks the filetype's tiles: one without data, or one whose tiles do
     * not advance, would never reach the bytes it is asked for */
    if (fl.size <= 0) return tw_io_error(f, call, MPI_ERR_TYPE, "the filetype holds no data");
    if (fl.extent <= 0)
        return tw_io_error(f, call, MPI_ERR_TYPE, "the filetype's extent is not positive");
    if (fl.size % el.size)
        return tw_io_error(f, call, MPI_ERR_TYPE,
                           "the filetype's data is not a whole number of etypes");
    if (!datarep) return tw_io_error(f, call, MPI_ERR_ARG, "the datarep is NULL");
    tw_io_datarep_t *conv = tw_io_datarep_find(datarep);
    if (!conv)
        return tw_io_error(f, call, MPI_ERR_UNSUPPORTED_DATAREP,
                           "the datarep is none of native, internal, external32 nor one "
                           "MPI_Register_datarep registered");
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            return tw_io_error(f, call, MPI_ERR_ARG,
                               "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
        MPI_Offset shared = 0;
        int rc = tw_io_shared_fetch_add(f, 0, &shared);
        if (rc != MPI_SUCCESS) return tw_io_error(f, call, rc, "reading the shared file pointer");
        MPI_Offset at = 0;
        rc = MPI_File_get_byte_offset(f->handle, shared, &at);
        if (rc != MPI_SUCCESS) return rc;
        disp = at;
    } else if (disp < 0) {
        return tw_io_error(f, call, MPI_ERR_ARG, "the displacement is negative");
    }
    /* in another representation the file side is mapped in its sizes (datarep.h) */
    MPI_Datatype file_filetype = MPI_DATATYPE_NULL;
    if (tw_io_datarep_kind(conv) != TW_IO_NATIVE) {
        const char *why = NULL;
        MPI_Count esize = 0;
        tw_mpi_type_layout_t ffl;
        int rc = tw_io_datarep_type_size(conv, etype, &esize, &why);
        if (rc == MPI_SUCCESS) rc = tw_io_datarep_file_type(conv, filetype, &file_filetype, &why);
        if (rc == MPI_SUCCESS && tw_mpi_type_layout(file_filetype, &ffl) != MPI_SUCCESS)
            rc = MPI_ERR_TYPE, why = "the filetype in the file's sizes is no datatype";
        if (rc == MPI_SUCCESS && ffl.extent <= 0)
            rc = MPI_ERR_TYPE, why = "the filetype's extent in the file is not positive";
        if (rc == MPI_SUCCESS && (esize <= 0 || ffl.size % esize))
            rc = MPI_ERR_TYPE, why = "the filetype's data in the file is not a whole number of "
                                     "etypes";
        if (rc != MPI_SUCCESS) {
            if (file_filetype != MPI_DATATYPE_NULL) MPI_Type_free(&file_filetype);
            return tw_io_error(f, call, rc, why);
        }
        el.size = esize;
        fl.extent = ffl.extent;
    }
    /* overlaps are a matter of the file's sizes: in another representation the
     * filetype is checked as the file has it, the etype only for its order */
    int writable = !(f->amode & MPI_MODE_RDONLY);
    int native = file_filetype == MPI_DATATYPE_NULL;
    const char *illegal = view_type_problem(etype, writable && native, 1);
    if (!illegal) illegal = view_type_problem(native ? filetype : file_filetype, writable, 0);
    if (illegal) {
        if (!native) MPI_Type_free(&file_filetype);
        return tw_io_error(f, call, MPI_ERR_IO, illegal);
    }
    tw_io_view_t v = {.disp = disp,
                      .rep = tw_io_datarep_kind(conv),
                      .conv = conv,
                      .esize = el.size,
                      .fextent = fl.extent,
                      .file_filetype = file_filetype};
    v.etype = v.filetype = MPI_DATATYPE_NULL;
    int rc = type_keep(etype, &v.etype);
    if (rc == MPI_SUCCESS) rc = type_keep(filetype, &v.filetype);
    if (rc != MPI_SUCCESS) {
        view_release(&v);
        return tw_io_error(f, call, rc, "keeping the view's types");
    }
    v.fmap = tw_mpi_type_map(file_filetype != MPI_DATATYPE_NULL ? file_filetype : v.filetype);
    snprintf(v.datarep, sizeof v.datarep, "%s", datarep);
    view_release(&f->view);
    f->view = v;
    f->pointer = 0;
    return MPI_SUCCESS;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info) {
    GET_FILE("MPI_File_set_view", fh);
    int rc = set_view(f, "MPI_File_set_view", disp, etype, filetype, datarep);
    /* all agree, then the shared pointer goes back to 0 (rank 0 sets it) */
    int worst = agree(f->comm, rc);
    if (worst != MPI_SUCCESS)
        return rc != MPI_SUCCESS
                   ? rc
                   : tw_io_error(f, "MPI_File_set_view", worst, "another rank's view was refused");
    if (f->rank == 0) *f->shared = 0;
    MPI_Barrier(f->comm);
    if (info != MPI_INFO_NULL) return MPI_File_set_info(fh, info);
    return MPI_SUCCESS;
}

int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep) {
    GET_FILE("MPI_File_get_view", fh);
    if (!disp || !etype || !filetype || !datarep)
        return tw_io_error(f, "MPI_File_get_view", MPI_ERR_ARG, "an output argument is NULL");
    *disp = f->view.disp;
    int rc = type_keep(f->view.etype, etype);
    if (rc == MPI_SUCCESS) rc = type_keep(f->view.filetype, filetype);
    if (rc != MPI_SUCCESS) return tw_io_error(f, "MPI_File_get_view", rc, NULL);
    strcpy(datarep, f->view.datarep);
    return MPI_SUCCESS;
}

/* ---- the table, opening and closing ---- */

static int file_new(tw_io_file_t **out) {
    int i = 0;
    while (i < n_files && files[i]) i++;
    if (i == n_files) {
        int grown = n_files ? 2 * n_files : 16;
        tw_io_file_t **more =
            grown <= FILES_MAX ? realloc(files, (size_t)grown * sizeof *more) : NULL;
        if (!more) return MPI_ERR_NO_MEM;
        for (int k = n_files; k < grown; k++) more[k] = NULL;
        files = more;
        n_files = grown;
    }
    tw_io_file_t *f = calloc(1, sizeof *f);
    if (!f) return MPI_ERR_NO_MEM;
    f->fd = -1;
    f->comm = MPI_COMM_NULL;
    f->info = MPI_INFO_NULL;
    f->shared_win = MPI_WIN_NULL;
    f->view.etype = f->view.filetype = f->view.file_filetype = MPI_DATATYPE_NULL;
    f->handle = (MPI_File)(FILE_BASE + i);
    files[i] = f;
    static int registered;
    if (!registered) {
        tw_mpi_files_eh(eh_slot);
        tw_mpi_eh_holders(TW_EH_FILE, eh_holders);
        registered = 1;
    }
    *out = f;
    return MPI_SUCCESS;
}

static void file_drop(tw_io_file_t *f) {
    if (f->fd >= 0) close(f->fd);
    if (f->shared_win != MPI_WIN_NULL) MPI_Win_free(&f->shared_win);
    tw_io_hints_free(&f->hints); /* before the communicator: it may hold a window on it */
    if (f->comm != MPI_COMM_NULL) MPI_Comm_free(&f->comm);
    if (f->info != MPI_INFO_NULL) MPI_Info_free(&f->info);
    view_release(&f->view);
    files[(unsigned)f->handle - FILE_BASE] = NULL;
    free(f->path);
    free(f);
}

/* The access mode's checks (MPI-4.1 section 14.2.1): MPI_SUCCESS or MPI_ERR_AMODE. */
static int amode_check(int amode, const char **why) {
    int known = MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE |
                MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND;
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_RDWR) + !!(amode & MPI_MODE_WRONLY);
    *why = NULL;
    if (amode & ~known)
        *why = "an unknown bit is set";
    else if (rw != 1)
        *why = "not exactly one of MPI_MODE_RDONLY, MPI_MODE_RDWR, MPI_MODE_WRONLY";
    else if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        *why = "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
    else if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        *why = "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL";
    return *why ? MPI_ERR_AMODE : MPI_SUCCESS;
}

static int open_flags(int amode, int creating) {
    int flags = amode & MPI_MODE_RDONLY ? O_RDONLY : amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    if (creating && (amode & MPI_MODE_CREATE)) flags |= O_CREAT;
    if (creating && (amode & MPI_MODE_EXCL)) flags |= O_EXCL;
    return flags | O_CLOEXEC;
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
    static const char call[] = "MPI_File_open";
    NEED_INIT(call);
    int size, rank, inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return tw_io_error(NULL, call, MPI_ERR_COMM, "not an intracommunicator");
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (!fh) return tw_io_error(NULL, call, MPI_ERR_ARG, "fh is NULL");
    *fh = MPI_FILE_NULL;
    if (!filename) return tw_io_error(NULL, call, MPI_ERR_ARG, "the filename is NULL");
    const char *path = strip_prefix(filename);
    if (!path)
        return tw_io_error(NULL, call, MPI_ERR_BAD_FILE,
                           "the filename's prefix names no file system Tollway drives "
                           "(ufs: and nfs: are taken)");
    const char *why;
    if (amode_check(amode, &why) != MPI_SUCCESS) return tw_io_error(NULL, call, MPI_ERR_AMODE, why);
    /* the same amode everywhere */
    int lo = amode, hi = amode;
    MPI_Allreduce(&amode, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&amode, &hi, 1, MPI_INT, MPI_MAX, comm);
    if (lo != hi)
        return tw_io_error(NULL, call, MPI_ERR_NOT_SAME, "the ranks gave different access modes");

    tw_io_file_t *f = NULL;
    int rc = file_new(&f);
    if (rc == MPI_SUCCESS) {
        f->amode = amode;
        f->eh = tw_mpi_file_eh; /* the standard's rule: MPI_FILE_NULL's at the open */
        f->path = strdup(path);
        if (!f->path) rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(comm, &f->comm);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL) rc = MPI_Info_dup(info, &f->info);
    if (rc == MPI_SUCCESS && f->info == MPI_INFO_NULL) rc = MPI_Info_create(&f->info);
    const char *detail = NULL;
    /* rank 0 creates; the others open what it made */
    if (rank == 0 && rc == MPI_SUCCESS) {
        f->fd = open(path, open_flags(amode, 1), 0666);
        if (f->fd < 0) rc = tw_io_errno_class(errno), detail = strerror(errno);
    }
    int first = rc;
    MPI_Bcast(&first, 1, MPI_INT, 0, comm);
    if (rank != 0 && first == MPI_SUCCESS && rc == MPI_SUCCESS) {
        f->fd = open(path, open_flags(amode, 0));
        if (f->fd < 0) rc = tw_io_errno_class(errno), detail = strerror(errno);
    }
    if (f && f->comm != MPI_COMM_NULL) {
        f->rank = rank;
        f->size = size;
    }
    int worst = first != MPI_SUCCESS ? first : agree(comm, rc);
    /* the shared file pointer's window, on every rank of the file (collective) */
    if (worst == MPI_SUCCESS) {
        MPI_Aint bytes = rank == 0 ? (MPI_Aint)sizeof(MPI_Offset) : 0;
        rc = MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, f->comm, &f->shared, &f->shared_win);
        if (rc == MPI_SUCCESS && rank == 0) *f->shared = 0;
        worst = agree(comm, rc);
        if (worst == MPI_SUCCESS) MPI_Barrier(comm);
        if (worst != MPI_SUCCESS) detail = "making the shared file pointer's window";
    }
    if (worst == MPI_SUCCESS) {
        f->view = (tw_io_view_t){.disp = 0,
                                 .etype = MPI_BYTE,
                                 .filetype = MPI_BYTE,
                                 .fmap = tw_mpi_type_map(MPI_BYTE),
                                 .fextent = 1,
                                 .esize = 1,
                                 .rep = TW_IO_NATIVE,
                                 .conv = tw_io_datarep_find("native"),
                                 .file_filetype = MPI_DATATYPE_NULL};
        strcpy(f->view.datarep, "native");
        tw_io_hints_open(f);
        if (amode & MPI_MODE_APPEND) {
            struct stat st;
            if (fstat(f->fd, &st) == 0) f->pointer = st.st_size;
            if (rank == 0) *f->shared = f->pointer;
            MPI_Barrier(comm);
        }
        *fh = f->handle;
        return MPI_SUCCESS;
    }
    if (f) {
        /* a file this open made goes again when another rank failed */
        if (rank == 0 && f->fd >= 0 && (amode & MPI_MODE_EXCL)) unlink(path);
        file_drop(f);
    }
    if (rc == MPI_SUCCESS && !detail) detail = "another rank could not open the file";
    return tw_io_error(NULL, call, worst, detail);
}

int MPI_File_close(MPI_File *fh) {
    NEED_INIT("MPI_File_close");
    if (!fh) return tw_io_error(NULL, "MPI_File_close", MPI_ERR_ARG, "fh is NULL");
    tw_io_file_t *f = tw_io_file(*fh);
    if (!f) return tw_io_error(NULL, "MPI_File_close", MPI_ERR_FILE, "not an open file");
    tw_io_async_close(f); /* non-blocking accesses still moving finish first */
    int rc = close(f->fd) == 0 ? MPI_SUCCESS : tw_io_errno_class(errno);
    f->fd = -1;
    MPI_Barrier(f->comm); /* every rank has closed before the file may go */
    if (f->rank == 0 && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(f->path) != 0 &&
        rc == MPI_SUCCESS)
        rc = tw_io_errno_class(errno);
    if (rc != MPI_SUCCESS) {
        rc = tw_io_error(f, "MPI_File_close", rc, strerror(errno));
    }
    file_drop(f);
    *fh = MPI_FILE_NULL;
    return rc;
}

int MPI_File_delete(const char *filename, MPI_Info info) {
    NEED_INIT("MPI_File_delete");
    (void)info;
    if (!filename) return tw_io_error(NULL, "MPI_File_delete", MPI_ERR_ARG, "the filename is NULL");
    const char *path = strip_prefix(filename);
    if (!path)
        return tw_io_error(NULL, "MPI_File_delete", MPI_ERR_BAD_FILE,
                           "the filename's prefix names no file system Tollway drives");
    if (unlink(path) != 0)
        return tw_io_error(NULL, "MPI_File_delete", tw_io_errno_class(errno), strerror(errno));
    return MPI_SUCCESS;
}

/* ---- size, preallocation, group, mode, hints, sync, atomicity ---- */

static int same_everywhere(tw_io_file_t *f, MPI_Offset value) {
    MPI_Offset lo = value, hi = value;
    MPI_Allreduce(&value, &lo, 1, MPI_OFFSET, MPI_MIN, f->comm);
    MPI_Allreduce(&value, &hi, 1, MPI_OFFSET, MPI_MAX, f->comm);
    return lo == hi;
}

static int resize(tw_io_file_t *f, const char *call, MPI_Offset size, int grow_only) {
    if (f->amode & MPI_MODE_RDONLY)
        return tw_io_error(f, call, MPI_ERR_READ_ONLY, "the file is open MPI_MODE_RDONLY");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return tw_io_error(f, call, MPI_ERR_UNSUPPORTED_OPERATION,
                           "the file is open MPI_MODE_SEQUENTIAL");
    if (size < 0) return tw_io_error(f, call, MPI_ERR_ARG, "the size is negative");
    if (!same_everywhere(f, size))
        return tw_io_error(f, call, MPI_ERR_NOT_SAME, "the ranks gave different sizes");
    int rc = MPI_SUCCESS, err = 0;
    if (f->rank == 0) {
        struct stat st;
        if (fstat(f->fd, &st) != 0) {
            err = errno;
        } else if (!grow_only) {
            if (ftruncate(f->fd, size) != 0) err = errno;
        } else if (size > st.st_size) {
            int e = posix_fallocate(f->fd, 0, size);
            /* a file system without allocation: the size at least */
            if (e == EOPNOTSUPP || e == EINVAL) e = ftruncate(f->fd, size) ? errno : 0;
            err = e;
        }
        if (err) rc = tw_io_errno_class(err);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, f->comm);
    if (rc != MPI_SUCCESS) return tw_io_error(f, call, rc, err ? strerror(err) : "at rank 0");
    return MPI_SUCCESS;
}

int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
    GET_FILE("MPI_File_set_size", fh);
    return resize(f, "MPI_File_set_size", size, 0);
}

int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
    GET_FILE("MPI_File_preallocate", fh);
    return resize(f, "MPI_File_preallocate", size, 1);
}

int MPI_File_get_size(MPI_File fh, MPI_Offset *size) {
    GET_FILE("MPI_File_get_size", fh);
    if (!size) return tw_io_error(f, "MPI_File_get_size", MPI_ERR_ARG, "size is NULL");
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return tw_io_error(f, "MPI_File_get_size", tw_io_errno_class(errno), strerror(errno));
    *size = st.st_size;
    return MPI_SUCCESS;
}

int MPI_File_get_group(MPI_File fh, MPI_Group *group) {
    GET_FILE("MPI_File_get_group", fh);
    if (!group) return tw_io_error(f, "MPI_File_get_group", MPI_ERR_ARG, "group is NULL");
    return MPI_Comm_group(f->comm, group);
}

int MPI_File_get_amode(MPI_File fh, int *amode) {
    GET_FILE("MPI_File_get_amode", fh);
    if (!amode) return tw_io_error(f, "MPI_File_get_amode", MPI_ERR_ARG, "amode is NULL");
    *amode = f->amode;
    return MPI_SUCCESS;
}

int MPI_File_set_info(MPI_File fh, MPI_Info info) {
    GET_FILE("MPI_File_set_info", fh);
    if (info == MPI_INFO_NULL) return MPI_SUCCESS;
    int nkeys = 0;
    int rc = MPI_Info_get_nkeys(info, &nkeys);
    if (rc != MPI_SUCCESS) return tw_io_error(f, "MPI_File_set_info", MPI_ERR_INFO, "not an info");
    for (int k = 0; k < nkeys && rc == MPI_SUCCESS; k++) {
        char key[MPI_MAX_INFO_KEY + 1];
        int len = 0, flag = 0;
        rc = MPI_Info_get_nthkey(info, k, key);
        if (rc == MPI_SUCCESS) rc = MPI_Info_get_string(info, key, &len, NULL, &flag);
        char *value = rc == MPI_SUCCESS ? malloc((size_t)len + 1) : NULL;
        if (rc == MPI_SUCCESS && !value) rc = MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) {
            len++;
            rc = MPI_Info_get_string(info, key, &len, value, &flag);
        }
        if (rc == MPI_SUCCESS) rc = MPI_Info_set(f->info, key, value);
        free(value);
    }
    tw_io_hints_apply(f); /* collective, as the call is */
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : tw_io_error(f, "MPI_File_set_info", rc, "keeping the hints");
}

int MPI_File_get_info(MPI_File fh, MPI_Info *info_used) {
    GET_FILE("MPI_File_get_info", fh);
    if (!info_used) return tw_io_error(f, "MPI_File_get_info", MPI_ERR_ARG, "info_used is NULL");
    return tw_io_hints_report(f, info_used);
}

int MPI_File_sync(MPI_File fh) {
    GET_FILE("MPI_File_sync", fh);
    if (f->amode & MPI_MODE_RDONLY)
        return tw_io_error(f, "MPI_File_sync", MPI_ERR_ACCESS, "the file is open MPI_MODE_RDONLY");
    /* Every rank's writes are in its node's page cache first; then one fsync per node
     * sends them all to the storage (an fsync flushes the file's pages, whoever wrote
     * them). Two fsyncs of one file at once each wait for a commit of the file
     * system's journal, and the second often for one more: a rank each took 2-3 times
     * as long on ext4. But each rank starts the writeback of the file's pages as it
     * arrives (SYNC_FILE_RANGE_WRITE waits for nothing), so the disk is busy while
     * slower ranks still write: 2 ranks writing 16 MiB each to ext4 went from 0.8 to
     * 1.0 of ROMIO's bandwidth (bench/io/compare.sh). The class of a failure is every
     * rank's. */
    (void)sync_file_range(f->fd, 0, 0, SYNC_FILE_RANGE_WRITE); /* a hint: fsync reports */
    MPI_Barrier(f->comm);
    int rc = MPI_SUCCESS, err = 0;
    if (f->hints.local_rank == 0 && fsync(f->fd) != 0) rc = tw_io_errno_class(errno), err = errno;
    int worst = agree(f->comm, rc);
    if (worst == MPI_SUCCESS) return MPI_SUCCESS;
    return tw_io_error(f, "MPI_File_sync", worst,
                       rc != MPI_SUCCESS ? strerror(err) : "another rank's node could not sync");
}

int MPI_File_set_atomicity(MPI_File fh, int flag) {
    GET_FILE("MPI_File_set_atomicity", fh);
    flag = flag != 0;
    if (!same_everywhere(f, flag))
        return tw_io_error(f, "MPI_File_set_atomicity", MPI_ERR_NOT_SAME,
                           "the ranks gave different flags");
    f->atomic = flag;
    return MPI_SUCCESS;
}

int MPI_File_get_atomicity(MPI_File fh, int *flag) {
    GET_FILE("MPI_File_get_atomicity", fh);
    if (!flag) return tw_io_error(f, "MPI_File_get_atomicity", MPI_ERR_ARG, "flag is NULL");
    *flag = f->atomic;
    return MPI_SUCCESS;
}

/* ---- positions ---- */

/* The file offset of byte `at` of the view's stream (at >= 0). */
MPI_Offset tw_io_stream_to_file(const tw_io_view_t *v, MPI_Offset at) {
    const tw_typemap_t *m = v->fmap;
    MPI_Offset tile = at / m->size, in = at % m->size;
    MPI_Offset base = v->disp + tile * v->fextent;
    for (size_t b = 0; b < m->nblocks; b++) {
        const tw_typemap_block_t *bl = &m->blocks[b];
        MPI_Offset bytes = (MPI_Offset)(bl->len * bl->reps);
        if (!bytes || in >= (MPI_Offset)bl->pos + bytes) continue;
        MPI_Offset k = (in - (MPI_Offset)bl->pos) / (MPI_Offset)bl->len;
        MPI_Offset off = (in - (MPI_Offset)bl->pos) % (MPI_Offset)bl->len;
        return base + bl->disp + k * bl->stride + off;
    }
    return base;
}

/* Bytes of the view's stream that lie in the file before file offset end. */
static MPI_Offset stream_before(const tw_io_view_t *v, MPI_Offset end) {
    const tw_typemap_t *m = v->fmap;
    if (end <= v->disp || v->fextent <= 0) return 0;
    MPI_Offset tiles = (end - v->disp) / v->fextent;
    MPI_Offset total = tiles * m->size;
    /* the tiles around end: their pieces before end */
    for (MPI_Offset t = tiles > 0 ? tiles - 1 : 0; t <= tiles; t++) {
        MPI_Offset base = v->disp + t * v->fextent;
        for (size_t b = 0; b < m->nblocks; b++) {
            const tw_typemap_block_t *bl = &m->blocks[b];
            for (size_t k = 0; k < bl->reps; k++) {
                MPI_Offset start = base + bl->disp + (MPI_Offset)k * bl->stride;
                MPI_Offset in = end - start;
                MPI_Offset got = in <= 0 ? 0 : in < (MPI_Offset)bl->len ? in : (MPI_Offset)bl->len;
                if (t < tiles) got -= (MPI_Offset)bl->len; /* counted whole already */
                total += got;
            }
        }
    }
    return total;
}

int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp) {
    GET_FILE("MPI_File_get_byte_offset", fh);
    if (!disp) return tw_io_error(f, "MPI_File_get_byte_offset", MPI_ERR_ARG, "disp is NULL");
    if (offset < 0)
        return tw_io_error(f, "MPI_File_get_byte_offset", MPI_ERR_ARG, "the offset is negative");
    *disp = tw_io_stream_to_file(&f->view, offset * f->view.esize);
    return MPI_SUCCESS;
}

static int new_position(tw_io_file_t *f, const char *call, MPI_Offset offset, int whence,
                        MPI_Offset current, MPI_Offset *to) {
    if (whence == MPI_SEEK_SET) {
        *to = offset;
    } else if (whence == MPI_SEEK_CUR) {
        *to = current + offset;
    } else if (whence == MPI_SEEK_END) {
        struct stat st;
        if (fstat(f->fd, &st) != 0) return tw_io_error(f, call, tw_io_errno_class(errno), NULL);
        MPI_Offset bytes = stream_before(&f->view, st.st_size);
        *to = (bytes + f->view.esize - 1) / f->view.esize + offset;
    } else {
        return tw_io_error(f, call, MPI_ERR_ARG,
                           "whence is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END");
    }
    if (*to < 0) return tw_io_error(f, call, MPI_ERR_ARG, "the position would be negative");
    return MPI_SUCCESS;
}

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
    GET_FILE("MPI_File_seek", fh);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return tw_io_error(f, "MPI_File_seek", MPI_ERR_UNSUPPORTED_OPERATION,
                           "the file is open MPI_MODE_SEQUENTIAL");
    MPI_Offset to;
    int rc = new_position(f, "MPI_File_seek", offset, whence, f->pointer, &to);
    if (rc == MPI_SUCCESS) f->pointer = to;
    return rc;
}

int MPI_File_get_position(MPI_File fh, MPI_Offset *offset) {
    GET_FILE("MPI_File_get_position", fh);
    if (!offset) return tw_io_error(f, "MPI_File_get_position", MPI_ERR_ARG, "offset is NULL");
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return tw_io_error(f, "MPI_File_get_position", MPI_ERR_UNSUPPORTED_OPERATION,
                           "the file is open MPI_MODE_SEQUENTIAL");
    *offset = f->pointer;
    return MPI_SUCCESS;
}

int tw_io_shared_fetch_add(tw_io_file_t *f, MPI_Offset add, MPI_Offset *old) {
    /* one atomic of rank 0's word, which only these update (and rank 0 sets while
     * the others wait in a barrier) */
    int64_t was = 0;
    int rc = tw_win_fetch_add(f->shared_win, 0, 0, (int64_t)add, &was);
    *old = (MPI_Offset)was;
    return rc;
}

int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
    GET_FILE("MPI_File_seek_shared", fh);
    if (!same_everywhere(f, offset) || !same_everywhere(f, whence))
        return tw_io_error(f, "MPI_File_seek_shared", MPI_ERR_NOT_SAME,
                           "the ranks gave different offsets or whences");
    MPI_Offset current = 0, to = 0;
    int rc = MPI_SUCCESS;
    if (f->rank == 0) {
        rc = tw_io_shared_fetch_add(f, 0, &current);
        if (rc == MPI_SUCCESS)
            rc = new_position(f, "MPI_File_seek_shared", offset, whence, current, &to);
        if (rc == MPI_SUCCESS) {
            MPI_Offset delta = to - current, ignored;
            rc = tw_io_shared_fetch_add(f, delta, &ignored);
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, f->comm);
    return rc;
}

int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset) {
    GET_FILE("MPI_File_get_position_shared", fh);
    if (!offset)
        return tw_io_error(f, "MPI_File_get_position_shared", MPI_ERR_ARG, "offset is NULL");
    int rc = tw_io_shared_fetch_add(f, 0, offset);
    return rc == MPI_SUCCESS ? rc : tw_io_error(f, "MPI_File_get_position_shared", rc, NULL);
}

int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent) {
    GET_FILE("MPI_File_get_type_extent", fh);
    tw_mpi_type_layout_t layout;
    if (!extent) return tw_io_error(f, "MPI_File_get_type_extent", MPI_ERR_ARG, "extent is NULL");
    if (tw_mpi_type_layout(datatype, &layout) != MPI_SUCCESS)
        return tw_io_error(f, "MPI_File_get_type_extent", MPI_ERR_TYPE, "not a committed datatype");
    if (f->view.rep != TW_IO_NATIVE) { /* its extent in the file's sizes */
        MPI_Datatype in_file;
        const char *why = NULL;
        int rc = tw_io_datarep_file_type(f->view.conv, datatype, &in_file, &why);
        if (rc != MPI_SUCCESS) return tw_io_error(f, "MPI_File_get_type_extent", rc, why);
        rc = tw_mpi_type_layout(in_file, &layout);
        MPI_Type_free(&in_file);
        if (rc != MPI_SUCCESS) return tw_io_error(f, "MPI_File_get_type_extent", rc, NULL);
    }
    *extent = layout.extent;
    return MPI_SUCCESS;
}

int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent) {
    MPI_Aint e = 0;
    if (!extent) return MPI_File_get_type_extent(fh, datatype, NULL);
    int rc = MPI_File_get_type_extent(fh, datatype, &e);
    if (rc == MPI_SUCCESS) *extent = e;
    return rc;
}
