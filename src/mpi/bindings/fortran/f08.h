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

/* What a buffer without a count and datatype of its own (MPI_Reduce's two share one)
 * does when it is a non-contiguous section: an error (the library keeps the buffer, or
 * the call returns before it is done), or a contiguous copy made before the call of a
 * blocking one, copied back after it for an output */
enum { TW_F08_NO_COPY, TW_F08_COPY_IN, TW_F08_COPY_OUT, TW_F08_COPY_INOUT };

/* The buffer of call `call`'s argument `arg` (descriptor d); count and datatype are
 * the caller's (Fortran INTEGERs, the count INTEGER(KIND=MPI_COUNT_KIND) when
 * big_count), or NULL when the buffer has no pair of its own (a
 * non-contiguous section is then copied as `copy` says, or is an error:
 * MPI_ERR_BUFFER). Returns MPI_SUCCESS or the class of what was wrong, after calling
 * the world's error handler. */
int tw_f08_section_of(CFI_cdesc_t *d, void *count, int big_count, void *datatype, tw_f08_section *s,
                      const char *call, const char *arg, int copy);
void tw_f08_section_done(tw_f08_section *s);

#endif
