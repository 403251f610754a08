/* Completing requests: the Wait and Test families, MPI_Request_free and
 * MPI_Request_get_status, MPI_Cancel, and the starts of persistent requests.
 *
 * A null request, and a persistent request between its runs (inactive), complete at
 * once with an empty status; the "any" and "some" calls pass over them. An error is
 * raised on the communicator of the request that had it. */
#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/cancel.h"
#include "mpi/pt2pt/grequest.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/status.h"

/* Checks an array of requests: each one null or valid. The number of active ones in
 * *active, when asked for. */
static int check_requests(const char *call, int count, const MPI_Request r[], int *active) {
    if (count < 0) return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "negative count");
    if (count && !r) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "requests is NULL");
    if (active) *active = 0;
    for (int i = 0; i < count; i++) {
        if (r[i] == MPI_REQUEST_NULL) continue;
        if (!tw_mpi_request_valid(r[i])) {
            char d[64];
            snprintf(d, sizeof d, "requests[%d] is not a request", i);
            return tw_mpi_error(NULL, call, MPI_ERR_REQUEST, d);
        }
        if (active) *active += tw_mpi_request_active(r[i]);
    }
    return MPI_SUCCESS;
}

/* Checks one request pointer; 1 when it holds the null request. */
static int check_request(const char *call, const MPI_Request *req, int *null) {
    NEED_INIT(call);
    if (!req) return tw_mpi_error(NULL, call, MPI_ERR_REQUEST, "request is NULL");
    *null = *req == MPI_REQUEST_NULL;
    if (!*null && !tw_mpi_request_valid(*req))
        return tw_mpi_error(NULL, call, MPI_ERR_REQUEST, "not a request");
    return MPI_SUCCESS;
}

/* Completes a request known to be done (or null, or inactive); the error class,
 * raised on its communicator when err_call is set. */
