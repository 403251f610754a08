/* MPI_Comm_spawn passes argument lists of any number of words: 250 here, past the
 * 64 a command could have; the only bound is the length of the request the process
 * manager takes, and a list past it is refused with MPI_ERR_SPAWN before anything
 * starts (with the argument too_long, under MPI_ERRORS_ARE_FATAL: the test checks
 * that the message names the limit). The program spawns itself. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpi_check.h"

enum { WORDS = 250, TOO_MANY = 5000 }; /* 5000 words of 16 bytes: past 64 KiB */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm parent, inter;
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS);
    if (parent != MPI_COMM_NULL) { /* a child: its words, in order */
        int ok = argc == WORDS + 1;
        for (int k = 0; ok && k < WORDS; k++) {
            char w[16];
            snprintf(w, sizeof w, "w%d", k);
            ok = !strcmp(argv[k + 1], w);
        }
        if (!ok) fprintf(stderr, "child: %d words, want %d\n", argc - 1, WORDS);
        CHECK(MPI_Send(&ok, 1, MPI_INT, 0, 1, parent) == MPI_SUCCESS);
        CHECK(MPI_Comm_disconnect(&parent) == MPI_SUCCESS);
        MPI_Finalize();
        return 0;
    }
    static char words[TOO_MANY][16];
    static char *list[TOO_MANY + 1];
    int fatal = argc > 1 && !strcmp(argv[1], "too_long");
    for (int k = 0; k < WORDS && !fatal; k++) {
        snprintf(words[k], sizeof words[k], "w%d", k);
        list[k] = words[k];
    }
    if (!fatal) {
        list[WORDS] = NULL;
        CHECK(MPI_Comm_spawn(argv[0], list, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
        if (rank == 0) {
            int ok = 0;
            CHECK(MPI_Recv(&ok, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(ok == 1);
        }
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);
    }
    /* far too many for one request: refused, the limit named */
    for (int k = 0; k < TOO_MANY; k++) {
        snprintf(words[k], sizeof words[k], "y%014d", k);
        list[k] = words[k];
    }
    list[TOO_MANY] = NULL;
    if (!fatal) CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    int codes[1] = {-1}, cls = -1;
    int rc = MPI_Comm_spawn(argv[0], list, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL && codes[0] == MPI_ERR_SPAWN);
    MPI_Finalize();
    return 0;
}
