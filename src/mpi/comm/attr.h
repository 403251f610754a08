/* Attribute caching (attr.c): keys, the attributes of communicators, and the lists of
 * datatypes and windows by handle. */
#ifndef TW_MPI_ATTR_H
#define TW_MPI_ATTR_H

#include "mpi/comm/comm.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Runs the copy callbacks of from's attributes for its duplicate to. */
int tw_mpi_attr_copy_all(tw_mpi_comm_t *from, tw_mpi_comm_t *to);
/* Runs the delete callbacks of c's attributes and removes them; stops at the first
 * that fails, and returns its error. */
int tw_mpi_attr_delete_all(tw_mpi_comm_t *c);
/* Removes c's attributes without callbacks (at finalize). */
void tw_mpi_attr_drop_all(tw_mpi_comm_t *c);
/* MPI_Finalize's first step: MPI_COMM_SELF's attributes are deleted, the last set
 * first, each callback run (one that fails does not stop the others). */
void tw_mpi_attr_finalize_self(void);

/* The kinds of object a key is made for: a key works on its kind only. */
enum { TW_ATTR_COMM = 1, TW_ATTR_TYPE, TW_ATTR_WIN };
/* MPI_*_create_keyval and MPI_*_free_keyval of a kind, raising their errors. */
int tw_mpi_attr_key_create(const char *call, int kind, MPI_Comm_copy_attr_function *copy,
                           MPI_Comm_delete_attr_function *del, int *keyval, void *extra_state);
int tw_mpi_attr_key_free(const char *call, int kind, int *keyval);
/* 1 when keyval is a key of that kind the program holds; _alive: also one it freed
 * while attributes still use it. */
int tw_mpi_attr_key_held(int keyval, int kind);
int tw_mpi_attr_key_alive(int keyval, int kind);

/* Datatypes and windows, by handle: setting an attribute (a new value replaces the
 * old one as if that was deleted first), reading one, deleting one (MPI_ERR_KEYVAL
 * when the object has none for keyval); each returns what the callbacks did. */
int tw_mpi_attr_object_set(int handle, int keyval, void *value);
int tw_mpi_attr_object_get(int handle, int keyval, void *attribute_val, int *flag);
int tw_mpi_attr_object_delete(int handle, int keyval);
/* The delete callbacks of a freed object's
 * attributes (the first error stops them), and the copy callbacks for a duplicate
 * (MPI_Type_dup; on an error the copies made are deleted again). */
int tw_mpi_attr_object_free(int handle);
int tw_mpi_attr_object_copy(int from, int to);

#pragma GCC visibility pop

#endif
