/* The flattened datatype engine: building maps, packing and unpacking ranges of
 * them, counting the basic elements of a packed stream. See typemap.h. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype/typemap.h"

static unsigned basic_id(MPI_Datatype t) {
    return (unsigned)t & 0xff;
}

static int basic_extent(MPI_Datatype t) {
    return ((unsigned)t >> 8) & 0xff;
}

/* The pairs' value members: float, double, long, int, short, long double; and the
 * Fortran pairs' (2REAL, 2DOUBLE_PRECISION, 2INTEGER), whose index is a value too. */
static int pair_value_size(unsigned id) {
    static const uint8_t value[] = {
        [37] = 4, [38] = 8, [39] = 8, [40] = 4, [41] = 2, [42] = 16, [60] = 4, [61] = 8, [62] = 4};
    return id < sizeof value ? value[id] : 0;
}

int tw_mpi_basic_value_size(MPI_Datatype basic) {
    return pair_value_size(basic_id(basic));
}

/* A pair holds its value and an int (packed so); its extent adds the C struct's
 * padding. */
int tw_mpi_basic_data_size(MPI_Datatype basic) {
    int value = tw_mpi_basic_value_size(basic);
    if (value && basic_id(basic) >= 60) return 2 * value; /* a Fortran pair */
    return value ? value + (int)sizeof(int) : basic_extent(basic);
}

int tw_mpi_basic_align(MPI_Datatype basic) {
    switch (basic_id(basic)) {
    case 16: /* long double */
    case 42:
        return _Alignof(long double);
    case 30: /* the complex types align as their parts */
    case 34:
    case 48:
    case 57:
    case 60:
        return _Alignof(float);
    case 31:
    case 35:
    case 49:
    case 58:
    case 61:
        return _Alignof(double);
    case 32:
    case 36:
    case 56:
    case 59:
        return _Alignof(long double);
    case 62:
        return _Alignof(int);
    case 37:
    case 40:
    case 41:
        return _Alignof(int);
    case 38:
        return _Alignof(double);
    case 39:
        return _Alignof(long);
    default:
        return basic_extent(basic) ? basic_extent(basic) : 1;
    }
}

void tw_typemap_init(tw_typemap_t *tm) {
    memset(tm, 0, sizeof *tm);
    tm->align = 1;
    tm->element = MPI_DATATYPE_NULL;
}

void tw_typemap_free(tw_typemap_t *tm) {
    free(tm->blocks);
    free(tm->runs);
    tw_typemap_init(tm);
}

int tw_typemap_copy(tw_typemap_t *dst, const tw_typemap_t *src) {
    *dst = *src;
    dst->blocks = malloc((src->nblocks ? src->nblocks : 1) * sizeof *dst->blocks);
    dst->runs = malloc((src->nruns ? src->nruns : 1) * sizeof *dst->runs);
    if (!dst->blocks || !dst->runs) {
        free(dst->blocks);
        free(dst->runs);
        tw_typemap_init(dst);
        return MPI_ERR_NO_MEM;
    }
    dst->blocks_cap = src->nblocks ? src->nblocks : 1;
    dst->runs_cap = src->nruns ? src->nruns : 1;
    if (src->nblocks) memcpy(dst->blocks, src->blocks, src->nblocks * sizeof *dst->blocks);
    if (src->nruns) memcpy(dst->runs, src->runs, src->nruns * sizeof *dst->runs);
    return MPI_SUCCESS;
}

static int grow(void **array, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return MPI_SUCCESS;
    size_t n = *cap ? *cap * 2 : 4;
    if (n < need) n = need;
    void *p = realloc(*array, n * elem);
    if (!p) return MPI_ERR_NO_MEM;
    *array = p;
    *cap = n;
    return MPI_SUCCESS;
}

/* Signed address arithmetic that reports overflow instead of wrapping. */
static bool aint_mul(MPI_Aint a, MPI_Count b, MPI_Aint *out) {
    long long r;
    if (__builtin_mul_overflow((long long)a, b, &r)) return false;
    *out = (MPI_Aint)r;
    return r == (long long)*out;
}

static bool aint_add(MPI_Aint a, MPI_Aint b, MPI_Aint *out) {
    return !__builtin_add_overflow(a, b, out);
}

/* Adds reps pieces of len bytes, stride apart, at disp; merges with the last
 * block where the pieces continue it. */
