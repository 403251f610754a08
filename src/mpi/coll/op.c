/* Reduction operations: the predefined ops on every type MPI-3.1 allows them for
 * (section 5.9.2), user ops, and MPI_Op_create, MPI_Op_free, MPI_Op_commutative and
 * MPI_Reduce_local.
 *
 * An op combines invec into inoutvec: inout[i] = in[i] op inout[i]. A predefined op
 * runs over the basic elements of a datatype (its layout's element type), so it
 * serves derived types of one element type too; any other combination is
 * MPI_ERR_OP. Signed integer sums and products are computed in unsigned
 * arithmetic: they wrap instead of being undefined. MPI_CHAR takes the integer ops
 * as a signed char, an extension MPICH and Open MPI make too (benchmarks use it). */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/env/callback.h"
#include "mpi/env/error.h"
#include "mpi/coll/op.h"
#include "mpi/coll/schedule.h"
#include "mpi/env/state.h"

enum {
    OP_MAX = 1,
    OP_MIN,
    OP_SUM,
    OP_PROD,
    OP_LAND,
    OP_BAND,
    OP_LOR,
    OP_BOR,
    OP_LXOR,
    OP_BXOR,
    OP_MINLOC,
    OP_MAXLOC,
    OP_REPLACE,
    OP_NO_OP,
    USER_FIRST = 16,
    USER_OPS = 1024
};

/* A freed op keeps its function for the non-blocking reductions that hold it
 * (MPI_Op_free only marks it); its slot is reused after their last hold. */
typedef struct user_op {
    MPI_User_function *fn;
    MPI_User_function_c *fn_c; /* MPI_Op_create_c's: the one of the two that is set */
    int commute, freed;
    int holds;                   /* by reductions under way */
    tw_mpi_callback_fn *context; /* a face's: the program's function (callback.h) */
} user_op_t;

static user_op_t user_ops[USER_OPS];

/* The element loops in the widest vectors the CPU has, chosen once by the loader (an
 * ifunc: glibc's): osu_acc_latency's byte sum of 8 KiB took 0.31 us in SSE2, 0.16-0.20
 * in AVX2, 0.10-0.11 in AVX-512. Not under ThreadSanitizer, whose runtime is not up yet
 * when the loader runs the choice. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) &&       \
    !defined(__SANITIZE_THREAD__)
#define VECTOR_LOOP __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define VECTOR_LOOP
#endif

#define EACH(stmt)                                                                                 \
    for (size_t i = 0; i < n; i++) {                                                               \
        stmt;                                                                                      \
    }                                                                                              \
    return MPI_SUCCESS

/* integers: every op but the pair ones; U is the unsigned type the arithmetic is done in */
#define INTEGER_OPS(name, T, U)                                                                    \
    VECTOR_LOOP static int name(int op, const void *a, void *b, size_t n) {                        \
        const T *x = a;                                                                            \
        T *y = b;                                                                                  \
        switch (op) {                                                                              \
        case OP_MAX:                                                                               \
            EACH(if (x[i] > y[i]) y[i] = x[i]);                                                    \
        case OP_MIN:                                                                               \
            EACH(if (x[i] < y[i]) y[i] = x[i]);                                                    \
        case OP_SUM:                                                                               \
            EACH(y[i] = (T)((U)x[i] + (U)y[i]));                                                   \
        case OP_PROD:                                                                              \
            EACH(y[i] = (T)((U)x[i] * (U)y[i]));                                                   \
        case OP_LAND:                                                                              \
            EACH(y[i] = (T)(x[i] && y[i]));                                                        \
        case OP_LOR:                                                                               \
            EACH(y[i] = (T)(x[i] || y[i]));                                                        \
        case OP_LXOR:                                                                              \
            EACH(y[i] = (T)(!x[i] != !y[i]));                                                      \
        case OP_BAND:                                                                              \
            EACH(y[i] = (T)(x[i] & y[i]));                                                         \
        case OP_BOR:                                                                               \
            EACH(y[i] = (T)(x[i] | y[i]));                                                         \
        case OP_BXOR:                                                                              \
            EACH(y[i] = (T)(x[i] ^ y[i]));                                                         \
        default:                                                                                   \
            return MPI_ERR_OP;                                                                     \
        }                                                                                          \
    }

