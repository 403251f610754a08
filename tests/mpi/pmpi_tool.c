/* A profiling tool as mpiP or Score-P build them: it defines MPI_ calls, counts them
 * and reaches the library through their PMPI_ twins. pmpi_tool_count() says how many
 * calls of a name it saw; the program under test looks it up with dlsym, so the tool
 * works linked in or preloaded alike. */
#include <mpi.h>
#include <string.h>

enum {
    SEND,
    RECV,
    ISEND,
    IRECV,
    WAIT,
    WAITALL,
    SENDRECV,
    BCAST,
    ALLREDUCE,
    BARRIER,
    COMM_DUP,
    COMM_FREE,
    INIT,
    CALLS
};
static const char *names[CALLS] = {"MPI_Send",      "MPI_Recv",    "MPI_Isend",    "MPI_Irecv",
                                   "MPI_Wait",      "MPI_Waitall", "MPI_Sendrecv", "MPI_Bcast",
                                   "MPI_Allreduce", "MPI_Barrier", "MPI_Comm_dup", "MPI_Comm_free",
                                   "MPI_Init"};
static int counts[CALLS];

int pmpi_tool_count(const char *name);
int pmpi_tool_count(const char *name) {
    for (int k = 0; k < CALLS; k++)
        if (!strcmp(names[k], name)) return counts[k];
    return -1;
}

int MPI_Init(int *argc, char ***argv) {
    counts[INIT]++;
    return PMPI_Init(argc, argv);
}
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    counts[SEND]++;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
    counts[RECV]++;
    return PMPI_Recv(buf, count, type, source, tag, comm, status);
}
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
    counts[ISEND]++;
    return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
    counts[IRECV]++;
    return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}
int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    counts[WAIT]++;
    return PMPI_Wait(request, status);
}
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    counts[WAITALL]++;
    return PMPI_Waitall(count, requests, statuses);
}
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status) {
    counts[SENDRECV]++;
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
}
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    counts[BCAST]++;
    return PMPI_Bcast(buf, count, type, root, comm);
}
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
    counts[ALLREDUCE]++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}
int MPI_Barrier(MPI_Comm comm) {
    counts[BARRIER]++;
    return PMPI_Barrier(comm);
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    counts[COMM_DUP]++;
    return PMPI_Comm_dup(comm, newcomm);
}
int MPI_Comm_free(MPI_Comm *comm) {
    counts[COMM_FREE]++;
    return PMPI_Comm_free(comm);
}
