/* The MPI point-to-point calls: argument checks and rank translation in front of
 * the engine (engine.c). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/pt2pt/bsend.h"
#include "mpi/pt2pt/cancel.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/status.h"

/* Checks the buffer description common to sends and receives; where its data lies
 * in *b. A derived type may address memory absolutely, from MPI_BOTTOM (NULL). */
static int check_buffer(tw_mpi_comm_t *c, const char *call, const void *buf, MPI_Count count,
                        MPI_Datatype type, tw_mpi_buffer_t *b) {
    if (count < 0) return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
    int size = tw_mpi_type_contiguous_size(type);
    if (size >= 0) {
        if (!buf && count > 0 && size > 0)
            return tw_mpi_error(c, call, MPI_ERR_BUFFER, "NULL buffer");
        if (size && (unsigned long long)count > PTRDIFF_MAX / (unsigned)size)
            return tw_mpi_error(c, call, MPI_ERR_COUNT, "the message's size overflows");
        *b = (tw_mpi_buffer_t){(unsigned char *)(uintptr_t)buf, (size_t)count * (size_t)size, 0};
        return MPI_SUCCESS;
    }
    if (!buf && count > 0 && tw_mpi_type_extent(type) > 0) /* a padded pair */
        return tw_mpi_error(c, call, MPI_ERR_BUFFER, "NULL buffer");
    int rc = tw_mpi_type_buffer(type, buf, count, b);
    if (rc == MPI_ERR_TYPE) return tw_mpi_error(c, call, rc, "not a committed datatype");
    if (rc) return tw_mpi_error(c, call, rc, "the message's size overflows");
    return MPI_SUCCESS;
}

/* What every send and receive checks first: the library is up, the communicator
 * exists, the buffer description holds. The communicator and buffer come back. */
static int check_call(const char *call, MPI_Comm comm, const void *buf, MPI_Count count,
                      MPI_Datatype type, tw_mpi_comm_t **c, tw_mpi_buffer_t *bytes) {
    NEED_INIT(call);
    *c = tw_mpi_comm_get(comm);
    if (!*c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    return check_buffer(*c, call, buf, count, type, bytes);
}

/* Checks destination, tag and request of a send; an error class, or MPI_SUCCESS. */
static int check_send(tw_mpi_comm_t *c, const char *call, int dest, int tag, MPI_Request *req) {
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= c->size)) {
        char d[64];
        snprintf(d, sizeof d, "destination %d in a communicator of %d", dest, c->size);
        return tw_mpi_error(c, call, MPI_ERR_RANK, d);
    }
    if (tag < 0 || tag > TW_MPI_TAG_UB) return tw_mpi_error(c, call, MPI_ERR_TAG, NULL);
    if (!req) return tw_mpi_error(c, call, MPI_ERR_REQUEST, "request is NULL");
    return MPI_SUCCESS;
}

/* Checks source and tag of a receive or probe. */
static int check_source(tw_mpi_comm_t *c, const char *call, int source, int tag) {
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size)) {
        char d[64];
        snprintf(d, sizeof d, "source %d in a communicator of %d", source, c->size);
        return tw_mpi_error(c, call, MPI_ERR_RANK, d);
    }
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > TW_MPI_TAG_UB))
        return tw_mpi_error(c, call, MPI_ERR_TAG, NULL);
    return MPI_SUCCESS;
}

/* A send of a non-contiguous buffer: packed into a copy the request owns. */
static int send_staged(const void *buf, MPI_Count count, MPI_Datatype type, int to, int tag,
                       tw_mpi_comm_t *c, int mode, int persistent, MPI_Request *req) {
    tw_mpi_staged_t *st;
    int buffered = mode == TW_SEND_BUFFERED && !persistent;
    int rc =
        tw_mpi_staged_new((void *)(uintptr_t)buf, count, type, buffered ? 0 : TW_PACK_CHUNK, &st);
    if (rc) return rc;
    if (buffered) { /* packed into the attached buffer at once */
        rc = tw_mpi_bsend_staged(st, to, tag, c->context);
        tw_mpi_staged_free(st);
        return rc;
    }
    return tw_mpi_send_staged(st, to, tag, c->context, mode, persistent, req);
}

