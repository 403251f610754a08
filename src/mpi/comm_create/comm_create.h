/* Making communicators (comm_create.c, intercomm.c): the exchanges they run and the
 * checks of what peers answer. */
#ifndef TW_MPI_COMM_CREATE_H
#define TW_MPI_COMM_CREATE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "mpi/comm/comm.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Checks the answer a communicator split gets from the parent's rank 0 — len bytes
 * of: table entry (-1: none free), new size n, new rank, n world ranks — before any
 * of it is used. 1 when every field is in range and this process is where it says. */
static inline int tw_mpi_split_answer_ok(const int *a, size_t len, int parent_size, int world_size,
                                         int my_world) {
    if (len < 3 * sizeof *a) return 0;
    int entry = a[0], n = a[1], me = a[2];
    if (entry < -1 || entry >= TW_MPI_COMMS) return 0;
    if (n < 0 || n > parent_size || len != ((size_t)n + 3) * sizeof *a) return 0;
    if (entry == -1 || n == 0) return n == 0 && me == -1;
    if (me < 0 || me >= n || a[3 + me] != my_world) return 0;
    for (int k = 0; k < n; k++)
        if (a[3 + k] < 0 || a[3 + k] >= world_size) return 0;
    return 1;
}
/* Sends out to world rank to and/or receives into in from world rank from (-1: not),
 * on context and tag; the bytes received (0 when a longer message was cut). */
size_t tw_mpi_exchange(uint32_t context, int tag, int to, const void *out, size_t outlen, int from,
                       void *in, size_t inlen);
/* The tags of the creation exchanges that are not collective over the communicator
 * they run on: negative, so never a collective's or a split's, and apart by kind. A
 * user tag picks one of 2^29 (tags equal modulo 2^29 share one). */
enum { TW_MPI_TAG_CREATE_GROUP = 0, TW_MPI_TAG_INTERCOMM_CREATE = 1, TW_MPI_TAG_FROM_GROUP = 2 };
static inline int tw_mpi_creation_tag(int kind, int tag) {
    return -2 - kind * 0x20000000 - (tag & 0x1fffffff);
}
/* Makes an intracommunicator of the n processes members[] (world ranks; `me` the
 * caller's index), ordered by key, coordinated by members[0] on context and tag;
 * *out gets errhandler eh. Collective over the members (comm.c). */
int tw_mpi_create_round(uint32_t context, int tag, int n, int me, const int *members, int key,
                        MPI_Errhandler eh, MPI_Comm *out);
/* The members of a split that chose color, as indices into n (color, key) pairs,
 * ordered by key then index; their number (0 for MPI_UNDEFINED). */
int tw_mpi_pick_color(int n, const int *color_key, int color, int *order);
/* A split of p by color (MPI_UNDEFINED: none) and key: of its local group when p is
 * an intercommunicator; an error class. */
int tw_mpi_comm_split_color(tw_mpi_comm_t *p, int color, int key, MPI_Comm *newcomm);

#pragma GCC visibility pop

#endif
