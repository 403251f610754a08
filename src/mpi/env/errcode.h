/* Error classes, codes and strings the program adds (MPI_Add_error_*). */
#ifndef TW_MPI_ERRCODE_H
#define TW_MPI_ERRCODE_H

#pragma GCC visibility push(hidden)

/* The class and string of an error class or code the program added (errcode.c);
 * 0 when code is none of those. */
int tw_mpi_user_class(int code, int *errclass);
int tw_mpi_user_string(int code, char *string, int *resultlen);
/* The largest error code or class in use: MPI_LASTUSEDCODE. */
extern int tw_mpi_lastusedcode;

#pragma GCC visibility pop

#endif
