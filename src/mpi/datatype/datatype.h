/* Datatypes (datatype.c): extents, layouts, packing, and the staging of
 * non-contiguous buffers through a packed window. */
#ifndef TW_MPI_DATATYPE_H
#define TW_MPI_DATATYPE_H

#include <stddef.h>

#include <mpi.h>

#include "mpi/datatype/typemap.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* predefined datatypes are ids 1..64 (43..62: Fortran's; 63, 64: the 16-bit floats) */
enum { TW_MPI_TYPE_IDS = 64 };

/* Bytes one item of a datatype spans in a buffer; -1: not a datatype. */
static inline int tw_mpi_type_extent(MPI_Datatype type) {
    unsigned id = (unsigned)type & 0xff;
    /* 0x4c or 0x4d: a predefined type, contiguous or a padded pair */
    if (((unsigned)type >> 25) != 0x4c >> 1 || id == 0 || id > TW_MPI_TYPE_IDS) return -1;
    return ((unsigned)type >> 8) & 0xff;
}

/* The MINLOC/MAXLOC pairs whose C struct pads (MPI_DOUBLE_INT, MPI_LONG_INT,
 * MPI_SHORT_INT, MPI_LONG_DOUBLE_INT) are of their own handle kind, 0x4d (mpi.h). */
static inline int tw_mpi_type_padded_pair(MPI_Datatype type) {
    return ((unsigned)type >> 24) == 0x4d;
}

/* Packed bytes of one item of a predefined type: its data, in type order. That is its
 * extent but for the padded pairs. */
static inline int tw_mpi_basic_packed_size(MPI_Datatype basic) {
    if (__builtin_expect(tw_mpi_type_padded_pair(basic), 0)) return tw_mpi_padded_pair_size(basic);
    return tw_mpi_type_extent(basic);
}

/* The bytes of one item of a predefined type whose data fill its extent, so that
 * count items are count * size contiguous bytes (every predefined type but the
 * padded pairs); -1 for any other type. One test of the handle: every call with a
 * buffer asks. */
static inline int tw_mpi_type_contiguous_size(MPI_Datatype type) {
    unsigned id = (unsigned)type & 0xff;
    if (((unsigned)type >> 24) != 0x4c || id == 0 || id > TW_MPI_TYPE_IDS) return -1;
    return ((unsigned)type >> 8) & 0xff;
}

/* The layout of any datatype, predefined or derived. */
typedef struct tw_mpi_type_layout {
    MPI_Count size;                /* bytes of one item packed (its data only) */
    MPI_Aint lb, extent;           /* where one item starts and how far the next one is */
    MPI_Aint true_lb, true_extent; /* the bytes one item really touches */
    int contiguous;       /* one item's data fills [lb, lb + size) and extent == size, so count
                             items are count * size contiguous bytes from buf + lb */
    MPI_Datatype element; /* the one predefined type all its basic elements are (what
                             a reduction applies its op to); MPI_DATATYPE_NULL if mixed */
} tw_mpi_type_layout_t;

/* The layout of a contiguous predefined type of size bytes, read off its handle: one
 * block of size bytes at 0 (the map tw_typemap_basic builds). Inline: every call with
 * a buffer asks, and the smallest collectives take 0.1 us. */
static inline tw_mpi_type_layout_t tw_mpi_type_basic_layout(MPI_Datatype type, int size) {
    return (tw_mpi_type_layout_t){.size = size,
                                  .lb = 0,
                                  .extent = size,
                                  .true_lb = 0,
                                  .true_extent = size,
                                  .contiguous = 1,
                                  .element = type};
}

/* The layout read off a type's map: a derived type's (held: also one the program freed
 * while an operation holds it) or a padded pair's; MPI_SUCCESS or MPI_ERR_TYPE. */
int tw_mpi_type_mapped_layout(MPI_Datatype type, tw_mpi_type_layout_t *layout, int held);

/* MPI_SUCCESS, or MPI_ERR_TYPE when type names no datatype, or one not committed. */
static inline int tw_mpi_type_layout(MPI_Datatype type, tw_mpi_type_layout_t *layout) {
    int size = tw_mpi_type_contiguous_size(type);
    if (size < 0) return tw_mpi_type_mapped_layout(type, layout, 0);
    *layout = tw_mpi_type_basic_layout(type, size);
    return MPI_SUCCESS;
}
/* The same for the library's own work on a type it checked: also one the program
 * freed since, while an operation holds it (a non-blocking collective's). */
