/* Datatypes: the predefined ones, the derived ones (MPI-3.1 chapter 4), and the
 * counts a status reports.
 *
 * A derived datatype is an object in a table, named by 0x8c000000 | index. It
 * holds its flattened map (typemap.c), the arguments it was built from (for
 * MPI_Type_get_contents) and a reference count: its handle is one reference, each
 * derived type built from it (its contents name it) and each operation staging
 * data through it hold one more, so MPI_Type_free of a type still in use leaves
 * the object alive until the last user lets go. A non-blocking collective holds
 * the handles it names in its steps (tw_mpi_type_hold): MPI_Type_free of one then
 * only marks it, so the program can no longer name it but the steps still can,
 * and it goes with the last hold.
 *
 * A message of count items of a predefined type moves count * extent contiguous
 * bytes, read straight off its handle, except for the MINLOC/MAXLOC pairs whose C
 * struct pads (MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT):
 * their type map is their value and int only (MPI-3.1 section 5.9.4), so they are
 * packed as a derived type is, through their map, and the padding stays home. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/datatype/datatype.h"

#include "mpi/env/error.h"
#include "mpi/env/state.h"
#include "mpi/datatype/typemap.h"

typedef struct dtype dtype_t;
struct dtype {
    /* the handle, derived types built on it, and sends and receives staged through it:
     * a staged request is freed on whichever channel's thread ends it (env/thread.h) */
    _Atomic int refs;
    int committed;
    int fixed; /* made by MPI_Type_create_f90_*: never freed, as a predefined type */
    tw_typemap_t map;
    int combiner;
    int nints, naints, ntypes;
    int *ints;
    MPI_Aint *aints;
    int ncounts;         /* made by a large-count (_c) constructor: its counts, else 0 */
    MPI_Count *counts;   /* (only MPI_Type_get_envelope_c and _contents_c report them) */
    MPI_Datatype *types; /* as given; the derived ones are held in objs */
    dtype_t **objs;
    char name[MPI_MAX_OBJECT_NAME];
};

/* ---- handles ---- */

/* Indices below FIRST_INDEX name no type: MPICH's ABI names its MINLOC/MAXLOC pair
 * types 0x8c000000..0x8c000004, and its face (docs/abi.md) passes derived handles
 * unchanged, which it can only because none of ours is one of those. */
enum { MAX_TYPES = 1 << 24, REUSE_AFTER = 1024, FIRST_INDEX = 8 };
#define DERIVED_KIND 0x8cu

/* a handle's entry: those below FIRST_INDEX unused */
typedef struct slot {
    dtype_t *d;
    int holds; /* by operations under way */
    int freed; /* by the program, while held */
} slot_t;
static slot_t *table;
static size_t table_len, table_cap;
/* freed indices wait in a queue before reuse, so a stale handle is likely to be
 * recognised as freed rather than to name a newer type */
static int *freed;
static size_t freed_cap, freed_head, freed_count;

/* The entry of a handle, freed by the program but held or not, or NULL. */
static slot_t *slot_of(MPI_Datatype type) {
    size_t i = (unsigned)type & 0xffffff;
    if (((unsigned)type >> 24) != DERIVED_KIND || i < FIRST_INDEX || i >= table_len || !table[i].d)
        return NULL;
    return &table[i];
}

/* The object of a handle the program may name, or NULL. */
static dtype_t *object_of(MPI_Datatype type) {
    slot_t *e = slot_of(type);
    return e && !e->freed ? e->d : NULL;
}

/* The object of a handle, also one the program freed while an operation holds it. */
static dtype_t *held_object_of(MPI_Datatype type) {
    slot_t *e = slot_of(type);
    return e ? e->d : NULL;
}

static int is_predefined(MPI_Datatype type) {
    return tw_mpi_type_extent(type) >= 0;
}

static int handle_new(dtype_t *d, MPI_Datatype *handle) {
    size_t i;
    if (freed_count > REUSE_AFTER || (freed_count && table_len >= MAX_TYPES)) {
        i = (size_t)freed[freed_head];
        freed_head = (freed_head + 1) % freed_cap;
        freed_count--;
    } else {
        if (table_len >= MAX_TYPES) return MPI_ERR_NO_MEM;
        if (!table_len) table_len = FIRST_INDEX;
        if (table_len >= table_cap) {
            size_t n = table_cap ? table_cap * 2 : 64;
            slot_t *t = realloc(table, n * sizeof *t);
            if (!t) return MPI_ERR_NO_MEM;
            table = t;
            table_cap = n;
        }
        i = table_len++;
    }
    table[i] = (slot_t){d, 0, 0};
    d->refs++;
    *handle = (MPI_Datatype)(DERIVED_KIND << 24 | i);
    return MPI_SUCCESS;
}

static void object_release(dtype_t *d);

static void handle_free(MPI_Datatype handle) {
    size_t i = (unsigned)handle & 0xffffff;
    dtype_t *d = table[i].d;
    table[i] = (slot_t){NULL, 0, 0};
    if (freed_count == freed_cap) { /* grow the queue, keeping its order */
        size_t n = freed_cap ? freed_cap * 2 : 256;
        int *q = malloc(n * sizeof *q);
        if (q) {
            for (size_t k = 0; k < freed_count; k++) q[k] = freed[(freed_head + k) % freed_cap];
            free(freed);
            freed = q;
            freed_cap = n;
            freed_head = 0;
        }
    }
    if (freed_count < freed_cap) {
        freed[(freed_head + freed_count) % freed_cap] = (int)i;
        freed_count++;
    }
    object_release(d);
}

static void object_release(dtype_t *d) {
    if (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) != 1) return;
    for (int k = 0; k < d->ntypes; k++)
        if (d->objs[k]) object_release(d->objs[k]);
    tw_typemap_free(&d->map);
    free(d->ints);
    free(d->aints);
    free(d->counts);
    free(d->types);
    free(d->objs);
    free(d);
}

/* The maps of the predefined types, built on first use. */
static tw_typemap_t basic_maps[TW_MPI_TYPE_IDS + 1];

static const tw_typemap_t *basic_map(MPI_Datatype type) {
    tw_typemap_t *m = &basic_maps[type & 0xff];
    if (!m->nblocks && tw_typemap_basic(m, type)) return NULL;
    return m;
}

/* The map of any valid type (committed or not), or NULL. */
static const tw_typemap_t *map_of(MPI_Datatype type) {
    if (is_predefined(type)) return basic_map(type);
    dtype_t *d = object_of(type);
    return d ? &d->map : NULL;
}

/* The same for the library's own users: also a held type the program freed. */
static const tw_typemap_t *held_map_of(MPI_Datatype type) {
    if (is_predefined(type)) return basic_map(type);
    dtype_t *d = held_object_of(type);
    return d ? &d->map : NULL;
}

void tw_mpi_type_hold(MPI_Datatype type) {
    slot_t *e = slot_of(type);
    if (e) e->holds++;
}

void tw_mpi_type_release(MPI_Datatype type) {
    slot_t *e = slot_of(type);
    if (e && !--e->holds && e->freed) handle_free(type);
}

/* ---- the interface of the rest of the library ---- */

const tw_typemap_t *tw_mpi_type_map(MPI_Datatype type) {
    if (is_predefined(type)) return basic_map(type);
    dtype_t *d = object_of(type);
    return d ? &d->map : NULL;
}

