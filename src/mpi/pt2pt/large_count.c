/* The large-count point-to-point calls (MPI-4.1 section 3, the _c forms): the same
 * paths as the int forms (pt2pt.c), whose counts are MPI_Count all the way to the
 * engine, which moves size_t bytes. A negative count is MPI_ERR_COUNT, from the
 * generated wrapper or the common checks. */
#include "mpi/pt2pt/bsend.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/pt2pt.h"

int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
    return tw_mpi_pt2pt_send_blocking("MPI_Send_c", buf, count, datatype, dest, tag, comm,
                                      TW_SEND_STANDARD);
}

int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
    return tw_mpi_pt2pt_send_blocking("MPI_Ssend_c", buf, count, datatype, dest, tag, comm,
                                      TW_SEND_SYNC);
}

/* a ready send is sent as a standard one (pt2pt.c) */
int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
    return tw_mpi_pt2pt_send_blocking("MPI_Rsend_c", buf, count, datatype, dest, tag, comm,
                                      TW_SEND_STANDARD);
}

int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
    return tw_mpi_pt2pt_send_blocking("MPI_Bsend_c", buf, count, datatype, dest, tag, comm,
                                      TW_SEND_BUFFERED);
}

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_send("MPI_Isend_c", buf, count, datatype, dest, tag, comm, TW_SEND_STANDARD,
                             0, request);
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_send("MPI_Issend_c", buf, count, datatype, dest, tag, comm, TW_SEND_SYNC, 0,
                             request);
}

int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_send("MPI_Irsend_c", buf, count, datatype, dest, tag, comm,
                             TW_SEND_STANDARD, 0, request);
}

/* complete once copied into the attached buffer, as MPI_Ibsend */
int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request) {
    int rc = tw_mpi_pt2pt_send("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm,
                               TW_SEND_BUFFERED, 0, request);
    if (!rc) *request = TW_MPI_REQUEST_SENT;
    return rc;
}

int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_send("MPI_Send_init_c", buf, count, datatype, dest, tag, comm,
                             TW_SEND_STANDARD, 1, request);
}

int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_send("MPI_Ssend_init_c", buf, count, datatype, dest, tag, comm,
                             TW_SEND_SYNC, 1, request);
}

int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_send("MPI_Rsend_init_c", buf, count, datatype, dest, tag, comm,
                             TW_SEND_STANDARD, 1, request);
}

int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_send("MPI_Bsend_init_c", buf, count, datatype, dest, tag, comm,
                             TW_SEND_BUFFERED, 1, request);
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Status *status) {
    return tw_mpi_pt2pt_recv_blocking("MPI_Recv_c", buf, count, datatype, source, tag, comm,
                                      status);
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_recv("MPI_Irecv_c", buf, count, datatype, source, tag, comm, 0, request);
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Request *request) {
    return tw_mpi_pt2pt_recv("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, 1,
                             request);
}

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
    return tw_mpi_pt2pt_sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag,
                                 recvbuf, recvcount, recvtype, source, recvtag, comm, status);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
    return tw_mpi_pt2pt_sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest,
                                         sendtag, source, recvtag, comm, status);
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Request *request) {
    return tw_mpi_pt2pt_imrecv("MPI_Imrecv_c", buf, count, datatype, message, request);
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Status *status) {
    return tw_mpi_pt2pt_mrecv("MPI_Mrecv_c", buf, count, datatype, message, status);
}
