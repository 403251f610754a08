/* Attribute caching on communicators: user keys with their copy and delete
 * callbacks, and the predefined keys (MPI_TAG_UB ...), which are read-only.
 *
 * A key freed by the program lives on while attributes still use it: each attribute
 * holds a reference, so its delete callback can still run. */
#include <stdlib.h>

#include "mpi/attr.h"
#include "mpi/dynamic.h"
#include "mpi/comm.h"
#include "mpi/error.h"
#include "mpi/state.h"

typedef struct keyval {
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra_state;
    int refs;  /* the program's handle and each attribute; 0: a free slot */
    int freed; /* the program freed its handle */
} keyval_t;

struct tw_mpi_attr {
    int keyval;
    void *value;
    struct tw_mpi_attr *next;
};

enum { USER_KEY = 0x64000000, MAX_KEYS = 0x400000 }; /* predefined keys are 0x644000xx */
static keyval_t *keys;                               /* key USER_KEY | i is keys[i], i >= 1 */
static int n_keys;

int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                          void *attribute_val_in, void *attribute_val_out, int *flag) {
    (void)oldcomm, (void)comm_keyval, (void)extra_state, (void)attribute_val_in;
    (void)attribute_val_out;
    *flag = 0;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag) {
    (void)oldcomm, (void)comm_keyval, (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int comm_keyval, void *attribute_val,
                            void *extra_state) {
    (void)comm, (void)comm_keyval, (void)attribute_val, (void)extra_state;
    return MPI_SUCCESS;
}

/* The key of a user keyval handle; NULL when it names none. */
static keyval_t *key_get(int keyval) {
    int i = keyval & 0xffffff;
    if ((keyval & 0xff000000) != USER_KEY || i < 1 || i >= n_keys || !keys[i].refs || keys[i].freed)
        return NULL;
    return &keys[i];
}

static void key_release(keyval_t *k) {
    k->refs--;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state) {
    NEED_INIT("MPI_Comm_create_keyval");
    if (!comm_keyval) return tw_mpi_error(NULL, "MPI_Comm_create_keyval", MPI_ERR_ARG, NULL);
    int i = 1;
    while (i < n_keys && keys[i].refs) i++;
    if (i >= n_keys) {
        int grown = n_keys ? 2 * n_keys : 16;
        keyval_t *more = grown <= MAX_KEYS ? realloc(keys, (size_t)grown * sizeof *more) : NULL;
        if (!more) return tw_mpi_error(NULL, "MPI_Comm_create_keyval", MPI_ERR_NO_MEM, NULL);
        for (int k = n_keys; k < grown; k++) more[k] = (keyval_t){0};
        keys = more;
        n_keys = grown;
    }
    keys[i] = (keyval_t){comm_copy_attr_fn ? comm_copy_attr_fn : MPI_COMM_NULL_COPY_FN,
                         comm_delete_attr_fn ? comm_delete_attr_fn : MPI_COMM_NULL_DELETE_FN,
                         extra_state, 1, 0};
    *comm_keyval = USER_KEY | i;
    return MPI_SUCCESS;
}

int MPI_Comm_free_keyval(int *comm_keyval) {
    NEED_INIT("MPI_Comm_free_keyval");
    keyval_t *k = comm_keyval ? key_get(*comm_keyval) : NULL;
    if (!k) return tw_mpi_error(NULL, "MPI_Comm_free_keyval", MPI_ERR_KEYVAL, NULL);
    k->freed = 1;
    key_release(k);
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* The link that points at c's attribute for keyval (at the list's end when none). */
static struct tw_mpi_attr **attr_link(tw_mpi_comm_t *c, int keyval) {
    struct tw_mpi_attr **at = &c->attrs;
    while (*at && (*at)->keyval != keyval) at = &(*at)->next;
    return at;
}

/* Runs the delete callback of the attribute at *at and, when it succeeds, removes it. */
static int attr_delete(tw_mpi_comm_t *c, struct tw_mpi_attr **at) {
    struct tw_mpi_attr *a = *at;
    keyval_t *k = &keys[a->keyval & 0xffffff];
    int rc = k->del(c->handle, a->keyval, a->value, k->extra_state);
    if (rc) return rc;
    *at = a->next;
    key_release(k);
    free(a);
    return MPI_SUCCESS;
}

int tw_mpi_attr_delete_all(tw_mpi_comm_t *c) {
    while (c->attrs) {
        int rc = attr_delete(c, &c->attrs);
        if (rc) return rc;
    }
    return MPI_SUCCESS;
}

void tw_mpi_attr_drop_all(tw_mpi_comm_t *c) {
    while (c->attrs) {
        struct tw_mpi_attr *a = c->attrs;
        c->attrs = a->next;
        key_release(&keys[a->keyval & 0xffffff]);
        free(a);
    }
}

/* Appends an attribute to c (keyval valid and not yet on c). */
static int attr_add(tw_mpi_comm_t *c, int keyval, void *value) {
    struct tw_mpi_attr *a = malloc(sizeof *a), **end = attr_link(c, keyval);
    if (!a) return MPI_ERR_NO_MEM;
    *a = (struct tw_mpi_attr){keyval, value, NULL};
    *end = a;
    keys[keyval & 0xffffff].refs++;
    return MPI_SUCCESS;
}

int tw_mpi_attr_copy_all(tw_mpi_comm_t *from, tw_mpi_comm_t *to) {
    for (struct tw_mpi_attr *a = from->attrs; a; a = a->next) {
        keyval_t *k = &keys[a->keyval & 0xffffff];
        void *value = NULL;
        int flag = 0;
        int rc = k->copy(from->handle, a->keyval, k->extra_state, a->value, &value, &flag);
        if (!rc && flag) rc = attr_add(to, a->keyval, value);
        if (rc) return rc;
    }
    return MPI_SUCCESS;
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) {
    NEED_INIT("MPI_Comm_set_attr");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_set_attr", MPI_ERR_COMM, NULL);
    if (!key_get(comm_keyval))
        return tw_mpi_error(c, "MPI_Comm_set_attr", MPI_ERR_KEYVAL,
                            "not a key of the program's (predefined ones are read-only)");
    struct tw_mpi_attr **at = attr_link(c, comm_keyval);
    if (*at) { /* a new value replaces the old one as if that was deleted first */
        keyval_t *k = &keys[comm_keyval & 0xffffff];
        int rc = k->del(c->handle, comm_keyval, (*at)->value, k->extra_state);
        if (rc) return tw_mpi_error(c, "MPI_Comm_set_attr", rc, "the delete callback failed");
        (*at)->value = attribute_val;
        return MPI_SUCCESS;
    }
    int rc = attr_add(c, comm_keyval, attribute_val);
    return rc ? tw_mpi_error(c, "MPI_Comm_set_attr", rc, NULL) : MPI_SUCCESS;
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
    NEED_INIT("MPI_Comm_delete_attr");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_delete_attr", MPI_ERR_COMM, NULL);
    struct tw_mpi_attr **at = attr_link(c, comm_keyval);
    if (!*at) return tw_mpi_error(c, "MPI_Comm_delete_attr", MPI_ERR_KEYVAL, "no such attribute");
    int rc = attr_delete(c, at);
    return rc ? tw_mpi_error(c, "MPI_Comm_delete_attr", rc, "the delete callback failed")
              : MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
    NEED_INIT("MPI_Comm_get_attr");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_get_attr", MPI_ERR_COMM, NULL);
    if (!attribute_val || !flag) return tw_mpi_error(c, "MPI_Comm_get_attr", MPI_ERR_ARG, NULL);
    static int tag_ub = TW_MPI_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0,
               appnum = 0, universe, lastcode = MPI_ERR_LASTCODE;
    universe = tw_mpi_universe_size();
    appnum = tw_mpi_appnum();
    int *v = keyval == MPI_TAG_UB            ? &tag_ub
             : keyval == MPI_HOST            ? &host
             : keyval == MPI_IO              ? &io
             : keyval == MPI_WTIME_IS_GLOBAL ? &wtime_global
             : keyval == MPI_APPNUM          ? &appnum
             : keyval == MPI_UNIVERSE_SIZE   ? &universe
             : keyval == MPI_LASTUSEDCODE    ? &lastcode
                                             : NULL;
    if (v) {
        *flag = 1;
        *(int **)attribute_val = v;
        return MPI_SUCCESS;
    }
    if (!key_get(keyval))
        return tw_mpi_error(c, "MPI_Comm_get_attr", MPI_ERR_KEYVAL, "unknown key");
    struct tw_mpi_attr *a = *attr_link(c, keyval);
    *flag = a != NULL;
    if (a) *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}