static inline int tw_mpi_type_layout_held(MPI_Datatype type, tw_mpi_type_layout_t *layout) {
    int size = tw_mpi_type_contiguous_size(type);
    if (size < 0) return tw_mpi_type_mapped_layout(type, layout, 1);
    *layout = tw_mpi_type_basic_layout(type, size);
    return MPI_SUCCESS;
}
/* Copies the data of count items at buf into packed, contiguous and in type order,
 * and back. The type was checked by tw_mpi_type_layout. */
void tw_mpi_type_pack(const void *buf, MPI_Count count, MPI_Datatype type, void *packed);
void tw_mpi_type_unpack(const void *packed, MPI_Count count, MPI_Datatype type, void *buf);
/* The same for bytes [first, first + len) of the packed stream only (packed holds
 * just those bytes): a stream can be moved in pieces of bounded size. */
void tw_mpi_type_pack_range(const void *buf, MPI_Count count, MPI_Datatype type, size_t first,
                            size_t len, void *packed);
void tw_mpi_type_unpack_range(const void *packed, MPI_Count count, MPI_Datatype type, size_t first,
                              size_t len, void *buf);

/* Where count items of a type lie for a transfer: bytes of packed data, and either
 * their one contiguous span (at; NULL when bytes is 0 and buf was) or, when staged,
 * none (the data must be packed and unpacked through a copy). */
typedef struct tw_mpi_buffer {
    unsigned char *at;
    size_t bytes;
    int staged;
} tw_mpi_buffer_t;
/* MPI_SUCCESS, MPI_ERR_TYPE (not a committed datatype) or MPI_ERR_COUNT (too many
 * bytes). Contiguous predefined types never take this path in the hot calls. */
int tw_mpi_type_buffer(MPI_Datatype type, const void *buf, MPI_Count count, tw_mpi_buffer_t *out);

/* A non-contiguous buffer moved through a packed window by a send or receive
 * request, which owns it: a send packs into the window when it starts, a receive
 * unpacks what arrives as it arrives; the request frees it with itself. It keeps
 * the datatype alive meanwhile (MPI_Type_free of a type in use is safe). */
typedef struct tw_mpi_staged tw_mpi_staged_t;
/* Staging keeps a window of TW_PACK_CHUNK bytes at most: a receive unpacks eager
 * data straight from the message and gets a rendezvous one chunk at a time; a send
 * longer than a chunk packs one chunk into its window at a time, and tells the
 * receiver (TW_MPI_READY) each time a new one is there to get. */
enum { TW_PACK_CHUNK = 256 << 10 };
/* window: the bytes of packed copy to keep (at most the whole stream) */
int tw_mpi_staged_new(void *buf, MPI_Count count, MPI_Datatype type, size_t window,
                      tw_mpi_staged_t **out);
void *tw_mpi_staged_data(const tw_mpi_staged_t *s);   /* the window */
size_t tw_mpi_staged_bytes(const tw_mpi_staged_t *s); /* the whole packed stream */
/* Packs the stream from byte first into the window, as much as it holds. */
void tw_mpi_staged_pack_at(tw_mpi_staged_t *s, size_t first);
/* Bytes [first, first + len) of the stream (what of them there is), to to. */
void tw_mpi_staged_pack_range(const tw_mpi_staged_t *s, size_t first, size_t len, void *to);
/* Unpacks bytes [first, first + len) of the stream, held at from. */
void tw_mpi_staged_unpack_at(tw_mpi_staged_t *s, const void *from, size_t first, size_t len);
void tw_mpi_staged_free(tw_mpi_staged_t *s);

/* A non-blocking operation that names a type in its steps holds its handle until
 * it ends: MPI_Type_free meanwhile leaves the handle naming the type for the
 * library (not for the program). Predefined types need no hold (nothing happens). */
void tw_mpi_type_hold(MPI_Datatype type);
void tw_mpi_type_release(MPI_Datatype type);

/* A type MPI_Type_create_f90_* returns: a committed copy of a predefined type whose
 * envelope is combiner and ints, and which MPI_Type_free refuses. Raises errors. */
int tw_mpi_type_f90(MPI_Datatype basic, int combiner, int nints, const int *ints,
                    MPI_Datatype *newtype);

/* The map of a committed or predefined datatype (datatype.c), or NULL. */
struct tw_typemap;
const struct tw_typemap *tw_mpi_type_map(MPI_Datatype type);

/* for the large-count forms (MPI_Count counts; the int forms call these too) */
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
/* unpack 0: user to packed; 1: back */
int tw_mpi_pack(const char *call, int unpack, void *user, MPI_Count count, MPI_Datatype datatype,
                void *packed, MPI_Count packed_size, MPI_Count *position, MPI_Comm comm);
int tw_mpi_pack_size(const char *call, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count *size);

#pragma GCC visibility pop

#endif
