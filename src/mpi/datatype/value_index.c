/* MPI_Type_get_value_index (MPI-4.1): the predefined pair type of MPI_MINLOC and
 * MPI_MAXLOC for a value type and an index type, or MPI_DATATYPE_NULL when the
 * standard names none for the two (as MPICH). The pairs are predefined: the program
 * never frees them. */
#include "mpi/env/error.h"
#include "mpi/env/state.h"

static const struct {
    MPI_Datatype value, index, pair;
} pairs[] = {
    {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
    {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
    {MPI_LONG, MPI_INT, MPI_LONG_INT},
    {MPI_INT, MPI_INT, MPI_2INT},
    {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
    {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
    {MPI_REAL, MPI_REAL, MPI_2REAL},
    {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
};

/* A handle of one of the datatype kinds (predefined, padded pair, derived). */
static int datatype_kind(MPI_Datatype t) {
    unsigned kind = (unsigned)t >> 24;
    return kind == 0x4c || kind == 0x4d || kind == 0x8c;
}

int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                             MPI_Datatype *pair_type) {
    const char *call = "MPI_Type_get_value_index";
    NEED_INIT(call);
    if (!datatype_kind(value_type))
        return tw_mpi_error(NULL, call, MPI_ERR_TYPE, "value_type is not a datatype");
    if (!datatype_kind(index_type))
        return tw_mpi_error(NULL, call, MPI_ERR_TYPE, "index_type is not a datatype");
    if (!pair_type) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "pair_type is NULL");
    *pair_type = MPI_DATATYPE_NULL;
    for (unsigned k = 0; k < sizeof pairs / sizeof *pairs; k++)
        if (pairs[k].value == value_type && pairs[k].index == index_type)
            *pair_type = pairs[k].pair;
    return MPI_SUCCESS;
}
