/* The argument checks the generated wrappers (api.c) make: what the MPI Forum's
 * description of a call says alone, with no library state but the handler to call.
 * gen_bindings.py (Procedure.checks) decides which; these report a failed one. */
#ifndef TW_MPI_BINDINGS_CHECKS_H
#define TW_MPI_BINDINGS_CHECKS_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The object whose error handler hears of a failed check: the call's communicator,
 * its window, or (a call with neither) the world's handler, as the implementations
 * of those calls report their own errors. */
enum { TW_ARG_WORLD, TW_ARG_COMM, TW_ARG_WIN };

/* Whether a failed check may be reported now: the library is up and handle names a
 * live object of its kind. When not, the implementation runs and reports its own,
 * earlier error (no library, MPI_ERR_COMM, MPI_ERR_WIN). */
int tw_mpi_arg_reportable(int object, int handle);

/* value, the argument param of call, is negative: reports errclass as the object's
 * handler says. */
int tw_mpi_arg_negative(int object, int handle, const char *call, const char *param, int errclass,
                        long long value);

/* param of call is null_name, which it may not be: reports errclass as the object's
 * handler says. */
int tw_mpi_arg_null(int object, int handle, const char *call, const char *param, int errclass,
                    const char *null_name);

#pragma GCC visibility pop

#endif
