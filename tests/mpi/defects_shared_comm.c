/* The communicator MPI_COMM_TYPE_SHARED gives holds the ranks that can share memory,
 * so MPI_Win_allocate_shared on it succeeds and every rank sees the others' stores.
 * Under TW_LINK=udp (every peer over the link, none mapped) it once held every rank of
 * the host, and the window failed with MPI_ERR_RMA_SHARED, which also ended
 * collective file writes (their aggregators' buffers are such a window). */
#include <mpi.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
          MPI_SUCCESS);
    int nrank, nsize;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    CHECK(nsize >= 1 && nsize <= size);
    MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    int *mine = NULL;
    MPI_Win win;
    CHECK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win) ==
          MPI_SUCCESS);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    *mine = 1000 + rank;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    for (int r = 0; r < nsize; r++) {
        MPI_Aint bytes;
        int unit, *theirs = NULL, world = -1;
        CHECK(MPI_Win_shared_query(win, r, &bytes, &unit, &theirs) == MPI_SUCCESS);
        CHECK(bytes == sizeof(int) && unit == sizeof(int) && theirs);
        MPI_Group g, w;
        MPI_Comm_group(node, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &w);
        MPI_Group_translate_ranks(g, 1, &r, w, &world);
        MPI_Group_free(&g);
        MPI_Group_free(&w);
        CHECK(*theirs == 1000 + world);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    /* the same split at every rank: its sizes add up to the world's */
    int first = nrank == 0, nodes = 0, total = 0;
    CHECK(MPI_Allreduce(&first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    int contribution = first ? nsize : 0;
    CHECK(MPI_Allreduce(&contribution, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(total == size && nodes >= 1);
    MPI_Comm_free(&node);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("defects_shared_comm: %d ranks, %d node(s) ok\n", size, nodes);
    MPI_Finalize();
    return 0;
}
