/* The C side of f90_attr_lang.f90: what C sees of attributes Fortran set, and
 * attributes C sets for Fortran to read (MPI-4.1 section 19.3.7). */
#include <mpi.h>

int tw_test_c_get_aint(MPI_Fint fcomm, MPI_Fint keyval, MPI_Aint *value);
int tw_test_c_get_fint(MPI_Fint fcomm, MPI_Fint keyval, MPI_Fint *value);
int tw_test_c_get_type_aint(MPI_Fint ftype, MPI_Fint keyval, MPI_Aint *value);
int tw_test_c_get_win_aint(MPI_Fint fwin, MPI_Fint keyval, MPI_Aint *value);
MPI_Aint tw_test_c_set_pointer(MPI_Fint fcomm, MPI_Fint keyval);
MPI_Fint tw_test_c_dup_keyval(void);

/* C reads a value Fortran set through a pointer to it: an MPI_Aint after
 * MPI_COMM_SET_ATTR (and the type and window forms), an INTEGER after MPI_ATTR_PUT.
 * Each returns the flag, -1 on an error. */
#define C_GET(name, value_type, getter, f2c)                                                       \
    int name(MPI_Fint fobj, MPI_Fint keyval, value_type *value) {                                  \
        value_type *p = NULL;                                                                      \
        int flag = 0;                                                                              \
        if (getter(f2c(fobj), keyval, &p, &flag) != MPI_SUCCESS) return -1;                        \
        if (flag) *value = *p;                                                                     \
        return flag;                                                                               \
    }
C_GET(tw_test_c_get_aint, MPI_Aint, MPI_Comm_get_attr, MPI_Comm_f2c)
C_GET(tw_test_c_get_fint, MPI_Fint, MPI_Comm_get_attr, MPI_Comm_f2c)
C_GET(tw_test_c_get_type_aint, MPI_Aint, MPI_Type_get_attr, MPI_Type_f2c)
C_GET(tw_test_c_get_win_aint, MPI_Aint, MPI_Win_get_attr, MPI_Win_f2c)

/* C sets a pointer; Fortran is to read its address. Returns the address. */
static double c_data[2];
MPI_Aint tw_test_c_set_pointer(MPI_Fint fcomm, MPI_Fint keyval) {
    if (MPI_Comm_set_attr(MPI_Comm_f2c(fcomm), keyval, &c_data[1]) != MPI_SUCCESS) return 0;
    return (MPI_Aint)&c_data[1];
}

/* a keyval of C whose copy function is C's MPI_COMM_DUP_FN */
MPI_Fint tw_test_c_dup_keyval(void) {
    int keyval = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    return keyval;
}
