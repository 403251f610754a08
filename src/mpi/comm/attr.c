/* Attribute caching: user keys with their copy and delete callbacks for every kind of
 * object, the attributes of communicators and their predefined keys (MPI_TAG_UB ...),
 * which are read-only. Datatypes' calls are in datatype/type_attr.c, windows' in
 * rma/win_attr.c (their predefined keys in win.c), on the lists kept here by handle.
 *
 * A key is made for one kind of object and works on that kind only. A key freed by
 * the program lives on while attributes still use it: each attribute holds a
 * reference, so its delete callback can still run. A communicator holds its list;
 * datatypes and windows have theirs here, by handle, dropped when they are freed. */
#include <stdlib.h>

#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/errcode.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

/* every kind's callbacks have the communicator's types: handles are ints */
typedef MPI_Comm_copy_attr_function key_copy_fn;
typedef MPI_Comm_delete_attr_function key_delete_fn;

typedef struct keyval {
    int kind; /* KEY_*; 0: a free slot */
    key_copy_fn *copy;
    key_delete_fn *del;
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

/* the attribute lists of datatypes and windows that have any */
typedef struct object {
    int handle;
    struct tw_mpi_attr *attrs;
    struct object *next;
} object_t;
static object_t *objects;
static int in_callback; /* callbacks running: object entries are kept meanwhile */

/* ---- the predefined callbacks ---- */

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

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                          void *attribute_val_in, void *attribute_val_out, int *flag) {
    return MPI_COMM_NULL_COPY_FN(oldtype, type_keyval, extra_state, attribute_val_in,
                                 attribute_val_out, flag);
}

int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out, int *flag) {
    return MPI_COMM_DUP_FN(oldtype, type_keyval, extra_state, attribute_val_in, attribute_val_out,
                           flag);
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                            void *extra_state) {
    return MPI_COMM_NULL_DELETE_FN(datatype, type_keyval, attribute_val, extra_state);
}

int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                         void *attribute_val_out, int *flag) {
    return MPI_COMM_NULL_COPY_FN(oldwin, win_keyval, extra_state, attribute_val_in,
                                 attribute_val_out, flag);
}

int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag) {
    return MPI_COMM_DUP_FN(oldwin, win_keyval, extra_state, attribute_val_in, attribute_val_out,
                           flag);
}

int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state) {
    return MPI_COMM_NULL_DELETE_FN(win, win_keyval, attribute_val, extra_state);
}

int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                     void *attribute_val_out, int *flag) {
    return MPI_COMM_NULL_COPY_FN(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out,
                                 flag);
}

int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
               void *attribute_val_out, int *flag) {
    return MPI_COMM_DUP_FN(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag);
}

int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state) {
    return MPI_COMM_NULL_DELETE_FN(comm, keyval, attribute_val, extra_state);
}

/* ---- keys ---- */

/* The key of a user keyval handle of that kind, also one the program freed while
 * attributes still use it; NULL when it names none. */
static keyval_t *key_alive(int keyval, int kind) {
    int i = keyval & 0xffffff;
    if ((keyval & 0xff000000) != USER_KEY || i < 1 || i >= n_keys || !keys[i].refs ||
        keys[i].kind != kind)
        return NULL;
    return &keys[i];
}

/* The key of a user keyval handle of that kind the program holds; NULL otherwise. */
static keyval_t *key_get(int keyval, int kind) {
    keyval_t *k = key_alive(keyval, kind);
    return k && !k->freed ? k : NULL;
}

static void key_release(keyval_t *k) {
    if (!--k->refs) *k = (keyval_t){0};
}

