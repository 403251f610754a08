/* Buffered sends (bsend.c): MPI_Bsend copies into the attached buffer. */
#ifndef TW_MPI_BSEND_H
#define TW_MPI_BSEND_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_staged tw_mpi_staged_t;

/* Registers buffered sends with the point-to-point engine. */
void tw_mpi_bsend_init(void);
/* buffered sends (bsend.c) */
int tw_mpi_bsend(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context);
void tw_mpi_bsend_fini(void); /* waits for every buffered send */
/* A buffered send of a staged buffer: packed straight into the attached buffer. */
int tw_mpi_bsend_staged(const tw_mpi_staged_t *st, int dest_world, int tag, uint32_t context);

#pragma GCC visibility pop

#endif