static void layout_of(const tw_typemap_t *m, tw_mpi_type_layout_t *layout) {
    const tw_typemap_block_t *b = m->nblocks == 1 ? &m->blocks[0] : NULL;
    MPI_Aint extent = tw_typemap_extent(m);
    *layout = (tw_mpi_type_layout_t){
        .size = m->size,
        .lb = m->lb,
        .extent = extent,
        .true_lb = m->has_data ? m->true_lb : 0,
        .true_extent = m->has_data ? m->true_ub - m->true_lb : 0,
        .contiguous = m->size == 0
                          ? extent == 0
                          : b && b->reps == 1 && b->disp == m->lb && (MPI_Aint)b->len == extent,
        .element = m->element,
    };
}

int tw_mpi_type_mapped_layout(MPI_Datatype type, tw_mpi_type_layout_t *layout, int held) {
    if (is_predefined(type)) { /* a padded pair */
        const tw_typemap_t *m = basic_map(type);
        if (!m) return MPI_ERR_TYPE;
        layout_of(m, layout);
        return MPI_SUCCESS;
    }
    dtype_t *d = held ? held_object_of(type) : object_of(type);
    if (!d || !d->committed) return MPI_ERR_TYPE;
    layout_of(&d->map, layout);
    return MPI_SUCCESS;
}

void tw_mpi_type_pack_range(const void *buf, MPI_Count count, MPI_Datatype type, size_t first,
                            size_t len, void *packed) {
    tw_typemap_move(held_map_of(type), (void *)(uintptr_t)buf, count, packed, first, len, 0);
}

void tw_mpi_type_unpack_range(const void *packed, MPI_Count count, MPI_Datatype type, size_t first,
                              size_t len, void *buf) {
    tw_typemap_move(held_map_of(type), buf, count, (void *)(uintptr_t)packed, first, len, 1);
}

void tw_mpi_type_pack(const void *buf, MPI_Count count, MPI_Datatype type, void *packed) {
    const tw_typemap_t *m = held_map_of(type);
    tw_typemap_move(m, (void *)(uintptr_t)buf, count, packed, 0, (size_t)(count * m->size), 0);
}

void tw_mpi_type_unpack(const void *packed, MPI_Count count, MPI_Datatype type, void *buf) {
    const tw_typemap_t *m = held_map_of(type);
    tw_typemap_move(m, buf, count, (void *)(uintptr_t)packed, 0, (size_t)(count * m->size), 1);
}

/* A non-contiguous buffer staged through a packed copy: it holds a derived type's
 * object, so the type may be freed while the operation runs (a predefined type, a
 * padded pair, has none). */
struct tw_mpi_staged {
    dtype_t *type;
    const tw_typemap_t *map;
    void *buf;
    MPI_Count count;
    void *packed;
    size_t bytes;
    size_t window; /* bytes of packed */
};

int tw_mpi_staged_new(void *buf, MPI_Count count, MPI_Datatype type, size_t window,
                      tw_mpi_staged_t **out) {
    dtype_t *d = is_predefined(type) ? NULL : held_object_of(type);
    const tw_typemap_t *m = d ? &d->map : held_map_of(type);
    if (!m || (d && !d->committed)) return MPI_ERR_TYPE;
    tw_mpi_staged_t *s = malloc(sizeof *s);
    size_t bytes = (size_t)(count * m->size);
    if (window > bytes) window = bytes;
    void *packed = malloc(window ? window : 1);
    if (!s || !packed) {
        free(s);
        free(packed);
        return MPI_ERR_NO_MEM;
    }
    if (d) d->refs++;
    *s = (tw_mpi_staged_t){d, m, buf, count, packed, bytes, window};
    *out = s;
    return MPI_SUCCESS;
}

void *tw_mpi_staged_data(const tw_mpi_staged_t *s) {
    return s->packed;
}

size_t tw_mpi_staged_bytes(const tw_mpi_staged_t *s) {
    return s->bytes;
}

void tw_mpi_staged_pack_at(tw_mpi_staged_t *s, size_t first) {
    if (first >= s->bytes) return;
    size_t len = s->bytes - first < s->window ? s->bytes - first : s->window;
    tw_typemap_move(s->map, s->buf, s->count, s->packed, first, len, 0);
}

void tw_mpi_staged_pack_range(const tw_mpi_staged_t *s, size_t first, size_t len, void *to) {
    if (first >= s->bytes) return;
    if (len > s->bytes - first) len = s->bytes - first;
    tw_typemap_move(s->map, s->buf, s->count, to, first, len, 0);
}

void tw_mpi_staged_unpack_at(tw_mpi_staged_t *s, const void *from, size_t first, size_t len) {
    if (first >= s->bytes) return;
    if (len > s->bytes - first) len = s->bytes - first;
    tw_typemap_move(s->map, s->buf, s->count, (void *)(uintptr_t)from, first, len, 1);
}

void tw_mpi_staged_free(tw_mpi_staged_t *s) {
    if (!s) return;
    if (s->type) object_release(s->type);
    free(s->packed);
    free(s);
}

int tw_mpi_type_buffer(MPI_Datatype type, const void *buf, MPI_Count count, tw_mpi_buffer_t *out) {
    tw_mpi_type_layout_t l;
    int rc = tw_mpi_type_layout(type, &l);
    if (rc) return rc;
    MPI_Count bytes;
    if (__builtin_mul_overflow(l.size, count, &bytes) || (size_t)bytes > (size_t)PTRDIFF_MAX)
        return MPI_ERR_COUNT;
    out->bytes = (size_t)bytes;
    out->staged = 0;
    out->at = (unsigned char *)(uintptr_t)buf;
    if (!bytes) return MPI_SUCCESS;
    const tw_typemap_t *m = held_map_of(type);
    const tw_typemap_block_t *b = m->nblocks == 1 ? &m->blocks[0] : NULL;
    if (l.contiguous) {
        out->at += l.lb;
    } else if (count == 1 && b && b->reps == 1) { /* one item of one block */
        out->at += b->disp;
    } else {
        out->staged = 1;
        out->at = NULL;
    }
    return MPI_SUCCESS;
}

/* ---- sizes and extents ---- */

/* The map of a type for a query, or NULL after raising MPI_ERR_TYPE for call. */
static const tw_typemap_t *query_map(const char *call, MPI_Datatype type, int *rc) {
    const tw_typemap_t *m = map_of(type);
    *rc = m ? MPI_SUCCESS : tw_mpi_error(NULL, call, MPI_ERR_TYPE, NULL);
    return m;
}

int tw_mpi_type_size(const char *call, MPI_Datatype datatype, MPI_Count *size) {
    int rc;
    const tw_typemap_t *m = query_map(call, datatype, &rc);
    if (!m) return rc;
    if (!size) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "size is NULL");
    *size = m->data_size;
    return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) {
    return tw_mpi_type_size("MPI_Type_size_x", datatype, size);
}

int MPI_Type_size(MPI_Datatype datatype, int *size) {
    int rc;
    const tw_typemap_t *m = query_map("MPI_Type_size", datatype, &rc);
    if (!m) return rc;
    if (!size) return tw_mpi_error(NULL, "MPI_Type_size", MPI_ERR_ARG, "size is NULL");
    *size = m->data_size > INT_MAX ? MPI_UNDEFINED : (int)m->data_size;
    return MPI_SUCCESS;
}

