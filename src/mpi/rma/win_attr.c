/* Attribute caching on windows (MPI-4.1 section 7.7.3): their keys and the program's
 * attributes, on the lists comm/attr.c keeps by handle (the predefined ones are in
 * win.c). */
#include "mpi/comm/attr.h"
#include "mpi/rma/win.h"

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state) {
    return tw_mpi_attr_key_create("MPI_Win_create_keyval", TW_ATTR_WIN, win_copy_attr_fn,
                                  win_delete_attr_fn, win_keyval, extra_state);
}

int MPI_Win_free_keyval(int *win_keyval) {
    return tw_mpi_attr_key_free("MPI_Win_free_keyval", TW_ATTR_WIN, win_keyval);
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val) {
    GET_WIN("MPI_Win_set_attr", win);
    if (!tw_mpi_attr_key_held(win_keyval, TW_ATTR_WIN))
        return tw_win_error(w, "MPI_Win_set_attr", MPI_ERR_KEYVAL,
                            "not a window key of the program's (predefined ones are read-only)");
    int rc = tw_mpi_attr_object_set(win, win_keyval, attribute_val);
    return rc ? tw_win_error(w, "MPI_Win_set_attr", rc, "the delete callback failed") : MPI_SUCCESS;
}

int tw_mpi_win_attr_get(MPI_Win win, int win_keyval, void *attribute_val, int *flag) {
    if (!tw_mpi_attr_key_held(win_keyval, TW_ATTR_WIN)) return MPI_ERR_KEYVAL;
    return tw_mpi_attr_object_get(win, win_keyval, attribute_val, flag);
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval) {
    GET_WIN("MPI_Win_delete_attr", win);
    if (!tw_mpi_attr_key_alive(win_keyval, TW_ATTR_WIN)) /* also a key freed while attached */
        return tw_win_error(w, "MPI_Win_delete_attr", MPI_ERR_KEYVAL,
                            "not a window key of the program's");
    int rc = tw_mpi_attr_object_delete(win, win_keyval);
    return rc ? tw_win_error(w, "MPI_Win_delete_attr", rc,
                             rc == MPI_ERR_KEYVAL ? "no such attribute"
                                                  : "the delete callback failed")
              : MPI_SUCCESS;
}