/* Every send: checked, then started (persistent: created inactive). */
static int send_common(const char *call, const void *buf, MPI_Count count, MPI_Datatype type,
                       int dest, int tag, MPI_Comm comm, int mode, int persistent,
                       MPI_Request *req) {
    tw_mpi_comm_t *c;
    tw_mpi_buffer_t b;
    int rc = check_call(call, comm, buf, count, type, &c, &b);
    if (!rc) rc = check_send(c, call, dest, tag, req);
    if (rc) return rc;
    int to = tw_mpi_world_rank(c, dest);
    if (b.staged)
        rc = send_staged(buf, count, type, to, tag, c, mode, persistent, req);
    else if (persistent)
        rc = tw_mpi_send_init(b.at, b.bytes, to, tag, c->context, mode, req);
    else if (mode == TW_SEND_BUFFERED) /* copied aside: complete at once */
        rc = tw_mpi_bsend(b.at, b.bytes, to, tag, c->context);
    else
        rc = tw_mpi_isend(b.at, b.bytes, to, tag, c->context, mode, req);
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

static int recv_common(const char *call, void *buf, MPI_Count count, MPI_Datatype type, int source,
                       int tag, MPI_Comm comm, int persistent, MPI_Request *req) {
    tw_mpi_comm_t *c;
    tw_mpi_buffer_t b;
    int rc = check_call(call, comm, buf, count, type, &c, &b);
    if (!rc) rc = check_source(c, call, source, tag);
    if (rc) return rc;
    if (!req) return tw_mpi_error(c, call, MPI_ERR_REQUEST, "request is NULL");
    int from = tw_mpi_world_rank(c, source);
    tw_mpi_staged_t *st;
    if (b.staged) {
        rc = tw_mpi_staged_new(buf, count, type, TW_PACK_CHUNK, &st);
        if (!rc) rc = tw_mpi_recv_staged(st, from, tag, c->context, persistent, req);
    } else {
        rc = persistent ? tw_mpi_recv_init(b.at, b.bytes, from, tag, c->context, req)
                        : tw_mpi_irecv(b.at, b.bytes, from, tag, c->context, req);
    }
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

/* The common case of a standard send, tried before anything else: valid arguments,
 * a small message, a peer with nothing queued. MPI_SUCCESS when the message went
 * straight into the peer's mailbox; 1 when the general path must take it. */
static inline int send_now(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                           int tag, MPI_Comm comm) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    int extent = tw_mpi_type_contiguous_size(datatype);
    if (c && tw_mpi.users > 0 && extent >= 0 && count >= 0 && (buf || !count) && dest >= 0 &&
        dest < c->size && tag >= 0 && tag <= TW_MPI_TAG_UB)
        return tw_mpi_send_now(c->channel, buf, (size_t)count * (size_t)extent,
                               tw_mpi_world_rank(c, dest), tag, c->context);
    return 1;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
    if (request && send_now(buf, count, datatype, dest, tag, comm) == MPI_SUCCESS) {
        *request = TW_MPI_REQUEST_SENT;
        return MPI_SUCCESS;
    }
    return send_common("MPI_Isend", buf, count, datatype, dest, tag, comm, TW_SEND_STANDARD, 0,
                       request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
    return send_common("MPI_Issend", buf, count, datatype, dest, tag, comm, TW_SEND_SYNC, 0,
                       request);
}

/* A ready send may assume its receive is posted; sending it like any other is
 * correct whether or not the program keeps that promise. */
int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
    return send_common("MPI_Irsend", buf, count, datatype, dest, tag, comm, TW_SEND_STANDARD, 0,
                       request);
}

/* A buffered send is complete once its data is copied into the attached buffer. */
int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
    int rc = send_common("MPI_Ibsend", buf, count, datatype, dest, tag, comm, TW_SEND_BUFFERED, 0,
                         request);
    if (!rc) *request = TW_MPI_REQUEST_SENT;
    return rc;
}

/* The arguments of a receive, when all of them are valid and the source is a rank or
 * MPI_ANY_SOURCE: its communicator, else NULL (the general path checks and reports). */
