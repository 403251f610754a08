/* The Fortran entry points the generator cannot make (gen_bindings.py FORTRAN_BY_HAND
 * says why for each), as pmpi_ calls with mpi_ weak aliases like the generated ones. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/bindings/fortran/attr_value.h"
#include "mpi/bindings/fortran/fortran.h"

/* name: without the mpi_ prefix (fortran.h's TW_F_ALSO) */
#define DEFINE(name, ...)                                                                          \
    void pmpi_##name##_(__VA_ARGS__);                                                              \
    void mpi_##name##_(__VA_ARGS__) __attribute__((weak, alias("pmpi_" #name "_")));               \
    TW_F_ALSO(void, name, (__VA_ARGS__))                                                           \
    void pmpi_##name##_(__VA_ARGS__)

DEFINE(init, MPI_Fint *ierror) {
    *ierror = PMPI_Init(NULL, NULL);
}

DEFINE(init_thread, MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror) {
    *ierror = PMPI_Init_thread(NULL, NULL, *required, provided);
}

DEFINE(info_create_env, MPI_Fint *info, MPI_Fint *ierror) {
    MPI_Info info_c;
    *ierror = PMPI_Info_create_env(0, NULL, &info_c);
    if (*ierror == MPI_SUCCESS) *info = PMPI_Info_c2f(info_c);
}

/* ---- info values: CHARACTERs without a terminator ---- */

/* The value of key in info, a C string to be freed, with its length: NULL with *found
 * 0 when the key is not there, or with *rc set when the call failed. */
static char *info_value(MPI_Fint info, const char *key, size_t key_len, int *found, int *rc) {
    char *key_c = tw_f_string_trimmed_in(key, key_len);
    int len = 0; /* asked with no room: the value's length plus one */
    *found = 0;
    *rc = PMPI_Info_get_string(PMPI_Info_f2c(info), key_c, &len, NULL, found);
    char *v = *rc == MPI_SUCCESS && *found ? tw_f_string_buf((size_t)len) : NULL;
    if (v) *rc = PMPI_Info_get_string(PMPI_Info_f2c(info), key_c, &len, v, found);
    free(key_c);
    return v;
}

/* value: at most room characters of v, then blanks to its length */
static void info_value_out(const char *v, MPI_Fint room, char *value, size_t value_len) {
    size_t n = room < 0 ? 0 : (size_t)room;
    tw_f_string_out(v, value, n < value_len ? n : value_len);
    if (n < value_len) memset(value + n, ' ', value_len - n);
}

DEFINE(info_get, MPI_Fint *info, const char *key, MPI_Fint *valuelen, char *value, MPI_Fint *flag,
       MPI_Fint *ierror, size_t key_len, size_t value_len) {
    int found, rc;
    if (*valuelen < 0) { /* the C call's error */
        char c[1], *key_c = tw_f_string_trimmed_in(key, key_len);
        *ierror = PMPI_Info_get(PMPI_Info_f2c(*info), key_c, *valuelen, c, &found);
        free(key_c);
        *flag = 0;
        return;
    }
    char *v = info_value(*info, key, key_len, &found, &rc);
    if (v) info_value_out(v, *valuelen, value, value_len);
    free(v);
    *flag = rc == MPI_SUCCESS && found;
    *ierror = rc;
}

DEFINE(info_get_string, MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value,
       MPI_Fint *flag, MPI_Fint *ierror, size_t key_len, size_t value_len) {
    int found, rc;
    if (*buflen < 0) { /* the C call's error */
        char *key_c = tw_f_string_trimmed_in(key, key_len);
        *ierror = PMPI_Info_get_string(PMPI_Info_f2c(*info), key_c, buflen, NULL, &found);
        free(key_c);
        *flag = 0;
        return;
    }
    char *v = info_value(*info, key, key_len, &found, &rc);
    if (v && *buflen > 0) info_value_out(v, *buflen, value, value_len);
    if (v) *buflen = (MPI_Fint)strlen(v);
    free(v);
    *flag = rc == MPI_SUCCESS && found;
    *ierror = rc;
}

