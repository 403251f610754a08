/* Data representations of files (MPI-4.1 section 14.5): "native" (and "internal", the
 * same), "external32", and those MPI_Register_datarep registers.
 *
 * A view in a representation other than native is mapped in the representation's
 * sizes: each predefined type of its etype and filetype takes the bytes the
 * representation gives it (external32's, or the extent function's), so the file
 * side's types are rebuilt with those sizes (tw_io_datarep_file_type). An access
 * converts its items, a bounded chunk at a time, through the representation's
 * conversion functions (external32's are built in, with the same interface as a
 * program's), between the program's buffer and the file bytes of the view's stream. */
#ifndef TW_MPI_IO_DATAREP_H
#define TW_MPI_IO_DATAREP_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* How the bytes of the view's stream are written in the file. */
enum { TW_IO_NATIVE, TW_IO_EXTERNAL32, TW_IO_USER };

typedef struct tw_io_datarep tw_io_datarep_t;

/* The representation named name, or NULL when there is none of that name. */
tw_io_datarep_t *tw_io_datarep_find(const char *name);

/* A TW_IO_*. */
int tw_io_datarep_kind(const tw_io_datarep_t *rep);

/* The bytes one item of type takes in rep's file representation, in *size. MPI_SUCCESS
 * or a class, *detail saying why. */
int tw_io_datarep_type_size(tw_io_datarep_t *rep, MPI_Datatype type, MPI_Count *size,
                            const char **detail);

/* type rebuilt for the file side of rep (not native): each predefined type in it
 * replaced by the bytes it takes in the file; displacements counted in old types
 * (contiguous, vector, indexed, subarray, darray: the standard's portable types) so
 * scale with it, byte displacements (hvector, hindexed, struct, resized) are kept as
 * they are. A new committed type the caller frees. MPI_SUCCESS or a class. */
int tw_io_datarep_file_type(tw_io_datarep_t *rep, MPI_Datatype type, MPI_Datatype *file_type,
                            const char **detail);

/* Whether an access of type can go through rep: a null conversion function (the data
 * moved as they are) needs every item's file extent to be its native size.
 * MPI_SUCCESS or MPI_ERR_CONVERSION. */
int tw_io_datarep_check(tw_io_datarep_t *rep, int write, MPI_Datatype type, const char **detail);

/* Moves file bytes [first, first + len) of the view's stream to or from bytes; *done:
 * bytes moved (a read stops short at the end of the file). 0 or an errno. */
typedef int tw_io_stream_move_fn(void *ctx, int write, MPI_Offset first, char *bytes,
                                 MPI_Offset len, MPI_Offset *done);

typedef struct tw_io_converted {
    MPI_Offset file_bytes;   /* of the stream moved (whole items) */
    MPI_Offset native_bytes; /* the same items' packed native bytes (for the status) */
    int err;                 /* the errno move returned, or 0 */
} tw_io_converted_t;

/* An access of count items of type at buf through rep: written (write) to the view's
 * stream from its file byte first on, or read from it, buffer_size bytes of file data
 * at a time (one item at least), each chunk converted by one call of a conversion
 * function, whose position counts the items of the earlier chunks. MPI_SUCCESS, or
 * MPI_ERR_CONVERSION, MPI_ERR_NO_MEM (*detail says why); a failed move ends the
 * access with MPI_SUCCESS and out->err set. */
int tw_io_datarep_access(tw_io_datarep_t *rep, int write, void *buf, MPI_Count count,
                         MPI_Datatype type, MPI_Offset first, MPI_Offset buffer_size,
                         tw_io_stream_move_fn *move, void *ctx, tw_io_converted_t *out,
                         const char **detail);

/* The conversion buffer of a file's accesses: its hint "tw_datarep_buffer_size" (bytes),
 * else 4 MiB. */
MPI_Offset tw_io_datarep_buffer_size(MPI_Info info);

/* Forgets the registered representations (the library's last user is gone). */
void tw_io_datarep_fini(void);

#pragma GCC visibility pop

#endif
