/* Data representations (MPI-4.1 section 14.5): the table of them (native, internal,
 * external32 and the registered ones: MPI_Register_datarep and _c), the file side of a
 * view mapped in a representation's sizes, and the converted access.
 *
 * One path serves external32 and a program's representations: the sizes of the
 * predefined types in the file (external32's table, or the extent function's answers,
 * asked once a type) and a pair of conversion functions with the standard's interface
 * (userbuf, datatype, count items of its signature, filebuf, position: the items
 * before, extra_state); external32's are built in. An access converts a chunk of
 * items at a time into or out of a buffer of file bytes, which moves to or from the
 * view's stream like a native access's packed bytes. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/external32.h"
#include "mpi/datatype/typemap.h"
#include "mpi/env/state.h"
#include "mpi/io/datarep.h"
#include "mpi/io/file.h"

struct tw_io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    int kind; /* a TW_IO_* */
    /* a program's: the int or the large-count form (large), NULL: moved as they are */
    MPI_Datarep_conversion_function *read_fn, *write_fn;
    MPI_Datarep_conversion_function_c *read_fn_c, *write_fn_c;
    int large;
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
    MPI_Aint extents[TW_MPI_TYPE_IDS + 1]; /* the extent function's answers; 0: not asked */
    tw_io_datarep_t *next;
};

static tw_io_datarep_t native_rep = {.name = "native", .kind = TW_IO_NATIVE};
static tw_io_datarep_t external32_rep = {.name = "external32", .kind = TW_IO_EXTERNAL32};
static tw_io_datarep_t *registered;

tw_io_datarep_t *tw_io_datarep_find(const char *name) {
    if (!strcmp(name, "native") || !strcmp(name, "internal")) return &native_rep;
    if (!strcmp(name, "external32")) return &external32_rep;
    for (tw_io_datarep_t *r = registered; r; r = r->next)
        if (!strcmp(r->name, name)) return r;
    return NULL;
}

int tw_io_datarep_kind(const tw_io_datarep_t *rep) {
    return rep->kind;
}

void tw_io_datarep_fini(void) {
    while (registered) {
        tw_io_datarep_t *r = registered;
        registered = r->next;
        free(r);
    }
}

static int register_datarep(const char *call, const char *datarep,
                            MPI_Datarep_conversion_function *read_fn,
                            MPI_Datarep_conversion_function *write_fn,
                            MPI_Datarep_conversion_function_c *read_fn_c,
                            MPI_Datarep_conversion_function_c *write_fn_c, int large,
                            MPI_Datarep_extent_function *extent_fn, void *extra_state) {
    NEED_INIT(call);
    /* errors go to the default file error handler (MPI_FILE_NULL's) */
    if (!datarep) return tw_io_error(NULL, call, MPI_ERR_ARG, "the datarep is NULL");
    size_t len = strlen(datarep);
    if (!len || len >= MPI_MAX_DATAREP_STRING)
        return tw_io_error(NULL, call, MPI_ERR_ARG,
                           "the datarep's name is empty or longer than MPI_MAX_DATAREP_STRING - "
                           "1 characters");
    if (!extent_fn) return tw_io_error(NULL, call, MPI_ERR_ARG, "dtype_file_extent_fn is NULL");
    if (tw_io_datarep_find(datarep))
        return tw_io_error(NULL, call, MPI_ERR_DUP_DATAREP,
                           "a data representation of that name is defined already");
    tw_io_datarep_t *r = calloc(1, sizeof *r);
    if (!r) return tw_io_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    memcpy(r->name, datarep, len + 1);
    r->kind = TW_IO_USER;
    r->read_fn = read_fn;
    r->write_fn = write_fn;
    r->read_fn_c = read_fn_c;
    r->write_fn_c = write_fn_c;
    r->large = large;
    r->extent_fn = extent_fn;
    r->extra_state = extra_state;
    r->next = registered;
    registered = r;
    return MPI_SUCCESS;
}

