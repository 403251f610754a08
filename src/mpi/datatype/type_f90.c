/* The Fortran sizes of types (MPI-3.1 section 17.1.9): MPI_Type_create_f90_integer,
 * _real and _complex, MPI_Type_match_size; and the MPI-1 type calls MPI-3.0 removed
 * (MPI_Address, MPI_Type_extent, _lb, _ub, _hvector, _hindexed, _struct), which call
 * their replacements.
 *
 * The f90 calls pick the smallest of this machine's kinds that has the precision and
 * range asked for (as SELECTED_INT_KIND and SELECTED_REAL_KIND do): INTEGER1..8,
 * REAL4, REAL8 or REAL16 (the C long double), and the matching COMPLEX. Each
 * (combiner, p, r) gets one type, made on first request and kept: it behaves as that
 * predefined type, but its envelope says which call made it, with p and r. */
#include <float.h>
#include <stdlib.h>

#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

/* the decimal precision and exponent range of the real kinds, as Fortran's
 * PRECISION and RANGE report them */
static const struct {
    int p, r;
} real_kinds[3] = {
    {FLT_DIG, -FLT_MIN_10_EXP < FLT_MAX_10_EXP ? -FLT_MIN_10_EXP : FLT_MAX_10_EXP},
    {DBL_DIG, -DBL_MIN_10_EXP < DBL_MAX_10_EXP ? -DBL_MIN_10_EXP : DBL_MAX_10_EXP},
    {LDBL_DIG, -LDBL_MIN_10_EXP < LDBL_MAX_10_EXP ? -LDBL_MIN_10_EXP : LDBL_MAX_10_EXP},
};

typedef struct made {
    int combiner, p, r;
    MPI_Datatype type;
} made_t;
static made_t *made;
static size_t nmade, made_cap;

/* The type for (combiner, p, r) over basic, made once. */
static int f90_type(MPI_Datatype basic, int combiner, int p, int r, MPI_Datatype *newtype) {
    for (size_t k = 0; k < nmade; k++)
        if (made[k].combiner == combiner && made[k].p == p && made[k].r == r) {
            *newtype = made[k].type;
            return MPI_SUCCESS;
        }
    if (nmade == made_cap) {
        size_t n = made_cap ? made_cap * 2 : 16;
        made_t *m = realloc(made, n * sizeof *m);
        if (!m) return tw_mpi_error(NULL, "MPI_Type_create_f90", MPI_ERR_NO_MEM, NULL);
        made = m;
        made_cap = n;
    }
    int ints[2] = {p, r}, one = combiner == MPI_COMBINER_F90_INTEGER;
    MPI_Datatype t;
    int rc = tw_mpi_type_f90(basic, combiner, one ? 1 : 2, one ? ints + 1 : ints, &t);
    if (rc) return rc;
    made[nmade++] = (made_t){combiner, p, r, t};
    *newtype = t;
    return MPI_SUCCESS;
}

int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype) {
    const char *call = "MPI_Type_create_f90_integer";
    NEED_INIT(call);
    if (!newtype) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "newtype is NULL");
    /* the range of an n-byte integer: the decimal digits of 2^(8n-1) - 1, less one */
    static const struct {
        int r;
        MPI_Datatype t;
    } kinds[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (r <= kinds[k].r) return f90_type(kinds[k].t, MPI_COMBINER_F90_INTEGER, 0, r, newtype);
    return tw_mpi_error(NULL, call, MPI_ERR_ARG, "no integer kind has that range");
}

/* The real kind (0..2) with precision p and range r (MPI_UNDEFINED: any), or -1. */
static int real_kind(int p, int r) {
    for (int k = 0; k < 3; k++)
        if ((p == MPI_UNDEFINED || p <= real_kinds[k].p) &&
            (r == MPI_UNDEFINED || r <= real_kinds[k].r))
            return k;
    return -1;
}

static int f90_real(const char *call, int combiner, int p, int r, MPI_Datatype *newtype) {
    NEED_INIT(call);
    if (!newtype) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "newtype is NULL");
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "both p and r are MPI_UNDEFINED");
    int k = real_kind(p, r);
    if (k < 0)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "no real kind has that precision and range");
    static const MPI_Datatype reals[3] = {MPI_REAL4, MPI_REAL8, MPI_REAL16},
                              complexes[3] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    return f90_type(combiner == MPI_COMBINER_F90_REAL ? reals[k] : complexes[k], combiner, p, r,
                    newtype);
}

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype) {
    return f90_real("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype) {
    return f90_real("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}

int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype) {
    const char *call = "MPI_Type_match_size";
    NEED_INIT(call);
    if (!datatype) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "datatype is NULL");
    static const MPI_Datatype candidates[][4] = {
        [MPI_TYPECLASS_REAL] = {MPI_REAL4, MPI_REAL8, MPI_REAL16},
        [MPI_TYPECLASS_INTEGER] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8},
        [MPI_TYPECLASS_COMPLEX] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32},
    };
    if (typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_INTEGER &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "unknown type class");
    for (int k = 0; k < 4 && candidates[typeclass][k]; k++)
        if (tw_mpi_type_extent(candidates[typeclass][k]) == size) {
            *datatype = candidates[typeclass][k];
            return MPI_SUCCESS;
        }
    return tw_mpi_error(NULL, call, MPI_ERR_ARG, "no type of that class has that size");
}

/* ---- the MPI-1 calls ---- */

int MPI_Address(const void *location, MPI_Aint *address) {
    return MPI_Get_address(location, address);
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent) {
    MPI_Aint lb;
    return MPI_Type_get_extent(datatype, extent ? &lb : NULL, extent);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement) {
    MPI_Aint extent;
    return MPI_Type_get_extent(datatype, displacement, displacement ? &extent : NULL);
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement) {
    MPI_Aint lb = 0, extent = 0;
    int rc = MPI_Type_get_extent(datatype, displacement ? &lb : NULL, &extent);
    if (!rc) *displacement = lb + extent;
    return rc;
}

int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype) {
    return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_hindexed(int count, const int array_of_blocklengths[],
                      const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype) {
    return MPI_Type_create_hindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                    newtype);
}

int MPI_Type_struct(int count, const int array_of_blocklengths[],
                    const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                    MPI_Datatype *newtype) {
    return MPI_Type_create_struct(count, array_of_blocklengths, array_of_displacements,
                                  array_of_types, newtype);
}
