/* MPICH's ABI, what its table (face.json) cannot say as data (docs/abi.md): how its
 * MPI_Status keeps the count and the cancelled bit. Included by the generated
 * face_mpich.c after the face's header and mpi/bindings/face.h. */
#ifndef TW_MPI_ABI_MPICH_HOOKS_H
#define TW_MPI_ABI_MPICH_HOOKS_H

/* MPICH: count_lo the count's low 32 bits, count_hi_and_cancelled its high bits
 * shifted left by one over the cancelled bit (MPIR_STATUS_SET_COUNT) */
static inline void tw_face_status_count_out(const tw_native_status *n, MPI_Status *s) {
    s->count_lo = n->count_lo;
    s->count_hi_and_cancelled = (int)((unsigned)n->count_hi << 1 | (unsigned)(n->cancelled & 1));
}

static inline void tw_face_status_count_in(const MPI_Status *s, tw_native_status *n) {
    n->count_lo = s->count_lo;
    n->count_hi = (int)((unsigned)s->count_hi_and_cancelled >> 1);
    n->cancelled = s->count_hi_and_cancelled & 1;
}

#endif
