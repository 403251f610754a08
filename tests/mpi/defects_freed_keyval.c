/* An attribute whose key was freed while attached can still be deleted with that
 * key: MPI_*_free_keyval only marks the key, which lives until the last attribute
 * using it goes (MPI-3.1 section 6.7.2: "the actual free does not transpire until
 * after all references ... to the key have been freed"). MPI_Type_delete_attr,
 * MPI_Win_delete_attr and MPI_Comm_delete_attr take it and run its delete callback;
 * the key's other uses stay refused. */
#include <mpi.h>

#include "mpi_check.h"

static int deleted;

static int count_delete(int handle, int keyval, void *value, void *extra) {
    (void)handle, (void)keyval, (void)extra;
    CHECK(value == &deleted);
    deleted++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int key, saved, flag = -1;
    void *value = NULL;

    MPI_Datatype t;
    CHECK(MPI_Type_contiguous(2, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete, &key, NULL) == MPI_SUCCESS);
    saved = key;
    CHECK(MPI_Type_set_attr(t, key, &deleted) == MPI_SUCCESS);
    CHECK(MPI_Type_free_keyval(&key) == MPI_SUCCESS && key == MPI_KEYVAL_INVALID);
    CHECK(MPI_Type_delete_attr(t, saved) == MPI_SUCCESS && deleted == 1);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS && deleted == 1); /* nothing left to delete */

    MPI_Win win;
    int mem = 0;
    CHECK(MPI_Win_create(&mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &key, NULL) == MPI_SUCCESS);
    saved = key;
    CHECK(MPI_Win_set_attr(win, key, &deleted) == MPI_SUCCESS);
    CHECK(MPI_Win_free_keyval(&key) == MPI_SUCCESS && key == MPI_KEYVAL_INVALID);
    CHECK(MPI_Win_delete_attr(win, saved) == MPI_SUCCESS && deleted == 2);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS && deleted == 2);

    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &key, NULL) == MPI_SUCCESS);
    saved = key;
    CHECK(MPI_Comm_set_attr(dup, key, &deleted) == MPI_SUCCESS);
    CHECK(MPI_Comm_free_keyval(&key) == MPI_SUCCESS && key == MPI_KEYVAL_INVALID);
    CHECK(MPI_Comm_delete_attr(dup, saved) == MPI_SUCCESS && deleted == 3);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS && deleted == 3);

    /* once its last attribute is gone the key is gone: deleting again, or setting
     * it, is an error */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_delete, &key, NULL) == MPI_SUCCESS);
    saved = key;
    CHECK(MPI_Type_set_attr(MPI_INT, key, &deleted) == MPI_SUCCESS);
    CHECK(MPI_Type_free_keyval(&key) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(MPI_INT, saved, &deleted) == MPI_ERR_KEYVAL);
    CHECK(MPI_Type_get_attr(MPI_INT, saved, &value, &flag) == MPI_ERR_KEYVAL);
    CHECK(MPI_Type_delete_attr(MPI_INT, saved) == MPI_SUCCESS && deleted == 4);
    CHECK(MPI_Type_delete_attr(MPI_INT, saved) == MPI_ERR_KEYVAL && deleted == 4);
    MPI_Finalize();
    return 0;
}