DEFINE(pcontrol, MPI_Fint *level) {
    PMPI_Pcontrol(*level);
}

/* ---- attributes ----
 * A predefined attribute is a pointer to its value in C, the value itself in Fortran.
 * A value Fortran sets is kept in a cell whose address C gets (attr_value.c). */

static int comm_attr_is_int(int keyval) {
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO ||
           keyval == MPI_WTIME_IS_GLOBAL || keyval == MPI_UNIVERSE_SIZE ||
           keyval == MPI_LASTUSEDCODE || keyval == MPI_APPNUM;
}

static MPI_Aint comm_attr_value(int keyval, void *v) {
    return comm_attr_is_int(keyval) ? *(int *)v : tw_f_attr_value(v);
}

DEFINE(comm_get_attr, MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
       MPI_Fint *ierror) {
    void *v = NULL;
    int found = 0;
    *ierror = PMPI_Comm_get_attr(PMPI_Comm_f2c(*comm), *keyval, &v, &found);
    if (*ierror == MPI_SUCCESS && found) *value = comm_attr_value(*keyval, v);
    *flag = found != 0;
}

DEFINE(attr_get, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag,
       MPI_Fint *ierror) {
    void *v = NULL;
    int found = 0;
    *ierror = PMPI_Attr_get(PMPI_Comm_f2c(*comm), *keyval, &v, &found);
    if (*ierror == MPI_SUCCESS && found) *value = (MPI_Fint)comm_attr_value(*keyval, v);
    *flag = found != 0;
}

DEFINE(type_get_attr, MPI_Fint *datatype, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
       MPI_Fint *ierror) {
    void *v = NULL;
    int found = 0;
    *ierror = PMPI_Type_get_attr(TW_F2C(MPI_Datatype, Type, *datatype), *keyval, &v, &found);
    if (*ierror == MPI_SUCCESS && found) *value = tw_f_attr_value(v);
    *flag = found != 0;
}

DEFINE(win_get_attr, MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
       MPI_Fint *ierror) {
    void *v = NULL;
    int found = 0;
    *ierror = PMPI_Win_get_attr(PMPI_Win_f2c(*win), *keyval, &v, &found);
    if (*ierror == MPI_SUCCESS && found) {
        if (*keyval == MPI_WIN_SIZE)
            *value = *(MPI_Aint *)v;
        else if (*keyval == MPI_WIN_DISP_UNIT || *keyval == MPI_WIN_CREATE_FLAVOR ||
                 *keyval == MPI_WIN_MODEL)
            *value = *(int *)v;
        else /* MPI_WIN_BASE is the address itself, as a user's value */
            *value = tw_f_attr_value(v);
    }
    *flag = found != 0;
}

/* a set from Fortran: the value in a new cell, given back when the set fails */
#define SET_ATTR(name, Cset, type, kind, value_type, mpi1)                                         \
    DEFINE(name, MPI_Fint *obj, MPI_Fint *keyval, value_type *value, MPI_Fint *ierror) {           \
        void *cell = tw_f_attr_cell_new((MPI_Aint)*value, mpi1);                                   \
        *ierror = cell ? Cset(TW_F2C(type, kind, *obj), *keyval, cell) : MPI_ERR_NO_MEM;           \
        if (cell && *ierror != MPI_SUCCESS) tw_f_attr_cell_free(cell);                             \
    }
SET_ATTR(comm_set_attr, PMPI_Comm_set_attr, MPI_Comm, Comm, MPI_Aint, 0)
SET_ATTR(type_set_attr, PMPI_Type_set_attr, MPI_Datatype, Type, MPI_Aint, 0)
SET_ATTR(win_set_attr, PMPI_Win_set_attr, MPI_Win, Win, MPI_Aint, 0)
SET_ATTR(attr_put, PMPI_Attr_put, MPI_Comm, Comm, MPI_Fint, 1)