int tw_mpi_type_bounds(const char *call, MPI_Datatype type, int true_bounds, MPI_Aint *lb,
                       MPI_Aint *extent) {
    int rc;
    const tw_typemap_t *m = query_map(call, type, &rc);
    if (!m) return rc;
    if (!lb || !extent) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "lb or extent is NULL");
    tw_mpi_type_layout_t l;
    layout_of(m, &l);
    *lb = true_bounds ? l.true_lb : l.lb;
    *extent = true_bounds ? l.true_extent : l.extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
    return tw_mpi_type_bounds("MPI_Type_get_extent", datatype, 0, lb, extent);
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent) {
    return tw_mpi_type_bounds("MPI_Type_get_true_extent", datatype, 1, true_lb, true_extent);
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
    MPI_Aint l = 0, e = 0;
    if (!lb || !extent) return tw_mpi_type_bounds("MPI_Type_get_extent_x", datatype, 0, NULL, NULL);
    int rc = tw_mpi_type_bounds("MPI_Type_get_extent_x", datatype, 0, &l, &e);
    if (!rc) *lb = l, *extent = e;
    return rc;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) {
    MPI_Aint l = 0, e = 0;
    if (!true_lb || !true_extent)
        return tw_mpi_type_bounds("MPI_Type_get_true_extent_x", datatype, 1, NULL, NULL);
    int rc = tw_mpi_type_bounds("MPI_Type_get_true_extent_x", datatype, 1, &l, &e);
    if (!rc) *true_lb = l, *true_extent = e;
    return rc;
}

/* ---- counts of a status ---- */

static long long status_bytes(const MPI_Status *status) {
    return (long long)(unsigned)status->tw_count_lo | (long long)status->tw_count_hi << 32;
}

/* Counts of a status, as MPI_Count; MPI_UNDEFINED when the bytes are not a whole
 * number of items (elements == 0) or of basic elements (elements == 1). */
int tw_mpi_status_count(const char *call, const MPI_Status *status, MPI_Datatype type, int elements,
                        MPI_Count *count) {
    int rc;
    const tw_typemap_t *m = query_map(call, type, &rc);
    if (!m) return rc;
    if (!status || !count) return tw_mpi_error(NULL, call, MPI_ERR_ARG, NULL);
    long long bytes = status_bytes(status);
    if (m->size == 0) {
        *count = 0;
    } else if (elements) {
        MPI_Count e = tw_typemap_elements(m, bytes);
        *count = e < 0 ? MPI_UNDEFINED : e;
    } else {
        *count = bytes % m->size ? MPI_UNDEFINED : bytes / m->size;
    }
    return MPI_SUCCESS;
}

static int as_int(MPI_Count c) {
    return c > INT_MAX ? MPI_UNDEFINED : (int)c;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    MPI_Count c = 0;
    if (!count) return tw_mpi_error(NULL, "MPI_Get_count", MPI_ERR_ARG, "count is NULL");
    int rc = tw_mpi_status_count("MPI_Get_count", status, datatype, 0, &c);
    if (!rc) *count = as_int(c);
    return rc;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    MPI_Count c = 0;
    if (!count) return tw_mpi_error(NULL, "MPI_Get_elements", MPI_ERR_ARG, "count is NULL");
    int rc = tw_mpi_status_count("MPI_Get_elements", status, datatype, 1, &c);
    if (!rc) *count = as_int(c);
    return rc;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
    return tw_mpi_status_count("MPI_Get_elements_x", status, datatype, 1, count);
}

/* ---- constructors ---- */

/* A new object around a built map, with the arguments it was built from, and its
 * handle. On failure the map is freed and the error raised. */
int tw_mpi_type_create(const char *call, tw_typemap_t *map, int combiner, int nints,
                       const int *ints, int naints, const MPI_Aint *aints, int ncounts,
                       const MPI_Count *counts, int ntypes, const MPI_Datatype *types,
                       MPI_Datatype *newtype) {
    dtype_t *d = calloc(1, sizeof *d);
    if (d && ncounts && !(d->counts = malloc((size_t)ncounts * sizeof *d->counts))) {
        free(d);
        d = NULL;
    }
    if (d) {
        d->ncounts = ncounts;
        if (ncounts) memcpy(d->counts, counts, (size_t)ncounts * sizeof *counts);
        d->ints = malloc((size_t)(nints ? nints : 1) * sizeof *d->ints);
        d->aints = malloc((size_t)(naints ? naints : 1) * sizeof *d->aints);
        d->types = malloc((size_t)(ntypes ? ntypes : 1) * sizeof *d->types);
        d->objs = calloc((size_t)(ntypes ? ntypes : 1), sizeof *d->objs);
    }
    if (!d || !d->ints || !d->aints || !d->types || !d->objs) {
        if (d) free(d->ints), free(d->aints), free(d->counts), free(d->types), free(d->objs);
        free(d);
        tw_typemap_free(map);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    d->map = *map;
    d->combiner = combiner;
    d->nints = nints;
    d->naints = naints;
    d->ntypes = ntypes;
    if (nints) memcpy(d->ints, ints, (size_t)nints * sizeof *ints);
    if (naints) memcpy(d->aints, aints, (size_t)naints * sizeof *aints);
    for (int k = 0; k < ntypes; k++) {
        d->types[k] = types[k];
        d->objs[k] = object_of(types[k]);
        if (d->objs[k]) d->objs[k]->refs++;
    }
    int rc = handle_new(d, newtype);
    if (rc) {
        d->refs = 1;
        object_release(d);
        return tw_mpi_error(NULL, call, rc, NULL);
    }
    return MPI_SUCCESS;
}

static int create(const char *call, tw_typemap_t *map, int combiner, int nints, const int *ints,
                  int naints, const MPI_Aint *aints, int ntypes, const MPI_Datatype *types,
                  MPI_Datatype *newtype) {
    return tw_mpi_type_create(call, map, combiner, nints, ints, naints, aints, 0, NULL, ntypes,
                              types, newtype);
}

/* Checks an old type of a constructor: any valid datatype, committed or not. */
static const tw_typemap_t *old_map(const char *call, MPI_Datatype type, int *rc) {
    const tw_typemap_t *m = map_of(type);
    *rc = m ? MPI_SUCCESS
            : tw_mpi_error(NULL, call, MPI_ERR_TYPE,
                           type == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "not a datatype");
    return m;
}

const tw_typemap_t *tw_mpi_type_old_map(const char *call, MPI_Datatype type, int *rc) {
    return old_map(call, type, rc);
}

/* The common checks of a constructor: count, newtype. */
static int check_new(const char *call, int count, const MPI_Datatype *newtype) {
    NEED_INIT(call);
    if (count < 0) return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "negative count");
    if (!newtype) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "newtype is NULL");
    return MPI_SUCCESS;
}

/* Builds count blocks of old, block k of lens[k] items (or len when lens is NULL)
 * at displacement disps[k] bytes; the result in *map. */
