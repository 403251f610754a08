/* The portable packed form "external32" (MPI-3.1 sections 4.2 and 13.5.2):
 * MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size.
 *
 * Every basic value is big-endian, with the sizes of the standard's table 13.2:
 * long and unsigned long are 4 bytes there (a value that does not fit is
 * MPI_ERR_CONVERSION, as is a wchar_t beyond 16 bits), long double is IEEE
 * binary128 (this machine's 80-bit format is widened and narrowed), and a pair of
 * MINLOC / MAXLOC is its two members with no padding. Data are packed in the
 * type's order: the native packed stream of a chunk of items (datatype.c) is made
 * first, then converted value by value along the type signature (its runs). */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/external32.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"
#include "mpi/datatype/typemap.h"

enum { SIGNED = 1, UNSIGNED, FLOATING, LDOUBLE };

/* One member of a basic type: how it converts, where it lies in the native item,
 * its native and external32 sizes. */
typedef struct field {
    uint8_t kind, off, native, ext;
} field_t;

typedef struct basic {
    uint8_t ext; /* external32 bytes of one item */
    field_t f[2];
} basic_t;

#define ONE(k, n, e)                                                                               \
    {                                                                                              \
        e, {                                                                                       \
            {k, 0, n, e}, {                                                                        \
                0, 0, 0, 0                                                                         \
            }                                                                                      \
        }                                                                                          \
    }
#define TWO(k1, n1, e1, k2, o2)                                                                    \
    {                                                                                              \
        e1 + 4, {                                                                                  \
            {k1, 0, n1, e1}, {                                                                     \
                k2, o2, 4, 4                                                                       \
            }                                                                                      \
        }                                                                                          \
    }
#define SAME2(k, n)                                                                                \
    {                                                                                              \
        2 * n, {                                                                                   \
            {k, 0, n, n}, {                                                                        \
                k, n, n, n                                                                         \
            }                                                                                      \
        }                                                                                          \
    }

static const basic_t basics[TW_MPI_TYPE_IDS + 1] = {
    [1] = ONE(UNSIGNED, 1, 1), /* char, signed char, unsigned char, byte: bytes */
    [2] = ONE(UNSIGNED, 1, 1),
    [3] = ONE(UNSIGNED, 1, 1),
    [4] = ONE(UNSIGNED, 1, 1),
    [5] = ONE(UNSIGNED, 4, 2), /* wchar_t: 16-bit Unicode */
    [6] = ONE(SIGNED, 2, 2),
    [7] = ONE(UNSIGNED, 2, 2),
    [8] = ONE(SIGNED, 4, 4),
    [9] = ONE(UNSIGNED, 4, 4),
    [10] = ONE(SIGNED, sizeof(long), 4),
    [11] = ONE(UNSIGNED, sizeof(long), 4),
    [12] = ONE(SIGNED, 8, 8),
    [13] = ONE(UNSIGNED, 8, 8),
    [14] = ONE(FLOATING, 4, 4),
    [15] = ONE(FLOATING, 8, 8),
    [16] = ONE(LDOUBLE, 16, 16),
    [17] = ONE(UNSIGNED, 1, 1),
    [18] = ONE(SIGNED, 1, 1),
    [19] = ONE(SIGNED, 2, 2),
    [20] = ONE(SIGNED, 4, 4),
    [21] = ONE(SIGNED, 8, 8),
    [22] = ONE(UNSIGNED, 1, 1),
    [23] = ONE(UNSIGNED, 2, 2),
    [24] = ONE(UNSIGNED, 4, 4),
    [25] = ONE(UNSIGNED, 8, 8),
    [26] = ONE(SIGNED, 8, 8),
    [27] = ONE(SIGNED, 8, 8),
    [28] = ONE(SIGNED, 8, 8),
    [29] = ONE(UNSIGNED, 1, 1),
    [30] = SAME2(FLOATING, 4),
    [31] = SAME2(FLOATING, 8),
    [32] = SAME2(LDOUBLE, 16),
    [33] = ONE(UNSIGNED, 1, 1),
    [34] = SAME2(FLOATING, 4),
    [35] = SAME2(FLOATING, 8),
    [36] = SAME2(LDOUBLE, 16),
    [37] = TWO(FLOATING, 4, 4, SIGNED, 4), /* float, int */
    [38] = TWO(FLOATING, 8, 8, SIGNED, 8), /* double, int */
    [39] = TWO(SIGNED, sizeof(long), 4, SIGNED, sizeof(long)),
    [40] = SAME2(SIGNED, 4),
    [41] = TWO(SIGNED, 2, 2, SIGNED, 2),     /* short, int: packed, no padding */
    [42] = TWO(LDOUBLE, 16, 16, SIGNED, 16), /* long double, int */
    [43] = ONE(UNSIGNED, 1, 1),
    [44] = ONE(SIGNED, 4, 4),
    [45] = ONE(SIGNED, 4, 4),
    [46] = ONE(FLOATING, 4, 4),
    [47] = ONE(FLOATING, 8, 8),
    [48] = SAME2(FLOATING, 4),
    [49] = SAME2(FLOATING, 8),
    [50] = ONE(SIGNED, 1, 1),
    [51] = ONE(SIGNED, 2, 2),
    [52] = ONE(SIGNED, 4, 4),
    [53] = ONE(SIGNED, 8, 8),
    [54] = ONE(FLOATING, 4, 4),
    [55] = ONE(FLOATING, 8, 8),
    [56] = ONE(LDOUBLE, 16, 16),
    [57] = SAME2(FLOATING, 4),
    [58] = SAME2(FLOATING, 8),
    [59] = SAME2(LDOUBLE, 16),
    [60] = SAME2(FLOATING, 4),
    [61] = SAME2(FLOATING, 8),
    [62] = SAME2(SIGNED, 4),
    [63] = ONE(FLOATING, 2, 2), /* binary16, bfloat16: big-endian as the others */
    [64] = ONE(FLOATING, 2, 2),
};