static inline tw_mpi_comm_t *recv_args_ok(const void *buf, int count, MPI_Datatype datatype,
                                          int source, int tag, MPI_Comm comm, size_t *bytes) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    int extent = tw_mpi_type_contiguous_size(datatype);
    *bytes = (size_t)count * (size_t)extent;
    return c && tw_mpi.users > 0 && extent >= 0 && count >= 0 && (buf || !count) &&
                   (source == MPI_ANY_SOURCE || (source >= 0 && source < c->size)) &&
                   (tag == MPI_ANY_TAG || (tag >= 0 && tag <= TW_MPI_TAG_UB))
               ? c
               : NULL;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
    size_t bytes;
    tw_mpi_comm_t *c = recv_args_ok(buf, count, datatype, source, tag, comm, &bytes);
    if (c && request) {
        int rc = tw_mpi_irecv(buf, bytes, tw_mpi_world_rank(c, source), tag, c->context, request);
        return rc ? tw_mpi_error(c, "MPI_Irecv", rc, NULL) : MPI_SUCCESS;
    }
    return recv_common("MPI_Irecv", buf, count, datatype, source, tag, comm, 0, request);
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request) {
    return send_common("MPI_Send_init", buf, count, datatype, dest, tag, comm, TW_SEND_STANDARD, 1,
                       request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request) {
    return send_common("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, TW_SEND_SYNC, 1,
                       request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request) {
    return send_common("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, TW_SEND_STANDARD, 1,
                       request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request) {
    return send_common("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, TW_SEND_BUFFERED, 1,
                       request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request) {
    return recv_common("MPI_Recv_init", buf, count, datatype, source, tag, comm, 1, request);
}

static int wait_as(const char *call, MPI_Comm comm, MPI_Request *req, MPI_Status *status) {
    int rc = tw_mpi_wait(req, status);
    return rc ? tw_mpi_error(tw_mpi_comm_get(comm), call, rc, NULL) : MPI_SUCCESS;
}

/* A blocking send: started, then waited for. */
static int send_blocking(const char *call, const void *buf, MPI_Count count, MPI_Datatype type,
                         int dest, int tag, MPI_Comm comm, int mode) {
    MPI_Request r;
    int rc = send_common(call, buf, count, type, dest, tag, comm, mode, 0, &r);
    return rc ? rc : wait_as(call, comm, &r, MPI_STATUS_IGNORE);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    if (send_now(buf, count, datatype, dest, tag, comm) == MPI_SUCCESS) return MPI_SUCCESS;
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm, TW_SEND_STANDARD);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm, TW_SEND_SYNC);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm, TW_SEND_STANDARD);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    MPI_Request unused;
    return send_common("MPI_Bsend", buf, count, datatype, dest, tag, comm, TW_SEND_BUFFERED, 0,
                       &unused);
}

static inline int recv_blocking(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                                int source, int tag, MPI_Comm comm, MPI_Status *status) {
    size_t bytes;
    /* the common case takes int counts (a large one goes the general way) */
    tw_mpi_comm_t *c = count <= INT_MAX
                           ? recv_args_ok(buf, (int)count, datatype, source, tag, comm, &bytes)
                           : NULL;
    if (c) {
        int rc = tw_mpi_recv_now(buf, bytes, tw_mpi_world_rank(c, source), tag, c->context, status);
        if (rc != 1) return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
    }
    MPI_Request r;
    int rc = recv_common(call, buf, count, datatype, source, tag, comm, 0, &r);
    return rc ? rc : wait_as(call, comm, &r, status);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
    return recv_blocking("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

int tw_mpi_sendrecv_start(const char *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Request r[2]) {
    tw_mpi_comm_t *c;
    tw_mpi_buffer_t bytes;
    /* the send half is checked before the receive starts, so a call that fails
     * consumes no message */
    int rc = check_call(call, comm, sendbuf, sendcount, sendtype, &c, &bytes);
    if (!rc) rc = check_send(c, call, dest, sendtag, &r[1]);
    if (!rc) rc = recv_common(call, recvbuf, recvcount, recvtype, source, recvtag, comm, 0, &r[0]);
    if (rc) return rc;
    rc = send_common(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, TW_SEND_STANDARD, 0,
                     &r[1]);
    if (rc) {
        tw_mpi_cancel(r[0]);
        tw_mpi_wait(&r[0], MPI_STATUS_IGNORE);
    }
    return rc;
}

static int sendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status) {
    MPI_Request r[2];
    int rc = tw_mpi_sendrecv_start(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                   recvcount, recvtype, source, recvtag, comm, r);
    if (rc) return rc;
    int rs = wait_as(call, comm, &r[1], MPI_STATUS_IGNORE);
    int rr = wait_as(call, comm, &r[0], status);
    return rr ? rr : rs;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status) {
    return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                    recvtype, source, recvtag, comm, status);
}

/* Checks a probe's arguments; 1 (with the status of an empty message filled) when
 * the source is MPI_PROC_NULL. */
static int check_probe(const char *call, int source, int tag, MPI_Comm comm, tw_mpi_comm_t **c,
                       MPI_Status *status, int *proc_null) {
    NEED_INIT(call);
    *c = tw_mpi_comm_get(comm);
    if (!*c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    int rc = check_source(*c, call, source, tag);
    if (rc) return rc;
    *proc_null = source == MPI_PROC_NULL;
    if (*proc_null && status) tw_mpi_status_proc_null(status);
    return MPI_SUCCESS;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
    tw_mpi_comm_t *c;
    int proc_null, rc = check_probe("MPI_Iprobe", source, tag, comm, &c, status, &proc_null);
    if (rc) return rc;
    if (!flag) return tw_mpi_error(c, "MPI_Iprobe", MPI_ERR_ARG, "flag is NULL");
    if (proc_null) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    return tw_mpi_iprobe(tw_mpi_world_rank(c, source), tag, c->context, flag, status);
}

/* A blocking probe that found nothing: the code of the lost peer it would wait for
 * (source, or for MPI_ANY_SOURCE any member of comm), raised; 0 while none is. */
static int probe_lost(const char *call, MPI_Comm comm, int source) {
    if (!tw_mpi_lost_count) return 0;
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    int w = source == MPI_ANY_SOURCE ? tw_mpi_comm_lost_member(c) : tw_mpi_world_rank(c, source);
    return w >= 0 && tw_mpi_is_lost(w) ? tw_mpi_error(c, call, tw_mpi_lost_code(w), NULL) : 0;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
    unsigned spins = 0;
    for (;;) {
        int flag, rc = MPI_Iprobe(source, tag, comm, &flag, status);
        if (rc || flag) return rc;
        if ((rc = probe_lost("MPI_Probe", comm, source))) return rc;
        tw_mpi_relax(&spins);
    }
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status) {
    tw_mpi_comm_t *c;
    int proc_null, rc = check_probe("MPI_Improbe", source, tag, comm, &c, status, &proc_null);
    if (rc) return rc;
    if (!flag || !message)
        return tw_mpi_error(c, "MPI_Improbe", MPI_ERR_ARG, "flag or message is NULL");
    if (proc_null) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    rc = tw_mpi_improbe(tw_mpi_world_rank(c, source), tag, c->context, flag, message, status);
    return rc ? tw_mpi_error(c, "MPI_Improbe", rc, NULL) : MPI_SUCCESS;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status) {
    unsigned spins = 0;
    for (;;) {
        int flag, rc = MPI_Improbe(source, tag, comm, &flag, message, status);
        if (rc || flag) return rc;
        if ((rc = probe_lost("MPI_Mprobe", comm, source))) return rc;
        tw_mpi_relax(&spins);
    }
}

/* Errors of a matched receive go to the communicator of the probe that matched it. */
static int imrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Request *request) {
    NEED_INIT(call);
    if (!message) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "message is NULL");
    tw_mpi_comm_t *c = tw_mpi_message_comm(*message);
    if (*message != MPI_MESSAGE_NO_PROC && !c)
        return tw_mpi_error(NULL, call, MPI_ERR_REQUEST,
                            "not a message from MPI_Mprobe or MPI_Improbe");
    if (!request) return tw_mpi_error(c, call, MPI_ERR_ARG, "request is NULL");
    tw_mpi_buffer_t b;
    int rc = check_buffer(c, call, buf, count, datatype, &b);
    if (rc) return rc;
    tw_mpi_staged_t *st;
    if (*message == MPI_MESSAGE_NO_PROC) { /* a receive from MPI_PROC_NULL */
        *message = MPI_MESSAGE_NULL;
        rc = tw_mpi_irecv(buf, 0, MPI_PROC_NULL, MPI_ANY_TAG, 0, request);
    } else if (b.staged) {
        rc = tw_mpi_staged_new(buf, count, datatype, TW_PACK_CHUNK, &st);
        if (!rc) rc = tw_mpi_imrecv_staged(st, message, request);
    } else {
        rc = tw_mpi_imrecv(b.at, b.bytes, message, request);
    }
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Request *request) {
    return imrecv("MPI_Imrecv", buf, count, datatype, message, request);
}