static int build_blocks(const char *call, const tw_typemap_t *old, int count, const int *lens,
                        int len, const MPI_Aint *disps, tw_typemap_t *map) {
    tw_typemap_init(map);
    MPI_Aint extent = tw_typemap_extent(old);
    for (int k = 0; k < count; k++) {
        int n = lens ? lens[k] : len;
        if (n < 0) {
            tw_typemap_free(map);
            return tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative block length");
        }
        int rc = tw_typemap_append(map, old, n, disps[k], extent);
        if (rc) {
            tw_typemap_free(map);
            return tw_mpi_error(NULL, call, rc,
                                rc == MPI_ERR_ARG ? "the type's size or bounds overflow" : NULL);
        }
    }
    return MPI_SUCCESS;
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
    int rc = check_new("MPI_Type_contiguous", count, newtype);
    const tw_typemap_t *old = rc ? NULL : old_map("MPI_Type_contiguous", oldtype, &rc);
    if (rc) return rc;
    MPI_Aint zero = 0;
    tw_typemap_t map;
    rc = build_blocks("MPI_Type_contiguous", old, 1, NULL, count, &zero, &map);
    if (rc) return rc;
    return create("MPI_Type_contiguous", &map, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1,
                  &oldtype, newtype);
}

/* A vector: count blocks of blocklength items, stride bytes apart. */
static int vector(const char *call, int count, int blocklength, MPI_Aint stride,
                  const tw_typemap_t *old, tw_typemap_t *map) {
    if (blocklength < 0) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative block length");
    tw_typemap_t block;
    MPI_Aint zero = 0;
    int rc = build_blocks(call, old, 1, NULL, blocklength, &zero, &block);
    if (rc) return rc;
    tw_typemap_init(map);
    rc = tw_typemap_append(map, &block, count, 0, stride);
    tw_typemap_free(&block);
    if (rc) {
        tw_typemap_free(map);
        return tw_mpi_error(NULL, call, rc, "the type's size or bounds overflow");
    }
    return MPI_SUCCESS;
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype) {
    int rc = check_new("MPI_Type_vector", count, newtype);
    const tw_typemap_t *old = rc ? NULL : old_map("MPI_Type_vector", oldtype, &rc);
    if (rc) return rc;
    MPI_Aint bytes;
    if (__builtin_mul_overflow((MPI_Aint)stride, tw_typemap_extent(old), &bytes))
        return tw_mpi_error(NULL, "MPI_Type_vector", MPI_ERR_ARG, "the stride overflows");
    tw_typemap_t map;
    rc = vector("MPI_Type_vector", count, blocklength, bytes, old, &map);
    if (rc) return rc;
    int ints[] = {count, blocklength, stride};
    return create("MPI_Type_vector", &map, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &oldtype,
                  newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype) {
    int rc = check_new("MPI_Type_create_hvector", count, newtype);
    const tw_typemap_t *old = rc ? NULL : old_map("MPI_Type_create_hvector", oldtype, &rc);
    if (rc) return rc;
    tw_typemap_t map;
    rc = vector("MPI_Type_create_hvector", count, blocklength, stride, old, &map);
    if (rc) return rc;
    int ints[] = {count, blocklength};
    return create("MPI_Type_create_hvector", &map, MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1,
                  &oldtype, newtype);
}

/* The displacements of an indexed type in bytes, or NULL (error raised). */
static MPI_Aint *scale(const char *call, int count, const int *disps, MPI_Aint extent, int *rc) {
    MPI_Aint *d = malloc((size_t)(count ? count : 1) * sizeof *d);
    if (!d) {
        *rc = tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
        return NULL;
    }
    for (int k = 0; k < count; k++) {
        if (__builtin_mul_overflow((MPI_Aint)disps[k], extent, &d[k])) {
            free(d);
            *rc = tw_mpi_error(NULL, call, MPI_ERR_ARG, "a displacement overflows");
            return NULL;
        }
    }
    *rc = MPI_SUCCESS;
    return d;
}

/* The arrays of an indexed constructor are there when count > 0. */
static int check_arrays(const char *call, int count, const void *a, const void *b) {
    if (count > 0 && (!a || !b)) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "an array is NULL");
    return MPI_SUCCESS;
}

/* ints: count, then the n1 ints of a, then the n2 of b. The caller frees it. */
static int *ints_of(int count, const int *a, size_t n1, const int *b, size_t n2) {
    int *v = malloc((1 + n1 + n2) * sizeof *v);
    if (!v) return NULL;
    v[0] = count;
    if (n1) memcpy(v + 1, a, n1 * sizeof *v);
    if (n2) memcpy(v + 1 + n1, b, n2 * sizeof *v);
    return v;
}

/* The indexed constructors: block k of lens[k] items, or of len items for the
 * _block variants (block set); displacements in bytes (disps) or in extents of
 * the old type (int_disps). */
