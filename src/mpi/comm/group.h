/* Groups (group.c). */
#ifndef TW_MPI_GROUP_H
#define TW_MPI_GROUP_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_group {
    int refs; /* handles and communicators holding it */
    int size;
    int *world;  /* world rank of each rank */
    int session; /* the session of MPI_Group_from_session_pset, as index + 1; 0: none */
} tw_mpi_group_t;
tw_mpi_group_t *tw_mpi_group_get(MPI_Group group); /* NULL: not a group */
/* A new group of n world ranks (copied) with one reference; MPI_GROUP_EMPTY when n is 0. */
int tw_mpi_group_new(int n, const int *world, MPI_Group *out);
void tw_mpi_group_release(MPI_Group group);
/* A new reference to the group of n world ranks world (NULL: 0..n-1) that *cached
 * holds, made on first use. */
int tw_mpi_group_of(MPI_Group *cached, int n, const int *world, MPI_Group *out);
/* MPI_IDENT (same ranks in the same order), MPI_SIMILAR (same ranks) or MPI_UNEQUAL;
 * NULL lists are 0..n-1. */
int tw_mpi_compare_worlds(int na, const int *a, int nb, const int *b);

#pragma GCC visibility pop

#endif
