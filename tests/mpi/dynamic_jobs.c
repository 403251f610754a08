/* Two jobs started apart (two twruns of one --universe) meet through a port whose name
 * the server writes to a file. First the roots alone meet and both whole jobs make an
 * intercommunicator through them (MPI_Intercomm_create across jobs); then the worlds
 * meet: data both ways, MPI_Intercomm_merge, disconnect. A job
 * outside the universe ("foreign") is refused with MPI_ERR_PORT, and the server goes on
 * accepting. Usage: PROG server|client|foreign FILE */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_check.h"

/* The port name the server wrote (it renames the file into place whole). */
static void read_port(const char *file, char *port) {
    FILE *f;
    while (!(f = fopen(file, "r"))) { /* the server has not opened it yet */
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    CHECK(fgets(port, MPI_MAX_PORT_NAME, f) != NULL);
    fclose(f);
}

/* Two coupled codes, first of all, before any other meeting: the roots alone meet (on
 * MPI_COMM_SELF), so that the others know nothing of the other job yet; then both
 * whole jobs make an intercommunicator through them, and every pair talks. */
static void coupled(int server, const char *port) {
    MPI_Comm roots = MPI_COMM_NULL, both;
    int sizes[2] = {size, -1}; /* mine, theirs */
    if (rank == 0) {
        if (server)
            CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &roots) == MPI_SUCCESS);
        else
            CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &roots) == MPI_SUCCESS);
        CHECK(MPI_Sendrecv(&sizes[0], 1, MPI_INT, 0, 5, &sizes[1], 1, MPI_INT, 0, 5, roots,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    MPI_Bcast(sizes, 2, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, roots, 0, 11, &both) == MPI_SUCCESS);
    int nremote;
    CHECK(MPI_Comm_remote_size(both, &nremote) == MPI_SUCCESS && nremote == sizes[1]);
    for (int r = 0; r < nremote; r++) {
        int mine = 1000 * server + 10 * rank + r, got = -1;
        CHECK(MPI_Sendrecv(&mine, 1, MPI_INT, r, 4, &got, 1, MPI_INT, r, 4, both,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(got == 1000 * !server + 10 * r + rank);
    }
    CHECK(MPI_Barrier(both) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&both) == MPI_SUCCESS);
    if (rank == 0) CHECK(MPI_Comm_disconnect(&roots) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc == 3);
    int server = !strcmp(argv[1], "server"), foreign = !strcmp(argv[1], "foreign");
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (server) {
        if (rank == 0) {
            CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS);
            char tmp[4096];
            snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
            FILE *f = fopen(tmp, "w");
            CHECK(f && fputs(port, f) >= 0 && fclose(f) == 0 && rename(tmp, argv[2]) == 0);
        }
        coupled(1, port);
        CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) == MPI_SUCCESS);
    } else {
        if (rank == 0) read_port(argv[2], port);
        if (foreign) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), cls;
            CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_PORT);
            CHECK(inter == MPI_COMM_NULL);
            MPI_Finalize();
            return 0;
        }
        coupled(0, port);
        CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) == MPI_SUCCESS);
    }
    int nremote, me;
    CHECK(MPI_Comm_remote_size(inter, &nremote) == MPI_SUCCESS);
    CHECK(MPI_Comm_rank(inter, &me) == MPI_SUCCESS && me == rank);
    /* each side learns the other's size, and every pair swaps a long message */
    int theirs = -1;
    if (rank == 0)
        CHECK(MPI_Sendrecv(&size, 1, MPI_INT, 0, 1, &theirs, 1, MPI_INT, 0, 1, inter,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
    MPI_Bcast(&theirs, 1, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(theirs == nremote);
    enum { N = 50000 };
    int *out = malloc(N * sizeof *out), *in = malloc(N * sizeof *in);
    for (int r = 0; r < nremote; r++) {
        for (int i = 0; i < N; i++) out[i] = i ^ (rank * 7 + server);
        CHECK(MPI_Sendrecv(out, N, MPI_INT, r, 2, in, N, MPI_INT, r, 2, inter, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        for (int i = 0; i < N; i++) CHECK(in[i] == (i ^ (r * 7 + !server)));
    }
    free(out);
    free(in);
    MPI_Comm merged;
    CHECK(MPI_Intercomm_merge(inter, !server, &merged) == MPI_SUCCESS);
    int mr, ms, sum = 0;
    CHECK(MPI_Comm_rank(merged, &mr) == MPI_SUCCESS && MPI_Comm_size(merged, &ms) == MPI_SUCCESS);
    CHECK(ms == size + nremote && mr == (server ? rank : nremote + rank));
    CHECK(MPI_Allreduce(&mr, &sum, 1, MPI_INT, MPI_SUM, merged) == MPI_SUCCESS);
    CHECK(sum == ms * (ms - 1) / 2);
    CHECK(MPI_Comm_free(&merged) == MPI_SUCCESS);
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);
    if (server && rank == 0) CHECK(MPI_Close_port(port) == MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}
