/* Partitioned point-to-point communication (partitioned.c) as the request pool and
 * the engine see it: requests of kinds REQ_PSEND and REQ_PRECV, persistent, each with
 * its state in req_t.part. */
#ifndef TW_MPI_PT2PT_PARTITIONED_H
#define TW_MPI_PT2PT_PARTITIONED_H

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Registers its message kind, notifications and progress hook (MPI_Init). */
void tw_mpi_part_init(void);
/* MPI_Start of partitioned request slot i (inactive): an error class or MPI_SUCCESS. */
int tw_mpi_part_start(int i);
/* The slot goes back to the pool: its state goes too. */
void tw_mpi_part_release(int i);

#pragma GCC visibility pop

#endif
