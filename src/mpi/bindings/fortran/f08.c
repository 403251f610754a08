/* mpi_f08's array sections as datatypes (f08.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/bindings/fortran/f08.h"
#include "mpi/pt2pt/request_hooks.h"

static int section_error(int errclass, const char *call, const char *arg, const char *why) {
    /* said once here, as the handler's class alone would not name the argument */
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &h);
    if (h != MPI_ERRORS_RETURN) fprintf(stderr, "%s (mpi_f08): %s: %s\n", call, arg, why);
    if (h != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&h);
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, errclass);
    return errclass;
}

/* the datatype of the first n elements of the section, in array element order, each
 * k of datatype t0 */
static int indexed_section(const CFI_cdesc_t *d, MPI_Aint n, MPI_Datatype t0, MPI_Datatype *out) {
    MPI_Aint *displs = malloc(sizeof(MPI_Aint) * (size_t)(n ? n : 1));
    if (!displs) return MPI_ERR_NO_MEM;
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    for (MPI_Aint e = 0; e < n; e++) {
        MPI_Aint off = 0;
        for (int r = 0; r < d->rank; r++) off += (MPI_Aint)idx[r] * (MPI_Aint)d->dim[r].sm;
        displs[e] = off;
        for (int r = 0; r < d->rank; r++) { /* the next index, the first fastest */
            if (++idx[r] < d->dim[r].extent) break;
            idx[r] = 0;
        }
    }
    int rc = PMPI_Type_create_hindexed_block((int)n, 1, displs, t0, out);
    free(displs);
    return rc;
}

/* Whether the section's n elements are blocks of m alike ones, each block the one
 * before moved by the same stride (*stride, > 0): a collective's count of m elements
 * a block then describes every block with one datatype of that extent. Any 1-D
 * section is; a 2-D one is when a block is whole columns, or divides a column. */
static int alike_blocks(const CFI_cdesc_t *d, MPI_Aint n, MPI_Aint m, MPI_Aint *stride) {
    if (m <= 0 || n % m != 0) return 0;
    MPI_Aint *first = malloc(sizeof(MPI_Aint) * (size_t)m);
    if (!first) return 0;
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    MPI_Aint step = 0;
    int alike = 1;
    for (MPI_Aint e = 0; e < n && alike; e++) {
        MPI_Aint off = 0;
        for (int r = 0; r < d->rank; r++) off += (MPI_Aint)idx[r] * (MPI_Aint)d->dim[r].sm;
        if (e < m)
            first[e] = off;
        else if (e == m)
            step = off - first[0], alike = step > 0 && off == first[0] + step;
        else
            alike = off == first[e % m] + (e / m) * step;
        for (int r = 0; r < d->rank; r++) {
            if (++idx[r] < d->dim[r].extent) break;
            idx[r] = 0;
        }
    }
    free(first);
    *stride = step;
    return alike;
}

/* the section's elements to or from a contiguous buffer, in array element order */
static void copy_section(const CFI_cdesc_t *d, char *flat, int out) {
    CFI_index_t idx[CFI_MAX_RANK] = {0};
    MPI_Aint n = 1;
    for (int r = 0; r < d->rank; r++) n *= (MPI_Aint)d->dim[r].extent;
    for (MPI_Aint e = 0; e < n; e++) {
        char *elem = d->base_addr;
        for (int r = 0; r < d->rank; r++) elem += idx[r] * d->dim[r].sm;
        if (out)
            memcpy(elem, flat + e * (MPI_Aint)d->elem_len, d->elem_len);
        else
            memcpy(flat + e * (MPI_Aint)d->elem_len, elem, d->elem_len);
        for (int r = 0; r < d->rank; r++) {
            if (++idx[r] < d->dim[r].extent) break;
            idx[r] = 0;
        }
    }
}

/* The datatypes made last, per thread, so that a loop sending the same section makes
 * its datatype once (as a program describing it by a vector type would): kept only
 * for a predefined datatype, whose handle is never another's, and only until
 * MPI_Finalize, whose deletion of MPI_COMM_SELF's attributes starts a new generation
 * (the handles of the one before are gone with it). */
enum { CACHED_SECTIONS = 4 };
typedef struct cached_section {
    unsigned generation; /* 0: empty */
    MPI_Datatype type, made;
    MPI_Count count;
    size_t elem_len;
    int rank, blocks;
    CFI_index_t extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
} cached_section;
static _Thread_local cached_section cache[CACHED_SECTIONS];
static _Thread_local unsigned cache_next;
static _Atomic unsigned generation = 1;
static _Atomic int finalize_hooked;

static int on_finalize(MPI_Comm comm, int keyval, void *value, void *extra) {
    generation++;
    finalize_hooked = 0;
    return MPI_SUCCESS;
}

/* whether a section's datatype made from type may be kept: the library is up through
 * MPI_Init (MPI_COMM_SELF tells of its end), type is predefined */
