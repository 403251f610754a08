/* Reduction operations (op.c). */
#ifndef TW_MPI_OP_H
#define TW_MPI_OP_H

#include <mpi.h>

#include "mpi/env/callback.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* MPI_SUCCESS when op applies to type's elements, else MPI_ERR_OP (MPI_ERR_TYPE: no type). */
int tw_mpi_op_check(MPI_Op op, MPI_Datatype type);
int tw_mpi_op_commutative(MPI_Op op);
int tw_mpi_op_predefined(MPI_Op op); /* one of MPI's own ops, not a user op */
/* inout = in op inout over count items of type in packed form (a contiguous type's
 * items as they are in memory, from lb on). The op was checked against the type. */
/* A non-blocking reduction holds its user op until it ends: MPI_Op_free meanwhile
 * leaves it working for the reduction, and its slot is reused after the last hold.
 * Predefined ops need no hold (nothing happens). */
void tw_mpi_op_hold(MPI_Op op);
void tw_mpi_op_release(MPI_Op op);
/* MPI_Op_create (fn) and MPI_Op_create_c (fn_c), and MPI_Reduce_local's body. */
int tw_mpi_op_create(const char *call, MPI_User_function *fn, MPI_User_function_c *fn_c,
                     int commute, MPI_Op *op);
int tw_mpi_reduce_local(const char *call, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op);
int tw_mpi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype type);
/* tw_mpi_op_apply of op over count items of type worked out once, for a call made
 * many times (a persistent collective): fn(code, in, inout, elements) does it. NULL
 * where that is no such function (a user op, MPI_REPLACE, MPI_NO_OP): the caller
 * goes through tw_mpi_op_apply. The op was checked against the type. */
typedef int tw_mpi_op_fn(int code, const void *in, void *inout, size_t elements);
tw_mpi_op_fn *tw_mpi_op_resolve(MPI_Op op, MPI_Datatype type, MPI_Count count, int *code,
                                size_t *elements);

/* Keeps a face's context with user op op (env/callback.h): 0, or MPI_ERR_OP when op is
 * no user op. */
int tw_mpi_op_context_set(int op, tw_mpi_callback_fn *context);

#pragma GCC visibility pop

#endif