/* ---- keyvals with copy and delete functions in Fortran ----
 * The C library calls a trampoline with the keyval's extra state, which holds the
 * Fortran functions and the program's extra state; the trampoline passes everything
 * by reference, the attribute values as INTEGER(KIND=MPI_ADDRESS_KIND) (MPI-1's
 * MPI_KEYVAL_CREATE: INTEGER). The record lives as long as the library (a keyval's
 * free calls nothing back to release it). */
typedef void fortran_copy(MPI_Fint *old, MPI_Fint *keyval, void *extra, void *in, void *out,
                          MPI_Fint *flag, MPI_Fint *ierror);
typedef void fortran_delete(MPI_Fint *obj, MPI_Fint *keyval, void *value, void *extra,
                            MPI_Fint *ierror);

struct fortran_keyval {
    fortran_copy *copy;
    fortran_delete *delete;
    MPI_Aint extra;
};

static struct fortran_keyval *keyval_record(void (*copy)(void), void (*delete)(void),
                                            MPI_Aint extra) {
    struct fortran_keyval *k = malloc(sizeof *k);
    if (k) {
        k->copy = (fortran_copy *)copy;
        k->delete = (fortran_delete *)delete;
        k->extra = extra;
    }
    return k;
}

/* the value a Fortran copy function gave, into a new cell as the copy's C attribute */
static int copied_out(void *out, int *flag, MPI_Fint ierror, MPI_Aint value, int mpi1) {
    if (!*flag || ierror != MPI_SUCCESS) return ierror;
    void *cell = tw_f_attr_cell_new(value, mpi1);
    if (!cell) {
        *flag = 0;
        return MPI_ERR_NO_MEM;
    }
    *(void **)out = cell;
    return MPI_SUCCESS;
}

/* the trampolines of a kind of object whose Fortran copy and delete functions take
 * INTEGER(KIND=MPI_ADDRESS_KIND) values */
#define AINT_TRAMPOLINES(lower, type, kind)                                                        \
    static int lower##_copy_aint(type old, int keyval, void *extra, void *in, void *out,           \
                                 int *flag) {                                                      \
        struct fortran_keyval *k = extra;                                                          \
        MPI_Fint old_f = TW_C2F(type, kind, old), keyval_f = keyval, flag_f = 0;                   \
        MPI_Fint ierror = MPI_SUCCESS;                                                             \
        MPI_Aint in_f = tw_f_attr_value(in), out_f = 0;                                            \
        k->copy(&old_f, &keyval_f, &k->extra, &in_f, &out_f, &flag_f, &ierror);                    \
        *flag = flag_f != 0;                                                                       \
        return copied_out(out, flag, ierror, out_f, 0);                                            \
    }                                                                                              \
    static int lower##_delete_aint(type obj, int keyval, void *value, void *extra) {               \
        struct fortran_keyval *k = extra;                                                          \
        MPI_Fint obj_f = TW_C2F(type, kind, obj), keyval_f = keyval, ierror = MPI_SUCCESS;         \
        MPI_Aint value_f = tw_f_attr_value(value);                                                 \
        k->delete (&obj_f, &keyval_f, &value_f, &k->extra, &ierror);                               \
        if (ierror == MPI_SUCCESS) tw_f_attr_cell_free(value);                                     \
        return ierror;                                                                             \
    }
AINT_TRAMPOLINES(comm, MPI_Comm, Comm)
AINT_TRAMPOLINES(type, MPI_Datatype, Type)
AINT_TRAMPOLINES(win, MPI_Win, Win)

