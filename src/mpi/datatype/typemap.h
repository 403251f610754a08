/* The flattened form of a datatype: what one item's data is and where it lies.
 *
 * One item is a list of blocks in type order, each a run of `reps` pieces of `len`
 * bytes, `stride` bytes apart, starting `disp` bytes from the item's origin.
 * Neighbouring pieces merge as the map is built, so a vector of doubles is one
 * block whatever its count, and packing it is one tight loop of fixed-size copies.
 * The type signature (for MPI_Get_elements) is kept alongside as runs of one
 * predefined type.
 *
 * The packed form of a predefined type is its data: the MINLOC/MAXLOC pairs are
 * their value then their int, without their C struct's padding (MPI-3.1 section
 * 5.9.4), as their messages are. This engine knows nothing of handles beyond the
 * predefined ones; datatype.c owns those. */
#ifndef TW_MPI_TYPEMAP_H
#define TW_MPI_TYPEMAP_H

#include <stddef.h>

#include <mpi.h>

#pragma GCC visibility push(hidden)

typedef struct tw_typemap_block {
    MPI_Aint disp;   /* of the first piece, from the item's origin */
    size_t len;      /* bytes of each piece */
    size_t reps;     /* pieces */
    MPI_Aint stride; /* from one piece to the next (reps > 1) */
    size_t pos;      /* where the block starts in the packed item */
} tw_typemap_block_t;

typedef struct tw_typemap_run {
    MPI_Datatype basic; /* a predefined type */
    MPI_Count n;        /* items of it */
} tw_typemap_run_t;

typedef struct tw_typemap {
    tw_typemap_block_t *blocks;
    size_t nblocks, blocks_cap;
    tw_typemap_run_t *runs;
    size_t nruns, runs_cap;
    MPI_Count size;      /* packed bytes of one item */
    MPI_Count data_size; /* MPI_Type_size: bytes of the signature's basic elements */
    MPI_Count elements;  /* basic elements of one item (a pair counts two) */
    MPI_Aint lb, ub;     /* bounds, markers of resized types included */
    MPI_Aint true_lb, true_ub;
    int has_bounds, has_data;
    int explicit_bounds;  /* set by a resize: a struct around it pads nothing */
    int align;            /* the strictest alignment of its basic types */
    MPI_Datatype element; /* its one basic type, or MPI_DATATYPE_NULL (mixed or none) */
} tw_typemap_t;

/* An empty map (no data, bounds 0). */
void tw_typemap_init(tw_typemap_t *tm);
void tw_typemap_free(tw_typemap_t *tm);
/* One item of a predefined type. MPI_SUCCESS or MPI_ERR_NO_MEM. */
int tw_typemap_basic(tw_typemap_t *tm, MPI_Datatype basic);
/* Appends n copies of src, copy k at disp + k * stride from tm's origin.
 * MPI_SUCCESS, MPI_ERR_NO_MEM, or MPI_ERR_ARG when a size or address overflows. */
int tw_typemap_append(tw_typemap_t *tm, const tw_typemap_t *src, MPI_Count n, MPI_Aint disp,
                      MPI_Aint stride);
/* A struct's extent rounded up to its alignment, unless a member set its bounds. */
void tw_typemap_pad(tw_typemap_t *tm);
/* New bounds [lb, lb + extent); marks them explicit. */
void tw_typemap_resize(tw_typemap_t *tm, MPI_Aint lb, MPI_Aint extent);
/* A deep copy; MPI_SUCCESS or MPI_ERR_NO_MEM. */
int tw_typemap_copy(tw_typemap_t *dst, const tw_typemap_t *src);

static inline MPI_Aint tw_typemap_extent(const tw_typemap_t *tm) {
    return tm->ub - tm->lb;
}

/* Bytes [first, first + len) of the packed form of count items at buf are copied
 * from buf into packed (unpack = 0) or from packed into buf (unpack = 1); packed
 * holds exactly those len bytes. The range lies within count * size. */
void tw_typemap_move(const tw_typemap_t *tm, void *buf, MPI_Count count, void *packed, size_t first,
                     size_t len, int unpack);
/* Basic elements in the first `bytes` bytes of a packed stream of items; -1 when
 * the bytes end inside a basic element (but a pair's: its value there whole counts,
 * as a struct's member would). */
MPI_Count tw_typemap_elements(const tw_typemap_t *tm, MPI_Count bytes);

/* Facts about predefined types the engine and the calls share. */
int tw_mpi_basic_data_size(MPI_Datatype basic);  /* MPI_Type_size */
int tw_mpi_basic_value_size(MPI_Datatype basic); /* a pair's value member; 0 otherwise */
int tw_mpi_basic_align(MPI_Datatype basic);

/* The packed bytes of one of the MINLOC/MAXLOC pairs whose C struct pads (handle kind 0x4d,
 * mpi.h): its type map is the value, then the int right after it
 * (MPI-3.1 section 5.9.4), and it travels so. */
int tw_mpi_padded_pair_size(MPI_Datatype pair);

#pragma GCC visibility pop

#endif