INTEGER_OPS(ops_schar, signed char, unsigned)
INTEGER_OPS(ops_uchar, unsigned char, unsigned)
INTEGER_OPS(ops_short, short, unsigned)
INTEGER_OPS(ops_ushort, unsigned short, unsigned)
INTEGER_OPS(ops_int, int, unsigned)
INTEGER_OPS(ops_unsigned, unsigned, unsigned)
INTEGER_OPS(ops_long, long, unsigned long)
INTEGER_OPS(ops_ulong, unsigned long, unsigned long)
INTEGER_OPS(ops_llong, long long, unsigned long long)
INTEGER_OPS(ops_ullong, unsigned long long, unsigned long long)
INTEGER_OPS(ops_int8, int8_t, unsigned)
INTEGER_OPS(ops_int16, int16_t, unsigned)
INTEGER_OPS(ops_int32, int32_t, uint32_t)
INTEGER_OPS(ops_int64, int64_t, uint64_t)
INTEGER_OPS(ops_uint8, uint8_t, unsigned)
INTEGER_OPS(ops_uint16, uint16_t, unsigned)
INTEGER_OPS(ops_uint32, uint32_t, uint32_t)
INTEGER_OPS(ops_uint64, uint64_t, uint64_t)

#define FLOATING_OPS(name, T)                                                                      \
    VECTOR_LOOP static int name(int op, const void *a, void *b, size_t n) {                        \
        const T *x = a;                                                                            \
        T *y = b;                                                                                  \
        switch (op) {                                                                              \
        case OP_MAX:                                                                               \
            EACH(if (x[i] > y[i]) y[i] = x[i]);                                                    \
        case OP_MIN:                                                                               \
            EACH(if (x[i] < y[i]) y[i] = x[i]);                                                    \
        case OP_SUM:                                                                               \
            EACH(y[i] = x[i] + y[i]);                                                              \
        case OP_PROD:                                                                              \
            EACH(y[i] = x[i] * y[i]);                                                              \
        default:                                                                                   \
            return MPI_ERR_OP;                                                                     \
        }                                                                                          \
    }

FLOATING_OPS(ops_float, float)
FLOATING_OPS(ops_double, double)
FLOATING_OPS(ops_ldouble, long double)

/* The 16-bit floats, in software (compilers differ on _Float16 and __bf16): each
 * value widened to float, which holds it exactly, and the result rounded to nearest
 * even, as C23's _Float16 arithmetic rounds it. */
static float binary16_load(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
    float f;
    if (e == 0x1f) { /* infinity, NaN */
        u = sign | 0x7f800000 | m << 13;
    } else if (e) {
        u = sign | (e + 112) << 23 | m << 13; /* rebiased: 127 - 15 */
    } else {                                  /* zero, subnormal: m * 2^-24 */
        f = (float)m * 0x1p-24f;
        memcpy(&u, &f, sizeof u);
        u |= sign;
    }
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint16_t binary16_store(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000);
    uint32_t a = u & 0x7fffffff;
    if (a > 0x7f800000) return sign | 0x7e00 | (uint16_t)(a >> 13 & 0x1ff); /* NaN, quiet */
    if (a >= 0x477ff000) return sign | 0x7c00; /* from 65520 (halfway past the largest) up */
    if (a < 0x38800000) {                      /* below 2^-14: a subnormal or zero */
        unsigned shift = 126 - (a >> 23);      /* the value in units of 2^-24 */
        if (shift > 24) return sign;
        uint32_t m = (a & 0x7fffff) | 0x800000, q = m >> shift, rest = m & ((1u << shift) - 1),
                 half = 1u << (shift - 1);
        if (rest > half || (rest == half && (q & 1))) q++;
        return sign | (uint16_t)q;
    }
    return sign | (uint16_t)((a + 0xfff + (a >> 13 & 1) - 0x38000000) >> 13);
}

static float bfloat16_load(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint16_t bfloat16_store(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)(u >> 16 | 0x40); /* NaN, quiet */
    return (uint16_t)((u + 0x7fff + (u >> 16 & 1)) >> 16);
}