int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) {
    return register_datarep("MPI_Register_datarep", datarep, read_conversion_fn,
                            write_conversion_fn, NULL, NULL, 0, dtype_file_extent_fn, extra_state);
}

int MPI_Register_datarep_c(const char *datarep,
                           MPI_Datarep_conversion_function_c *read_conversion_fn,
                           MPI_Datarep_conversion_function_c *write_conversion_fn,
                           MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) {
    return register_datarep("MPI_Register_datarep_c", datarep, NULL, NULL, read_conversion_fn,
                            write_conversion_fn, 1, dtype_file_extent_fn, extra_state);
}

/* ---- sizes in the file ---- */

/* The file bytes of one item of a predefined type. */
static int basic_file_size(tw_io_datarep_t *rep, MPI_Datatype basic, MPI_Aint *size,
                           const char **detail) {
    unsigned id = (unsigned)basic & 0xff;
    if (tw_mpi_type_extent(basic) < 0) return *detail = "not a predefined datatype", MPI_ERR_TYPE;
    if (rep->kind == TW_IO_NATIVE) {
        *size = tw_mpi_basic_packed_size(basic);
    } else if (rep->kind == TW_IO_EXTERNAL32) {
        *size = tw_mpi_external32_basic_size(basic);
    } else {
        if (!rep->extents[id]) {
            MPI_Aint extent = 0;
            if (rep->extent_fn(basic, &extent, rep->extra_state) != MPI_SUCCESS)
                return *detail = "the data representation's extent function failed",
                       MPI_ERR_CONVERSION;
            if (extent <= 0)
                return *detail = "the data representation's extent function gave an extent "
                                 "that is not positive",
                       MPI_ERR_CONVERSION;
            rep->extents[id] = extent;
        }
        *size = rep->extents[id];
    }
    return MPI_SUCCESS;
}

/* An item's signature in the file: its runs' file sizes. */
typedef struct sig {
    const tw_typemap_t *m;
    MPI_Count per_item;  /* entries of one item's signature */
    MPI_Count file_item; /* file bytes of one item */
    MPI_Aint *fsize;     /* file bytes of one entry of each run */
    MPI_Aint fsize_max;
} sig_t;

static void sig_free(sig_t *s) {
    free(s->fsize);
    s->fsize = NULL;
}

static int sig_make(tw_io_datarep_t *rep, MPI_Datatype type, sig_t *s, const char **detail) {
    *s = (sig_t){.m = tw_mpi_type_map(type)};
    if (!s->m) return *detail = "not a datatype", MPI_ERR_TYPE;
    s->fsize = malloc((s->m->nruns ? s->m->nruns : 1) * sizeof *s->fsize);
    if (!s->fsize) return *detail = "no memory for the type's signature", MPI_ERR_NO_MEM;
    for (size_t r = 0; r < s->m->nruns; r++) {
        MPI_Count bytes;
        int rc = basic_file_size(rep, s->m->runs[r].basic, &s->fsize[r], detail);
        if (rc) {
            sig_free(s);
            return rc;
        }
        if (s->fsize[r] > s->fsize_max) s->fsize_max = s->fsize[r];
        if (__builtin_mul_overflow(s->m->runs[r].n, (MPI_Count)s->fsize[r], &bytes) ||
            __builtin_add_overflow(s->file_item, bytes, &s->file_item) ||
            __builtin_add_overflow(s->per_item, s->m->runs[r].n, &s->per_item)) {
            sig_free(s);
            return *detail = "the type's size in the file exceeds an MPI_Count", MPI_ERR_COUNT;
        }
    }
    return MPI_SUCCESS;
}

int tw_io_datarep_type_size(tw_io_datarep_t *rep, MPI_Datatype type, MPI_Count *size,
                            const char **detail) {
    sig_t s;
    int rc = sig_make(rep, type, &s, detail);
    if (rc) return rc;
    *size = s.file_item;
    sig_free(&s);
    return MPI_SUCCESS;
}

/* Whether the function of that direction is the null one (the data moved as they are). */
static int null_conversion(const tw_io_datarep_t *rep, int write) {
    if (rep->large) return !(write ? rep->write_fn_c : rep->read_fn_c);
    return !(write ? rep->write_fn : rep->read_fn);
}

