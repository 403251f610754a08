/* The large-count datatype calls (MPI-4.1 chapter 5, the _c forms): constructors
 * whose counts, block lengths and displacements are MPI_Count, the queries that
 * answer in MPI_Count, and packing with MPI_Count sizes and positions. The maps
 * (typemap.c) hold sizes and counts as MPI_Count and size_t already; a type made
 * here records its arguments as large counts (MPI_Type_get_contents_c), in the
 * order MPI-4.1 table 5.1 gives them. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/external32.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

/* The checks every constructor makes first. */
static int check_new(const char *call, MPI_Count count, const MPI_Datatype *newtype) {
    NEED_INIT(call);
    if (count < 0) return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "negative count");
    if (!newtype) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "newtype is NULL");
    return MPI_SUCCESS;
}

/* Appends n items of old at disp, raising the error of a failure (map freed). */
static int append(const char *call, tw_typemap_t *map, const tw_typemap_t *old, MPI_Count n,
                  MPI_Aint disp, MPI_Aint stride) {
    if (n < 0) {
        tw_typemap_free(map);
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative block length");
    }
    int rc = tw_typemap_append(map, old, n, disp, stride);
    if (rc) {
        tw_typemap_free(map);
        return tw_mpi_error(NULL, call, rc,
                            rc == MPI_ERR_ARG ? "the type's size or bounds overflow" : NULL);
    }
    return MPI_SUCCESS;
}

/* a * b in bytes, or MPI_ERR_ARG raised */
static int scaled(const char *call, MPI_Count a, MPI_Aint b, MPI_Aint *out) {
    if (__builtin_mul_overflow(a, b, out))
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "a displacement overflows");
    return MPI_SUCCESS;
}

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype) {
    const char *call = "MPI_Type_contiguous_c";
    int rc = check_new(call, count, newtype);
    const tw_typemap_t *old = rc ? NULL : tw_mpi_type_old_map(call, oldtype, &rc);
    if (rc) return rc;
    tw_typemap_t map;
    tw_typemap_init(&map);
    if ((rc = append(call, &map, old, count, 0, tw_typemap_extent(old)))) return rc;
    return tw_mpi_type_create(call, &map, MPI_COMBINER_CONTIGUOUS, 0, NULL, 0, NULL, 1, &count, 1,
                              &oldtype, newtype);
}

/* count blocks of blocklength items, stride bytes apart */
static int vector(const char *call, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                  int stride_in_bytes, MPI_Datatype oldtype, int combiner, MPI_Datatype *newtype) {
    int rc = check_new(call, count, newtype);
    const tw_typemap_t *old = rc ? NULL : tw_mpi_type_old_map(call, oldtype, &rc);
    if (rc) return rc;
    MPI_Aint extent = tw_typemap_extent(old), bytes = (MPI_Aint)stride;
    if (!stride_in_bytes && (rc = scaled(call, stride, extent, &bytes))) return rc;
    tw_typemap_t block, map;
    tw_typemap_init(&block);
    if ((rc = append(call, &block, old, blocklength, 0, extent))) return rc;
    tw_typemap_init(&map);
    rc = append(call, &map, &block, count, 0, bytes);
    tw_typemap_free(&block);
    if (rc) return rc;
    MPI_Count counts[] = {count, blocklength, stride};
    return tw_mpi_type_create(call, &map, combiner, 0, NULL, 0, NULL, 3, counts, 1, &oldtype,
                              newtype);
}

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return vector("MPI_Type_vector_c", count, blocklength, stride, 0, oldtype, MPI_COMBINER_VECTOR,
                  newtype);
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype) {
    return vector("MPI_Type_create_hvector_c", count, blocklength, stride, 1, oldtype,
                  MPI_COMBINER_HVECTOR, newtype);
}

/* The indexed constructors: block k of lens[k] items (or len, lens NULL) at
 * disps[k], in extents of the old type or (in_bytes) in bytes. The large counts
 * recorded: count, the lengths (or len), the displacements. */