static int indexed(const char *call, int count, int block, const int *lens, int len,
                   const MPI_Aint *disps, const int *int_disps, MPI_Datatype oldtype, int combiner,
                   MPI_Datatype *newtype) {
    int rc = check_new(call, count, newtype);
    const void *displacements = disps ? (const void *)disps : (const void *)int_disps;
    if (!rc) rc = check_arrays(call, count, block ? displacements : lens, displacements);
    const tw_typemap_t *old = rc ? NULL : old_map(call, oldtype, &rc);
    if (rc) return rc;
    MPI_Aint none = 0; /* count 0: the arrays may be NULL, and the type is empty */
    MPI_Aint *bytes = !count      ? &none
                      : int_disps ? scale(call, count, int_disps, tw_typemap_extent(old), &rc)
                                  : (MPI_Aint *)(uintptr_t)disps;
    if (!bytes) return rc;
    tw_typemap_t map;
    rc = build_blocks(call, old, count, lens, len, bytes, &map);
    if (int_disps && count) free(bytes);
    if (rc) return rc;
    /* the arguments as MPI_Type_get_contents gives them back */
    int nlens = block ? 1 : count;
    int *ints = ints_of(count, block ? &len : lens, (size_t)nlens, int_disps,
                        int_disps ? (size_t)count : 0);
    if (!ints) {
        tw_typemap_free(&map);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    rc = create(call, &map, combiner, 1 + nlens + (int_disps ? count : 0), ints,
                int_disps ? 0 : count, disps, 1, &oldtype, newtype);
    free(ints);
    return rc;
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype) {
    return indexed("MPI_Type_indexed", count, 0, array_of_blocklengths, 0, NULL,
                   array_of_displacements, oldtype, MPI_COMBINER_INDEXED, newtype);
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype) {
    return indexed("MPI_Type_create_hindexed", count, 0, array_of_blocklengths, 0,
                   array_of_displacements, NULL, oldtype, MPI_COMBINER_HINDEXED, newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype) {
    if (blocklength < 0)
        return tw_mpi_error(NULL, "MPI_Type_create_indexed_block", MPI_ERR_ARG,
                            "negative block length");
    return indexed("MPI_Type_create_indexed_block", count, 1, NULL, blocklength, NULL,
                   array_of_displacements, oldtype, MPI_COMBINER_INDEXED_BLOCK, newtype);
}

int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype) {
    if (blocklength < 0)
        return tw_mpi_error(NULL, "MPI_Type_create_hindexed_block", MPI_ERR_ARG,
                            "negative block length");
    return indexed("MPI_Type_create_hindexed_block", count, 1, NULL, blocklength,
                   array_of_displacements, NULL, oldtype, MPI_COMBINER_HINDEXED_BLOCK, newtype);
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype) {
    const char *call = "MPI_Type_create_struct";
    int rc = check_new(call, count, newtype);
    if (!rc) rc = check_arrays(call, count, array_of_blocklengths, array_of_displacements);
    if (!rc) rc = check_arrays(call, count, array_of_types, array_of_types);
    if (rc) return rc;
    tw_typemap_t map;
    tw_typemap_init(&map);
    for (int k = 0; k < count && !rc; k++) {
        const tw_typemap_t *old = old_map(call, array_of_types[k], &rc);
        if (!old) break;
        if (array_of_blocklengths[k] < 0) {
            rc = tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative block length");
            break;
        }
        rc = tw_typemap_append(&map, old, array_of_blocklengths[k], array_of_displacements[k],
                               tw_typemap_extent(old));
        if (rc) rc = tw_mpi_error(NULL, call, rc, "the type's size or bounds overflow");
    }
    if (rc) {
        tw_typemap_free(&map);
        return rc;
    }
    tw_typemap_pad(&map);
    int *ints = ints_of(count, array_of_blocklengths, (size_t)count, NULL, 0);
    if (!ints) {
        tw_typemap_free(&map);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    rc = create(call, &map, MPI_COMBINER_STRUCT, 1 + count, ints, count, array_of_displacements,
                count, array_of_types, newtype);
    free(ints);
    return rc;
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype) {
    int rc = check_new("MPI_Type_create_resized", 0, newtype);
    const tw_typemap_t *old = rc ? NULL : old_map("MPI_Type_create_resized", oldtype, &rc);
    if (rc) return rc;
    MPI_Aint ub;
    if (__builtin_add_overflow(lb, extent, &ub))
        return tw_mpi_error(NULL, "MPI_Type_create_resized", MPI_ERR_ARG, "lb + extent overflows");
    tw_typemap_t map;
    if (tw_typemap_copy(&map, old))
        return tw_mpi_error(NULL, "MPI_Type_create_resized", MPI_ERR_NO_MEM, NULL);
    tw_typemap_resize(&map, lb, extent);
    MPI_Aint aints[] = {lb, extent};
    return create("MPI_Type_create_resized", &map, MPI_COMBINER_RESIZED, 0, NULL, 2, aints, 1,
                  &oldtype, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype) {
    int rc = check_new("MPI_Type_dup", 0, newtype);
    const tw_typemap_t *old = rc ? NULL : old_map("MPI_Type_dup", oldtype, &rc);
    if (rc) return rc;
    tw_typemap_t map;
    if (tw_typemap_copy(&map, old)) return tw_mpi_error(NULL, "MPI_Type_dup", MPI_ERR_NO_MEM, NULL);
    rc = create("MPI_Type_dup", &map, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &oldtype, newtype);
    if (rc) return rc;
    dtype_t *d = object_of(*newtype), *o = object_of(oldtype);
    d->committed = !o || o->committed; /* a duplicate is committed as its original */
    rc = tw_mpi_attr_object_copy(oldtype, *newtype);
    if (rc) {
        handle_free(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return tw_mpi_error(NULL, "MPI_Type_dup", rc, "an attribute's copy callback failed");
    }
    return MPI_SUCCESS;
}

int tw_mpi_type_f90(MPI_Datatype basic, int combiner, int nints, const int *ints,
                    MPI_Datatype *newtype) {
    const char *call = combiner == MPI_COMBINER_F90_INTEGER ? "MPI_Type_create_f90_integer"
                       : combiner == MPI_COMBINER_F90_REAL  ? "MPI_Type_create_f90_real"
                                                            : "MPI_Type_create_f90_complex";
    tw_typemap_t map;
    const tw_typemap_t *m = basic_map(basic);
    if (!m || tw_typemap_copy(&map, m)) return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    int rc = create(call, &map, combiner, nints, ints, 0, NULL, 0, NULL, newtype);
    if (rc) return rc;
    dtype_t *d = object_of(*newtype);
    d->committed = d->fixed = 1;
    return MPI_SUCCESS;
}

/* ---- subarrays and distributed arrays ---- */

/* Selects, along one dimension of an array whose elements are `inner` (extent:
 * the whole of the dimensions within), the n blocks [starts[k], starts[k] +
 * lens[k]), then spans the dimension: `size` elements. */
static int dimension(const char *call, const tw_typemap_t *inner, int n, const MPI_Count *starts,
                     const MPI_Count *lens, MPI_Count size, tw_typemap_t *out) {
    MPI_Aint extent = tw_typemap_extent(inner), whole;
    if (__builtin_mul_overflow(extent, size, &whole))
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "the array's extent overflows");
    tw_typemap_init(out);
    for (int k = 0; k < n; k++) {
        MPI_Aint at = starts[k] * extent; /* within whole */
        int rc = tw_typemap_append(out, inner, lens[k], at, extent);
        if (rc) {
            tw_typemap_free(out);
            return tw_mpi_error(NULL, call, rc, "the type's size or bounds overflow");
        }
    }
    tw_typemap_resize(out, 0, whole);
    return MPI_SUCCESS;
}

/* An array type: dimension d selects nblocks[d] blocks (starts, lens, from
 * offset first[d] of the flat arrays); dims run from the innermost out, as order
 * says. */
static int array_map(const char *call, int ndims, const MPI_Count *sizes, const int *nblocks,
                     const int *first, const MPI_Count *starts, const MPI_Count *lens, int order,
                     const tw_typemap_t *old, tw_typemap_t *map) {
    tw_typemap_t inner;
    int rc = tw_typemap_copy(&inner, old);
    if (rc) return tw_mpi_error(NULL, call, rc, NULL);
    for (int k = 0; k < ndims; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        tw_typemap_t next;
        rc = dimension(call, &inner, nblocks[d], starts + first[d], lens + first[d], sizes[d],
                       &next);
        tw_typemap_free(&inner);
        if (rc) return rc;
        inner = next;
    }
    *map = inner; /* bounds [0, the whole array) */
    return MPI_SUCCESS;
}

/* Counts of an int form as MPI_Count, or NULL (MPI_ERR_NO_MEM raised). */
static MPI_Count *counts_of(const char *call, int n, const int *const *arrays, int narrays,
                            int *rc) {
    MPI_Count *c = malloc(((size_t)n * (size_t)narrays + 1) * sizeof *c);
    if (!c) {
        *rc = tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
        return NULL;
    }
    for (int a = 0; a < narrays; a++)
        for (int d = 0; d < n; d++) c[a * n + d] = arrays[a][d];
    return c;
}

int tw_mpi_type_subarray(const char *call, int ndims, const MPI_Count *sizes,
                         const MPI_Count *subsizes, const MPI_Count *starts, int order,
                         MPI_Datatype oldtype, MPI_Datatype *newtype, int large) {
    int rc = check_new(call, 0, newtype);
    if (rc) return rc;
    if (ndims <= 0) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "ndims is not positive");
    if (!sizes || !subsizes || !starts)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "an array is NULL");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "order is neither C nor Fortran");
    for (int d = 0; d < ndims; d++)
        if (sizes[d] <= 0 || subsizes[d] <= 0 || starts[d] < 0 ||
            subsizes[d] > sizes[d] - starts[d])
            return tw_mpi_error(NULL, call, MPI_ERR_ARG,
                                "a subarray that does not fit in its array");
    const tw_typemap_t *old = old_map(call, oldtype, &rc);
    if (rc) return rc;
    int *ones = malloc((size_t)ndims * 2 * sizeof *ones);
    if (!ones) return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    int *first = ones + ndims;
    for (int d = 0; d < ndims; d++) ones[d] = 1, first[d] = d;
    tw_typemap_t map;
    rc = array_map(call, ndims, sizes, ones, first, starts, subsizes, order, old, &map);
    free(ones);
    if (rc) return rc;
    /* the arguments back: ndims and order as ints, the rest as ints or large counts */
    size_t n = 3 * (size_t)ndims;
    int *ints = malloc((n + 2) * sizeof *ints);
    MPI_Count *counts = malloc(n * sizeof *counts);
    if (!ints || !counts) {
        free(ints);
        free(counts);
        tw_typemap_free(&map);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    memcpy(counts, sizes, (size_t)ndims * sizeof *counts);
    memcpy(counts + ndims, subsizes, (size_t)ndims * sizeof *counts);
    memcpy(counts + 2 * ndims, starts, (size_t)ndims * sizeof *counts);
    ints[0] = ndims;
    if (large) {
        ints[1] = order;
        rc = tw_mpi_type_create(call, &map, MPI_COMBINER_SUBARRAY, 2, ints, 0, NULL, (int)n, counts,
                                1, &oldtype, newtype);
    } else {
        for (size_t k = 0; k < n; k++) ints[1 + k] = (int)counts[k];
        ints[1 + n] = order;
        rc = create(call, &map, MPI_COMBINER_SUBARRAY, (int)n + 2, ints, 0, NULL, 1, &oldtype,
                    newtype);
    }
    free(ints);
    free(counts);
    return rc;
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype) {
    const char *call = "MPI_Type_create_subarray";
    if (ndims <= 0 || !array_of_sizes || !array_of_subsizes || !array_of_starts)
        return tw_mpi_type_subarray(call, ndims, NULL, NULL, NULL, order, oldtype, newtype, 0);
    NEED_INIT(call);
    const int *arrays[] = {array_of_sizes, array_of_subsizes, array_of_starts};
    int rc;
    MPI_Count *c = counts_of(call, ndims, arrays, 3, &rc);
    if (!c) return rc;
    rc = tw_mpi_type_subarray(call, ndims, c, c + ndims, c + 2 * ndims, order, oldtype, newtype, 0);
    free(c);
    return rc;
}

int tw_mpi_type_darray(const char *call, int size, int rank, int ndims,
                       const MPI_Count array_of_gsizes[], const int array_of_distribs[],
                       const int array_of_dargs[], const int array_of_psizes[], int order,
                       MPI_Datatype oldtype, MPI_Datatype *newtype, int large) {
    int rc = check_new(call, 0, newtype);
    if (rc) return rc;
    if (size <= 0 || rank < 0 || rank >= size)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "rank is not in 0..size-1");
    if (ndims <= 0) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "ndims is not positive");
    if (!array_of_gsizes || !array_of_distribs || !array_of_dargs || !array_of_psizes)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "an array is NULL");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "order is neither C nor Fortran");
    long long procs = 1;
    for (int d = 0; d < ndims; d++) {
        MPI_Count g = array_of_gsizes[d];
        int p = array_of_psizes[d], dist = array_of_distribs[d], darg = array_of_dargs[d];
        if (g <= 0 || p <= 0)
            return tw_mpi_error(NULL, call, MPI_ERR_ARG, "a size is not positive");
        procs *= p;
        if (procs > size) break;
        if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
            dist != MPI_DISTRIBUTE_NONE)
            return tw_mpi_error(NULL, call, MPI_ERR_ARG, "an unknown distribution");
        if (dist == MPI_DISTRIBUTE_NONE && p != 1)
            return tw_mpi_error(NULL, call, MPI_ERR_ARG,
                                "MPI_DISTRIBUTE_NONE over more than one process");
        if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0)
            return tw_mpi_error(NULL, call, MPI_ERR_ARG, "a distribution argument is not positive");
        if (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
            (long long)darg * p < g)
            return tw_mpi_error(NULL, call, MPI_ERR_ARG, "blocks too small to cover the array");
    }
    if (procs != size)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "the process grid is not of size processes");
    const tw_typemap_t *old = old_map(call, oldtype, &rc);
    if (rc) return rc;

    /* this process's coordinates: the grid is row-major whatever the order */
    int *coords = malloc((size_t)ndims * 3 * sizeof *coords);
    if (!coords) return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    int *nblocks = coords + ndims, *first = coords + 2 * ndims;
    for (int d = ndims - 1, r = rank; d >= 0; d--) {
        coords[d] = r % array_of_psizes[d];
        r /= array_of_psizes[d];
    }
    /* the blocks each dimension selects */
    size_t total = 0;
    for (int d = 0; d < ndims; d++) {
        long long g = array_of_gsizes[d], p = array_of_psizes[d], darg = array_of_dargs[d];
        int dist = array_of_distribs[d];
        first[d] = (int)total;
        if (dist == MPI_DISTRIBUTE_CYCLIC) {
            if (darg == MPI_DISTRIBUTE_DFLT_DARG) darg = 1;
            long long start = coords[d] * darg;
            nblocks[d] = start >= g ? 0 : (int)((g - start + p * darg - 1) / (p * darg));
        } else {
            nblocks[d] = 1;
        }
        total += (size_t)nblocks[d];
    }
    MPI_Count *starts = malloc((total ? total : 1) * 2 * sizeof *starts);
    if (!starts) {
        free(coords);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    MPI_Count *lens = starts + total;
    for (int d = 0; d < ndims; d++) {
        long long g = array_of_gsizes[d], p = array_of_psizes[d], darg = array_of_dargs[d];
        int dist = array_of_distribs[d];
        if (dist == MPI_DISTRIBUTE_NONE) {
            starts[first[d]] = 0;
            lens[first[d]] = g;
        } else if (dist == MPI_DISTRIBUTE_BLOCK) {
            if (darg == MPI_DISTRIBUTE_DFLT_DARG) darg = (g + p - 1) / p;
            long long start = coords[d] * darg, end = start + darg < g ? start + darg : g;
            starts[first[d]] = start < g ? start : 0;
            lens[first[d]] = start < g ? end - start : 0;
        } else {
            if (darg == MPI_DISTRIBUTE_DFLT_DARG) darg = 1;
            for (int k = 0; k < nblocks[d]; k++) {
                long long start = (coords[d] + (long long)k * p) * darg;
                starts[first[d] + k] = start;
                lens[first[d] + k] = start + darg < g ? darg : g - start;
            }
        }
    }
    tw_typemap_t map;
    rc = array_map(call, ndims, array_of_gsizes, nblocks, first, starts, lens, order, old, &map);
    free(starts);
    free(coords);
    if (rc) return rc;
    int *ints = malloc((size_t)(4 * ndims + 4) * sizeof *ints);
    if (!ints) {
        tw_typemap_free(&map);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    /* the arguments back: the gsizes among the ints, or (large) as the large counts */
    int g = large ? 0 : ndims;
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    for (int d = 0; d < g; d++) ints[3 + d] = (int)array_of_gsizes[d];
    memcpy(ints + 3 + g, array_of_distribs, (size_t)ndims * sizeof *ints);
    memcpy(ints + 3 + g + ndims, array_of_dargs, (size_t)ndims * sizeof *ints);
    memcpy(ints + 3 + g + 2 * ndims, array_of_psizes, (size_t)ndims * sizeof *ints);
    ints[3 + g + 3 * ndims] = order;
    rc = tw_mpi_type_create(call, &map, MPI_COMBINER_DARRAY, 3 * ndims + g + 4, ints, 0, NULL,
                            large ? ndims : 0, array_of_gsizes, 1, &oldtype, newtype);
    free(ints);
    return rc;
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype) {
    const char *call = "MPI_Type_create_darray";
    if (ndims <= 0 || !array_of_gsizes)
        return tw_mpi_type_darray(call, size, rank, ndims, NULL, array_of_distribs, array_of_dargs,
                                  array_of_psizes, order, oldtype, newtype, 0);
    NEED_INIT(call);
    const int *arrays[] = {array_of_gsizes};
    int rc;
    MPI_Count *g = counts_of(call, ndims, arrays, 1, &rc);
    if (!g) return rc;
    rc = tw_mpi_type_darray(call, size, rank, ndims, g, array_of_distribs, array_of_dargs,
                            array_of_psizes, order, oldtype, newtype, 0);
    free(g);
    return rc;
}

/* ---- commit, free, contents, names ---- */

/* A derived type's object for call, or NULL with the error raised. */
static dtype_t *derived(const char *call, MPI_Datatype type, int *rc) {
    dtype_t *d = object_of(type);
    *rc = d ? MPI_SUCCESS
            : tw_mpi_error(NULL, call, MPI_ERR_TYPE,
                           is_predefined(type) ? "a predefined datatype" : "not a datatype");
    return d;
}

int MPI_Type_commit(MPI_Datatype *datatype) {
    NEED_INIT("MPI_Type_commit");
    if (!datatype) return tw_mpi_error(NULL, "MPI_Type_commit", MPI_ERR_ARG, "datatype is NULL");
    if (is_predefined(*datatype)) return MPI_SUCCESS; /* committed from the start */
    int rc;
    dtype_t *d = derived("MPI_Type_commit", *datatype, &rc);
    if (d) d->committed = 1;
    return rc;
}

int MPI_Type_free(MPI_Datatype *datatype) {
    NEED_INIT("MPI_Type_free");
    if (!datatype) return tw_mpi_error(NULL, "MPI_Type_free", MPI_ERR_ARG, "datatype is NULL");
    int rc;
    dtype_t *d = derived("MPI_Type_free", *datatype, &rc);
    if (!d) return rc;
    if (d->fixed) return tw_mpi_error(NULL, "MPI_Type_free", MPI_ERR_TYPE, "a predefined datatype");
    rc = tw_mpi_attr_object_free(*datatype); /* an error keeps the type */
    if (rc) return tw_mpi_error(NULL, "MPI_Type_free", rc, "an attribute's delete callback failed");
    slot_t *e = slot_of(*datatype);
    if (e->holds) /* an operation under way still names it: it goes with the last hold */
        e->freed = 1;
    else
        handle_free(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* num_large_counts NULL: the int form, which cannot describe a type made by a
 * large-count constructor (MPI_ERR_VALUE_TOO_LARGE). */
int tw_mpi_type_envelope(const char *call, MPI_Datatype datatype, MPI_Count *num_integers,
                         MPI_Count *num_addresses, MPI_Count *num_large_counts,
                         MPI_Count *num_datatypes, int *combiner) {
    NEED_INIT(call);
    int rc;
    if (!query_map(call, datatype, &rc)) return rc;
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "an output is NULL");
    dtype_t *d = object_of(datatype);
    if (d && d->ncounts && !num_large_counts)
        return tw_mpi_error(NULL, call, MPI_ERR_VALUE_TOO_LARGE,
                            "made by a large-count constructor: use the _c form");
    *num_integers = d ? d->nints : 0;
    *num_addresses = d ? d->naints : 0;
    if (num_large_counts) *num_large_counts = d ? d->ncounts : 0;
    *num_datatypes = d ? d->ntypes : 0;
    *combiner = d ? d->combiner : MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner) {
    MPI_Count ni, na, nd;
    int rc = tw_mpi_type_envelope("MPI_Type_get_envelope", datatype, num_integers ? &ni : NULL,
                                  num_addresses ? &na : NULL, NULL, num_datatypes ? &nd : NULL,
                                  combiner);
    if (!rc) *num_integers = (int)ni, *num_addresses = (int)na, *num_datatypes = (int)nd;
    return rc;
}

/* array_of_large_counts NULL with max_large_counts -1: the int form (as above). */
int tw_mpi_type_contents(const char *call, MPI_Datatype datatype, MPI_Count max_integers,
                         MPI_Count max_addresses, MPI_Count max_large_counts,
                         MPI_Count max_datatypes, int array_of_integers[],
                         MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                         MPI_Datatype array_of_datatypes[]) {
    NEED_INIT(call);
    int rc;
    dtype_t *d = derived(call, datatype, &rc);
    if (!d) return rc;
    if (d->ncounts && max_large_counts < 0)
        return tw_mpi_error(NULL, call, MPI_ERR_VALUE_TOO_LARGE,
                            "made by a large-count constructor: use the _c form");
    if (max_integers < d->nints || max_addresses < d->naints || max_datatypes < d->ntypes ||
        (max_large_counts >= 0 && max_large_counts < d->ncounts))
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "arrays shorter than the envelope says");
    if ((d->nints && !array_of_integers) || (d->naints && !array_of_addresses) ||
        (d->ncounts && !array_of_large_counts) || (d->ntypes && !array_of_datatypes))
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "an array is NULL");
    if (d->ncounts && array_of_large_counts)
        memcpy(array_of_large_counts, d->counts, (size_t)d->ncounts * sizeof *d->counts);
    if (d->nints) memcpy(array_of_integers, d->ints, (size_t)d->nints * sizeof *d->ints);
    if (d->naints) memcpy(array_of_addresses, d->aints, (size_t)d->naints * sizeof *d->aints);
    /* a derived type comes back as a new handle to it, which the caller frees */
    for (int k = 0; k < d->ntypes; k++) {
        if (!d->objs[k] || d->objs[k]->fixed) { /* predefined: the handle itself */
            array_of_datatypes[k] = d->types[k];
            continue;
        }
        rc = handle_new(d->objs[k], &array_of_datatypes[k]);
        if (rc) {
            while (k-- > 0)
                if (d->objs[k] && !d->objs[k]->fixed) handle_free(array_of_datatypes[k]);
            return tw_mpi_error(NULL, call, rc, NULL);
        }
    }
    return MPI_SUCCESS;
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[]) {
    return tw_mpi_type_contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, -1,
                                max_datatypes, array_of_integers, array_of_addresses, NULL,
                                array_of_datatypes);
}