#define FLOAT16_OPS(name, load, store)                                                             \
    static int name(int op, const void *a, void *b, size_t n) {                                    \
        const uint16_t *x = a;                                                                     \
        uint16_t *y = b;                                                                           \
        switch (op) {                                                                              \
        case OP_MAX:                                                                               \
            EACH(if (load(x[i]) > load(y[i])) y[i] = x[i]);                                        \
        case OP_MIN:                                                                               \
            EACH(if (load(x[i]) < load(y[i])) y[i] = x[i]);                                        \
        case OP_SUM:                                                                               \
            EACH(y[i] = store(load(x[i]) + load(y[i])));                                           \
        case OP_PROD:                                                                              \
            EACH(y[i] = store(load(x[i]) * load(y[i])));                                           \
        default:                                                                                   \
            return MPI_ERR_OP;                                                                     \
        }                                                                                          \
    }

FLOAT16_OPS(ops_binary16, binary16_load, binary16_store)
FLOAT16_OPS(ops_bfloat16, bfloat16_load, bfloat16_store)

#define COMPLEX_OPS(name, T)                                                                       \
    static int name(int op, const void *a, void *b, size_t n) {                                    \
        const T *x = a;                                                                            \
        T *y = b;                                                                                  \
        switch (op) {                                                                              \
        case OP_SUM:                                                                               \
            EACH(y[i] = x[i] + y[i]);                                                              \
        case OP_PROD:                                                                              \
            EACH(y[i] = x[i] * y[i]);                                                              \
        default:                                                                                   \
            return MPI_ERR_OP;                                                                     \
        }                                                                                          \
    }

COMPLEX_OPS(ops_fcomplex, float _Complex)
COMPLEX_OPS(ops_dcomplex, double _Complex)
COMPLEX_OPS(ops_ldcomplex, long double _Complex)

/* The logical ops only, on a type whose nonzero values are true: C's bool and
 * Fortran's LOGICAL (4 bytes) */
#define LOGICAL_OPS(name, T)                                                                       \
    static int name(int op, const void *a, void *b, size_t n) {                                    \
        const T *x = a;                                                                            \
        T *y = b;                                                                                  \
        switch (op) {                                                                              \
        case OP_LAND:                                                                              \
            EACH(y[i] = x[i] && y[i]);                                                             \
        case OP_LOR:                                                                               \
            EACH(y[i] = x[i] || y[i]);                                                             \
        case OP_LXOR:                                                                              \
            EACH(y[i] = !x[i] != !y[i]);                                                           \
        default:                                                                                   \
            return MPI_ERR_OP;                                                                     \
        }                                                                                          \
    }

LOGICAL_OPS(ops_bool, bool)

static int ops_byte(int op, const void *a, void *b, size_t n) {
    const unsigned char *x = a;
    unsigned char *y = b;
    switch (op) {
    case OP_BAND:
        EACH(y[i] = x[i] & y[i]);
    case OP_BOR:
        EACH(y[i] = x[i] | y[i]);
    case OP_BXOR:
        EACH(y[i] = x[i] ^ y[i]);
    default:
        return MPI_ERR_OP;
    }
}

/* MINLOC and MAXLOC on the pairs {value; int index}: the better value wins, and of
 * equal values the lower index. They run on the packed form, the value then the
 * index with no padding between pairs (so they may lie unaligned): memcpy reads
 * and writes them, which the compiler makes plain moves. */
#define PAIR_OPS(name, V) PAIR_OPS_OF(name, V, int)
/* the Fortran pairs' index is of the value's type */
#define PAIR_OPS_OF(name, V, I)                                                                    \
    static int name(int op, const void *a, void *b, size_t n) {                                    \
        enum { STEP = sizeof(V) + sizeof(I) };                                                     \
        const unsigned char *x = a;                                                                \
        unsigned char *y = b;                                                                      \
        if (op != OP_MINLOC && op != OP_MAXLOC) return MPI_ERR_OP;                                 \
        for (size_t i = 0; i < n; i++, x += STEP, y += STEP) {                                     \
            V xv, yv;                                                                              \
            I xi, yi;                                                                              \
            memcpy(&xv, x, sizeof xv);                                                             \
            memcpy(&yv, y, sizeof yv);                                                             \
            if (op == OP_MINLOC ? xv < yv : xv > yv) {                                             \
                memcpy(y, x, STEP);                                                                \
            } else if (xv == yv) {                                                                 \
                memcpy(&xi, x + sizeof(V), sizeof xi);                                             \
                memcpy(&yi, y + sizeof(V), sizeof yi);                                             \
                if (xi < yi) memcpy(y + sizeof(V), &xi, sizeof xi);                                \
            }                                                                                      \
        }                                                                                          \
        return MPI_SUCCESS;                                                                        \
    }