int tw_mpi_attr_key_create(const char *call, int kind, key_copy_fn *copy, key_delete_fn *del,
                           int *keyval, void *extra_state) {
    NEED_INIT(call);
    if (!keyval) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "keyval is NULL");
    int i = 1;
    while (i < n_keys && keys[i].refs) i++;
    if (i >= n_keys) {
        int grown = n_keys ? 2 * n_keys : 16;
        keyval_t *more = grown <= MAX_KEYS ? realloc(keys, (size_t)grown * sizeof *more) : NULL;
        if (!more) return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
        for (int k = n_keys; k < grown; k++) more[k] = (keyval_t){0};
        keys = more;
        n_keys = grown;
    }
    keys[i] = (keyval_t){kind,
                         copy ? copy : MPI_COMM_NULL_COPY_FN,
                         del ? del : MPI_COMM_NULL_DELETE_FN,
                         extra_state,
                         1,
                         0};
    *keyval = USER_KEY | i;
    return MPI_SUCCESS;
}

int tw_mpi_attr_key_free(const char *call, int kind, int *keyval) {
    NEED_INIT(call);
    keyval_t *k = keyval ? key_alive(*keyval, kind) : NULL;
    if (!k) return tw_mpi_error(NULL, call, MPI_ERR_KEYVAL, NULL);
    /* a key freed again while attributes still hold it (a library that frees its key
     * in the delete callback, and again at its end) is let be, as MPICH does: the
     * program's reference went with the first free */
    if (!k->freed) {
        k->freed = 1;
        key_release(k);
    }
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state) {
    return tw_mpi_attr_key_create("MPI_Comm_create_keyval", TW_ATTR_COMM, comm_copy_attr_fn,
                                  comm_delete_attr_fn, comm_keyval, extra_state);
}

int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                      void *extra_state) {
    return tw_mpi_attr_key_create("MPI_Keyval_create", TW_ATTR_COMM, copy_fn, delete_fn, keyval,
                                  extra_state);
}

int MPI_Comm_free_keyval(int *comm_keyval) {
    return tw_mpi_attr_key_free("MPI_Comm_free_keyval", TW_ATTR_COMM, comm_keyval);
}

int MPI_Keyval_free(int *keyval) {
    return tw_mpi_attr_key_free("MPI_Keyval_free", TW_ATTR_COMM, keyval);
}

/* ---- attribute lists, of any kind of object ---- */

/* The link that points at the attribute for keyval (at the list's end when none). */
static struct tw_mpi_attr **attr_link(struct tw_mpi_attr **head, int keyval) {
    struct tw_mpi_attr **at = head;
    while (*at && (*at)->keyval != keyval) at = &(*at)->next;
    return at;
}

/* Unlinks attribute a from the list and frees it; 0 when it is not there. */
static int attr_unlink(struct tw_mpi_attr **head, struct tw_mpi_attr *a) {
    struct tw_mpi_attr **at = head;
    while (*at && *at != a) at = &(*at)->next;
    if (!*at) return 0;
    *at = a->next;
    key_release(&keys[a->keyval & 0xffffff]);
    free(a);
    return 1;
}

/* Runs the delete callback of attribute a of object handle and, when it succeeds,
 * removes it (found again: the callback may have changed the list). */
static int attr_delete(struct tw_mpi_attr **head, int handle, struct tw_mpi_attr *a) {
    keyval_t *k = &keys[a->keyval & 0xffffff];
    in_callback++;
    int rc = k->del(handle, a->keyval, a->value, k->extra_state);
    in_callback--;
    if (rc) return rc;
    attr_unlink(head, a);
    return MPI_SUCCESS;
}

/* The last attribute of a list that has one. */
static struct tw_mpi_attr *last(struct tw_mpi_attr *a) {
    while (a->next) a = a->next;
    return a;
}

/* Deletes every attribute, the last set first; stops at the first callback that
 * fails, and returns its error. */
static int list_delete_all(struct tw_mpi_attr **head, int handle) {
    while (*head) {
        int rc = attr_delete(head, handle, last(*head));
        if (rc) return rc;
    }
    return MPI_SUCCESS;
}

static void list_drop_all(struct tw_mpi_attr **head) {
    while (*head) {
        struct tw_mpi_attr *a = *head;
        *head = a->next;
        key_release(&keys[a->keyval & 0xffffff]);
        free(a);
    }
}