int tw_io_datarep_check(tw_io_datarep_t *rep, int write, MPI_Datatype type, const char **detail) {
    if (rep->kind != TW_IO_USER || !null_conversion(rep, write)) return MPI_SUCCESS;
    sig_t s;
    int rc = sig_make(rep, type, &s, detail);
    for (size_t r = 0; !rc && r < s.m->nruns; r++)
        if (s.fsize[r] != tw_mpi_basic_packed_size(s.m->runs[r].basic))
            rc = MPI_ERR_CONVERSION,
            *detail = "MPI_CONVERSION_FN_NULL moves the data as they are: a predefined type's "
                      "file extent must be its native size";
    if (s.fsize) sig_free(&s);
    return rc;
}

/* ---- the file side of a view ---- */

/* A predefined type's stand-in: the bytes it takes in the file. */
static int stand_in(tw_io_datarep_t *rep, MPI_Datatype basic, MPI_Datatype *out,
                    const char **detail) {
    MPI_Aint size = 0;
    int rc = basic_file_size(rep, basic, &size, detail);
    if (rc) return rc;
    return MPI_Type_contiguous_c(size, MPI_BYTE, out);
}

/* The constructor of a derived type called again on its old types' stand-ins, with
 * its arguments as MPI_Type_get_contents_c gives them: in ints and aints for a type of
 * an int constructor (which, but for subarray and darray, are in the order of the
 * large-count constructor's counts), in counts (and ints) for a large-count one. */
static int construct(int combiner, MPI_Count nc, const int *ints, const MPI_Count *cv,
                     const MPI_Count *counts, MPI_Datatype *old, MPI_Datatype *out) {
    MPI_Count n = cv[0];
    switch (combiner) {
    case MPI_COMBINER_CONTIGUOUS:
        return MPI_Type_contiguous_c(n, old[0], out);
    case MPI_COMBINER_VECTOR:
        return MPI_Type_vector_c(n, cv[1], cv[2], old[0], out);
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_HVECTOR_INTEGER:
        return MPI_Type_create_hvector_c(n, cv[1], cv[2], old[0], out);
    case MPI_COMBINER_INDEXED:
        return MPI_Type_indexed_c(n, cv + 1, cv + 1 + n, old[0], out);
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_INTEGER:
        return MPI_Type_create_hindexed_c(n, cv + 1, cv + 1 + n, old[0], out);
    case MPI_COMBINER_INDEXED_BLOCK:
        return MPI_Type_create_indexed_block_c(n, cv[1], cv + 2, old[0], out);
    case MPI_COMBINER_HINDEXED_BLOCK:
        return MPI_Type_create_hindexed_block_c(n, cv[1], cv + 2, old[0], out);
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_STRUCT_INTEGER:
        return MPI_Type_create_struct_c(n, cv + 1, cv + 1 + n, old, out);
    case MPI_COMBINER_RESIZED:
        return MPI_Type_create_resized_c(old[0], cv[0], cv[1], out);
    case MPI_COMBINER_SUBARRAY: {
        int nd = ints[0];
        if (!nc)
            return MPI_Type_create_subarray(nd, ints + 1, ints + 1 + nd, ints + 1 + 2 * nd,
                                            ints[1 + 3 * nd], old[0], out);
        return MPI_Type_create_subarray_c(nd, counts, counts + nd, counts + 2 * nd, ints[1], old[0],
                                          out);
    }
    case MPI_COMBINER_DARRAY: {
        int nd = ints[2];
        if (!nc)
            return MPI_Type_create_darray(ints[0], ints[1], nd, ints + 3, ints + 3 + nd,
                                          ints + 3 + 2 * nd, ints + 3 + 3 * nd, ints[3 + 4 * nd],
                                          old[0], out);
        return MPI_Type_create_darray_c(ints[0], ints[1], nd, counts, ints + 3, ints + 3 + nd,
                                        ints + 3 + 2 * nd, ints[3 + 3 * nd], old[0], out);
    }
    default:
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
}

/* Whether MPI_Type_get_contents gave a new handle (a derived type's, not a predefined
 * or an MPI_Type_create_f90_* one's). */
static int freeable(MPI_Datatype type) {
    MPI_Count ni, na, nc, nd;
    int combiner;
    return MPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, &combiner) == MPI_SUCCESS &&
           combiner != MPI_COMBINER_NAMED && combiner != MPI_COMBINER_F90_REAL &&
           combiner != MPI_COMBINER_F90_COMPLEX && combiner != MPI_COMBINER_F90_INTEGER;
}