static int copy_int(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag) {
    struct fortran_keyval *k = extra;
    MPI_Fint old_f = TW_C2F(MPI_Comm, Comm, old), keyval_f = keyval, flag_f = 0;
    MPI_Fint ierror = MPI_SUCCESS;
    MPI_Fint extra_f = (MPI_Fint)k->extra, in_f = (MPI_Fint)tw_f_attr_value(in), out_f = 0;
    k->copy(&old_f, &keyval_f, &extra_f, &in_f, &out_f, &flag_f, &ierror);
    *flag = flag_f != 0;
    return copied_out(out, flag, ierror, out_f, 1);
}

static int delete_int(MPI_Comm obj, int keyval, void *value, void *extra) {
    struct fortran_keyval *k = extra;
    MPI_Fint obj_f = TW_C2F(MPI_Comm, Comm, obj), keyval_f = keyval, ierror = MPI_SUCCESS;
    MPI_Fint extra_f = (MPI_Fint)k->extra, value_f = (MPI_Fint)tw_f_attr_value(value);
    k->delete (&obj_f, &keyval_f, &value_f, &extra_f, &ierror);
    if (ierror == MPI_SUCCESS) tw_f_attr_cell_free(value);
    return ierror;
}

#define CREATE_KEYVAL(fname, Cname, lower)                                                         \
    DEFINE(fname, void (*copy)(void), void (*delete)(void), MPI_Fint *keyval, MPI_Aint *extra,     \
           MPI_Fint *ierror) {                                                                     \
        struct fortran_keyval *k = keyval_record(copy, delete, *extra);                            \
        *ierror = k ? Cname(lower##_copy_aint, lower##_delete_aint, keyval, k) : MPI_ERR_NO_MEM;   \
    }

CREATE_KEYVAL(comm_create_keyval, PMPI_Comm_create_keyval, comm)
CREATE_KEYVAL(type_create_keyval, PMPI_Type_create_keyval, type)
CREATE_KEYVAL(win_create_keyval, PMPI_Win_create_keyval, win)

DEFINE(keyval_create, void (*copy)(void), void (*delete)(void), MPI_Fint *keyval, MPI_Fint *extra,
       MPI_Fint *ierror) {
    struct fortran_keyval *k = keyval_record(copy, delete, *extra);
    *ierror = k ? PMPI_Keyval_create(copy_int, delete_int, keyval, k) : MPI_ERR_NO_MEM;
}

#ifndef TW_F_NO_F08 /* a face's library: its MPI's mpi_f08 is not served */
/* an INTEGER status and a TYPE(MPI_Status) are the same MPI_STATUS_SIZE integers
 * (mpi.h's MPI_F08_status): a copy, as MPI_Status_f2f08 does in C */
DEFINE(status_f2f08, const MPI_Fint *f_status, MPI_Fint *f08_status, MPI_Fint *ierror) {
    *ierror = PMPI_Status_f2f08(f_status, (MPI_F08_status *)f08_status);
}

DEFINE(status_f082f, const MPI_Fint *f08_status, MPI_Fint *f_status, MPI_Fint *ierror) {
    *ierror = PMPI_Status_f082f((const MPI_F08_status *)f08_status, f_status);
}
#endif

/* ---- generalized requests with query, free and cancel functions in Fortran ----
 * As for keyvals: the C library calls trampolines with a record of the Fortran
 * functions and the program's extra state, which the free function's trampoline
 * releases (the last call of a generalized request's). The functions get the
 * program's own EXTRA_STATE variable, as MPICH and Open MPI hand it: what one of them
 * writes there, the program and the next one see (a count the free function takes
 * down). A Fortran status (and mpi_f08's TYPE(MPI_Status)) is the C status's ints
 * (convert.c). */
typedef void fortran_grequest_query(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void fortran_grequest_free(MPI_Aint *extra, MPI_Fint *ierror);
typedef void fortran_grequest_cancel(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierror);

struct fortran_grequest {
    fortran_grequest_query *query;
    fortran_grequest_free *free;
    fortran_grequest_cancel *cancel;
    MPI_Aint *extra; /* the program's variable */
};

static int grequest_query(void *extra, MPI_Status *status) {
    struct fortran_grequest *g = extra;
    MPI_Fint status_f[MPI_F_STATUS_SIZE], ierror = MPI_SUCCESS;
    PMPI_Status_c2f(status, status_f);
    g->query(g->extra, status_f, &ierror);
    PMPI_Status_f2c(status_f, status);
    return ierror;
}

static int grequest_free(void *extra) {
    struct fortran_grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    g->free(g->extra, &ierror);
    free(g);
    return ierror;
}

static int grequest_cancel(void *extra, int complete) {
    struct fortran_grequest *g = extra;
    MPI_Fint complete_f = complete != 0, ierror = MPI_SUCCESS;
    g->cancel(g->extra, &complete_f, &ierror);
    return ierror;
}

DEFINE(grequest_start, void (*query)(void), void (*free_fn)(void), void (*cancel)(void),
       MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierror) {
    struct fortran_grequest *g = malloc(sizeof *g);
    if (!g) {
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    *g =
        (struct fortran_grequest){(fortran_grequest_query *)query, (fortran_grequest_free *)free_fn,
                                  (fortran_grequest_cancel *)cancel, extra};
    MPI_Request request_c;
    *ierror = PMPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, g, &request_c);
    if (*ierror == MPI_SUCCESS)
        *request = PMPI_Request_c2f(request_c);
    else
        free(g);
}

/* ---- a data representation with conversion and extent functions in Fortran ----
 * The C library calls trampolines with a record of the Fortran functions and the
 * program's extra state (kept for the process's life: a representation cannot be
 * unregistered), which pass every argument by reference and the datatype as its
 * INTEGER. MPI_CONVERSION_FN_NULL is libmpifort's mpi_conversion_fn_null_, recognised
 * by its address and given to C as C's. */
typedef void fortran_conversion(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                                MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror);
typedef void fortran_extent(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra,
                            MPI_Fint *ierror);

struct fortran_datarep {
    fortran_conversion *read, *write;
    fortran_extent *extent;
    MPI_Aint extra;
};

static int convert(fortran_conversion *fn, void *userbuf, MPI_Datatype datatype, int count,
                   void *filebuf, MPI_Offset position, struct fortran_datarep *d) {
    MPI_Fint type_f = TW_C2F(MPI_Datatype, Type, datatype), count_f = count;
    MPI_Fint ierror = MPI_SUCCESS;
    fn(userbuf, &type_f, &count_f, filebuf, &position, &d->extra, &ierror);
    return ierror;
}

static int datarep_read(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                        MPI_Offset position, void *extra) {
    struct fortran_datarep *d = extra;
    return convert(d->read, userbuf, datatype, count, filebuf, position, d);
}

static int datarep_write(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                         MPI_Offset position, void *extra) {
    struct fortran_datarep *d = extra;
    return convert(d->write, userbuf, datatype, count, filebuf, position, d);
}

static int datarep_extent(MPI_Datatype datatype, MPI_Aint *extent, void *extra) {
    struct fortran_datarep *d = extra;
    MPI_Fint type_f = TW_C2F(MPI_Datatype, Type, datatype), ierror = MPI_SUCCESS;
    d->extent(&type_f, extent, &d->extra, &ierror);
    return ierror;
}

/* MPI_CONVERSION_FN_NULL: never called (the address stands for C's null) */
void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                             MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror);
void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                             MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror) {
    *ierror = MPI_SUCCESS;
}