static const basic_t *basic_of(MPI_Datatype t) {
    return &basics[(unsigned)t & 0xff];
}

/* ---- one value ---- */

static uint64_t load_native(const unsigned char *p, int n, int is_signed) {
    switch (n) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        return is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static void store_native(unsigned char *p, int n, uint64_t v) {
    uint8_t v1 = (uint8_t)v;
    uint16_t v2 = (uint16_t)v;
    uint32_t v4 = (uint32_t)v;
    switch (n) {
    case 1:
        memcpy(p, &v1, 1);
        break;
    case 2:
        memcpy(p, &v2, 2);
        break;
    case 4:
        memcpy(p, &v4, 4);
        break;
    default:
        memcpy(p, &v, 8);
    }
}

static void store_be(unsigned char *p, int n, uint64_t v) {
    for (int k = n - 1; k >= 0; k--, v >>= 8) p[k] = (unsigned char)v;
}

static uint64_t load_be(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int k = 0; k < n; k++) v = v << 8 | p[k];
    return v;
}

/* a native long double as binary128's two big-endian halves, and back */
static void ldouble_out(const unsigned char *p, unsigned char *ext) {
#if LDBL_MANT_DIG ==                                                                               \
    64 /* x87 extended: 64-bit mantissa with its integer bit, then sign and exponent */
    uint64_t m;
    uint16_t se;
    memcpy(&m, p, 8);
    memcpy(&se, p + 8, 2);
    uint64_t f = m & 0x7fffffffffffffffull; /* the fraction: 63 bits */
    store_be(ext, 8, (uint64_t)se << 48 | f >> 15);
    store_be(ext + 8, 8, f << 49);
#elif LDBL_MANT_DIG == 113 /* binary128 already */
    uint64_t lo, hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    store_be(ext, 8, hi);
    store_be(ext + 8, 8, lo);
#else
#error "external32: unsupported long double format"
#endif
}

static void ldouble_in(const unsigned char *ext, unsigned char *p) {
    uint64_t hi = load_be(ext, 8), lo = load_be(ext + 8, 8);
#if LDBL_MANT_DIG == 64
    uint16_t se = (uint16_t)(hi >> 48);
    uint64_t f = (hi & 0xffffffffffffull) << 15 | lo >> 49; /* the top 63 fraction bits */
    uint64_t m = f | (se & 0x7fff ? 1ull << 63 : 0);        /* normal, infinite or NaN */
    memset(p, 0, 16);
    memcpy(p, &m, 8);
    memcpy(p + 8, &se, 2);
#else
    memcpy(p, &lo, 8);
    memcpy(p + 8, &hi, 8);
#endif
}