static int rebuild(tw_io_datarep_t *rep, MPI_Datatype type, MPI_Datatype *out,
                   const char **detail) {
    MPI_Count ni, na, nc, nd;
    int combiner;
    int rc = MPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, &combiner);
    if (rc) return *detail = "not a datatype", rc;
    if (combiner == MPI_COMBINER_NAMED) return stand_in(rep, type, out, detail);
    if (combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
        combiner == MPI_COMBINER_F90_INTEGER) {
        const tw_typemap_t *m = tw_mpi_type_map(type); /* a copy of one predefined type */
        if (!m || m->nruns != 1) return *detail = "not a datatype", MPI_ERR_TYPE;
        return stand_in(rep, m->runs[0].basic, out, detail);
    }
    int *ints = malloc((size_t)(ni + 1) * sizeof *ints);
    MPI_Aint *aints = malloc((size_t)(na + 1) * sizeof *aints);
    MPI_Count *counts = malloc((size_t)(nc + 1) * sizeof *counts);
    MPI_Count *cv = malloc((size_t)(ni + na + 1) * sizeof *cv);
    MPI_Datatype *old = malloc((size_t)(nd + 1) * sizeof *old);
    MPI_Datatype *made = malloc((size_t)(nd + 1) * sizeof *made);
    int got = 0, built = 0;
    rc = ints && aints && counts && cv && old && made ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc) *detail = "no memory to map the view's types";
    if (!rc) rc = MPI_Type_get_contents_c(type, ni, na, nc, nd, ints, aints, counts, old);
    if (!rc) got = 1;
    for (; !rc && built < nd; built++) rc = rebuild(rep, old[built], &made[built], detail);
    if (!rc && combiner == MPI_COMBINER_DUP) {
        *out = made[0];
        built = 0; /* handed out, not freed */
    } else if (!rc) {
        const MPI_Count *args = counts;
        if (!nc) { /* an int constructor's: as the large-count one's counts */
            for (MPI_Count k = 0; k < ni; k++) cv[k] = ints[k];
            for (MPI_Count k = 0; k < na; k++) cv[ni + k] = aints[k];
            args = cv;
        }
        rc = construct(combiner, nc, ints, args, counts, made, out);
        if (rc == MPI_ERR_UNSUPPORTED_DATAREP)
            *detail = "a type of this constructor has no layout in a non-native representation";
        else if (rc)
            *detail = "the view's types cannot be built in the representation's sizes";
    }
    for (int k = 0; k < built; k++) MPI_Type_free(&made[k]);
    for (MPI_Count k = 0; got && k < nd; k++) /* the new handles to derived old types */
        if (freeable(old[k])) MPI_Type_free(&old[k]);
    free(ints);
    free(aints);
    free(counts);
    free(cv);
    free(old);
    free(made);
    return rc;
}

int tw_io_datarep_file_type(tw_io_datarep_t *rep, MPI_Datatype type, MPI_Datatype *file_type,
                            const char **detail) {
    *detail = NULL;
    int rc = rebuild(rep, type, file_type, detail);
    if (!rc) rc = MPI_Type_commit(file_type);
    if (rc && !*detail) *detail = "the view's types cannot be built in the representation's sizes";
    return rc;
}

/* ---- converted accesses ---- */

/* Entry e of the tiled signature: its item, run, index in the run, and the file and
 * native packed bytes before it. */