/* The names of the predefined types, by id; a program may rename them. */
static char basic_names[TW_MPI_TYPE_IDS + 1][MPI_MAX_OBJECT_NAME] = {
    "",
    "MPI_CHAR",
    "MPI_SIGNED_CHAR",
    "MPI_UNSIGNED_CHAR",
    "MPI_BYTE",
    "MPI_WCHAR",
    "MPI_SHORT",
    "MPI_UNSIGNED_SHORT",
    "MPI_INT",
    "MPI_UNSIGNED",
    "MPI_LONG",
    "MPI_UNSIGNED_LONG",
    "MPI_LONG_LONG_INT",
    "MPI_UNSIGNED_LONG_LONG",
    "MPI_FLOAT",
    "MPI_DOUBLE",
    "MPI_LONG_DOUBLE",
    "MPI_C_BOOL",
    "MPI_INT8_T",
    "MPI_INT16_T",
    "MPI_INT32_T",
    "MPI_INT64_T",
    "MPI_UINT8_T",
    "MPI_UINT16_T",
    "MPI_UINT32_T",
    "MPI_UINT64_T",
    "MPI_AINT",
    "MPI_COUNT",
    "MPI_OFFSET",
    "MPI_PACKED",
    "MPI_C_COMPLEX", /* the name MPICH gives the one handle of the two synonyms */
    "MPI_C_DOUBLE_COMPLEX",
    "MPI_C_LONG_DOUBLE_COMPLEX",
    "MPI_CXX_BOOL",
    "MPI_CXX_FLOAT_COMPLEX",
    "MPI_CXX_DOUBLE_COMPLEX",
    "MPI_CXX_LONG_DOUBLE_COMPLEX",
    "MPI_FLOAT_INT",
    "MPI_DOUBLE_INT",
    "MPI_LONG_INT",
    "MPI_2INT",
    "MPI_SHORT_INT",
    "MPI_LONG_DOUBLE_INT",
    "MPI_CHARACTER",
    "MPI_LOGICAL",
    "MPI_INTEGER",
    "MPI_REAL",
    "MPI_DOUBLE_PRECISION",
    "MPI_COMPLEX",
    "MPI_DOUBLE_COMPLEX",
    "MPI_INTEGER1",
    "MPI_INTEGER2",
    "MPI_INTEGER4",
    "MPI_INTEGER8",
    "MPI_REAL4",
    "MPI_REAL8",
    "MPI_REAL16",
    "MPI_COMPLEX8",
    "MPI_COMPLEX16",
    "MPI_COMPLEX32",
    "MPI_2REAL",
    "MPI_2DOUBLE_PRECISION",
    "MPI_2INTEGER",
    "MPIX_C_FLOAT16",
    "MPIX_BFLOAT16",
};

