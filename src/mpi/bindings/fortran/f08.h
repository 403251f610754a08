/* mpi_f08's choice buffers: a TYPE(*), DIMENSION(..) argument arrives as a descriptor
 * (ISO_Fortran_binding.h). A contiguous one is its address; a non-contiguous array
 * section (a(1:n:3), a 2-D section) becomes a datatype made from the descriptor's
 * strides, so the call reads and writes the section in place, without a copy. */
#ifndef TW_MPI_BINDINGS_FORTRAN_F08_H
#define TW_MPI_BINDINGS_FORTRAN_F08_H

#include <ISO_Fortran_binding.h>

#include "mpi/bindings/fortran/f08_layout.h"
#include "mpi/bindings/fortran/fortran.h"

typedef struct tw_f08_section {
    void *addr;     /* what the call gets as the buffer */
    MPI_Fint count; /* the count and datatype it gets, when made (else the caller's) */
    MPI_Fint datatype;
    MPI_Count count_c; /* the count of a large-count call (_c), when made */
    void *count_arg;   /* pointers to pass: to the made ones, or the caller's */
    MPI_Fint *type_arg;
    MPI_Datatype made; /* freed after the call when made_one */
    int made_one;
    void *copy;   /* a contiguous copy of the section (TW_F08_COPY_*), freed after */
    int copy_out; /* copied back into the section after the call */
    const CFI_cdesc_t *desc;
} tw_f08_section;

/* How a non-contiguous section is passed (a mask): copied to a contiguous buffer
 * before the call, and back after it, as the directions say (a nonblocking or
 * persistent call's request holds the copy: tw_f08_sections_held); without either,
 * an error (MPI_ERR_BUFFER: the library keeps the buffer). A section with a count and
 * datatype of its own is passed in place as a datatype instead; with BLOCKS the count
 * is a collective's per block, and only a section whose blocks are alike is (else
 * copied). FIRST: the call uses one datatype's worth, at the section's start. */
enum {
    TW_F08_NO_COPY = 0,
    TW_F08_COPY_IN = 1,
    TW_F08_COPY_OUT = 2,
    TW_F08_COPY_INOUT = 3,
    TW_F08_BLOCKS = 4,
    TW_F08_FIRST = 8,
};

/* CFI_is_contiguous's test, here so that libmpifort needs no Fortran runtime */
static inline int tw_f08_contiguous(const CFI_cdesc_t *d) {
    CFI_index_t sm = (CFI_index_t)d->elem_len;
    for (int r = 0; r < d->rank; r++) {
        if (d->dim[r].extent > 1 && d->dim[r].sm != sm) return 0;
        sm *= d->dim[r].extent;
    }
    return 1;
}

/* a buffer passed as its address: a scalar, or a contiguous array */
static inline int tw_f08_simple(const CFI_cdesc_t *d) {
    if (d->rank == 1) /* most buffers: no loop */
        return d->dim[0].sm == (CFI_index_t)d->elem_len || d->dim[0].extent <= 1;
    return d->rank == 0 || tw_f08_contiguous(d);
}

int tw_f08_section_strided(CFI_cdesc_t *d, void *count, int big_count, void *datatype,
                           tw_f08_section *s, const char *call, const char *arg, int how);

/* The buffer of call `call`'s argument `arg` (descriptor d); count and datatype are
 * the caller's (Fortran INTEGERs, the count INTEGER(KIND=MPI_COUNT_KIND) when
 * big_count), or NULL when the buffer has no pair of its own (MPI_Reduce's two share
 * one). Returns MPI_SUCCESS or the class of what was wrong, after calling the world's
 * error handler. Inline: a scalar or contiguous buffer, the common case of every
 * call, costs its test and no call. */
static inline int tw_f08_section_of(CFI_cdesc_t *d, void *count, int big_count, void *datatype,
                                    tw_f08_section *s, const char *call, const char *arg, int how) {
    s->addr = tw_f_buf(d->base_addr);
    s->count_arg = count;
    s->type_arg = datatype;
    if (d->rank == 0 || tw_f08_contiguous(d)) return MPI_SUCCESS;
    return tw_f08_section_strided(d, count, big_count, datatype, s, call, arg, how);
}

/* After a nonblocking or persistent call (rc its result, request its Fortran
 * handle): the copies of its n sections go to the request, which copies them in
 * before each start, back when complete, and frees them with itself. */
void tw_f08_sections_held(tw_f08_section *const *s, int n, MPI_Fint rc, const MPI_Fint *request);
void tw_f08_section_release(tw_f08_section *s);
/* After the call: a datatype made for it freed, a copy copied back and freed. */
static inline void tw_f08_section_done(tw_f08_section *s) {
    if (s->made_one || s->copy) tw_f08_section_release(s);
}

#endif