typedef struct cursor {
    MPI_Count item, in;
    size_t run;
    MPI_Offset file, native;
} cursor_t;

static cursor_t seek(const sig_t *s, MPI_Count e) {
    cursor_t c = {.item = e / s->per_item};
    MPI_Count r = e % s->per_item;
    c.file = c.item * s->file_item;
    c.native = c.item * s->m->size;
    for (size_t k = 0; k < s->m->nruns; k++) {
        const tw_typemap_run_t *run = &s->m->runs[k];
        MPI_Offset nsize = tw_mpi_basic_packed_size(run->basic);
        if (r < run->n) {
            c.run = k;
            c.in = r;
            c.file += r * s->fsize[k];
            c.native += r * nsize;
            return c;
        }
        r -= run->n;
        c.file += run->n * s->fsize[k];
        c.native += run->n * nsize;
    }
    return c; /* not reached: r < per_item */
}

/* The entries from c on that fit in room file bytes, at most limit; *bytes their size. */
static MPI_Count span(const sig_t *s, cursor_t c, MPI_Offset room, MPI_Count limit,
                      MPI_Offset *bytes) {
    MPI_Count k = 0;
    MPI_Offset used = 0;
    while (k < limit) {
        MPI_Count avail = s->m->runs[c.run].n - c.in, fit = (room - used) / s->fsize[c.run];
        MPI_Count take = avail < fit ? avail : fit;
        if (take > limit - k) take = limit - k;
        k += take;
        used += take * s->fsize[c.run];
        if (take < avail) break;
        c.in = 0;
        if (++c.run == s->m->nruns) c.run = 0;
    }
    *bytes = used;
    return k;
}

/* The built-in conversions of entries [pos, pos + k) between buf and filebuf:
 * external32's, or none (a null conversion function: sizes equal, checked before). */
static int builtin_convert(int kind, int write, void *buf, MPI_Datatype type, const sig_t *s,
                           MPI_Count pos, MPI_Count k, unsigned char *filebuf) {
    cursor_t a = seek(s, pos), b = seek(s, pos + k);
    size_t nbytes = (size_t)(b.native - a.native);
    /* the tiled items that hold the entries */
    MPI_Count items = (pos + k) / s->per_item + ((pos + k) % s->per_item != 0);
    if (kind != TW_IO_EXTERNAL32) {
        if (write)
            tw_mpi_type_pack_range(buf, items, type, (size_t)a.native, nbytes, filebuf);
        else
            tw_mpi_type_unpack_range(filebuf, items, type, (size_t)a.native, nbytes, buf);
        return MPI_SUCCESS;
    }
    unsigned char *native = malloc(nbytes ? nbytes : 1);
    if (!native) return MPI_ERR_NO_MEM;
    if (write) tw_mpi_type_pack_range(buf, items, type, (size_t)a.native, nbytes, native);
    unsigned char *n = native, *f = filebuf;
    int rc = MPI_SUCCESS;
    for (MPI_Count done = 0; done < k && !rc;) {
        const tw_typemap_run_t *run = &s->m->runs[a.run];
        MPI_Count take = run->n - a.in < k - done ? run->n - a.in : k - done;
        size_t nsize = (size_t)tw_mpi_basic_packed_size(run->basic);
        for (MPI_Count j = 0; j < take && !rc; j++, n += nsize, f += s->fsize[a.run])
            rc = tw_mpi_external32_value(run->basic, n, f, write);
        done += take;
        a.in = 0;
        if (++a.run == s->m->nruns) a.run = 0;
    }
    if (!write) tw_mpi_type_unpack_range(native, items, type, (size_t)a.native, nbytes, buf);
    free(native);
    return rc;
}

