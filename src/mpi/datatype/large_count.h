/* What the large-count datatype calls (datatype/large_count.c) share with the int
 * forms (datatype.c, external32.c, grequest.c): counts, sizes and positions are
 * MPI_Count, call names the call for its errors. */
#ifndef TW_MPI_DATATYPE_LARGE_COUNT_H
#define TW_MPI_DATATYPE_LARGE_COUNT_H

#include <mpi.h>

#include "mpi/typemap.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* A new derived type around a built map (taken over, freed on failure) and the
 * arguments MPI_Type_get_contents(_c) gives back: ncounts > 0 marks a type of a
 * large-count constructor, which the int forms of the two queries refuse. */
int tw_mpi_type_create(const char *call, tw_typemap_t *map, int combiner, int nints,
                       const int *ints, int naints, const MPI_Aint *aints, int ncounts,
                       const MPI_Count *counts, int ntypes, const MPI_Datatype *types,
                       MPI_Datatype *newtype);
/* The map of a constructor's old type (any datatype, committed or not), or NULL with
 * MPI_ERR_TYPE raised. */
const tw_typemap_t *tw_mpi_type_old_map(const char *call, MPI_Datatype type, int *rc);
/* The array constructors; large: the _c form (its counts recorded as large counts) */
int tw_mpi_type_subarray(const char *call, int ndims, const MPI_Count *sizes,
                         const MPI_Count *subsizes, const MPI_Count *starts, int order,
                         MPI_Datatype oldtype, MPI_Datatype *newtype, int large);
int tw_mpi_type_darray(const char *call, int size, int rank, int ndims,
                       const MPI_Count array_of_gsizes[], const int array_of_distribs[],
                       const int array_of_dargs[], const int array_of_psizes[], int order,
                       MPI_Datatype oldtype, MPI_Datatype *newtype, int large);
/* num_large_counts NULL: the int form */
int tw_mpi_type_envelope(const char *call, MPI_Datatype datatype, MPI_Count *num_integers,
                         MPI_Count *num_addresses, MPI_Count *num_large_counts,
                         MPI_Count *num_datatypes, int *combiner);
/* max_large_counts -1: the int form */
int tw_mpi_type_contents(const char *call, MPI_Datatype datatype, MPI_Count max_integers,
                         MPI_Count max_addresses, MPI_Count max_large_counts,
                         MPI_Count max_datatypes, int array_of_integers[],
                         MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                         MPI_Datatype array_of_datatypes[]);
int tw_mpi_type_size(const char *call, MPI_Datatype datatype, MPI_Count *size);
int tw_mpi_type_bounds(const char *call, MPI_Datatype type, int true_bounds, MPI_Aint *lb,
                       MPI_Aint *extent);
/* elements 0: MPI_Get_count's items; 1: basic elements */
int tw_mpi_status_count(const char *call, const MPI_Status *status, MPI_Datatype type, int elements,
                        MPI_Count *count);
int tw_mpi_status_set_elements(const char *call, MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count);
/* unpack 0: user to packed; 1: back */
int tw_mpi_pack(const char *call, int unpack, void *user, MPI_Count count, MPI_Datatype datatype,
                void *packed, MPI_Count packed_size, MPI_Count *position, MPI_Comm comm);
int tw_mpi_pack_size(const char *call, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count *size);
int tw_mpi_pack_external(const char *call, int unpack, const char datarep[], void *user,
                         MPI_Count count, MPI_Datatype datatype, void *packed, MPI_Aint packed_size,
                         MPI_Aint *position);
int tw_mpi_pack_external_size(const char *call, const char datarep[], MPI_Count incount,
                              MPI_Datatype datatype, MPI_Aint *size);

#pragma GCC visibility pop

#endif