/* Appends an attribute (keyval valid and not yet in the list). */
static int attr_add(struct tw_mpi_attr **head, int keyval, void *value) {
    struct tw_mpi_attr *a = malloc(sizeof *a), **end = attr_link(head, keyval);
    if (!a) return MPI_ERR_NO_MEM;
    *a = (struct tw_mpi_attr){keyval, value, NULL};
    *end = a;
    keys[keyval & 0xffffff].refs++;
    return MPI_SUCCESS;
}

/* Runs the copy callbacks of from's attributes for its duplicate's list to. */
static int list_copy_all(struct tw_mpi_attr *from, int from_handle, struct tw_mpi_attr **to) {
    for (struct tw_mpi_attr *a = from; a; a = a->next) {
        keyval_t *k = &keys[a->keyval & 0xffffff];
        void *value = NULL;
        int flag = 0;
        in_callback++;
        int rc = k->copy(from_handle, a->keyval, k->extra_state, a->value, &value, &flag);
        in_callback--;
        if (!rc && flag) rc = attr_add(to, a->keyval, value);
        if (rc) return rc;
    }
    return MPI_SUCCESS;
}

/* Sets an attribute: a new value replaces the old one as if that was deleted first. */
static int list_set(struct tw_mpi_attr **head, int handle, int keyval, void *value) {
    struct tw_mpi_attr **at = attr_link(head, keyval);
    if (*at) {
        keyval_t *k = &keys[keyval & 0xffffff];
        in_callback++;
        int rc = k->del(handle, keyval, (*at)->value, k->extra_state);
        in_callback--;
        if (rc) return rc;
        at = attr_link(head, keyval); /* the callback may have changed the list */
        if (*at) {
            (*at)->value = value;
            return MPI_SUCCESS;
        }
    }
    return attr_add(head, keyval, value);
}

/* ---- communicators ---- */

int tw_mpi_attr_delete_all(tw_mpi_comm_t *c) {
    return list_delete_all(&c->attrs, c->handle);
}

void tw_mpi_attr_drop_all(tw_mpi_comm_t *c) {
    list_drop_all(&c->attrs);
}

int tw_mpi_attr_copy_all(tw_mpi_comm_t *from, tw_mpi_comm_t *to) {
    return list_copy_all(from->attrs, from->handle, &to->attrs);
}