static int indexed(const char *call, MPI_Count count, const MPI_Count *lens, MPI_Count len,
                   const MPI_Count *disps, int in_bytes, MPI_Datatype oldtype, int combiner,
                   MPI_Datatype *newtype) {
    int rc = check_new(call, count, newtype);
    if (!rc && !lens && len < 0)
        rc = tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative block length");
    if (!rc && count > 0 && !disps) rc = tw_mpi_error(NULL, call, MPI_ERR_ARG, "an array is NULL");
    const tw_typemap_t *old = rc ? NULL : tw_mpi_type_old_map(call, oldtype, &rc);
    if (rc) return rc;
    if (count > INT_MAX) return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "more blocks than an int");
    MPI_Aint extent = tw_typemap_extent(old);
    tw_typemap_t map;
    tw_typemap_init(&map);
    for (MPI_Count k = 0; k < count; k++) {
        MPI_Aint at = (MPI_Aint)disps[k];
        if (!in_bytes && (rc = scaled(call, disps[k], extent, &at))) {
            tw_typemap_free(&map);
            return rc;
        }
        if ((rc = append(call, &map, old, lens ? lens[k] : len, at, extent))) return rc;
    }
    size_t nlens = lens ? (size_t)count : 1, n = 1 + nlens + (size_t)count;
    MPI_Count *counts = malloc(n * sizeof *counts);
    if (!counts) {
        tw_typemap_free(&map);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    counts[0] = count;
    if (lens)
        memcpy(counts + 1, lens, nlens * sizeof *counts);
    else
        counts[1] = len;
    if (count) memcpy(counts + 1 + nlens, disps, (size_t)count * sizeof *counts);
    rc = tw_mpi_type_create(call, &map, combiner, 0, NULL, 0, NULL, (int)n, counts, 1, &oldtype,
                            newtype);
    free(counts);
    return rc;
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype) {
    if (count > 0 && !array_of_blocklengths) {
        NEED_INIT("MPI_Type_indexed_c");
        return tw_mpi_error(NULL, "MPI_Type_indexed_c", MPI_ERR_ARG, "an array is NULL");
    }
    return indexed("MPI_Type_indexed_c", count, array_of_blocklengths, 0, array_of_displacements, 0,
                   oldtype, MPI_COMBINER_INDEXED, newtype);
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype) {
    if (count > 0 && !array_of_blocklengths) {
        NEED_INIT("MPI_Type_create_hindexed_c");
        return tw_mpi_error(NULL, "MPI_Type_create_hindexed_c", MPI_ERR_ARG, "an array is NULL");
    }
    return indexed("MPI_Type_create_hindexed_c", count, array_of_blocklengths, 0,
                   array_of_displacements, 1, oldtype, MPI_COMBINER_HINDEXED, newtype);
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype) {
    return indexed("MPI_Type_create_indexed_block_c", count, NULL, blocklength,
                   array_of_displacements, 0, oldtype, MPI_COMBINER_INDEXED_BLOCK, newtype);
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype) {
    return indexed("MPI_Type_create_hindexed_block_c", count, NULL, blocklength,
                   array_of_displacements, 1, oldtype, MPI_COMBINER_HINDEXED_BLOCK, newtype);
}

int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype *newtype) {
    const char *call = "MPI_Type_create_struct_c";
    int rc = check_new(call, count, newtype);
    if (rc) return rc;
    if (count > 0 && (!array_of_blocklengths || !array_of_displacements || !array_of_types))
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "an array is NULL");
    if (count > INT_MAX) return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "more blocks than an int");
    tw_typemap_t map;
    tw_typemap_init(&map);
    for (MPI_Count k = 0; k < count; k++) {
        const tw_typemap_t *old = tw_mpi_type_old_map(call, array_of_types[k], &rc);
        if (!old) {
            tw_typemap_free(&map);
            return rc;
        }
        if ((rc = append(call, &map, old, array_of_blocklengths[k],
                         (MPI_Aint)array_of_displacements[k], tw_typemap_extent(old))))
            return rc;
    }
    tw_typemap_pad(&map);
    size_t n = 1 + 2 * (size_t)count;
    MPI_Count *counts = malloc(n * sizeof *counts);
    if (!counts) {
        tw_typemap_free(&map);
        return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    }
    counts[0] = count;
    if (count) {
        memcpy(counts + 1, array_of_blocklengths, (size_t)count * sizeof *counts);
        memcpy(counts + 1 + count, array_of_displacements, (size_t)count * sizeof *counts);
    }
    rc = tw_mpi_type_create(call, &map, MPI_COMBINER_STRUCT, 0, NULL, 0, NULL, (int)n, counts,
                            (int)count, array_of_types, newtype);
    free(counts);
    return rc;
}

int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                               const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype *newtype) {
    return tw_mpi_type_subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes,
                                array_of_subsizes, array_of_starts, order, oldtype, newtype, 1);
}

