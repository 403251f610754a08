/* The context of a program's callback, for the faces (docs/abi.md).
 *
 * A face (a library exporting MPI under another ABI) registers a trampoline of the
 * native type as a user op's or an error handler's function; the trampoline converts
 * the handles and calls the program's function, which it finds here: the core keeps
 * the context the face set with the op or handler, and makes it the calling thread's
 * tw_mpi_callback_context for the time of each call of that object's function.
 * Attribute keys, generalized requests and data representations need none: their
 * callbacks get an extra_state, which the face wraps. */
#ifndef TW_MPI_CALLBACK_H
#define TW_MPI_CALLBACK_H

#pragma GCC visibility push(hidden) /* stays inside the library: no PLT, no GOT */

typedef void tw_mpi_callback_fn(void);

/* The program's function of the callback running on this thread (NULL outside one). */
extern _Thread_local tw_mpi_callback_fn *tw_mpi_callback_context;

/* A face gives the context with tw_mpi_callback_context_set (bindings/face.h), which
 * op.c (tw_mpi_op_context_set) and errhandler.c (tw_mpi_eh_context_set) keep. */

#pragma GCC visibility pop

#endif
