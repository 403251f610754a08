/* Neighbourhood alltoall on a periodic Cartesian dimension of size 1 or 2, where one
 * process is both neighbours: as the Forum's erratum to MPI-3.1 says (MPI-4.0
 * section 8.6), the data sent to the negative direction arrives in the receiver's
 * block of the positive direction, and the other way round, as for any larger
 * dimension. MPICH 4 does so for MPI_(I)Neighbor_alltoall. Checked for alltoall,
 * alltoallv and alltoallw, blocking and not, on a dims {size, 1} and a {size}
 * periodic grid; rank r sends 100 * r + k as its block k. */
#include <mpi.h>

#include "mpi_check.h"

enum { CALLS = 6 };

/* The blocks a call receives: block 2d is from the negative neighbour in dimension d,
 * which sent it to its positive direction (its block 2d + 1), and the other way. */
static void expect(MPI_Comm cart, int ndims, const int *got, const char *what) {
    for (int d = 0; d < ndims; d++) {
        int neg, pos;
        CHECK(MPI_Cart_shift(cart, d, 1, &neg, &pos) == MPI_SUCCESS);
        if (got[2 * d] != 100 * neg + 2 * d + 1 || got[2 * d + 1] != 100 * pos + 2 * d) {
            fprintf(stderr, "rank %d: %s: dimension %d got %d %d, wants %d %d\n", rank, what, d,
                    got[2 * d], got[2 * d + 1], 100 * neg + 2 * d + 1, 100 * pos + 2 * d);
            CHECK(0);
        }
    }
}

static void run(int ndims, const int *dims) {
    int periods[2] = {1, 1}, me;
    MPI_Comm cart;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(cart, &me) == MPI_SUCCESS);
    int n = 2 * ndims, out[4], in[4], counts[4], displs[4];
    MPI_Aint bdispls[4];
    MPI_Datatype types[4];
    for (int k = 0; k < n; k++) {
        out[k] = 100 * me + k;
        counts[k] = 1;
        displs[k] = k;
        bdispls[k] = (MPI_Aint)(k * sizeof(int));
        types[k] = MPI_INT;
    }
    static const char *names[CALLS] = {"MPI_Neighbor_alltoall",  "MPI_Ineighbor_alltoall",
                                       "MPI_Neighbor_alltoallv", "MPI_Ineighbor_alltoallv",
                                       "MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw"};
    for (int call = 0; call < CALLS; call++) {
        MPI_Request req = MPI_REQUEST_NULL;
        for (int k = 0; k < 4; k++) in[k] = -1;
        int rc;
        switch (call) {
        case 0:
            rc = MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, cart);
            break;
        case 1:
            rc = MPI_Ineighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, cart, &req);
            break;
        case 2:
            rc = MPI_Neighbor_alltoallv(out, counts, displs, MPI_INT, in, counts, displs, MPI_INT,
                                        cart);
            break;
        case 3:
            rc = MPI_Ineighbor_alltoallv(out, counts, displs, MPI_INT, in, counts, displs, MPI_INT,
                                         cart, &req);
            break;
        case 4:
            rc = MPI_Neighbor_alltoallw(out, counts, bdispls, types, in, counts, bdispls, types,
                                        cart);
            break;
        default:
            rc = MPI_Ineighbor_alltoallw(out, counts, bdispls, types, in, counts, bdispls, types,
                                         cart, &req);
        }
        CHECK(rc == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        expect(cart, ndims, in, names[call]);
    }
    CHECK(MPI_Comm_free(&cart) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int one[1] = {size}, two[2] = {size, 1};
    run(1, one);
    run(2, two);
    MPI_Finalize();
    return 0;
}
