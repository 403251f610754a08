/* A stand-in for a face (src/common/abi_faces.h) in a copy of the tree abi_test.sh makes:
 * the few functions its test program calls, answering from twrun's PMI variables, so
 * that the launcher's choice of library can be seen without the real faces. Built
 * under the soname of the face it stands for. ompi_mpi_comm_world has the size Open
 * MPI's has, which a program's copy relocation expects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char ompi_mpi_comm_world[512];

int MPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int MPI_Comm_rank(void *comm, int *rank);
int MPI_Comm_size(void *comm, int *size);
int MPI_Get_library_version(char *version, int *len);

int MPI_Init(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    return 0;
}
int MPI_Finalize(void) {
    return 0;
}
int MPI_Comm_rank(void *comm, int *rank) {
    (void)comm;
    *rank = getenv("PMI_RANK") ? atoi(getenv("PMI_RANK")) : -1;
    return 0;
}
int MPI_Comm_size(void *comm, int *size) {
    (void)comm;
    *size = getenv("PMI_SIZE") ? atoi(getenv("PMI_SIZE")) : -1;
    return 0;
}
int MPI_Get_library_version(char *version, int *len) {
    snprintf(version, 64, "fake face of Tollway's tests");
    *len = (int)strlen(version);
    return 0;
}
