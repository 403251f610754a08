/* Attribute caching on datatypes (MPI-4.1 section 7.7.4): their keys and attributes,
 * on the lists comm/attr.c keeps by handle. */
#include "mpi/comm/attr.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                           MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state) {
    return tw_mpi_attr_key_create("MPI_Type_create_keyval", TW_ATTR_TYPE, type_copy_attr_fn,
                                  type_delete_attr_fn, type_keyval, extra_state);
}

int MPI_Type_free_keyval(int *type_keyval) {
    return tw_mpi_attr_key_free("MPI_Type_free_keyval", TW_ATTR_TYPE, type_keyval);
}

/* Checks a datatype and a key for a type attribute call (freed: a key the program
 * freed while attributes use it will do, to delete one); the error raised, or 0. */
static int type_check(const char *call, MPI_Datatype type, int keyval, int freed) {
    NEED_INIT(call);
    if (!tw_mpi_type_map(type)) return tw_mpi_error(NULL, call, MPI_ERR_TYPE, NULL);
    if (!(freed ? tw_mpi_attr_key_alive(keyval, TW_ATTR_TYPE)
                : tw_mpi_attr_key_held(keyval, TW_ATTR_TYPE)))
        return tw_mpi_error(NULL, call, MPI_ERR_KEYVAL, "not a datatype key of the program's");
    return MPI_SUCCESS;
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val) {
    int rc = type_check("MPI_Type_set_attr", datatype, type_keyval, 0);
    if (rc) return rc;
    rc = tw_mpi_attr_object_set(datatype, type_keyval, attribute_val);
    return rc ? tw_mpi_error(NULL, "MPI_Type_set_attr", rc, "the delete callback failed")
              : MPI_SUCCESS;
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag) {
    int rc = type_check("MPI_Type_get_attr", datatype, type_keyval, 0);
    if (rc) return rc;
    if (!attribute_val || !flag) return tw_mpi_error(NULL, "MPI_Type_get_attr", MPI_ERR_ARG, NULL);
    return tw_mpi_attr_object_get(datatype, type_keyval, attribute_val, flag);
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
    /* a key freed while attached still deletes its attributes (MPI-3.1 section 6.7.2) */
    int rc = type_check("MPI_Type_delete_attr", datatype, type_keyval, 1);
    if (rc) return rc;
    rc = tw_mpi_attr_object_delete(datatype, type_keyval);
    return rc ? tw_mpi_error(NULL, "MPI_Type_delete_attr", rc,
                             rc == MPI_ERR_KEYVAL ? "no such attribute"
                                                  : "the delete callback failed")
              : MPI_SUCCESS;
}