PAIR_OPS(ops_float_int, float)
PAIR_OPS(ops_double_int, double)
PAIR_OPS(ops_long_int, long)
PAIR_OPS(ops_2int, int)
PAIR_OPS(ops_short_int, short)
PAIR_OPS(ops_long_double_int, long double)
PAIR_OPS_OF(ops_2real, float, float)
PAIR_OPS_OF(ops_2double, double, double)

LOGICAL_OPS(ops_logical, int32_t)

typedef int type_ops_t(int op, const void *in, void *inout, size_t n);

/* The ops of each predefined type id; NULL: none but MPI_REPLACE and MPI_NO_OP. */
static type_ops_t *const type_ops[TW_MPI_TYPE_IDS + 1] = {
    [1] = ops_schar, /* MPI_CHAR: a small signed integer, an extension as in MPICH */
    [2] = ops_schar,      [3] = ops_uchar,       [4] = ops_byte,
    [6] = ops_short,      [7] = ops_ushort,      [8] = ops_int,
    [9] = ops_unsigned,   [10] = ops_long,       [11] = ops_ulong,
    [12] = ops_llong,     [13] = ops_ullong,     [14] = ops_float,
    [15] = ops_double,    [16] = ops_ldouble,    [17] = ops_bool,
    [18] = ops_int8,      [19] = ops_int16,      [20] = ops_int32,
    [21] = ops_int64,     [22] = ops_uint8,      [23] = ops_uint16,
    [24] = ops_uint32,    [25] = ops_uint64,     [26] = ops_int64,
    [27] = ops_int64,     [28] = ops_int64,      [30] = ops_fcomplex,
    [31] = ops_dcomplex,  [32] = ops_ldcomplex,  [33] = ops_bool,
    [34] = ops_fcomplex,  [35] = ops_dcomplex,   [36] = ops_ldcomplex,
    [37] = ops_float_int, [38] = ops_double_int, [39] = ops_long_int,
    [40] = ops_2int,      [41] = ops_short_int,  [42] = ops_long_double_int,
    [44] = ops_logical,   [45] = ops_int32,      [46] = ops_float,
    [47] = ops_double,    [48] = ops_fcomplex,   [49] = ops_dcomplex,
    [50] = ops_int8,      [51] = ops_int16,      [52] = ops_int32,
    [53] = ops_int64,     [54] = ops_float,      [55] = ops_double,
    [56] = ops_ldouble,   [57] = ops_fcomplex,   [58] = ops_dcomplex,
    [59] = ops_ldcomplex, [60] = ops_2real,      [61] = ops_2double,
    [62] = ops_2int,      [63] = ops_binary16,   [64] = ops_bfloat16,
};

/* The user op of a handle, freed ones included, or NULL. */
static user_op_t *any_user_op(MPI_Op op) {
    unsigned i = (unsigned)op & 0xffffff;
    if (((unsigned)op >> 24) != 0x58 || i < USER_FIRST || i >= USER_FIRST + USER_OPS) return NULL;
    user_op_t *u = &user_ops[i - USER_FIRST];
    return u->fn || u->fn_c ? u : NULL;
}

/* The user op of a handle a call may name (not freed), or NULL. */
static user_op_t *user_op(MPI_Op op) {
    user_op_t *u = any_user_op(op);
    return u && !u->freed ? u : NULL;
}

/* The predefined op of a handle (OP_MAX ...), or 0. */
static int predefined(MPI_Op op) {
    unsigned i = (unsigned)op & 0xffffff;
    return ((unsigned)op >> 24) == 0x58 && i >= OP_MAX && i <= OP_NO_OP ? (int)i : 0;
}

/* A predefined op over n elements of a predefined type. */
static int apply_predefined(int op, const void *in, void *inout, size_t n, MPI_Datatype element) {
    if (op == OP_NO_OP) return MPI_SUCCESS;
    if (op == OP_REPLACE) {
        if (n) memcpy(inout, in, n * (size_t)tw_mpi_basic_packed_size(element));
        return MPI_SUCCESS;
    }
    type_ops_t *f = type_ops[element & 0xff];
    return f ? f(op, in, inout, n) : MPI_ERR_OP;
}

