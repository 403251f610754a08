/* Files (MPI-4.1 chapter 14): the open file's state that file.c (objects, opening,
 * views, pointers) and file_access.c (the data access calls) share. */
#ifndef TW_MPI_FILE_H
#define TW_MPI_FILE_H

#include <mpi.h>

#include "mpi/datatype/typemap.h"
#include "mpi/io/datarep.h"
#include "mpi/io/hints.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_io_view {
    MPI_Offset disp;              /* bytes from the file's start to the first tile */
    MPI_Datatype etype, filetype; /* predefined ones as such, derived ones our duplicates */
    const tw_typemap_t *fmap;     /* the filetype's map in the file's sizes: one tile */
    MPI_Aint fextent;             /* from one tile to the next */
    MPI_Count esize;              /* bytes of one etype in the view's stream */
    int rep;                      /* a TW_IO_* (datarep.h) */
    tw_io_datarep_t *conv;        /* the data representation */
    MPI_Datatype file_filetype;   /* not native: the filetype in the file's sizes (ours) */
    char datarep[MPI_MAX_DATAREP_STRING];
} tw_io_view_t;

typedef struct tw_io_file {
    int fd;
    MPI_File handle;
    MPI_Comm comm; /* our duplicate of the open's communicator */
    int rank, size;
    int amode;
    char *path;    /* the name opened, its "ufs:" or "nfs:" prefix stripped */
    MPI_Info info; /* the hints given at the open and by MPI_File_set_info */
    MPI_Errhandler eh;
    int atomic;
    tw_io_view_t view;
    MPI_Offset pointer; /* the individual file pointer, in etypes of the view */
    /* the shared file pointer: an MPI_Offset at rank 0 of a window on comm */
    MPI_Win shared_win;
    MPI_Offset *shared;
    /* a split collective begun and not ended: its status */
    int split_active;
    MPI_Status split_status;
    /* the hints in effect and the aggregators (hints.c) */
    tw_io_hints_t hints;
    /* non-blocking collective accesses through collective buffering not yet ended
     * (two_phase.c): the close waits for them */
    int collectives_running;
} tw_io_file_t;

/* The open file fh names, or NULL. */
tw_io_file_t *tw_io_file(MPI_File fh);

/* Reports an error of a file call as the file's handler says (f NULL: MPI_FILE_NULL's);
 * returns the class (or what the handler made of it). */
int tw_io_error(tw_io_file_t *f, const char *call, int errclass, const char *detail);

/* Whether a datatype is predefined (then no duplicate is kept or freed). */
int tw_io_type_is_named(MPI_Datatype type);

/* The error class of a failed system call's errno. */
int tw_io_errno_class(int err);

/* The shared file pointer (in etypes): fetches it and adds add, one fetch-and-add. */
int tw_io_shared_fetch_add(tw_io_file_t *f, MPI_Offset add, MPI_Offset *old);

/* The file offset of byte `at` (>= 0) of the view's stream of etypes. */
MPI_Offset tw_io_stream_to_file(const tw_io_view_t *v, MPI_Offset at);

#pragma GCC visibility pop

#endif
