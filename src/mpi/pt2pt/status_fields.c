/* MPI-4.1's accessors of a status's public fields (MPI_SOURCE, MPI_TAG, MPI_ERROR):
 * for the languages that cannot reach the fields of the C struct, and for tools that
 * fill the status of a generalized request. They touch nothing else of the status. */
#include "mpi/env/error.h"
#include "mpi/env/state.h"

static int get_field(const char *call, const MPI_Status *status, const int *field, int *out) {
    if (!status) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "status is NULL (or an IGNORE)");
    if (!out) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "the output is NULL");
    *out = *field;
    return MPI_SUCCESS;
}

int MPI_Status_get_source(const MPI_Status *status, int *source) {
    return get_field("MPI_Status_get_source", status, status ? &status->MPI_SOURCE : NULL, source);
}

int MPI_Status_get_tag(const MPI_Status *status, int *tag) {
    return get_field("MPI_Status_get_tag", status, status ? &status->MPI_TAG : NULL, tag);
}

int MPI_Status_get_error(const MPI_Status *status, int *err) {
    return get_field("MPI_Status_get_error", status, status ? &status->MPI_ERROR : NULL, err);
}

int MPI_Status_set_source(MPI_Status *status, int source) {
    if (!status) return tw_mpi_error(NULL, "MPI_Status_set_source", MPI_ERR_ARG, "status is NULL");
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}

int MPI_Status_set_tag(MPI_Status *status, int tag) {
    if (!status) return tw_mpi_error(NULL, "MPI_Status_set_tag", MPI_ERR_ARG, "status is NULL");
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}

int MPI_Status_set_error(MPI_Status *status, int err) {
    if (!status) return tw_mpi_error(NULL, "MPI_Status_set_error", MPI_ERR_ARG, "status is NULL");
    status->MPI_ERROR = err;
    return MPI_SUCCESS;
}