/* The record of a registration's Fortran functions, and its name as a C string: both, or
 * neither with MPI_ERR_NO_MEM in *ierror. */
static struct fortran_datarep *datarep_record(const char *datarep, size_t datarep_len,
                                              void (*read)(void), void (*write)(void),
                                              void (*extent)(void), MPI_Aint extra, char **name,
                                              MPI_Fint *ierror) {
    struct fortran_datarep *d = malloc(sizeof *d);
    *name = tw_f_string_in(datarep, datarep_len);
    if (!d || !*name) {
        free(d);
        free(*name);
        *ierror = MPI_ERR_NO_MEM;
        return NULL;
    }
    *d = (struct fortran_datarep){(fortran_conversion *)read, (fortran_conversion *)write,
                                  (fortran_extent *)extent, extra};
    return d;
}

/* After the registration: the record kept when it is registered (for the process's life). */
static void datarep_registered(struct fortran_datarep *d, char *name, MPI_Fint ierror) {
    if (ierror != MPI_SUCCESS) free(d);
    free(name);
}

DEFINE(register_datarep, const char *datarep, void (*read)(void), void (*write)(void),
       void (*extent)(void), MPI_Aint *extra, MPI_Fint *ierror, size_t datarep_len) {
    void (*null)(void) = (void (*)(void))mpi_conversion_fn_null_;
    char *name;
    struct fortran_datarep *d =
        datarep_record(datarep, datarep_len, read, write, extent, *extra, &name, ierror);
    if (!d) return;
    MPI_Datarep_conversion_function *none = NULL; /* MPI_CONVERSION_FN_NULL in every ABI */
    *ierror = PMPI_Register_datarep(name, read == null ? none : datarep_read,
                                    write == null ? none : datarep_write, datarep_extent, d);
    datarep_registered(d, name, *ierror);
}

