/* The large-count one-sided calls (MPI-4.1 chapter 12, the _c forms): puts, gets and
 * accumulates take the paths of the int forms, whose counts are MPI_Count down to
 * the device (which moves size_t bytes, in chunks over a network link). The window
 * constructors take disp_unit as MPI_Aint; windows keep it as an int, so a
 * disp_unit beyond INT_MAX is MPI_ERR_DISP. */
#include <limits.h>

#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/rma/win.h"
#include "mpi/env/state.h"

int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win) {
    return tw_mpi_rma_put_get("MPI_Put_c", 0, (void *)(uintptr_t)origin_addr, origin_count,
                              origin_datatype, target_rank, target_disp, target_count,
                              target_datatype, win, NULL);
}

int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win) {
    return tw_mpi_rma_put_get("MPI_Get_c", 1, origin_addr, origin_count, origin_datatype,
                              target_rank, target_disp, target_count, target_datatype, win, NULL);
}

int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) {
    if (!request) {
        NEED_INIT("MPI_Rput_c");
        return tw_mpi_error(NULL, "MPI_Rput_c", MPI_ERR_ARG, "request is NULL");
    }
    return tw_mpi_rma_put_get("MPI_Rput_c", 0, (void *)(uintptr_t)origin_addr, origin_count,
                              origin_datatype, target_rank, target_disp, target_count,
                              target_datatype, win, request);
}

int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) {
    if (!request) {
        NEED_INIT("MPI_Rget_c");
        return tw_mpi_error(NULL, "MPI_Rget_c", MPI_ERR_ARG, "request is NULL");
    }
    return tw_mpi_rma_put_get("MPI_Rget_c", 1, origin_addr, origin_count, origin_datatype,
                              target_rank, target_disp, target_count, target_datatype, win,
                              request);
}

int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    return tw_mpi_rma_accumulate("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype,
                                 NULL, 0, origin_datatype, 0, target_rank, target_disp,
                                 target_count, target_datatype, op, win, NULL, 0);
}

int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win) {
    return tw_mpi_rma_accumulate("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype,
                                 result_addr, result_count, result_datatype, 1, target_rank,
                                 target_disp, target_count, target_datatype, op, win, NULL, 0);
}

int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) {
    return tw_mpi_rma_accumulate("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype,
                                 NULL, 0, origin_datatype, 0, target_rank, target_disp,
                                 target_count, target_datatype, op, win, request, 1);
}

int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request *request) {
    return tw_mpi_rma_accumulate("MPI_Rget_accumulate_c", origin_addr, origin_count,
                                 origin_datatype, result_addr, result_count, result_datatype, 1,
                                 target_rank, target_disp, target_count, target_datatype, op, win,
                                 request, 1);
}

/* A window's disp_unit as the int it is kept in, or MPI_ERR_DISP raised. */
static int disp_unit_fits(const char *call, MPI_Comm comm, MPI_Aint disp_unit) {
    if (disp_unit <= INT_MAX) return MPI_SUCCESS; /* the common checks see the rest */
    NEED_INIT(call);
    return tw_mpi_error(tw_mpi_comm_get(comm), call, MPI_ERR_DISP,
                        "a disp_unit beyond INT_MAX is not supported");
}

int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win) {
    int rc = disp_unit_fits("MPI_Win_create_c", comm, disp_unit);
    return rc ? rc : MPI_Win_create(base, size, (int)disp_unit, info, comm, win);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void *baseptr, MPI_Win *win) {
    int rc = disp_unit_fits("MPI_Win_allocate_c", comm, disp_unit);
    return rc ? rc : MPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr, win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win) {
    int rc = disp_unit_fits("MPI_Win_allocate_shared_c", comm, disp_unit);
    return rc ? rc : MPI_Win_allocate_shared(size, (int)disp_unit, info, comm, baseptr, win);
}

int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr) {
    int unit = 0;
    int rc = MPI_Win_shared_query(win, rank, size, disp_unit ? &unit : NULL, baseptr);
    if (!rc) *disp_unit = unit;
    return rc;
}
