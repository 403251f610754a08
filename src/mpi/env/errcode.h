/* Error classes, codes and strings (errcode.c): the standard's, those the program adds
 * (MPI_Add_error_*), and those other units make. */
#ifndef TW_MPI_ERRCODE_H
#define TW_MPI_ERRCODE_H

#pragma GCC visibility push(hidden)

/* The codes another unit makes (pt2pt/failure.c: one per lost peer, one per call
 * given up on): the unit names, when it starts, what gives such a code's class and
 * string, each 0 when the code is none of its. */
enum { TW_CODES_LOST, TW_CODES_GAVE_UP, TW_CODES_KINDS };
typedef int tw_mpi_code_class_fn(int code, int *errclass);
typedef int tw_mpi_code_string_fn(int code, char *string, int *resultlen);
void tw_mpi_error_codes(int kind, tw_mpi_code_class_fn *cls, tw_mpi_code_string_fn *str);
/* The largest error code or class in use: MPI_LASTUSEDCODE. */
extern int tw_mpi_lastusedcode;

#pragma GCC visibility pop

#endif
