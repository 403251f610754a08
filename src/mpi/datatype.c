/* Predefined datatypes: sizes, extents, and the counts a status reports.
 *
 * A message of count items of a predefined type moves count * extent contiguous
 * bytes. The extent equals the size except for the MINLOC/MAXLOC pairs, C structs
 * whose padding travels with them (it is part of every buffer of them anyway). */
#include <string.h>

#include "mpi/mpi_impl.h"

/* The size of each type id, and for the pairs the size of the value member (0 for
 * the other types): a pair holds two basic elements. */
static const struct {
    uint8_t size, value_size;
} types[TW_MPI_TYPE_IDS + 1] = {
    [37] = {8, 4},  /* MPI_FLOAT_INT */
    [38] = {12, 8}, /* MPI_DOUBLE_INT */
    [39] = {12, 8}, /* MPI_LONG_INT */
    [40] = {8, 4},  /* MPI_2INT */
    [41] = {6, 2},  /* MPI_SHORT_INT */
    [42] = {20, 16} /* MPI_LONG_DOUBLE_INT */
};

static int type_size(MPI_Datatype type) {
    int extent = tw_mpi_type_extent(type);
    return extent < 0 || !types[type & 0xff].size ? extent : types[type & 0xff].size;
}

int MPI_Type_size(MPI_Datatype datatype, int *size) {
    int s = type_size(datatype);
    if (s < 0) return tw_mpi_error(NULL, "MPI_Type_size", MPI_ERR_TYPE, NULL);
    if (!size) return tw_mpi_error(NULL, "MPI_Type_size", MPI_ERR_ARG, "size is NULL");
    *size = s;
    return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size) {
    int s = type_size(datatype);
    if (s < 0) return tw_mpi_error(NULL, "MPI_Type_size_x", MPI_ERR_TYPE, NULL);
    if (!size) return tw_mpi_error(NULL, "MPI_Type_size_x", MPI_ERR_ARG, "size is NULL");
    *size = s;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent) {
    int e = tw_mpi_type_extent(datatype);
    if (e < 0) return tw_mpi_error(NULL, "MPI_Type_get_extent", MPI_ERR_TYPE, NULL);
    if (!lb || !extent) return tw_mpi_error(NULL, "MPI_Type_get_extent", MPI_ERR_ARG, NULL);
    *lb = 0;
    *extent = e;
    return MPI_SUCCESS;
}

int tw_mpi_type_layout(MPI_Datatype type, tw_mpi_type_layout_t *layout) {
    int extent = tw_mpi_type_extent(type);
    if (extent < 0) return MPI_ERR_TYPE;
    MPI_Count size = type_size(type);
    *layout = (tw_mpi_type_layout_t){size, 0, extent, 0, extent, size == extent, type};
    return MPI_SUCCESS;
}

void tw_mpi_type_pack(const void *buf, MPI_Count count, MPI_Datatype type, void *packed) {
    memcpy(packed, buf, (size_t)count * (size_t)tw_mpi_type_extent(type));
}

void tw_mpi_type_unpack(const void *packed, MPI_Count count, MPI_Datatype type, void *buf) {
    memcpy(buf, packed, (size_t)count * (size_t)tw_mpi_type_extent(type));
}

static long long status_bytes(const MPI_Status *status) {
    return (long long)(unsigned)status->tw_count_lo | (long long)status->tw_count_hi << 32;
}

/* Counts of a status, as MPI_Count; MPI_UNDEFINED when the bytes are not a whole
 * number of items (elements == 0) or of basic elements (elements == 1). */
static int status_count(const char *call, const MPI_Status *status, MPI_Datatype type, int elements,
                        MPI_Count *count) {
    int extent = tw_mpi_type_extent(type);
    if (extent < 0) return tw_mpi_error(NULL, call, MPI_ERR_TYPE, NULL);
    if (!status || !count) return tw_mpi_error(NULL, call, MPI_ERR_ARG, NULL);
    long long bytes = status_bytes(status);
    int value_size = types[type & 0xff].value_size;
    if (extent == 0) {
        *count = 0;
    } else if (elements && value_size) { /* a pair: its value and its index */
        long long rest = bytes % extent;
        *count = rest == 0            ? 2 * (bytes / extent)
                 : rest >= value_size ? 2 * (bytes / extent) + 1
                                      : MPI_UNDEFINED;
    } else {
        *count = bytes % extent ? MPI_UNDEFINED : bytes / extent;
    }
    return MPI_SUCCESS;
}

static int as_int(MPI_Count c) {
    return c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    MPI_Count c = 0;
    if (!count) return tw_mpi_error(NULL, "MPI_Get_count", MPI_ERR_ARG, "count is NULL");
    int rc = status_count("MPI_Get_count", status, datatype, 0, &c);
    if (!rc) *count = as_int(c);
    return rc;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count) {
    MPI_Count c = 0;
    if (!count) return tw_mpi_error(NULL, "MPI_Get_elements", MPI_ERR_ARG, "count is NULL");
    int rc = status_count("MPI_Get_elements", status, datatype, 1, &c);
    if (!rc) *count = as_int(c);
    return rc;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count) {
    return status_count("MPI_Get_elements_x", status, datatype, 1, count);
}