/* One field from native to external32; 0, or -1 when the value does not fit. */
static int field_out(const field_t *f, const unsigned char *native, unsigned char *ext) {
    const unsigned char *p = native + f->off;
    if (f->kind == LDOUBLE) {
        ldouble_out(p, ext);
        return 0;
    }
    uint64_t v = load_native(p, f->native, f->kind == SIGNED);
    if (f->ext < f->native) { /* narrowed: the value must survive */
        int bits = 8 * f->ext;
        if (f->kind == SIGNED) {
            int64_t s = (int64_t)v, lim = (int64_t)1 << (bits - 1);
            if (s < -lim || s >= lim) return -1;
        } else if (v >> bits) {
            return -1;
        }
    }
    store_be(ext, f->ext, v);
    return 0;
}

static void field_in(const field_t *f, const unsigned char *ext, unsigned char *native) {
    unsigned char *p = native + f->off;
    if (f->kind == LDOUBLE) {
        ldouble_in(ext, p);
        return;
    }
    uint64_t v = load_be(ext, f->ext);
    int bits = 8 * f->ext;
    if (f->kind == SIGNED && bits < 64 && v >> (bits - 1)) v |= ~0ull << bits; /* widened */
    store_native(p, f->native, v);
}

/* ---- one value of a predefined type (the I/O chapter's external32 views) ---- */

int tw_mpi_external32_basic_size(MPI_Datatype basic) {
    unsigned id = (unsigned)basic & 0xff;
    return tw_mpi_type_extent(basic) < 0 || id == 0 || id > TW_MPI_TYPE_IDS ? -1
                                                                            : basic_of(basic)->ext;
}

int tw_mpi_external32_value(MPI_Datatype basic, unsigned char *native, unsigned char *ext,
                            int out) {
    const basic_t *b = basic_of(basic);
    for (int j = 0; j < 2 && b->f[j].kind; j++) {
        if (out && field_out(&b->f[j], native, ext)) return MPI_ERR_CONVERSION;
        if (!out) field_in(&b->f[j], ext, native);
        ext += b->f[j].ext;
    }
    return MPI_SUCCESS;
}

/* ---- streams ---- */

/* external32 bytes of one item of a map, or -1 past MPI_Count. */
static MPI_Count ext_item_size(const tw_typemap_t *m) {
    MPI_Count total = 0, one;
    for (size_t r = 0; r < m->nruns; r++)
        if (__builtin_mul_overflow((MPI_Count)basic_of(m->runs[r].basic)->ext, m->runs[r].n,
                                   &one) ||
            __builtin_add_overflow(total, one, &total))
            return -1;
    return total;
}

/* Converts items whole items between the native packed stream and external32;
 * MPI_SUCCESS or MPI_ERR_CONVERSION (out). */
static int convert(const tw_typemap_t *m, MPI_Count items, unsigned char *native,
                   unsigned char *ext, int out) {
    for (MPI_Count i = 0; i < items; i++)
        for (size_t r = 0; r < m->nruns; r++) {
            MPI_Datatype t = m->runs[r].basic;
            const basic_t *b = basic_of(t);
            size_t step = (size_t)tw_mpi_basic_packed_size(t);
            for (MPI_Count k = 0; k < m->runs[r].n; k++) {
                unsigned char *e = ext;
                for (int j = 0; j < 2 && b->f[j].kind; j++) {
                    if (out && field_out(&b->f[j], native, e)) return MPI_ERR_CONVERSION;
                    if (!out) field_in(&b->f[j], e, native);
                    e += b->f[j].ext;
                }
                native += step;
                ext += b->ext;
            }
        }
    return MPI_SUCCESS;
}

/* The checks the three calls share: the representation, a count, a type (committed
 * when committed is set). Its map, or NULL with *rc raised. */
static const tw_typemap_t *check(const char *call, const char *datarep, MPI_Count count,
                                 MPI_Datatype type, int committed, int *rc) {
    *rc = MPI_SUCCESS;
    if (!datarep || strcmp(datarep, "external32")) {
        *rc = tw_mpi_error(NULL, call, MPI_ERR_ARG, "the only data representation is external32");
        return NULL;
    }
    if (count < 0) {
        *rc = tw_mpi_error(NULL, call, MPI_ERR_COUNT, "negative count");
        return NULL;
    }
    tw_mpi_type_layout_t l;
    const tw_typemap_t *m = tw_mpi_type_map(type);
    if (!m || (committed && tw_mpi_type_layout(type, &l))) {
        *rc = tw_mpi_error(NULL, call, MPI_ERR_TYPE,
                           m ? "not a committed datatype" : "not a datatype");
        return NULL;
    }
    return m;
}