int tw_mpi_op_check(MPI_Op op, MPI_Datatype type) {
    if (user_op(op)) return MPI_SUCCESS;
    int p = predefined(op);
    if (!p) return MPI_ERR_OP;
    tw_mpi_type_layout_t l;
    if (tw_mpi_type_layout(type, &l)) return MPI_ERR_TYPE;
    if (l.element == MPI_DATATYPE_NULL) return MPI_ERR_OP;
    return apply_predefined(p, NULL, NULL, 0, l.element);
}

int tw_mpi_op_commutative(MPI_Op op) {
    const user_op_t *u = user_op(op);
    return u ? u->commute : op != MPI_REPLACE;
}

/* Calls a user function over count items, extent bytes apart: an int function in
 * pieces of at most INT_MAX items (MPI-4.1 6.9.5 lets an op be applied to parts). */
static void call_user(const user_op_t *u, char *in, char *inout, MPI_Count count, MPI_Datatype type,
                      MPI_Aint extent) {
    MPI_Datatype t = type;
    tw_mpi_callback_fn *outer = tw_mpi_callback_context;
    tw_mpi_callback_context = u->context;
    if (u->fn_c) {
        MPI_Count len = count;
        u->fn_c(in, inout, &len, &t);
    } else {
        for (MPI_Count done = 0; done < count;) {
            int len = count - done > INT_MAX ? INT_MAX : (int)(count - done);
            u->fn(in + done * extent, inout + done * extent, &len, &t);
            done += len;
        }
    }
    tw_mpi_callback_context = outer;
}

/* A user function over count items of a type whose packed form differs from its
 * layout in memory: it sees both vectors unpacked, as the user's type describes. */
static int apply_user_unpacked(const user_op_t *u, const void *in, void *inout, MPI_Count count,
                               MPI_Datatype type, const tw_mpi_type_layout_t *l) {
    size_t span = count ? (size_t)l->true_extent + (size_t)(count - 1) * (size_t)l->extent : 0;
    unsigned char *a = malloc(span ? span : 1), *b = malloc(span ? span : 1);
    if (!a || !b) {
        free(a);
        free(b);
        return MPI_ERR_NO_MEM;
    }
    /* items begin true_lb bytes before the memory they touch */
    unsigned char *a0 = a - l->true_lb, *b0 = b - l->true_lb;
    tw_mpi_type_unpack(in, count, type, a0);
    tw_mpi_type_unpack(inout, count, type, b0);
    call_user(u, (char *)a0, (char *)b0, count, type, l->extent);
    tw_mpi_type_pack(b0, count, type, inout);
    free(a);
    free(b);
    return MPI_SUCCESS;
}

int tw_mpi_op_predefined(MPI_Op op) {
    return predefined(op) != 0;
}

void tw_mpi_op_hold(MPI_Op op) {
    user_op_t *u = any_user_op(op);
    if (u) u->holds++;
}

void tw_mpi_op_release(MPI_Op op) {
    user_op_t *u = any_user_op(op);
    if (u && u->holds) u->holds--;
}

int tw_mpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype type) {
    if (count <= 0) return MPI_SUCCESS;
    tw_mpi_type_layout_t l;
    if (tw_mpi_type_layout_held(type, &l)) return MPI_ERR_TYPE;
    const user_op_t *u = any_user_op(op);
    if (u && !l.contiguous) return apply_user_unpacked(u, in, inout, count, type, &l);
    if (u) { /* the packed form is the items themselves, lb bytes after their base */
        call_user(u, (char *)(uintptr_t)in - l.lb, (char *)inout - l.lb, count, type, l.extent);
        return MPI_SUCCESS;
    }
    int p = predefined(op);
    if (!p || l.element == MPI_DATATYPE_NULL) return MPI_ERR_OP;
    /* packed items hold size bytes of elements each */
    size_t n = l.element == type
                   ? (size_t)count
                   : (size_t)count * (size_t)l.size / (size_t)tw_mpi_basic_packed_size(l.element);
    return apply_predefined(p, in, inout, n, l.element);
}