static int convert(tw_io_datarep_t *rep, int write, void *buf, MPI_Datatype type, const sig_t *s,
                   MPI_Count pos, MPI_Count k, unsigned char *filebuf, const char **detail) {
    int rc;
    if (rep->kind == TW_IO_EXTERNAL32) {
        rc = builtin_convert(rep->kind, write, buf, type, s, pos, k, filebuf);
        if (rc == MPI_ERR_CONVERSION) *detail = "a value does not fit its external32 size";
        if (rc == MPI_ERR_NO_MEM) *detail = "no memory for the native data";
        return rc;
    }
    if (rep->large && (write ? rep->write_fn_c : rep->read_fn_c))
        rc = (write ? rep->write_fn_c : rep->read_fn_c)(buf, type, k, filebuf, pos,
                                                        rep->extra_state);
    else if (!rep->large && (write ? rep->write_fn : rep->read_fn))
        rc = (write ? rep->write_fn : rep->read_fn)(buf, type, (int)k, filebuf, pos,
                                                    rep->extra_state);
    else
        return builtin_convert(TW_IO_NATIVE, write, buf, type, s, pos, k, filebuf);
    if (rc == MPI_SUCCESS) return MPI_SUCCESS;
    *detail = write ? "the data representation's write conversion function failed"
                    : "the data representation's read conversion function failed";
    return MPI_ERR_CONVERSION;
}

int tw_io_datarep_access(tw_io_datarep_t *rep, int write, void *buf, MPI_Count count,
                         MPI_Datatype type, MPI_Offset first, MPI_Offset buffer_size,
                         tw_io_stream_move_fn *move, void *ctx, tw_io_converted_t *out,
                         const char **detail) {
    *out = (tw_io_converted_t){0};
    sig_t s;
    int rc = sig_make(rep, type, &s, detail);
    if (rc) return rc;
    MPI_Count total;
    if (!s.per_item || !count) {
        sig_free(&s);
        return MPI_SUCCESS;
    }
    if (__builtin_mul_overflow(count, s.per_item, &total)) {
        sig_free(&s);
        return *detail = "more items than an MPI_Count holds", MPI_ERR_COUNT;
    }
    /* a chunk holds one entry at least; the int form's count is an int */
    MPI_Offset cap = buffer_size > s.fsize_max ? buffer_size : s.fsize_max, all;
    if (!__builtin_mul_overflow(count, s.file_item, &all) && cap > all) cap = all;
    MPI_Count limit = rep->kind == TW_IO_USER && !rep->large ? INT_MAX : total;
    unsigned char *filebuf = malloc((size_t)cap);
    if (!filebuf) {
        sig_free(&s);
        return *detail = "no memory for the converted data", MPI_ERR_NO_MEM;
    }
    MPI_Count pos = 0;
    MPI_Offset at = 0;
    int ended = 0;
    while (pos < total && !rc && !ended) {
        MPI_Offset bytes = 0, moved = 0;
        cursor_t c = seek(&s, pos);
        MPI_Count k = span(&s, c, cap, total - pos < limit ? total - pos : limit, &bytes);
        if (write) {
            rc = convert(rep, 1, buf, type, &s, pos, k, filebuf, detail);
            if (!rc) out->err = move(ctx, 1, first + at, (char *)filebuf, bytes, &moved);
            ended = out->err != 0;
        } else {
            out->err = move(ctx, 0, first + at, (char *)filebuf, bytes, &moved);
            if (out->err || moved < bytes) { /* the end of the file: the items read whole */
                ended = 1;
                k = span(&s, c, moved, k, &bytes);
            }
            if (k) rc = convert(rep, 0, buf, type, &s, pos, k, filebuf, detail);
        }
        if (!rc && !out->err) {
            pos += k;
            at += bytes;
        }
    }
    out->file_bytes = at;
    out->native_bytes = seek(&s, pos).native;
    free(filebuf);
    sig_free(&s);
    return rc;
}

MPI_Offset tw_io_datarep_buffer_size(MPI_Info info) {
    char value[32];
    int len = (int)sizeof value, flag = 0;
    if (info != MPI_INFO_NULL &&
        MPI_Info_get_string(info, "tw_datarep_buffer_size", &len, value, &flag) == MPI_SUCCESS &&
        flag) {
        char *end;
        long long bytes = strtoll(value, &end, 10);
        if (end != value && !*end && bytes > 0) return bytes;
    }
    return 4 << 20;
}