static int cacheable(MPI_Datatype type) {
    int ints, addrs, types, combiner, up = 0, down = 1;
    PMPI_Initialized(&up);
    PMPI_Finalized(&down);
    if (!up || down) return 0;
    if (PMPI_Type_get_envelope(type, &ints, &addrs, &types, &combiner) != MPI_SUCCESS ||
        combiner != MPI_COMBINER_NAMED)
        return 0;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&finalize_hooked, &expected, 1)) return 1;
    int keyval;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &keyval, NULL) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL) != MPI_SUCCESS) {
        finalize_hooked = 0;
        return 0;
    }
    return 1;
}

static cached_section *cached(const CFI_cdesc_t *d, MPI_Datatype type, MPI_Count count,
                              int blocks) {
    for (int i = 0; i < CACHED_SECTIONS; i++) {
        cached_section *c = &cache[i];
        if (c->generation != generation || c->type != type || c->count != count ||
            c->elem_len != d->elem_len || c->rank != d->rank || c->blocks != blocks)
            continue;
        int r = 0;
        while (r < d->rank && c->extent[r] == d->dim[r].extent && c->sm[r] == d->dim[r].sm) r++;
        if (r == d->rank) return c;
    }
    return NULL;
}

static void keep(const CFI_cdesc_t *d, MPI_Datatype type, MPI_Count count, int blocks,
                 MPI_Datatype made) {
    cached_section *c = &cache[cache_next++ % CACHED_SECTIONS];
    if (c->generation == generation) PMPI_Type_free(&c->made);
    c->generation = generation;
    c->type = type;
    c->made = made;
    c->count = count;
    c->blocks = blocks;
    c->elem_len = d->elem_len;
    c->rank = d->rank;
    for (int r = 0; r < d->rank; r++) {
        c->extent[r] = d->dim[r].extent;
        c->sm[r] = d->dim[r].sm;
    }
}

static void made_into(tw_f08_section *s, MPI_Datatype t, int big_count) {
    s->made = t;
    s->count = 1;
    s->count_c = 1;
    s->datatype = PMPI_Type_c2f(t);
    s->count_arg = big_count ? (void *)&s->count_c : (void *)&s->count;
    s->type_arg = &s->datatype;
}

enum { NOT_ALIKE = -1 };

/* The section as a datatype that count and type describe the whole of (as in a send),
 * or, with blocks, each block of (a collective's per-rank count): MPI_SUCCESS, the
 * class of what was wrong, or NOT_ALIKE when blocks are not all alike. */
static int as_datatype(CFI_cdesc_t *d, MPI_Aint n, void *count, int big_count, void *datatype,
                       int blocks, tw_f08_section *s, const char *call, const char *arg) {
    MPI_Count cnt = big_count ? *(MPI_Count *)count : *(MPI_Fint *)count;
    MPI_Datatype type = PMPI_Type_f2c(*(MPI_Fint *)datatype);
    const cached_section *c = cached(d, type, cnt, blocks);
    if (c) {
        if (c->made == MPI_DATATYPE_NULL) return NOT_ALIKE;
        made_into(s, c->made, big_count);
        return MPI_SUCCESS;
    }
    MPI_Aint lb = 0, extent = 0;
    int rc = PMPI_Type_get_extent(type, &lb, &extent);
    if (rc != MPI_SUCCESS) return rc;
    MPI_Aint elem = (MPI_Aint)d->elem_len;
    if (extent <= 0 || extent > elem || elem % extent != 0)
        return section_error(MPI_ERR_TYPE, call, arg,
                             "the datatype of a non-contiguous array section must fit a whole "
                             "number of times into one element of the array");
    MPI_Aint k = elem / extent; /* datatypes an element holds */
    if (cnt < 0 || cnt % k != 0 || cnt / k > n)
        return section_error(MPI_ERR_COUNT, call, arg,
                             "the count exceeds the array section, or is not whole elements");
    MPI_Aint m = cnt / k, stride = 0;
    if (blocks && m < n && !alike_blocks(d, n, m, &stride)) {
        if (cacheable(type)) keep(d, type, cnt, blocks, MPI_DATATYPE_NULL);
        return NOT_ALIKE;
    }
    MPI_Datatype t = type, next;
    if (k > 1) {
        if ((rc = PMPI_Type_contiguous((int)k, type, &t)) != MPI_SUCCESS) return rc;
    }
    if (m == n) { /* the whole section: a vector of vectors, one a dimension */
        for (int r = 0; r < d->rank && rc == MPI_SUCCESS; r++) {
            rc = PMPI_Type_create_hvector((int)d->dim[r].extent, 1, (MPI_Aint)d->dim[r].sm, t,
                                          &next);
            if (t != type) PMPI_Type_free(&t);
            t = next;
        }
    } else {
        rc = indexed_section(d, m, t, &next);
        if (t != type) PMPI_Type_free(&t);
        t = next;
        if (rc == MPI_SUCCESS && blocks) { /* the next block starts a stride on */
            rc = PMPI_Type_create_resized(t, 0, stride, &next);
            PMPI_Type_free(&t);
            t = next;
        }
    }
    if (rc == MPI_SUCCESS) rc = PMPI_Type_commit(&t);
    if (rc != MPI_SUCCESS) return rc;
    made_into(s, t, big_count);
    if (cacheable(type))
        keep(d, type, cnt, blocks, t);
    else
        s->made_one = 1; /* freed after the call */
    return MPI_SUCCESS;
}

