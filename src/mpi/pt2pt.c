/* The MPI point-to-point calls: argument checks, rank translation, and the engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* Checks the buffer description common to sends and receives; the byte count in *bytes. */
static int check_buffer(tw_mpi_comm_t *c, const char *call, const void *buf, int count,
                        MPI_Datatype type, size_t *bytes) {
    if (count < 0) return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
    int size = tw_mpi_type_size(type);
    if (size < 0) return tw_mpi_error(c, call, MPI_ERR_TYPE, NULL);
    if (!buf && count > 0 && size > 0) return tw_mpi_error(c, call, MPI_ERR_BUFFER, "NULL buffer");
    *bytes = (size_t)count * (size_t)size;
    return MPI_SUCCESS;
}

/* What every send and receive checks first: the library is up, the communicator
 * exists, the buffer description holds. The communicator and byte count come back. */
static int check_call(const char *call, MPI_Comm comm, const void *buf, int count,
                      MPI_Datatype type, tw_mpi_comm_t **c, size_t *bytes) {
    NEED_INIT(call);
    *c = tw_mpi_comm_get(comm);
    if (!*c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    return check_buffer(*c, call, buf, count, type, bytes);
}

static int send_common(const char *call, const void *buf, int count, MPI_Datatype type, int dest,
                       int tag, MPI_Comm comm, int sync, MPI_Request *req) {
    tw_mpi_comm_t *c;
    size_t bytes = 0;
    int rc = check_call(call, comm, buf, count, type, &c, &bytes);
    if (rc) return rc;
    if (dest != MPI_PROC_NULL && (dest < 0 || dest >= c->size)) {
        char d[64];
        snprintf(d, sizeof d, "destination %d in a communicator of %d", dest, c->size);
        return tw_mpi_error(c, call, MPI_ERR_RANK, d);
    }
    if (tag < 0 || tag > TW_MPI_TAG_UB) return tw_mpi_error(c, call, MPI_ERR_TAG, NULL);
    if (!req) return tw_mpi_error(c, call, MPI_ERR_REQUEST, "request is NULL");
    rc = tw_mpi_isend(buf, bytes, tw_mpi_world_rank(c, dest), tag, c->context, sync, req);
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

static int recv_common(const char *call, void *buf, int count, MPI_Datatype type, int source,
                       int tag, MPI_Comm comm, MPI_Request *req) {
    tw_mpi_comm_t *c;
    size_t bytes = 0;
    int rc = check_call(call, comm, buf, count, type, &c, &bytes);
    if (rc) return rc;
    if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        return tw_mpi_error(c, call, MPI_ERR_RANK, NULL);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > TW_MPI_TAG_UB))
        return tw_mpi_error(c, call, MPI_ERR_TAG, NULL);
    if (!req) return tw_mpi_error(c, call, MPI_ERR_REQUEST, "request is NULL");
    rc = tw_mpi_irecv(buf, bytes, tw_mpi_world_rank(c, source), tag, c->context, req);
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

/* A status reports ranks of the communicator it was received in. */
static void status_to_comm(const tw_mpi_comm_t *c, MPI_Status *status) {
    if (status && c && status->MPI_SOURCE >= 0)
        status->MPI_SOURCE = tw_mpi_comm_rank_of(c, status->MPI_SOURCE);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
    return send_common("MPI_Isend", buf, count, datatype, dest, tag, comm, 0, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
    return send_common("MPI_Issend", buf, count, datatype, dest, tag, comm, 1, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
    return recv_common("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

static int wait_as(const char *call, MPI_Comm comm, MPI_Request *req, MPI_Status *status) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    int rc = tw_mpi_wait(req, status);
    status_to_comm(c, status);
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    /* the common case: a small message to a peer with nothing queued goes straight in */
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    int size = tw_mpi_type_size(datatype);
    if (c && tw_mpi.initialized && !tw_mpi.finalized && size >= 0 && count >= 0 &&
        (buf || !count) && dest >= 0 && dest < c->size && tag >= 0 && tag <= TW_MPI_TAG_UB &&
        tw_mpi_send_now(buf, (size_t)count * (size_t)size, tw_mpi_world_rank(c, dest), tag,
                        c->context) == MPI_SUCCESS)
        return MPI_SUCCESS;
    MPI_Request r;
    int rc = send_common("MPI_Send", buf, count, datatype, dest, tag, comm, 0, &r);
    return rc ? rc : wait_as("MPI_Send", comm, &r, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    MPI_Request r;
    int rc = send_common("MPI_Ssend", buf, count, datatype, dest, tag, comm, 1, &r);
    return rc ? rc : wait_as("MPI_Ssend", comm, &r, MPI_STATUS_IGNORE);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    int size = tw_mpi_type_size(datatype);
    if (c && tw_mpi.initialized && !tw_mpi.finalized && size >= 0 && count >= 0 &&
        (buf || !count) && (source == MPI_ANY_SOURCE || (source >= 0 && source < c->size)) &&
        (tag == MPI_ANY_TAG || (tag >= 0 && tag <= TW_MPI_TAG_UB))) {
        int st_source, st_tag;
        size_t st_bytes;
        int rc = tw_mpi_recv_now(buf, (size_t)count * (size_t)size, tw_mpi_world_rank(c, source),
                                 tag, c->context, &st_source, &st_tag, &st_bytes);
        if (rc != 1) {
            if (status) {
                status->MPI_SOURCE = st_source;
                status->MPI_TAG = st_tag;
                status->MPI_ERROR = rc;
                status->tw_count_lo = (int)(uint32_t)st_bytes;
                status->tw_count_hi = (int)(st_bytes >> 32);
                status->tw_cancelled = 0;
                status_to_comm(c, status);
            }
            return rc ? tw_mpi_error(c, "MPI_Recv", rc, NULL) : MPI_SUCCESS;
        }
    }
    MPI_Request r;
    int rc = recv_common("MPI_Recv", buf, count, datatype, source, tag, comm, &r);
    return rc ? rc : wait_as("MPI_Recv", comm, &r, status);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status) {
    MPI_Request r[2];
    int rc =
        recv_common("MPI_Sendrecv", recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
    if (rc) return rc;
    rc = send_common("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, &r[1]);
    if (rc) return rc;
    int rs = wait_as("MPI_Sendrecv", comm, &r[1], MPI_STATUS_IGNORE);
    int rr = wait_as("MPI_Sendrecv", comm, &r[0], status);
    return rr ? rr : rs;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    NEED_INIT("MPI_Wait");
    if (!request) return tw_mpi_error(NULL, "MPI_Wait", MPI_ERR_REQUEST, NULL);
    if (*request == MPI_REQUEST_NULL) {
        if (status) *status = (MPI_Status){MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 0};
        return MPI_SUCCESS;
    }
    if (!tw_mpi_request_valid(*request))
        return tw_mpi_error(NULL, "MPI_Wait", MPI_ERR_REQUEST, NULL);
    int rc = tw_mpi_wait(request, status);
    return rc ? tw_mpi_error(NULL, "MPI_Wait", rc, NULL) : MPI_SUCCESS;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    NEED_INIT("MPI_Test");
    if (!request || !flag) return tw_mpi_error(NULL, "MPI_Test", MPI_ERR_ARG, NULL);
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        if (status) *status = (MPI_Status){MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 0};
        return MPI_SUCCESS;
    }
    if (!tw_mpi_request_valid(*request))
        return tw_mpi_error(NULL, "MPI_Test", MPI_ERR_REQUEST, NULL);
    int rc = tw_mpi_test(request, flag, status);
    return rc ? tw_mpi_error(NULL, "MPI_Test", rc, NULL) : MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    NEED_INIT("MPI_Waitall");
    if (count < 0 || (count && !requests))
        return tw_mpi_error(NULL, "MPI_Waitall", MPI_ERR_ARG, NULL);
    for (int i = 0; i < count; i++)
        if (requests[i] != MPI_REQUEST_NULL && !tw_mpi_request_valid(requests[i]))
            return tw_mpi_error(NULL, "MPI_Waitall", MPI_ERR_REQUEST, NULL);
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status s = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 0};
        int rc = requests[i] == MPI_REQUEST_NULL ? MPI_SUCCESS : tw_mpi_wait(&requests[i], &s);
        if (statuses) {
            statuses[i] = s;
            statuses[i].MPI_ERROR = rc;
        }
        failed |= rc != MPI_SUCCESS;
    }
    return failed ? tw_mpi_error(NULL, "MPI_Waitall", MPI_ERR_IN_STATUS, NULL) : MPI_SUCCESS;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    NEED_INIT("MPI_Testall");
    if (count < 0 || (count && !requests) || !flag)
        return tw_mpi_error(NULL, "MPI_Testall", MPI_ERR_ARG, NULL);
    for (int i = 0; i < count; i++)
        if (requests[i] != MPI_REQUEST_NULL && !tw_mpi_request_valid(requests[i]))
            return tw_mpi_error(NULL, "MPI_Testall", MPI_ERR_REQUEST, NULL);
    tw_mpi_progress();
    /* all or nothing: the requests are completed only when every one is done */
    for (int i = 0; i < count; i++)
        if (requests[i] != MPI_REQUEST_NULL && !tw_mpi_request_done(requests[i])) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    *flag = 1;
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status s = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 0};
        int f,
            rc = requests[i] == MPI_REQUEST_NULL ? MPI_SUCCESS : tw_mpi_test(&requests[i], &f, &s);
        if (statuses) {
            statuses[i] = s;
            statuses[i].MPI_ERROR = rc;
        }
        failed |= rc != MPI_SUCCESS;
    }
    return failed ? tw_mpi_error(NULL, "MPI_Testall", MPI_ERR_IN_STATUS, NULL) : MPI_SUCCESS;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
    NEED_INIT("MPI_Iprobe");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Iprobe", MPI_ERR_COMM, NULL);
    if (!flag) return tw_mpi_error(c, "MPI_Iprobe", MPI_ERR_ARG, NULL);
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        if (status) *status = (MPI_Status){MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 0};
        return MPI_SUCCESS;
    }
    if (source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        return tw_mpi_error(c, "MPI_Iprobe", MPI_ERR_RANK, NULL);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > TW_MPI_TAG_UB))
        return tw_mpi_error(c, "MPI_Iprobe", MPI_ERR_TAG, NULL);
    tw_mpi_iprobe(tw_mpi_world_rank(c, source), tag, c->context, flag, status);
    if (*flag) status_to_comm(c, status);
    return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status) {
    unsigned spins = 0;
    for (;;) {
        int flag, rc = MPI_Iprobe(source, tag, comm, &flag, status);
        if (rc || flag) return rc;
        tw_ep_relax(tw_mpi.ep, &spins);
    }
}