static int add_block(tw_typemap_t *tm, MPI_Aint disp, size_t len, size_t reps, MPI_Aint stride) {
    if (!len || !reps) return MPI_SUCCESS;
    if (reps > 1 && stride == (MPI_Aint)len) { /* pieces that touch are one piece */
        len *= reps;
        reps = 1;
    }
    if (reps == 1) stride = 0;
    MPI_Aint span = (MPI_Aint)(reps - 1) * stride;
    MPI_Aint lo = disp + (span < 0 ? span : 0), hi = disp + (span > 0 ? span : 0) + (MPI_Aint)len;
    if (!tm->has_data || lo < tm->true_lb) tm->true_lb = lo;
    if (!tm->has_data || hi > tm->true_ub) tm->true_ub = hi;
    tm->has_data = 1;
    tm->size += (MPI_Count)(len * reps);
    if (tm->nblocks) {
        tw_typemap_block_t *l = &tm->blocks[tm->nblocks - 1];
        if (l->reps == 1 && reps == 1 && l->disp + (MPI_Aint)l->len == disp) {
            l->len += len;
            return MPI_SUCCESS;
        }
        if (l->len == len) {
            if (l->reps == 1 && (reps == 1 || stride == disp - l->disp)) {
                l->stride = disp - l->disp;
                l->reps = 1 + reps;
                return MPI_SUCCESS;
            }
            if (l->reps > 1 && (reps == 1 || stride == l->stride) &&
                disp == l->disp + (MPI_Aint)l->reps * l->stride) {
                l->reps += reps;
                return MPI_SUCCESS;
            }
        }
    }
    if (grow((void **)&tm->blocks, &tm->blocks_cap, tm->nblocks + 1, sizeof *tm->blocks))
        return MPI_ERR_NO_MEM;
    tm->blocks[tm->nblocks++] =
        (tw_typemap_block_t){disp, len, reps, stride, (size_t)tm->size - len * reps};
    return MPI_SUCCESS;
}

static int add_run(tw_typemap_t *tm, MPI_Datatype basic, MPI_Count n) {
    if (!n) return MPI_SUCCESS;
    if (tm->nruns && tm->runs[tm->nruns - 1].basic == basic) {
        tm->runs[tm->nruns - 1].n += n;
        return MPI_SUCCESS;
    }
    if (grow((void **)&tm->runs, &tm->runs_cap, tm->nruns + 1, sizeof *tm->runs))
        return MPI_ERR_NO_MEM;
    tm->runs[tm->nruns++] = (tw_typemap_run_t){basic, n};
    return MPI_SUCCESS;
}

/* Where a C pair's int lies in its struct: after its value, aligned. */
static size_t pair_index_at(int value) {
    return ((size_t)value + _Alignof(int) - 1) / _Alignof(int) * _Alignof(int);
}

int tw_typemap_basic(tw_typemap_t *tm, MPI_Datatype basic) {
    tw_typemap_init(tm);
    int extent = basic_extent(basic), value = tw_mpi_basic_value_size(basic);
    int rc;
    if (value && basic_id(basic) < 60) /* a C pair: {(value, 0), (int, its place)} */
        rc = add_block(tm, 0, (size_t)value, 1, 0) ||
             add_block(tm, (MPI_Aint)pair_index_at(value), sizeof(int), 1, 0);
    else
        rc = add_block(tm, 0, (size_t)extent, 1, 0);
    if (rc || add_run(tm, basic, 1)) return MPI_ERR_NO_MEM;
    tm->data_size = tw_mpi_basic_data_size(basic);
    tm->elements = tw_mpi_basic_value_size(basic) ? 2 : 1;
    tm->lb = 0;
    tm->ub = extent;
    tm->has_bounds = 1;
    tm->align = tw_mpi_basic_align(basic);
    tm->element = basic;
    if (!extent) tm->true_lb = tm->true_ub = 0;
    return MPI_SUCCESS;
}

/* Adds src's blocks placed at disp (they are known not to overflow). */
static int add_blocks_of(tw_typemap_t *tm, const tw_typemap_t *src, MPI_Aint disp) {
    for (size_t b = 0; b < src->nblocks; b++) {
        const tw_typemap_block_t *s = &src->blocks[b];
        int rc = add_block(tm, disp + s->disp, s->len, s->reps, s->stride);
        if (rc) return rc;
    }
    return MPI_SUCCESS;
}