static int mrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Message *message, MPI_Status *status) {
    MPI_Request r;
    int rc = imrecv(call, buf, count, datatype, message, &r);
    if (rc) return rc;
    tw_mpi_comm_t *c = tw_mpi_request_comm(r);
    rc = tw_mpi_wait(&r, status);
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
              MPI_Status *status) {
    return mrecv("MPI_Mrecv", buf, count, datatype, message, status);
}

void *tw_mpi_sendrecv_copy(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Comm comm, MPI_Count *bytes, int *rc) {
    tw_mpi_comm_t *c;
    tw_mpi_buffer_t b;
    *rc = check_call(call, comm, buf, count, datatype, &c, &b);
    if (*rc) return NULL;
    void *copy = malloc(b.bytes ? b.bytes : 1);
    if (!copy) {
        *rc = tw_mpi_error(c, call, MPI_ERR_NO_MEM, NULL);
        return NULL;
    }
    if (b.staged)
        tw_mpi_type_pack(buf, count, datatype, copy);
    else if (b.bytes) /* b.at may be NULL when count is 0 */
        memcpy(copy, b.at, b.bytes);
    *bytes = (MPI_Count)b.bytes;
    return copy;
}

static int sendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status) {
    /* the outgoing data leaves from a packed copy, so the reply can land in buf */
    MPI_Count bytes;
    int rc;
    void *copy = tw_mpi_sendrecv_copy(call, buf, count, datatype, comm, &bytes, &rc);
    if (!copy) return rc;
    rc = sendrecv(call, copy, bytes, MPI_BYTE, dest, sendtag, buf, count, datatype, source, recvtag,
                  comm, status);
    free(copy);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
    return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                            recvtag, comm, status);
}