/* Dissemination barrier on the communicator's collective context: ceil(log2 n)
 * rounds of zero-byte messages. */
int MPI_Barrier(MPI_Comm comm) {
    NEED_INIT("MPI_Barrier");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Barrier", MPI_ERR_COMM, NULL);
    if (c->size == 1) return MPI_SUCCESS;
    uint32_t ctx = c->context + TW_CTX_COLL;
    for (int k = 1, round = 0; k < c->size; k <<= 1, round++) {
        MPI_Request r[2];
        int to = (c->rank + k) % c->size, from = (c->rank - k + c->size) % c->size;
        if (tw_mpi_irecv(NULL, 0, tw_mpi_world_rank(c, from), round, ctx, &r[0]) ||
            tw_mpi_isend(NULL, 0, tw_mpi_world_rank(c, to), round, ctx, 0, &r[1]))
            return tw_mpi_error(c, "MPI_Barrier", MPI_ERR_NO_MEM, NULL);
        tw_mpi_wait(&r[1], MPI_STATUS_IGNORE);
        tw_mpi_wait(&r[0], MPI_STATUS_IGNORE);
    }
    return MPI_SUCCESS;
}

/* A ready send may assume its receive is posted; sending it like any other is
 * correct whether or not the program keeps that promise. */
int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    MPI_Request r;
    int rc = send_common("MPI_Rsend", buf, count, datatype, dest, tag, comm, 0, &r);
    return rc ? rc : wait_as("MPI_Rsend", comm, &r, MPI_STATUS_IGNORE);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request) {
    return send_common("MPI_Irsend", buf, count, datatype, dest, tag, comm, 0, request);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
    tw_mpi_comm_t *c;
    size_t bytes = 0;
    int rc = check_call("MPI_Sendrecv_replace", comm, buf, count, datatype, &c, &bytes);
    if (rc) return rc;
    /* the outgoing data leaves from a copy, so the reply can land in buf */
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy) return tw_mpi_error(c, "MPI_Sendrecv_replace", MPI_ERR_NO_MEM, NULL);
    if (bytes) memcpy(copy, buf, bytes); /* buf may be NULL when count is 0 */
    rc = MPI_Sendrecv(copy, count, datatype, dest, sendtag, buf, count, datatype, source, recvtag,
                      comm, status);
    free(copy);
    return rc;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    return MPI_Get_count(status, datatype, count); /* predefined types: elements = count */
}

