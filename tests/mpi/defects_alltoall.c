/* All-to-alls: the same address as send and receive buffer with no data is no
 * aliasing; a NULL buffer is refused only where some block has data; on an
 * intercommunicator, NULL buffers with zero counts and one group only sending. */
#include <mpi.h>

#include "mpi_check.h"

static int *ints(int n, int v) {
    int *p = malloc((size_t)(n ? n : 1) * sizeof *p);
    for (int k = 0; k < n; k++) p[k] = v;
    return p;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *zero = ints(size, 0), *one = ints(size, 1), *disp = ints(size, 0), buf[4] = {0};
    MPI_Datatype *types = malloc((size_t)size * sizeof *types);
    for (int k = 0; k < size; k++) types[k] = MPI_INT, disp[k] = k;

    /* the same buffer both ways, nothing moved: not aliasing */
    CHECK(MPI_Alltoallv(buf, zero, disp, MPI_INT, buf, zero, disp, MPI_INT, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(MPI_Alltoallw(buf, zero, disp, types, buf, zero, disp, types, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(MPI_Alltoall(buf, 0, MPI_INT, buf, 0, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
    /* with data it still is */
    int *big = ints(2 * size, 0);
    CHECK(MPI_Alltoallv(big, one, disp, MPI_INT, big, one, disp, MPI_INT, MPI_COMM_WORLD) ==
          MPI_ERR_BUFFER);
    /* NULL with no data, and NULL where a later rank's block has data */
    CHECK(MPI_Alltoallv(NULL, zero, disp, MPI_INT, NULL, zero, disp, MPI_INT, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    if (size > 1) {
        int *late = ints(size, 0);
        late[size - 1] = 1;
        CHECK(MPI_Alltoallv(NULL, late, disp, MPI_INT, big, late, disp, MPI_INT, MPI_COMM_WORLD) ==
              MPI_ERR_BUFFER);
        free(late);
    }

    if (size >= 2) {
        /* two groups: the first half sends, the second receives */
        int half = size / 2, low = rank < half;
        MPI_Comm local, inter;
        CHECK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local) == MPI_SUCCESS);
        CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 7, &inter) ==
              MPI_SUCCESS);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        int remote, lrank, lsize;
        MPI_Comm_remote_size(inter, &remote);
        MPI_Comm_rank(inter, &lrank);
        MPI_Comm_size(inter, &lsize);
        int *rzero = ints(remote, 0), *rone = ints(remote, 1), *rdisp = ints(remote, 0);
        int *in = ints(remote, -1), *out = ints(remote, 0);
        MPI_Datatype *rtypes = malloc((size_t)remote * sizeof *rtypes);
        for (int k = 0; k < remote; k++)
            rdisp[k] = k, rtypes[k] = MPI_INT, out[k] = 1000 * rank + k;

        /* NULL everywhere, nothing moved */
        CHECK(MPI_Alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, inter) == MPI_SUCCESS);
        CHECK(MPI_Alltoallv(NULL, rzero, rdisp, MPI_INT, NULL, rzero, rdisp, MPI_INT, inter) ==
              MPI_SUCCESS);
        CHECK(MPI_Alltoallw(NULL, rzero, rdisp, rtypes, NULL, rzero, rdisp, rtypes, inter) ==
              MPI_SUCCESS);

        /* one group only sends: its receive side is NULL, the other's send side */
        int *wd = ints(remote, 0);
        for (int k = 0; k < remote; k++) wd[k] = k * (int)sizeof(int);
        for (int form = 0; form < 3; form++) {
            for (int k = 0; k < remote; k++) in[k] = -1;
            int rc;
            if (form == 0)
                rc = low ? MPI_Alltoall(out, 1, MPI_INT, NULL, 0, MPI_INT, inter)
                         : MPI_Alltoall(NULL, 0, MPI_INT, in, 1, MPI_INT, inter);
            else if (form == 1)
                rc = low ? MPI_Alltoallv(out, rone, rdisp, MPI_INT, NULL, rzero, rdisp, MPI_INT,
                                         inter)
                         : MPI_Alltoallv(NULL, rzero, rdisp, MPI_INT, in, rone, rdisp, MPI_INT,
                                         inter);
            else
                rc = low ? MPI_Alltoallw(out, rone, wd, rtypes, NULL, rzero, wd, rtypes, inter)
                         : MPI_Alltoallw(NULL, rzero, wd, rtypes, in, rone, wd, rtypes, inter);
            CHECK(rc == MPI_SUCCESS);
            /* low rank k sent 1000 * k + (my rank in my group) */
            if (!low)
                for (int k = 0; k < remote; k++) CHECK(in[k] == 1000 * k + lrank);
        }

        free(rzero);
        free(rone);
        free(rdisp);
        free(in);
        free(out);
        free(rtypes);
        free(wd);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
    free(zero);
    free(one);
    free(disp);
    free(big);
    free(types);
    MPI_Finalize();
    return 0;
}