/* ---- the way in of the large-count calls (pt2pt/large_count.c) ---- */

int tw_mpi_pt2pt_send(const char *call, const void *buf, MPI_Count count, MPI_Datatype type,
                      int dest, int tag, MPI_Comm comm, int mode, int persistent,
                      MPI_Request *req) {
    return send_common(call, buf, count, type, dest, tag, comm, mode, persistent, req);
}

int tw_mpi_pt2pt_send_blocking(const char *call, const void *buf, MPI_Count count,
                               MPI_Datatype type, int dest, int tag, MPI_Comm comm, int mode) {
    if (mode == TW_SEND_STANDARD && count <= INT_MAX &&
        send_now(buf, count, type, dest, tag, comm) == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (mode == TW_SEND_BUFFERED) {
        MPI_Request unused;
        return send_common(call, buf, count, type, dest, tag, comm, mode, 0, &unused);
    }
    return send_blocking(call, buf, count, type, dest, tag, comm, mode);
}

int tw_mpi_pt2pt_recv(const char *call, void *buf, MPI_Count count, MPI_Datatype type, int source,
                      int tag, MPI_Comm comm, int persistent, MPI_Request *req) {
    return recv_common(call, buf, count, type, source, tag, comm, persistent, req);
}

int tw_mpi_pt2pt_recv_blocking(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                               int source, int tag, MPI_Comm comm, MPI_Status *status) {
    return recv_blocking(call, buf, count, type, source, tag, comm, status);
}

int tw_mpi_pt2pt_sendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status) {
    return sendrecv(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                    source, recvtag, comm, status);
}

int tw_mpi_pt2pt_sendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                                  int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                                  MPI_Status *status) {
    return sendrecv_replace(call, buf, count, type, dest, sendtag, source, recvtag, comm, status);
}

int tw_mpi_pt2pt_imrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                        MPI_Message *message, MPI_Request *request) {
    return imrecv(call, buf, count, type, message, request);
}

int tw_mpi_pt2pt_mrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                       MPI_Message *message, MPI_Status *status) {
    return mrecv(call, buf, count, type, message, status);
}