int MPI_Request_free(MPI_Request *request) {
    NEED_INIT("MPI_Request_free");
    if (!request || !tw_mpi_request_valid(*request))
        return tw_mpi_error(NULL, "MPI_Request_free", MPI_ERR_REQUEST, NULL);
    return tw_mpi_request_free(request);
}

/* Checks an array of requests: every one valid or null. The number of active ones
 * in *active. */
static int check_requests(const char *call, int count, const MPI_Request r[], int *active) {
    if (count < 0 || (count && !r)) return tw_mpi_error(NULL, call, MPI_ERR_ARG, NULL);
    *active = 0;
    for (int i = 0; i < count; i++) {
        if (r[i] == MPI_REQUEST_NULL) continue;
        if (!tw_mpi_request_valid(r[i])) return tw_mpi_error(NULL, call, MPI_ERR_REQUEST, NULL);
        ++*active;
    }
    return MPI_SUCCESS;
}

static const MPI_Status empty_status = {MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 0};

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    NEED_INIT("MPI_Testany");
    int active = 0, rc = check_requests("MPI_Testany", count, requests, &active);
    if (rc) return rc;
    if (!index || !flag) return tw_mpi_error(NULL, "MPI_Testany", MPI_ERR_ARG, NULL);
    *index = MPI_UNDEFINED;
    if (!active) { /* nothing active: complete, with an empty status */
        *flag = 1;
        if (status) *status = empty_status;
        return MPI_SUCCESS;
    }
    tw_mpi_progress();
    for (int i = 0; i < count; i++)
        if (requests[i] != MPI_REQUEST_NULL && tw_mpi_request_done(requests[i])) {
            int f;
            *index = i;
            *flag = 1;
            rc = tw_mpi_test(&requests[i], &f, status);
            return rc ? tw_mpi_error(NULL, "MPI_Testany", rc, NULL) : MPI_SUCCESS;
        }
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    unsigned spins = 0;
    for (;;) {
        int flag, rc = MPI_Testany(count, requests, index, &flag, status);
        if (rc || flag) return rc;
        tw_ep_relax(tw_mpi.ep, &spins);
    }
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    NEED_INIT("MPI_Testsome");
    int active = 0, rc = check_requests("MPI_Testsome", incount, requests, &active);
    if (rc) return rc;
    if (!outcount || (incount && !indices))
        return tw_mpi_error(NULL, "MPI_Testsome", MPI_ERR_ARG, NULL);
    if (!active) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    tw_mpi_progress();
    int n = 0, failed = 0;
    for (int i = 0; i < incount; i++) {
        if (requests[i] == MPI_REQUEST_NULL || !tw_mpi_request_done(requests[i])) continue;
        MPI_Status s = empty_status;
        int f, err = tw_mpi_test(&requests[i], &f, &s);
        if (statuses) {
            statuses[n] = s;
            statuses[n].MPI_ERROR = err;
        }
        failed |= err != MPI_SUCCESS;
        indices[n++] = i;
    }
    *outcount = n;
    return failed ? tw_mpi_error(NULL, "MPI_Testsome", MPI_ERR_IN_STATUS, NULL) : MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    unsigned spins = 0;
    for (;;) {
        int rc = MPI_Testsome(incount, requests, outcount, indices, statuses);
        if (rc || *outcount != 0) return rc;
        tw_ep_relax(tw_mpi.ep, &spins);
    }
}