static char *name_of(const char *call, MPI_Datatype type, int *rc) {
    if (is_predefined(type)) {
        *rc = MPI_SUCCESS;
        return basic_names[type & 0xff];
    }
    dtype_t *d = derived(call, type, rc);
    return d ? d->name : NULL;
}

int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name) {
    NEED_INIT("MPI_Type_set_name");
    int rc;
    char *name = name_of("MPI_Type_set_name", datatype, &rc);
    if (!name) return rc;
    if (!type_name) return tw_mpi_error(NULL, "MPI_Type_set_name", MPI_ERR_ARG, "name is NULL");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", type_name);
    return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen) {
    NEED_INIT("MPI_Type_get_name");
    int rc = MPI_SUCCESS;
    /* MPI-4.1 (naming objects): the null handle has a name, its own */
    const char *name = datatype == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                     : name_of("MPI_Type_get_name", datatype, &rc);
    if (!name) return rc;
    if (!type_name || !resultlen)
        return tw_mpi_error(NULL, "MPI_Type_get_name", MPI_ERR_ARG, "an output is NULL");
    *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", name);
    return MPI_SUCCESS;
}

/* ---- addresses ---- */

int MPI_Get_address(const void *location, MPI_Aint *address) {
    NEED_INIT("MPI_Get_address");
    if (!address) return tw_mpi_error(NULL, "MPI_Get_address", MPI_ERR_ARG, "address is NULL");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* ---- packing ---- */

/* The checks of MPI_Pack and MPI_Unpack: a committed type, a count, a position
 * inside the packed buffer. The packed bytes of count items in *bytes. */
static int check_pack(const char *call, MPI_Datatype type, MPI_Count count, const void *user,
                      const void *packed, MPI_Count packed_size, MPI_Count position, MPI_Comm comm,
                      size_t *bytes) {
    NEED_INIT(call);
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    if (count < 0) return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
    tw_mpi_buffer_t b;
    int rc = tw_mpi_type_buffer(type, user, count, &b);
    if (rc)
        return tw_mpi_error(c, call, rc, rc == MPI_ERR_TYPE ? "not a committed datatype" : NULL);
    if (packed_size < 0 || position < 0 || position > packed_size)
        return tw_mpi_error(c, call, MPI_ERR_ARG, "position outside the packed buffer");
    if (b.bytes > (size_t)(packed_size - position))
        return tw_mpi_error(c, call, MPI_ERR_TRUNCATE, "the packed buffer is too short");
    if (b.bytes && !packed) return tw_mpi_error(c, call, MPI_ERR_BUFFER, "NULL packed buffer");
    *bytes = b.bytes;
    return MPI_SUCCESS;
}

/* MPI_Pack (unpack 0) and MPI_Unpack (1), position moved past the bytes. */
int tw_mpi_pack(const char *call, int unpack, void *user, MPI_Count count, MPI_Datatype datatype,
                void *packed, MPI_Count packed_size, MPI_Count *position, MPI_Comm comm) {
    if (!position) {
        NEED_INIT(call);
        return tw_mpi_error(tw_mpi_comm_get(comm), call, MPI_ERR_ARG, "position is NULL");
    }
    size_t bytes = 0;
    int rc = check_pack(call, datatype, count, user, packed, packed_size, *position, comm, &bytes);
    if (rc) return rc;
    if (unpack)
        tw_mpi_type_unpack((const unsigned char *)packed + *position, count, datatype, user);
    else
        tw_mpi_type_pack(user, count, datatype, (unsigned char *)packed + *position);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm) {
    MPI_Count at = position ? *position : 0;
    int rc = tw_mpi_pack("MPI_Pack", 0, (void *)(uintptr_t)inbuf, incount, datatype, outbuf,
                         outsize, position ? &at : NULL, comm);
    if (!rc) *position = (int)at; /* within outsize */
    return rc;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) {
    MPI_Count at = position ? *position : 0;
    int rc = tw_mpi_pack("MPI_Unpack", 1, outbuf, outcount, datatype, (void *)(uintptr_t)inbuf,
                         insize, position ? &at : NULL, comm);
    if (!rc) *position = (int)at;
    return rc;
}

int tw_mpi_pack_size(const char *call, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count *size) {
    NEED_INIT(call);
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    if (incount < 0) return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
    if (!size) return tw_mpi_error(c, call, MPI_ERR_ARG, "size is NULL");
    /* any valid type, committed or not */
    const tw_typemap_t *m = map_of(datatype);
    if (!m) return tw_mpi_error(c, call, MPI_ERR_TYPE, NULL);
    if (__builtin_mul_overflow(m->size, incount, size))
        return tw_mpi_error(c, call, MPI_ERR_COUNT, "the size overflows");
    return MPI_SUCCESS;
}

/* A size beyond INT_MAX is MPI_ERR_VALUE_TOO_LARGE (MPI-4.1 2.5.8): MPI_Pack_size_c
 * tells it. */
int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size) {
    MPI_Count bytes = 0;
    int rc = tw_mpi_pack_size("MPI_Pack_size", incount, datatype, comm, size ? &bytes : NULL);
    if (rc) return rc;
    if (bytes > INT_MAX)
        return tw_mpi_error(tw_mpi_comm_get(comm), "MPI_Pack_size", MPI_ERR_VALUE_TOO_LARGE,
                            "more than INT_MAX bytes: use MPI_Pack_size_c");
    *size = (int)bytes;
    return MPI_SUCCESS;
}
