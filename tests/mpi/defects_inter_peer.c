/* MPI_Intercomm_create takes an intercommunicator as peer_comm: it is significant
 * only at the two leaders, each of which names the other by its rank there, which
 * for an intercommunicator is a rank of its remote group (MPI-3.1 section 6.6.2:
 * peer_comm is any communicator of which both leaders are members). The world is
 * cut into a low and a high half joined by one intercommunicator, which then serves
 * as the peer of a second one between the halves, led by the low half's first rank
 * and the high half's last. */
#include <mpi.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int low_n = size / 2, high = rank >= low_n, high_n = size - low_n;
    MPI_Comm half, first, second;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, high, rank, &half) == MPI_SUCCESS);
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, high ? 0 : low_n, 7, &first) ==
          MPI_SUCCESS);
    /* leaders: the low half's rank 0, the high half's last; each names the other by
     * its rank in the other group of first */
    int local_leader = high ? high_n - 1 : 0, remote_leader = high ? 0 : high_n - 1;
    CHECK(MPI_Intercomm_create(half, local_leader, first, remote_leader, 8, &second) ==
          MPI_SUCCESS);
    int flag = 0, n = -1, me = -1;
    CHECK(MPI_Comm_test_inter(second, &flag) == MPI_SUCCESS && flag);
    CHECK(MPI_Comm_remote_size(second, &n) == MPI_SUCCESS && n == (high ? low_n : high_n));
    CHECK(MPI_Comm_rank(second, &me) == MPI_SUCCESS && me == (high ? rank - low_n : rank));
    /* the same groups as first's, so the same remote world ranks */
    MPI_Group g1, g2;
    int same = -1;
    CHECK(MPI_Comm_remote_group(first, &g1) == MPI_SUCCESS);
    CHECK(MPI_Comm_remote_group(second, &g2) == MPI_SUCCESS);
    CHECK(MPI_Group_compare(g1, g2, &same) == MPI_SUCCESS && same == MPI_IDENT);
    CHECK(MPI_Group_free(&g1) == MPI_SUCCESS && MPI_Group_free(&g2) == MPI_SUCCESS);
    /* traffic: each rank of one half sends its world rank to the same rank of the
     * other, where there is one; an allreduce sums the other half's world ranks */
    if (me < n) {
        int got = -1;
        CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, me, 9, &got, 1, MPI_INT, me, 9, second,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(got == (high ? me : low_n + me));
    }
    int sum = -1, want = 0;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, second) == MPI_SUCCESS);
    for (int r = high ? 0 : low_n; r < (high ? low_n : size); r++) want += r;
    CHECK(sum == want);
    /* a remote leader that is no rank of the peer's remote group is refused */
    if (rank == 0) {
        CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
        MPI_Comm bad = MPI_COMM_WORLD;
        int cls = -1;
        MPI_Error_class(MPI_Intercomm_create(MPI_COMM_SELF, 0, first, high_n, 10, &bad), &cls);
        CHECK(cls == MPI_ERR_RANK && bad == MPI_COMM_NULL);
    }
    CHECK(MPI_Comm_free(&second) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&first) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}
