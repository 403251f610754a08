/* Error handlers (errhandler.c): the predefined ones and the program's, for
 * communicators, windows and files. */
#ifndef TW_MPI_ERRHANDLER_H
#define TW_MPI_ERRHANDLER_H

#include <mpi.h>

#include "mpi/env/callback.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

enum { TW_EH_COMM = 1, TW_EH_WIN, TW_EH_FILE, TW_EH_SESSION };

/* Whether h may be set on an object of kind (a TW_EH_*): a predefined handler, or
 * one of the program's made for that kind, its slot not reused yet. */
int tw_mpi_eh_settable(MPI_Errhandler h, int kind);
/* A new handler of the program's for objects of kind (a TW_EH_*), with one handle
 * held; works before MPI is initialised (MPI_Session_create_errhandler may). */
int tw_mpi_eh_new(const char *call, int kind, void (*fn)(int *, int *, ...),
                  MPI_Errhandler *errhandler);
/* Keeps a face's context with the program's handler h (env/callback.h): 0, or
 * MPI_ERR_ERRHANDLER when h is none. */
int tw_mpi_eh_context_set(int h, tw_mpi_callback_fn *context);
/* One more handle of h held by the program (MPI_*_get_errhandler gave it out). */
void tw_mpi_eh_ref(MPI_Errhandler h);
/* Calls user handler h on the object *handle with *code, which the handler may change:
 * the failed call returns what it leaves there, as MPICH and Open MPI do, unless that is
 * MPI_SUCCESS (then the code raised). 0 when h is no user handler (predefined: the
 * caller does what it says). */
int tw_mpi_eh_call(MPI_Errhandler h, int *handle, int *code);

/* The objects of a kind (a TW_EH_*) that hold handlers, for the sweep that reuses the
 * slots of handlers freed by the program: the unit that keeps those objects names a
 * function that calls mark(in_use, h) for the handler h of each. */
typedef void tw_mpi_eh_mark_fn(unsigned char *in_use, MPI_Errhandler h);
typedef void tw_mpi_eh_holders_fn(tw_mpi_eh_mark_fn *mark, unsigned char *in_use);
void tw_mpi_eh_holders(int kind, tw_mpi_eh_holders_fn *fn);

/* The error handler of MPI_FILE_NULL, the default of the file calls. */
extern MPI_Errhandler tw_mpi_file_eh;

/* The unit that keeps files (io/file.c) names, when it opens its first, how the
 * file calls here find an open file's handler: its slot, or NULL when file names
 * no open file. */
typedef MPI_Errhandler *tw_mpi_file_eh_slot_fn(MPI_File file);
void tw_mpi_files_eh(tw_mpi_file_eh_slot_fn *fn);

#pragma GCC visibility pop

#endif