int tw_typemap_append(tw_typemap_t *tm, const tw_typemap_t *src, MPI_Count n, MPI_Aint disp,
                      MPI_Aint stride) {
    /* no items, or items of no data and no bounds set by a resize (zero-length
     * blocks, or types made only of them): they add nothing, wherever they are */
    if (n <= 0 || (!src->has_data && !src->explicit_bounds)) return MPI_SUCCESS;
    /* totals and bounds first: nothing is added when they overflow */
    MPI_Count size, data_size, elements;
    MPI_Aint span, first, last, lb, ub, tlb, tub;
    if (__builtin_mul_overflow(src->size, n, &size) ||
        __builtin_add_overflow(tm->size, size, &size))
        return MPI_ERR_ARG;
    if (__builtin_mul_overflow(src->data_size, n, &data_size) ||
        __builtin_add_overflow(tm->data_size, data_size, &data_size) ||
        __builtin_mul_overflow(src->elements, n, &elements) ||
        __builtin_add_overflow(tm->elements, elements, &elements))
        return MPI_ERR_ARG;
    if (!aint_mul(stride, n - 1, &span)) return MPI_ERR_ARG;
    first = span < 0 ? span : 0;
    last = span > 0 ? span : 0;
    if (!aint_add(disp, first, &first) || !aint_add(disp, last, &last) ||
        !aint_add(first, src->lb, &lb) || !aint_add(last, src->ub, &ub) ||
        !aint_add(first, src->true_lb, &tlb) || !aint_add(last, src->true_ub, &tub) ||
        (size_t)size > (size_t)PTRDIFF_MAX)
        return MPI_ERR_ARG;
    /* the extent and true extent the result will have must be representable too */
    MPI_Aint new_lb = tm->has_bounds && tm->lb < lb ? tm->lb : lb,
             new_ub = tm->has_bounds && tm->ub > ub ? tm->ub : ub;
    MPI_Aint new_tlb = tm->has_data && tm->true_lb < tlb ? tm->true_lb : tlb,
             new_tub = tm->has_data && tm->true_ub > tub ? tm->true_ub : tub, extent;
    if (__builtin_sub_overflow(new_ub, new_lb, &extent) ||
        __builtin_sub_overflow(new_tub, new_tlb, &extent))
        return MPI_ERR_ARG;

    int rc = MPI_SUCCESS;
    const tw_typemap_block_t *one = src->nblocks == 1 ? &src->blocks[0] : NULL;
    if (one && one->reps == 1) { /* n pieces, stride apart */
        rc = add_block(tm, disp + one->disp, one->len, (size_t)n, stride);
    } else if (one && stride == (MPI_Aint)one->reps * one->stride) { /* one longer run */
        rc = add_block(tm, disp + one->disp, one->len, one->reps * (size_t)n, one->stride);
    } else {
        for (MPI_Count k = 0; k < n && !rc; k++) rc = add_blocks_of(tm, src, disp + k * stride);
    }
    if (src->nruns == 1) {
        if (!rc) rc = add_run(tm, src->runs[0].basic, src->runs[0].n * n);
    } else {
        for (MPI_Count k = 0; k < n && !rc; k++)
            for (size_t r = 0; r < src->nruns && !rc; r++)
                rc = add_run(tm, src->runs[r].basic, src->runs[r].n);
    }
    if (rc) return rc;
    tm->data_size = data_size;
    tm->elements = elements;
    if (!tm->has_bounds || lb < tm->lb) tm->lb = lb;
    if (!tm->has_bounds || ub > tm->ub) tm->ub = ub;
    tm->has_bounds = 1;
    tm->explicit_bounds |= src->explicit_bounds;
    if (src->align > tm->align) tm->align = src->align;
    /* the one basic type of all the elements, if there is one */
    tm->element = tm->nruns == 1 ? tm->runs[0].basic : MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

void tw_typemap_pad(tw_typemap_t *tm) {
    if (tm->explicit_bounds || tm->align <= 1) return;
    MPI_Aint extent = tw_typemap_extent(tm), rest = extent % tm->align;
    if (rest) tm->ub += tm->align - rest;
}

void tw_typemap_resize(tw_typemap_t *tm, MPI_Aint lb, MPI_Aint extent) {
    tm->lb = lb;
    tm->ub = lb + extent;
    tm->has_bounds = 1;
    tm->explicit_bounds = 1;
}

/* Copies len bytes between the user buffer and the packed stream. The fixed sizes
 * let the compiler copy a double or a pair as one move, not a call. */
static inline void move_piece(unsigned char *user, unsigned char *packed, size_t len, int unpack) {
    unsigned char *to = unpack ? user : packed;
    const unsigned char *from = unpack ? packed : user;
    switch (len) {
    case 4:
        memcpy(to, from, 4);
        break;
    case 8:
        memcpy(to, from, 8);
        break;
    case 16:
        memcpy(to, from, 16);
        break;
    default:
        memcpy(to, from, len);
    }
}

/* n whole pieces of len bytes, stride apart in the user buffer and back to back in
 * the packed stream. The size and the direction are chosen once, outside the loop, and
 * the loop's bounds are locals, so the compiler keeps them in registers (a store through
 * a char pointer could otherwise change a block's fields) and a piece of a double is
 * one load and one store. */
#define MOVE_PIECES(width)                                                                         \
    do {                                                                                           \
        if (unpack)                                                                                \
            for (size_t k = 0; k < n; k++, user += stride, packed += (width))                      \
                memcpy(user, packed, (width));                                                     \
        else                                                                                       \
            for (size_t k = 0; k < n; k++, user += stride, packed += (width))                      \
                memcpy(packed, user, (width));                                                     \
    } while (0)

static void move_pieces(unsigned char *user, MPI_Aint stride, unsigned char *packed, size_t len,
                        size_t n, int unpack) {
    switch (len) {
    case 4:
        MOVE_PIECES(4);
        break;
    case 8:
        MOVE_PIECES(8);
        break;
    case 16:
        MOVE_PIECES(16);
        break;
    default:
        MOVE_PIECES(len);
    }
}
#undef MOVE_PIECES

/* The block of a packed item that holds byte off of it. */
static size_t block_at(const tw_typemap_t *tm, size_t off) {
    size_t lo = 0, hi = tm->nblocks - 1;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (tm->blocks[mid].pos <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void tw_typemap_move(const tw_typemap_t *tm, void *buf, MPI_Count count, void *packed, size_t first,
                     size_t len, int unpack) {
    if (!len || !tm->size) return;
    (void)count;
    size_t size = (size_t)tm->size;
    MPI_Aint extent = tw_typemap_extent(tm);
    size_t item = first / size, off = first % size;
    unsigned char *p = packed;
    size_t b = block_at(tm, off);
    while (len) {
        unsigned char *origin = (unsigned char *)buf + (MPI_Aint)item * extent;
        for (; b < tm->nblocks && len; b++) {
            const tw_typemap_block_t *blk = &tm->blocks[b];
            size_t in = off - blk->pos, rep = in / blk->len, at = in % blk->len;
            unsigned char *u = origin + blk->disp + (MPI_Aint)rep * blk->stride;
            if (at) { /* the range starts inside a piece */
                size_t n = blk->len - at < len ? blk->len - at : len;
                move_piece(u + at, p, n, unpack);
                p += n;
                len -= n;
                off += n;
                rep++;
                u += blk->stride;
            }
            size_t whole = len / blk->len, left = blk->reps - rep;
            if (whole > left) whole = left;
            move_pieces(u, blk->stride, p, blk->len, whole, unpack);
            u += (MPI_Aint)whole * blk->stride;
            p += whole * blk->len;
            len -= whole * blk->len;
            off += whole * blk->len;
            rep += whole;
            if (len && rep < blk->reps) { /* the range ends inside a piece */
                move_piece(u, p, len, unpack);
                off += len;
                len = 0;
            }
        }
        item++;
        off = 0;
        b = 0;
    }
}

MPI_Count tw_typemap_elements(const tw_typemap_t *tm, MPI_Count bytes) {
    if (!tm->size) return 0;
    MPI_Count items = bytes / tm->size, rest = bytes % tm->size, elements = items * tm->elements;
    for (size_t r = 0; r < tm->nruns && rest; r++) {
        MPI_Datatype basic = tm->runs[r].basic;
        MPI_Count unit = tw_mpi_basic_data_size(basic),
                  per = tw_mpi_basic_value_size(basic) ? 2 : 1;
        if (!unit) continue;
        MPI_Count whole = rest / unit;
        if (whole >= tm->runs[r].n) {
            elements += tm->runs[r].n * per;
            rest -= tm->runs[r].n * unit;
            continue;
        }
        elements += whole * per;
        rest -= whole * unit;
        if (!rest) break;
        /* a part of one: of a pair, its value when it is there whole counts, as
         * it would as a struct's (MPICH's pairs are structs); any other part of an
         * element makes no whole number */
        if (per == 2) return elements + (rest >= tw_mpi_basic_value_size(basic));
        return -1;
    }
    return elements;
}

int tw_mpi_padded_pair_size(MPI_Datatype pair) {
    switch ((unsigned)pair & 0xff) {
    case 38: /* MPI_DOUBLE_INT */
        return (int)(sizeof(double) + sizeof(int));
    case 39: /* MPI_LONG_INT */
        return (int)(sizeof(long) + sizeof(int));
    case 41: /* MPI_SHORT_INT */
        return (int)(sizeof(short) + sizeof(int));
    default: /* 42: MPI_LONG_DOUBLE_INT */
        return (int)(sizeof(long double) + sizeof(int));
    }
}