int tw_mpi_pack_external_size(const char *call, const char datarep[], MPI_Count incount,
                              MPI_Datatype datatype, MPI_Aint *size) {
    NEED_INIT(call);
    int rc;
    const tw_typemap_t *m = check(call, datarep, incount, datatype, 0, &rc);
    if (!m) return rc;
    if (!size) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "size is NULL");
    MPI_Count one = ext_item_size(m), all;
    if (one < 0 || __builtin_mul_overflow(one, (MPI_Count)incount, &all) || all > PTRDIFF_MAX)
        return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "more bytes than an MPI_Aint holds");
    *size = (MPI_Aint)all;
    return MPI_SUCCESS;
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint *size) {
    return tw_mpi_pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size);
}

/* Packs (out) or unpacks count items of a type at user to or from the external32
 * bytes at packed, a chunk of items at a time through a native packed copy. */
static int move(const char *call, const tw_typemap_t *m, MPI_Datatype type, void *user,
                MPI_Count count, unsigned char *packed, MPI_Count ext_one, int out) {
    size_t size = (size_t)m->size;
    if (!size || !count) return MPI_SUCCESS;
    MPI_Count chunk = (MPI_Count)((64u << 10) / size);
    if (chunk < 1) chunk = 1;
    if (chunk > count) chunk = count;
    unsigned char *native = calloc((size_t)chunk, size); /* a long double's unused bytes zeroed */
    if (!native) return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    int rc = MPI_SUCCESS;
    for (MPI_Count first = 0; first < count && !rc; first += chunk) {
        MPI_Count n = count - first < chunk ? count - first : chunk;
        unsigned char *ext = packed + first * ext_one;
        if (out) {
            tw_mpi_type_pack_range(user, count, type, (size_t)first * size, (size_t)n * size,
                                   native);
            rc = convert(m, n, native, ext, 1);
        } else {
            convert(m, n, native, ext, 0);
            tw_mpi_type_unpack_range(native, count, type, (size_t)first * size, (size_t)n * size,
                                     user);
        }
    }
    free(native);
    return rc ? tw_mpi_error(NULL, call, rc, "a value does not fit its external32 size")
              : MPI_SUCCESS;
}

/* The bytes count items take in external32, when they fit in [*position, bufsize). */
static int check_room(const char *call, const tw_typemap_t *m, MPI_Count count, const void *buf,
                      MPI_Aint bufsize, const MPI_Aint *position, MPI_Count *ext_one) {
    if (!position) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "position is NULL");
    if (bufsize < 0 || *position < 0 || *position > bufsize)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "position outside the packed buffer");
    MPI_Count one = ext_item_size(m), all;
    if (one < 0 || __builtin_mul_overflow(one, (MPI_Count)count, &all) ||
        all > (MPI_Count)(bufsize - *position))
        return tw_mpi_error(NULL, call, MPI_ERR_TRUNCATE, "the packed buffer is too short");
    if (all && !buf) return tw_mpi_error(NULL, call, MPI_ERR_BUFFER, "NULL packed buffer");
    *ext_one = one;
    return MPI_SUCCESS;
}

/* MPI_Pack_external (unpack 0) and MPI_Unpack_external (1). */
int tw_mpi_pack_external(const char *call, int unpack, const char datarep[], void *user,
                         MPI_Count count, MPI_Datatype datatype, void *packed, MPI_Aint packed_size,
                         MPI_Aint *position) {
    NEED_INIT(call);
    int rc;
    const tw_typemap_t *m = check(call, datarep, count, datatype, 1, &rc);
    if (!m) return rc;
    MPI_Count one = 0;
    if ((rc = check_room(call, m, count, packed, packed_size, position, &one))) return rc;
    rc = move(call, m, datatype, user, count, (unsigned char *)packed + *position, one, !unpack);
    if (!rc) *position += (MPI_Aint)(one * count);
    return rc;
}

int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position) {
    return tw_mpi_pack_external("MPI_Pack_external", 0, datarep, (void *)(uintptr_t)inbuf, incount,
                                datatype, outbuf, outsize, position);
}

int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype) {
    return tw_mpi_pack_external("MPI_Unpack_external", 1, datarep, outbuf, outcount, datatype,
                                (void *)(uintptr_t)inbuf, insize, position);
}