static int finish(const char *err_call, MPI_Request *req, MPI_Status *status) {
    if (*req == MPI_REQUEST_NULL) {
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
        return MPI_SUCCESS;
    }
    tw_mpi_comm_t *c = err_call ? tw_mpi_request_comm(*req) : NULL;
    int rc = tw_mpi_finish(req, status);
    return rc && err_call ? tw_mpi_error(c, err_call, rc, NULL) : rc;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    int null = 0, rc = check_request("MPI_Wait", request, &null);
    if (rc || null) return rc ? rc : finish(NULL, request, status);
    tw_mpi_comm_t *c = tw_mpi_request_comm(*request);
    rc = tw_mpi_wait(request, status);
    return rc ? tw_mpi_error(c, "MPI_Wait", rc, NULL) : MPI_SUCCESS;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    int null = 0, rc = check_request("MPI_Test", request, &null);
    if (rc) return rc;
    if (!flag) return tw_mpi_error(NULL, "MPI_Test", MPI_ERR_ARG, "flag is NULL");
    if (!null && tw_mpi_request_active(*request) && !tw_mpi_request_done(*request)) {
        tw_mpi_progress();
        if (!tw_mpi_request_done(*request)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish("MPI_Test", request, status);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
    int null = 0, rc = check_request("MPI_Request_get_status", &request, &null);
    if (rc) return rc;
    if (!flag) return tw_mpi_error(NULL, "MPI_Request_get_status", MPI_ERR_ARG, "flag is NULL");
    if (null) {
        *flag = 1;
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
        return MPI_SUCCESS;
    }
    return tw_mpi_request_status(request, flag, status);
}

/* Records the result of request i of an array in statuses. MPI_ERROR fields are set
 * only once some request has failed (*failed: how many): then in every status, the
 * earlier successful ones included. */
static void record(MPI_Status statuses[], int i, int rc, int *failed) {
    if (rc && !(*failed)++ && statuses)
        for (int k = 0; k < i; k++) statuses[k].MPI_ERROR = MPI_SUCCESS;
    if (*failed && statuses) statuses[i].MPI_ERROR = rc;
}

/* Completes every request of an array known to be done; MPI_ERR_IN_STATUS when any
 * failed (each status then says which). */
static int finish_all(const char *call, int count, MPI_Request requests[], MPI_Status statuses[]) {
    int failed = 0;
    for (int i = 0; i < count; i++)
        record(statuses, i, finish(NULL, &requests[i], statuses ? &statuses[i] : NULL), &failed);
    return failed ? tw_mpi_error(NULL, call, MPI_ERR_IN_STATUS, NULL) : MPI_SUCCESS;
}

/* The requests were checked: each is null or valid. Those before *from are known
 * finished, and a finished request stays so until it is completed: each pass looks
 * from the first one not known finished (a window of 128 that completes in order was
 * scanned whole at every progress pass: 7 % of an 8 KiB osu_bibw). */
static int all_done(int count, const MPI_Request requests[], int *from) {
    while (*from < count && tw_mpi_request_finished(requests[*from])) ++*from;
    return *from == count;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    NEED_INIT("MPI_Waitall");
    int rc = check_requests("MPI_Waitall", count, requests, NULL);
    if (rc) return rc;
    unsigned spins = 0;
    int from = 0;
    while (!all_done(count, requests, &from)) {
        tw_mpi_progress();
        if (!all_done(count, requests, &from)) tw_mpi_relax(&spins);
    }
    return finish_all("MPI_Waitall", count, requests, statuses);
}

/* All or nothing: the requests are completed only when every one is done. */
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    NEED_INIT("MPI_Testall");
    int active = 0, rc = check_requests("MPI_Testall", count, requests, &active);
    if (rc) return rc;
    if (!flag) return tw_mpi_error(NULL, "MPI_Testall", MPI_ERR_ARG, "flag is NULL");
    tw_mpi_progress();
    int from = 0;
    *flag = all_done(count, requests, &from);
    return *flag ? finish_all("MPI_Testall", count, requests, statuses) : MPI_SUCCESS;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    NEED_INIT("MPI_Testany");
    int active = 0, rc = check_requests("MPI_Testany", count, requests, &active);
    if (rc) return rc;
    if (!index || !flag)
        return tw_mpi_error(NULL, "MPI_Testany", MPI_ERR_ARG, "index or flag is NULL");
    *index = MPI_UNDEFINED;
    if (!active) { /* nothing active: complete, with an empty status */
        *flag = 1;
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
        return MPI_SUCCESS;
    }
    tw_mpi_progress();
    for (int i = 0; i < count; i++)
        if (tw_mpi_request_done(requests[i])) {
            *index = i;
            *flag = 1;
            return finish("MPI_Testany", &requests[i], status);
        }
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
    unsigned spins = 0;
    for (;;) {
        int flag, rc = MPI_Testany(count, requests, index, &flag, status);
        if (rc || flag) return rc;
        tw_mpi_relax(&spins);
    }
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    NEED_INIT("MPI_Testsome");
    int active = 0, rc = check_requests("MPI_Testsome", incount, requests, &active);
    if (rc) return rc;
    if (!outcount || (incount && !indices))
        return tw_mpi_error(NULL, "MPI_Testsome", MPI_ERR_ARG, "outcount or indices is NULL");
    if (!active) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    tw_mpi_progress();
    int n = 0, failed = 0;
    for (int i = 0; i < incount; i++) {
        if (!tw_mpi_request_done(requests[i])) continue;
        record(statuses, n, finish(NULL, &requests[i], statuses ? &statuses[n] : NULL), &failed);
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
        tw_mpi_relax(&spins);
    }
}

int MPI_Request_free(MPI_Request *request) {
    int null = 0, rc = check_request("MPI_Request_free", request, &null);
    if (rc) return rc;
    if (null) return tw_mpi_error(NULL, "MPI_Request_free", MPI_ERR_REQUEST, "the null request");
    tw_mpi_comm_t *c = tw_mpi_request_comm(*request);
    rc = tw_mpi_request_free(request);
    /* MPI-4.1 section 6.13: only an inactive persistent collective request is freed */
    return rc ? tw_mpi_error(c, "MPI_Request_free", rc,
                             "an active persistent collective request (complete it first)")
              : MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request) {
    int null = 0, rc = check_request("MPI_Cancel", request, &null);
    if (rc) return rc;
    if (null || !tw_mpi_request_active(*request))
        return tw_mpi_error(NULL, "MPI_Cancel", MPI_ERR_REQUEST,
                            null ? "the null request" : "an inactive persistent request");
    int i = tw_req_index(*request);
    if (i > 0 && tw_reqs[i].kind == REQ_GREQ) {
        rc = tw_mpi_greq_cancel(i);
        return rc ? tw_mpi_error(NULL, "MPI_Cancel", rc, "the cancel callback failed")
                  : MPI_SUCCESS;
    }
    return tw_mpi_cancel(*request);
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag) {
    if (!status || !flag)
        return tw_mpi_error(NULL, "MPI_Test_cancelled", MPI_ERR_ARG, "status or flag is NULL");
    *flag = status->tw_cancelled;
    return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *request) {
    int null = 0, rc = check_request("MPI_Start", request, &null);
    if (rc) return rc;
    if (null) return tw_mpi_error(NULL, "MPI_Start", MPI_ERR_REQUEST, "the null request");
    rc = tw_mpi_start(*request);
    if (!rc) return MPI_SUCCESS;
    /* the communicator only for the error: a start leaves the request where it is */
    tw_mpi_comm_t *c = tw_mpi_request_comm(*request);
    if (rc == MPI_ERR_REQUEST)
        return tw_mpi_error(c, "MPI_Start", rc, "not an inactive persistent request");
    return rc ? tw_mpi_error(c, "MPI_Start", rc, NULL) : MPI_SUCCESS;
}

int MPI_Startall(int count, MPI_Request requests[]) {
    NEED_INIT("MPI_Startall");
    if (count < 0) return tw_mpi_error(NULL, "MPI_Startall", MPI_ERR_COUNT, "negative count");
    if (count && !requests)
        return tw_mpi_error(NULL, "MPI_Startall", MPI_ERR_ARG, "requests is NULL");
    for (int i = 0; i < count; i++) {
        int rc = MPI_Start(&requests[i]);
        if (rc) return rc;
    }
    return MPI_SUCCESS;
}

/* ---- MPI-4.1: the status of one, all or some requests, none freed or made
 * inactive (MPI_Request_get_status over an array) ---- */

/* The status of request i, known null, inactive or done, which stays as it is. */
static void peek(const MPI_Request requests[], int i, MPI_Status *status) {
    int flag;
    if (requests[i] == MPI_REQUEST_NULL || !tw_mpi_request_active(requests[i]))
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
    else
        tw_mpi_request_status(requests[i], &flag, status);
}

int MPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                               int *flag, MPI_Status *status) {
    const char *call = "MPI_Request_get_status_any";
    NEED_INIT(call);
    int active = 0, rc = check_requests(call, count, array_of_requests, &active);
    if (rc) return rc;
    if (!index || !flag) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "index or flag is NULL");
    *index = MPI_UNDEFINED;
    if (!active) { /* nothing active: as MPI_Testany, complete with an empty status */
        *flag = 1;
        tw_mpi_status_empty(status, MPI_ANY_SOURCE);
        return MPI_SUCCESS;
    }
    tw_mpi_progress();
    for (int i = 0; i < count; i++)
        if (tw_mpi_request_done(array_of_requests[i])) {
            *index = i;
            *flag = 1;
            peek(array_of_requests, i, status);
            return MPI_SUCCESS;
        }
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                               MPI_Status array_of_statuses[]) {
    const char *call = "MPI_Request_get_status_all";
    NEED_INIT(call);
    int rc = check_requests(call, count, array_of_requests, NULL);
    if (rc) return rc;
    if (!flag) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "flag is NULL");
    tw_mpi_progress();
    int from = 0;
    *flag = all_done(count, array_of_requests, &from);
    if (*flag && array_of_statuses)
        for (int i = 0; i < count; i++) peek(array_of_requests, i, &array_of_statuses[i]);
    return MPI_SUCCESS;
}

int MPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                int array_of_indices[], MPI_Status array_of_statuses[]) {
    const char *call = "MPI_Request_get_status_some";
    NEED_INIT(call);
    int active = 0, rc = check_requests(call, incount, array_of_requests, &active);
    if (rc) return rc;
    if (!outcount || (incount && !array_of_indices))
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "outcount or array_of_indices is NULL");
    if (!active) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    tw_mpi_progress();
    int n = 0;
    for (int i = 0; i < incount; i++) {
        if (!tw_mpi_request_done(array_of_requests[i])) continue;
        if (array_of_statuses) peek(array_of_requests, i, &array_of_statuses[n]);
        array_of_indices[n++] = i;
    }
    *outcount = n;
    return MPI_SUCCESS;
}