tw_mpi_op_fn *tw_mpi_op_resolve(MPI_Op op, MPI_Datatype type, MPI_Count count, int *code,
                                size_t *elements) {
    int p = predefined(op);
    tw_mpi_type_layout_t l;
    if (!p || p == OP_REPLACE || p == OP_NO_OP || count <= 0 || tw_mpi_type_layout_held(type, &l) ||
        l.element == MPI_DATATYPE_NULL)
        return NULL;
    type_ops_t *f = type_ops[l.element & 0xff];
    if (!f) return NULL;
    *code = p;
    /* as tw_mpi_op_apply counts them */
    *elements = l.element == type
                    ? (size_t)count
                    : (size_t)count * (size_t)l.size / (size_t)tw_mpi_basic_packed_size(l.element);
    return f;
}

int tw_mpi_op_create(const char *call, MPI_User_function *fn, MPI_User_function_c *fn_c,
                     int commute, MPI_Op *op) {
    NEED_INIT(call);
    if ((!fn && !fn_c) || !op) return tw_mpi_error(NULL, call, MPI_ERR_ARG, NULL);
    for (int i = 0; i < USER_OPS; i++) {
        if ((user_ops[i].fn || user_ops[i].fn_c) && !(user_ops[i].freed && !user_ops[i].holds))
            continue;
        user_ops[i] = (user_op_t){fn, fn_c, commute != 0, 0, 0, NULL};
        *op = (MPI_Op)(0x58000000 | (USER_FIRST + i));
        return MPI_SUCCESS;
    }
    return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, "too many user ops");
}

int tw_mpi_op_context_set(int op, tw_mpi_callback_fn *context) {
    user_op_t *u = user_op(op);
    if (!u) return MPI_ERR_OP;
    u->context = context;
    return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) {
    return tw_mpi_op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

int MPI_Op_free(MPI_Op *op) {
    NEED_INIT("MPI_Op_free");
    user_op_t *u = op ? user_op(*op) : NULL;
    if (!u) return tw_mpi_error(NULL, "MPI_Op_free", MPI_ERR_OP, "not a user op");
    u->freed = 1;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute) {
    NEED_INIT("MPI_Op_commutative");
    if (!user_op(op) && !predefined(op))
        return tw_mpi_error(NULL, "MPI_Op_commutative", MPI_ERR_OP, NULL);
    if (!commute) return tw_mpi_error(NULL, "MPI_Op_commutative", MPI_ERR_ARG, NULL);
    *commute = tw_mpi_op_commutative(op);
    return MPI_SUCCESS;
}

int tw_mpi_reduce_local(const char *call, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op) {
    NEED_INIT(call);
    tw_mpi_type_layout_t l;
    if (tw_mpi_type_layout(datatype, &l)) return tw_mpi_error(NULL, call, MPI_ERR_TYPE, NULL);
    if (count < 0) return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "negative count");
    int rc = tw_mpi_op_check(op, datatype);
    if (rc) return tw_mpi_error(NULL, call, rc, "the op does not apply to the datatype");
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return tw_mpi_error(NULL, call, MPI_ERR_BUFFER, "MPI_IN_PLACE");
    if (count && (!inbuf || !inoutbuf)) return tw_mpi_error(NULL, call, MPI_ERR_BUFFER, NULL);
    if (count && inbuf == inoutbuf)
        return tw_mpi_error(NULL, call, MPI_ERR_BUFFER, "inbuf and inoutbuf are the same buffer");
    /* a contiguous type's items are their packed form; others are reduced packed */
    if (l.contiguous) {
        rc = tw_mpi_op_apply(op, (const char *)inbuf + l.lb, (char *)inoutbuf + l.lb, count,
                             datatype);
        return rc ? tw_mpi_error(NULL, call, rc, NULL) : MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * (size_t)l.size;
    unsigned char *a = malloc(bytes ? bytes : 1), *b = malloc(bytes ? bytes : 1);
    if (!a || !b) {
        free(a);
        free(b);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    tw_mpi_type_pack(inbuf, count, datatype, a);
    tw_mpi_type_pack(inoutbuf, count, datatype, b);
    rc = tw_mpi_op_apply(op, a, b, count, datatype);
    if (!rc) tw_mpi_type_unpack(b, count, datatype, inoutbuf);
    free(a);
    free(b);
    return rc ? tw_mpi_error(NULL, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op) {
    return tw_mpi_reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}