void tw_mpi_attr_finalize_self(void) {
    tw_mpi_comm_t *self = tw_mpi_comm_get(MPI_COMM_SELF);
    while (self && self->attrs) {
        struct tw_mpi_attr *a = last(self->attrs);
        if (attr_delete(&self->attrs, self->handle, a))
            attr_unlink(&self->attrs, a); /* its callback failed: it goes all the same */
    }
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val) {
    NEED_INIT("MPI_Comm_set_attr");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_set_attr", MPI_ERR_COMM, NULL);
    if (!key_get(comm_keyval, TW_ATTR_COMM))
        return tw_mpi_error(c, "MPI_Comm_set_attr", MPI_ERR_KEYVAL,
                            "not a communicator key of the program's (predefined ones are "
                            "read-only)");
    int rc = list_set(&c->attrs, comm, comm_keyval, attribute_val);
    return rc ? tw_mpi_error(c, "MPI_Comm_set_attr", rc, "the delete callback failed")
              : MPI_SUCCESS;
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
    NEED_INIT("MPI_Comm_delete_attr");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_delete_attr", MPI_ERR_COMM, NULL);
    if (!key_alive(comm_keyval, TW_ATTR_COMM)) /* also a key freed while attached */
        return tw_mpi_error(c, "MPI_Comm_delete_attr", MPI_ERR_KEYVAL,
                            "not a communicator key of the program's");
    struct tw_mpi_attr **at = attr_link(&c->attrs, comm_keyval);
    if (!*at) return tw_mpi_error(c, "MPI_Comm_delete_attr", MPI_ERR_KEYVAL, "no such attribute");
    int rc = attr_delete(&c->attrs, comm, *at);
    return rc ? tw_mpi_error(c, "MPI_Comm_delete_attr", rc, "the delete callback failed")
              : MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
    NEED_INIT("MPI_Comm_get_attr");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_get_attr", MPI_ERR_COMM, NULL);
    if (!attribute_val || !flag) return tw_mpi_error(c, "MPI_Comm_get_attr", MPI_ERR_ARG, NULL);
    static int tag_ub = TW_MPI_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0,
               appnum = 0, universe, lastcode;
    /* the universe is asked of the process manager once, when the program first reads it */
    if (keyval == MPI_UNIVERSE_SIZE && !universe) universe = tw_ep_universe_size(tw_mpi.ep);
    appnum = tw_mpi.appnum;
    lastcode = tw_mpi_lastusedcode;
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
    if (!key_get(keyval, TW_ATTR_COMM))
        return tw_mpi_error(c, "MPI_Comm_get_attr", MPI_ERR_KEYVAL, "unknown key");
    struct tw_mpi_attr *a = *attr_link(&c->attrs, keyval);
    *flag = a != NULL;
    if (a) *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val) {
    return MPI_Comm_set_attr(comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
    return MPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) {
    return MPI_Comm_delete_attr(comm, keyval);
}

/* ---- datatypes and windows, by handle ---- */

/* The list head of an object; NULL when it has none and create is 0 (or no memory). */
static struct tw_mpi_attr **object_head(int handle, int create) {
    for (object_t *o = objects; o; o = o->next)
        if (o->handle == handle) return &o->attrs;
    if (!create) return NULL;
    object_t *o = malloc(sizeof *o);
    if (!o) return NULL;
    *o = (object_t){handle, NULL, objects};
    objects = o;
    return &o->attrs;
}

/* Forgets an object's entry once its list is empty. */
static void object_tidy(int handle) {
    if (in_callback) return;
    for (object_t **o = &objects; *o; o = &(*o)->next)
        if ((*o)->handle == handle) {
            if ((*o)->attrs) return;
            object_t *gone = *o;
            *o = gone->next;
            free(gone);
            return;
        }
}

int tw_mpi_attr_object_free(int handle) {
    struct tw_mpi_attr **head = object_head(handle, 0);
    int rc = head ? list_delete_all(head, handle) : MPI_SUCCESS;
    object_tidy(handle);
    return rc;
}

int tw_mpi_attr_object_copy(int from, int to) {
    struct tw_mpi_attr **src = object_head(from, 0);
    if (!src || !*src) return MPI_SUCCESS;
    struct tw_mpi_attr **dst = object_head(to, 1);
    if (!dst) return MPI_ERR_NO_MEM;
    int rc = list_copy_all(*src, from, dst);
    if (rc) { /* the copies made so far are deleted */
        list_delete_all(dst, to);
        list_drop_all(dst);
    }
    object_tidy(to);
    return rc;
}

int tw_mpi_attr_object_set(int handle, int keyval, void *value) {
    struct tw_mpi_attr **head = object_head(handle, 1);
    if (!head) return MPI_ERR_NO_MEM;
    int rc = list_set(head, handle, keyval, value);
    object_tidy(handle);
    return rc;
}

int tw_mpi_attr_object_get(int handle, int keyval, void *attribute_val, int *flag) {
    struct tw_mpi_attr **head = object_head(handle, 0);
    struct tw_mpi_attr *a = head ? *attr_link(head, keyval) : NULL;
    *flag = a != NULL;
    if (a) *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}

/* MPI_ERR_KEYVAL when the object has no such attribute. */
int tw_mpi_attr_object_delete(int handle, int keyval) {
    struct tw_mpi_attr **head = object_head(handle, 0);
    struct tw_mpi_attr **at = head ? attr_link(head, keyval) : NULL;
    if (!at || !*at) return MPI_ERR_KEYVAL;
    int rc = attr_delete(head, handle, *at);
    object_tidy(handle);
    return rc;
}

int tw_mpi_attr_key_held(int keyval, int kind) {
    return key_get(keyval, kind) != NULL;
}

int tw_mpi_attr_key_alive(int keyval, int kind) {
    return key_alive(keyval, kind) != NULL;
}