/* The large-count form (mpi_f08's MPI_Register_datarep_c): the conversion functions'
 * count is an INTEGER(KIND=MPI_COUNT_KIND); MPI_CONVERSION_FN_NULL_C is
 * mpi_conversion_fn_null_c_, recognised by its address. */
typedef void fortran_conversion_c(void *userbuf, MPI_Fint *datatype, MPI_Count *count,
                                  void *filebuf, MPI_Offset *position, MPI_Aint *extra,
                                  MPI_Fint *ierror);

static int convert_c(void (*fn)(void), void *userbuf, MPI_Datatype datatype, MPI_Count count,
                     void *filebuf, MPI_Offset position, struct fortran_datarep *d) {
    MPI_Fint type_f = TW_C2F(MPI_Datatype, Type, datatype), ierror = MPI_SUCCESS;
    ((fortran_conversion_c *)fn)(userbuf, &type_f, &count, filebuf, &position, &d->extra, &ierror);
    return ierror;
}

static int datarep_read_c(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                          MPI_Offset position, void *extra) {
    struct fortran_datarep *d = extra;
    return convert_c((void (*)(void))d->read, userbuf, datatype, count, filebuf, position, d);
}

static int datarep_write_c(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                           MPI_Offset position, void *extra) {
    struct fortran_datarep *d = extra;
    return convert_c((void (*)(void))d->write, userbuf, datatype, count, filebuf, position, d);
}

/* MPI_CONVERSION_FN_NULL_C: never called (the address stands for C's null) */
void mpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *datatype, MPI_Count *count, void *filebuf,
                               MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror);
void mpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *datatype, MPI_Count *count, void *filebuf,
                               MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierror) {
    *ierror = MPI_SUCCESS;
}

DEFINE(register_datarep_c, const char *datarep, void (*read)(void), void (*write)(void),
       void (*extent)(void), MPI_Aint *extra, MPI_Fint *ierror, size_t datarep_len) {
    void (*null)(void) = (void (*)(void))mpi_conversion_fn_null_c_;
    char *name;
    struct fortran_datarep *d =
        datarep_record(datarep, datarep_len, read, write, extent, *extra, &name, ierror);
    if (!d) return;
    MPI_Datarep_conversion_function_c *none = NULL; /* MPI_CONVERSION_FN_NULL_C in every ABI */
    *ierror = PMPI_Register_datarep_c(name, read == null ? none : datarep_read_c,
                                      write == null ? none : datarep_write_c, datarep_extent, d);
    datarep_registered(d, name, *ierror);
}
