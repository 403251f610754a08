/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0): a send and a receive started
 * together, as one request that completes when both have.
 *
 * The two halves run as ordinary requests of the engine. The request handed to the
 * program is a slot of the pool that a progress hook completes once both halves
 * have finished; it then reads as the receive (its status, its error, else the
 * send's). A replace sends from a packed copy made at the call, freed with the
 * pair, so the reply may land in the buffer at once. */
#include <stdlib.h>

#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/pt2pt/pt2pt.h"
#include "mpi/env/state.h"

typedef struct pair {
    MPI_Request whole, half[2]; /* half[0] the receive, half[1] the send */
    void *copy;                 /* a replace's outgoing data */
    struct pair *next;
} pair_t;

static pair_t *pairs; /* running, newest first */
static int hook_set;

static int half_done(MPI_Request r) {
    return r == MPI_REQUEST_NULL || tw_mpi_request_done(r);
}

/* Finishes a half; its error class. */
static int finish_half(MPI_Request *r, MPI_Status *status) {
    if (*r == MPI_REQUEST_NULL) return MPI_SUCCESS;
    return tw_mpi_finish(r, status);
}

/* The progress hook: completes the pairs whose halves have both finished. */
static void pairs_progress(void) {
    for (pair_t **at = &pairs; *at;) {
        pair_t *p = *at;
        if (!half_done(p->half[0]) || !half_done(p->half[1])) {
            at = &p->next;
            continue;
        }
        MPI_Status status = {0};
        int rr = finish_half(&p->half[0], &status);
        int rs = finish_half(&p->half[1], MPI_STATUS_IGNORE);
        tw_mpi_coll_request_done_as_recv(p->whole, rr ? rr : rs, &status);
        *at = p->next;
        free(p->copy);
        free(p);
    }
    if (!pairs) tw_mpi_hook_off(TW_HOOK_PAIRS);
}

/* Starts a pair (copy: the replace's, taken over), its request in *request. */
static int start(const char *call, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                 int source, int recvtag, MPI_Comm comm, MPI_Request *request, void *copy) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    pair_t *p = malloc(sizeof *p);
    int rc = p ? tw_mpi_coll_request(c->context, &p->whole) : MPI_ERR_NO_MEM;
    if (rc) {
        free(p);
        free(copy);
        return tw_mpi_error(c, call, rc, "no request or memory for the pair");
    }
    rc = tw_mpi_sendrecv_start(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                               recvcount, recvtype, source, recvtag, comm, p->half);
    if (rc) { /* raised already; the slot goes back unused */
        MPI_Request whole = p->whole;
        tw_mpi_coll_request_done(whole, MPI_SUCCESS);
        tw_mpi_request_free(&whole);
        free(p);
        free(copy);
        return rc;
    }
    if (!hook_set) {
        tw_mpi_progress_hook(TW_HOOK_PAIRS, pairs_progress);
        hook_set = 1;
    }
    p->copy = copy;
    p->next = pairs;
    pairs = p;
    tw_mpi_hook_on(TW_HOOK_PAIRS);
    *request = p->whole;
    return MPI_SUCCESS;
}

/* What the calls check before anything starts: the library, the communicator, the
 * request pointer. */
static int check_first(const char *call, MPI_Comm comm, MPI_Request *request) {
    NEED_INIT(call);
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    if (!request) return tw_mpi_error(c, call, MPI_ERR_REQUEST, "request is NULL");
    return MPI_SUCCESS;
}

static int isendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request *request) {
    int rc = check_first(call, comm, request);
    return rc ? rc
              : start(call, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                      recvtype, source, recvtag, comm, request, NULL);
}

static int isendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                             int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request) {
    MPI_Count bytes;
    int rc = check_first(call, comm, request);
    if (rc) return rc;
    void *copy = tw_mpi_sendrecv_copy(call, buf, count, datatype, comm, &bytes, &rc);
    if (!copy) return rc;
    return start(call, copy, bytes, MPI_BYTE, dest, sendtag, buf, count, datatype, source, recvtag,
                 comm, request, copy);
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request) {
    return isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, request);
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
    return isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, request);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
    return isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, source,
                             recvtag, comm, request);
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Request *request) {
    return isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source,
                             recvtag, comm, request);
}
