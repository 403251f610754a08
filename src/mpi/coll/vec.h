/* The arrays of counts and displacements of the v and w collectives: int[] in the
 * int forms, MPI_Count[] and MPI_Aint[] in the large-count (_c) forms. The
 * internals read either through tw_mpi_vec_get, so neither form converts (or
 * allocates) to reach them. */
#ifndef TW_MPI_COLL_VEC_H
#define TW_MPI_COLL_VEC_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

enum { TW_MPI_VEC_INT, TW_MPI_VEC_COUNT, TW_MPI_VEC_AINT };

typedef struct tw_mpi_vec {
    const void *at; /* NULL: no array */
    int kind;       /* TW_MPI_VEC_* */
} tw_mpi_vec_t;

static inline tw_mpi_vec_t tw_mpi_vec_int(const int *a) {
    return (tw_mpi_vec_t){a, TW_MPI_VEC_INT};
}
static inline tw_mpi_vec_t tw_mpi_vec_count(const MPI_Count *a) {
    return (tw_mpi_vec_t){a, TW_MPI_VEC_COUNT};
}
static inline tw_mpi_vec_t tw_mpi_vec_aint(const MPI_Aint *a) {
    return (tw_mpi_vec_t){a, TW_MPI_VEC_AINT};
}

/* Element i of an array that is there. */
static inline MPI_Count tw_mpi_vec_get(tw_mpi_vec_t v, int i) {
    if (v.kind == TW_MPI_VEC_INT) return ((const int *)v.at)[i];
    if (v.kind == TW_MPI_VEC_COUNT) return ((const MPI_Count *)v.at)[i];
    return ((const MPI_Aint *)v.at)[i];
}

#pragma GCC visibility pop

#endif