int tw_f08_section_strided(CFI_cdesc_t *d, void *count, int big_count, void *datatype,
                           tw_f08_section *s, const char *call, const char *arg, int how) {
    MPI_Aint n = 1;
    for (int r = 0; r < d->rank; r++) n *= (MPI_Aint)d->dim[r].extent;
    if (n == 0 || (how & TW_F08_FIRST)) return MPI_SUCCESS;
    if (count && datatype) {
        int rc = as_datatype(d, n, count, big_count, datatype, how & TW_F08_BLOCKS, s, call, arg);
        if (rc != NOT_ALIKE) return rc;
    }
    if (!(how & TW_F08_COPY_INOUT))
        return section_error(MPI_ERR_BUFFER, call, arg,
                             "the library keeps this buffer after the call, so it must be "
                             "contiguous (simply contiguous, as the standard says): pass a "
                             "contiguous array");
    /* what the compiler's copy-in and copy-out would do, made safe for a nonblocking
     * call: its request holds the copy until it is complete (tw_f08_sections_held) */
    s->copy = malloc((size_t)n * d->elem_len);
    if (!s->copy) return section_error(MPI_ERR_NO_MEM, call, arg, "no memory for a copy");
    /* copied in for an output too: what the call does not write is kept */
    copy_section(d, s->copy, 0);
    s->copy_out = (how & TW_F08_COPY_OUT) != 0;
    s->desc = d;
    s->addr = s->copy;
    return MPI_SUCCESS;
}

void tw_f08_section_release(tw_f08_section *s) {
    if (s->made_one) PMPI_Type_free(&s->made);
    if (s->copy) {
        if (s->copy_out) copy_section(s->desc, s->copy, 1);
        free(s->copy);
    }
}

/* A nonblocking or persistent call's copies, which its request holds: each with the
 * section's descriptor (the caller's is gone when the call returns). */
typedef struct held_copy {
    CFI_CDESC_T(CFI_MAX_RANK) desc;
    void *copy;
    int copy_out;
} held_copy;
typedef struct held_copies {
    int n;
    held_copy c[];
} held_copies;

static void held_copy_in(void *arg) { /* a persistent request starts again */
    held_copies *h = arg;
    for (int i = 0; i < h->n; i++) copy_section((CFI_cdesc_t *)&h->c[i].desc, h->c[i].copy, 0);
}

static void held_copy_out(void *arg) {
    held_copies *h = arg;
    for (int i = 0; i < h->n; i++)
        if (h->c[i].copy_out) copy_section((CFI_cdesc_t *)&h->c[i].desc, h->c[i].copy, 1);
}

static void held_free(void *arg) {
    held_copies *h = arg;
    for (int i = 0; i < h->n; i++) free(h->c[i].copy);
    free(h);
}

void tw_f08_sections_held(tw_f08_section *const *s, int n, MPI_Fint rc, const MPI_Fint *request) {
    int copies = 0;
    for (int i = 0; i < n; i++) copies += s[i]->copy != NULL;
    if (!copies || rc != MPI_SUCCESS) return; /* tw_f08_section_done frees them */
    held_copies *h = malloc(sizeof *h + sizeof(held_copy) * (size_t)copies);
    if (h) {
        h->n = 0;
        for (int i = 0; i < n; i++) {
            if (!s[i]->copy) continue;
            held_copy *c = &h->c[h->n++];
            memcpy(&c->desc, s[i]->desc,
                   sizeof(CFI_cdesc_t) + sizeof(CFI_dim_t) * (size_t)s[i]->desc->rank);
            c->copy = s[i]->copy;
            c->copy_out = s[i]->copy_out;
        }
    }
    tw_request_hooks_t hooks = {held_copy_in, held_copy_out, held_free, h};
    if (!h || tw_mpifort_request_hooks(PMPI_Request_f2c(*request), &hooks) != MPI_SUCCESS) {
        /* the call runs on with its copies, which are never copied back: said, and
         * kept (freeing them under the running call would be worse) */
        fprintf(stderr, "mpi_f08: a nonblocking call's copy of an array section could not be "
                        "tied to its request: its result stays in the copy\n");
        free(h);
    }
    for (int i = 0; i < n; i++) s[i]->copy = NULL; /* the request's now */
}

/* mpi_f08's MPI_F_sync_reg: as mpif.h's (fortran.c), with a descriptor */
void PMPI_F_sync_reg_f08(CFI_cdesc_t *buf);
void PMPI_F_sync_reg_f08(CFI_cdesc_t *buf) {}
void MPI_F_sync_reg_f08(CFI_cdesc_t *buf) __attribute__((weak, alias("PMPI_F_sync_reg_f08")));
