/* Generalized requests (MPI_Grequest_start, MPI_Grequest_complete) and the calls
 * that set a status's fields (MPI_Status_set_elements, _set_cancelled).
 *
 * A generalized request is a slot of the request pool of kind REQ_GREQ, its
 * callbacks in the slot's buf. The calls of completion.c complete it as any other,
 * through the hooks here: when one completes it, the query callback fills its
 * status and the free callback runs; MPI_Request_free runs the free callback alone,
 * at once when the request is complete, else when MPI_Grequest_complete comes. */
#include <stdlib.h>

#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/channel.h"
#include "mpi/pt2pt/grequest.h"
#include "mpi/pt2pt/request.h"
#include "mpi/env/state.h"
#include "mpi/pt2pt/status.h"
#include "mpi/datatype/typemap.h"

typedef struct greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra_state;
} greq_t;

int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request) {
    NEED_INIT("MPI_Grequest_start");
    if (!request) return tw_mpi_error(NULL, "MPI_Grequest_start", MPI_ERR_ARG, "request is NULL");
    if (!query_fn || !free_fn || !cancel_fn)
        return tw_mpi_error(NULL, "MPI_Grequest_start", MPI_ERR_ARG, "a callback is NULL");
    greq_t *g = malloc(sizeof *g);
    int i = g ? tw_req_alloc(&tw_channel_main()->reqs, REQ_GREQ) : 0;
    if (!i) {
        free(g);
        return tw_mpi_error(NULL, "MPI_Grequest_start", MPI_ERR_NO_MEM, NULL);
    }
    *g = (greq_t){query_fn, free_fn, cancel_fn, extra_state};
    tw_reqs[i].buf = g;
    tw_reqs[i].context = 0; /* its errors go to MPI_COMM_WORLD's handler */
    *request = tw_req_handle(i);
    return MPI_SUCCESS;
}

/* Runs the free callback and gives the slot back. */
static int release(int i) {
    greq_t *g = tw_reqs[i].buf;
    int rc = g->free(g->extra_state);
    free(g);
    tw_reqs[i].buf = NULL;
    tw_req_free(i);
    return rc;
}

int MPI_Grequest_complete(MPI_Request request) {
    NEED_INIT("MPI_Grequest_complete");
    int i = tw_req_index(request);
    if (i <= 0 || tw_reqs[i].kind != REQ_GREQ)
        return tw_mpi_error(NULL, "MPI_Grequest_complete", MPI_ERR_REQUEST,
                            "not a generalized request");
    if (tw_reqs[i].done)
        return tw_mpi_error(NULL, "MPI_Grequest_complete", MPI_ERR_REQUEST, "completed already");
    if (tw_reqs[i].orphan) { /* freed by the program: its free callback was waiting for this */
        int rc = release(i);
        return rc ? tw_mpi_error(NULL, "MPI_Grequest_complete", rc, "the free callback failed")
                  : MPI_SUCCESS;
    }
    tw_reqs[i].done = 1;
    return MPI_SUCCESS;
}

/* The query callback's status: it starts empty; its MPI_ERROR goes nowhere (the
 * callback's return value is the request's error). */
static int query(int i, MPI_Status *status) {
    greq_t *g = tw_reqs[i].buf;
    MPI_Status s;
    tw_mpi_status_fill(&s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
    s.MPI_ERROR = MPI_SUCCESS;
    int rc = g->query(g->extra_state, &s);
    if (status) {
        int keep = status->MPI_ERROR;
        *status = s;
        status->MPI_ERROR = keep;
    }
    return rc;
}

int tw_mpi_greq_complete(int i, MPI_Request *req, MPI_Status *status) {
    int rc = query(i, status);
    int frc = release(i);
    *req = MPI_REQUEST_NULL;
    return rc ? rc : frc;
}

int tw_mpi_greq_status(int i, MPI_Status *status) {
    return query(i, status);
}

int tw_mpi_greq_free(int i) {
    if (tw_reqs[i].done) return release(i);
    tw_reqs[i].orphan = 1;
    return MPI_SUCCESS;
}

int tw_mpi_greq_cancel(int i) {
    greq_t *g = tw_reqs[i].buf;
    return g->cancel(g->extra_state, tw_reqs[i].done);
}

/* ---- statuses ---- */

static void set_bytes(MPI_Status *status, MPI_Count bytes) {
    status->tw_count_lo = (int)(uint32_t)bytes;
    status->tw_count_hi = (int)(bytes >> 32);
}

/* The bytes of count basic elements of type, so that MPI_Get_elements gives count
 * back (and MPI_Get_count count / elements per item when whole); -1 on overflow. */
static MPI_Count element_bytes(const tw_typemap_t *m, MPI_Count count) {
    if (!m->elements) return 0;
    MPI_Count items = count / m->elements, rest = count % m->elements, bytes;
    if (__builtin_mul_overflow(items, m->size, &bytes)) return -1;
    for (size_t r = 0; r < m->nruns && rest; r++) {
        MPI_Datatype basic = m->runs[r].basic;
        MPI_Count unit = tw_mpi_basic_packed_size(basic),
                  per = tw_mpi_basic_value_size(basic) ? 2 : 1;
        if (!unit) continue;
        MPI_Count n = rest / per < m->runs[r].n ? rest / per : m->runs[r].n;
        bytes += n * unit;
        rest -= n * per;
        if (rest && n < m->runs[r].n) { /* one element of a pair: its value alone */
            bytes += tw_mpi_basic_value_size(basic);
            rest = 0;
        }
    }
    return bytes;
}

static int set_elements(const char *call, MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count count) {
    NEED_INIT(call);
    const tw_typemap_t *m = tw_mpi_type_map(datatype);
    if (!m) return tw_mpi_error(NULL, call, MPI_ERR_TYPE, NULL);
    if (!status || status == MPI_STATUS_IGNORE)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "status is NULL");
    if (count < 0) return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "negative count");
    MPI_Count bytes = element_bytes(m, count);
    if (bytes < 0) return tw_mpi_error(NULL, call, MPI_ERR_COUNT, "too many elements");
    set_bytes(status, bytes);
    return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count) {
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) {
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int MPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count) {
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag) {
    NEED_INIT("MPI_Status_set_cancelled");
    if (!status) return tw_mpi_error(NULL, "MPI_Status_set_cancelled", MPI_ERR_ARG, NULL);
    status->tw_cancelled = flag != 0;
    return MPI_SUCCESS;
}