int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[],
                             const int array_of_psizes[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype) {
    return tw_mpi_type_darray("MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes,
                              array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype,
                              newtype, 1);
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype *newtype) {
    const char *call = "MPI_Type_create_resized_c";
    int rc = check_new(call, 0, newtype);
    const tw_typemap_t *old = rc ? NULL : tw_mpi_type_old_map(call, oldtype, &rc);
    if (rc) return rc;
    MPI_Aint ub;
    if (__builtin_add_overflow(lb, extent, &ub))
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "lb + extent overflows");
    tw_typemap_t map;
    if (tw_typemap_copy(&map, old)) return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    tw_typemap_resize(&map, (MPI_Aint)lb, (MPI_Aint)extent);
    MPI_Count counts[] = {lb, extent};
    return tw_mpi_type_create(call, &map, MPI_COMBINER_RESIZED, 0, NULL, 0, NULL, 2, counts, 1,
                              &oldtype, newtype);
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                            MPI_Count *num_addresses, MPI_Count *num_large_counts,
                            MPI_Count *num_datatypes, int *combiner) {
    if (!num_large_counts) {
        NEED_INIT("MPI_Type_get_envelope_c");
        return tw_mpi_error(NULL, "MPI_Type_get_envelope_c", MPI_ERR_ARG, "an output is NULL");
    }
    return tw_mpi_type_envelope("MPI_Type_get_envelope_c", datatype, num_integers, num_addresses,
                                num_large_counts, num_datatypes, combiner);
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes,
                            int array_of_integers[], MPI_Aint array_of_addresses[],
                            MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) {
    if (max_large_counts < 0) max_large_counts = 0; /* -1 names the int form inside */
    return tw_mpi_type_contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
                                max_large_counts, max_datatypes, array_of_integers,
                                array_of_addresses, array_of_large_counts, array_of_datatypes);
}

/* ---- sizes, extents, counts ---- */

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size) {
    return tw_mpi_type_size("MPI_Type_size_c", datatype, size);
}

static int bounds_c(const char *call, MPI_Datatype datatype, int true_bounds, MPI_Count *lb,
                    MPI_Count *extent) {
    MPI_Aint l = 0, e = 0;
    int rc = tw_mpi_type_bounds(call, datatype, true_bounds, lb ? &l : NULL, extent ? &e : NULL);
    if (!rc) *lb = l, *extent = e;
    return rc;
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent) {
    return bounds_c("MPI_Type_get_extent_c", datatype, 0, lb, extent);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent) {
    return bounds_c("MPI_Type_get_true_extent_c", datatype, 1, true_lb, true_extent);
}

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
    return tw_mpi_status_count("MPI_Get_count_c", status, datatype, 0, count);
}

int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
    return tw_mpi_status_count("MPI_Get_elements_c", status, datatype, 1, count);
}

/* ---- packing ---- */

int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
               MPI_Count outsize, MPI_Count *position, MPI_Comm comm) {
    return tw_mpi_pack("MPI_Pack_c", 0, (void *)(uintptr_t)inbuf, incount, datatype, outbuf,
                       outsize, position, comm);
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
    return tw_mpi_pack("MPI_Unpack_c", 1, outbuf, outcount, datatype, (void *)(uintptr_t)inbuf,
                       insize, position, comm);
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size) {
    return tw_mpi_pack_size("MPI_Pack_size_c", incount, datatype, comm, size);
}

int MPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                        MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                        MPI_Count *position) {
    MPI_Aint at = position ? (MPI_Aint)*position : 0;
    int rc =
        tw_mpi_pack_external("MPI_Pack_external_c", 0, datarep, (void *)(uintptr_t)inbuf, incount,
                             datatype, outbuf, (MPI_Aint)outsize, position ? &at : NULL);
    if (!rc) *position = at;
    return rc;
}

int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                          MPI_Count *position, void *outbuf, MPI_Count outcount,
                          MPI_Datatype datatype) {
    MPI_Aint at = position ? (MPI_Aint)*position : 0;
    int rc =
        tw_mpi_pack_external("MPI_Unpack_external_c", 1, datarep, outbuf, outcount, datatype,
                             (void *)(uintptr_t)inbuf, (MPI_Aint)insize, position ? &at : NULL);
    if (!rc) *position = at;
    return rc;
}

int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                             MPI_Count *size) {
    MPI_Aint s = 0;
    int rc = tw_mpi_pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype,
                                       size ? &s : NULL);
    if (!rc) *size = s;
    return rc;
}
