/* Attribute caching on datatypes and windows (copy callbacks on MPI_Type_dup, delete
 * callbacks on set, delete and free, keys of one kind only), the MPI-1 attribute
 * calls, and MPI_COMM_SELF's delete callbacks at MPI_Finalize: first, the last set
 * first, with MPI still usable inside them. */
#include <stdint.h>

#include "mpi_check.h"

/* what the callbacks saw, in order */
typedef struct event {
    char what; /* 'c' copy, 'd' delete */
    int handle, keyval;
    intptr_t value;
    void *extra;
} event_t;
static event_t events[64];
static int n_events;
static int fail_delete, fail_copy;

static void record(char what, int handle, int keyval, void *value, void *extra) {
    if (n_events < 64) events[n_events++] = (event_t){what, handle, keyval, (intptr_t)value, extra};
}

static int copy_cb(int old, int keyval, void *extra, void *in, void *out, int *flag) {
    record('c', old, keyval, in, extra);
    if (fail_copy) return MPI_ERR_OTHER;
    *(void **)out = (void *)((intptr_t)in + 1000); /* the copy is told apart */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(int handle, int keyval, void *value, void *extra) {
    record('d', handle, keyval, value, extra);
    return fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int has(char what, int handle, int keyval, intptr_t value) {
    for (int k = 0; k < n_events; k++)
        if (events[k].what == what && events[k].handle == handle && events[k].keyval == keyval &&
            events[k].value == value)
            return 1;
    return 0;
}

static void type_attrs(void) {
    int extra = 7, k1, k2, k3, flag;
    void *v;
    MPI_Datatype t, d, d2;
    CHECK(MPI_Type_create_keyval(copy_cb, delete_cb, &k1, &extra) == MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &k2, NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_cb, &k3, NULL) == MPI_SUCCESS);
    CHECK(k1 != k2 && k2 != k3 && k1 != k3);
    CHECK(MPI_Type_contiguous(3, MPI_INT, &t) == MPI_SUCCESS); /* not committed: allowed */
    CHECK(MPI_Type_get_attr(t, k1, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Type_set_attr(t, k1, (void *)11) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(t, k2, (void *)22) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(t, k3, (void *)33) == MPI_SUCCESS);
    CHECK(n_events == 0);
    CHECK(MPI_Type_get_attr(t, k1, &v, &flag) == MPI_SUCCESS && flag && v == (void *)11);
    /* replacing a value deletes the old one */
    CHECK(MPI_Type_set_attr(t, k1, (void *)12) == MPI_SUCCESS);
    CHECK(n_events == 1 && has('d', t, k1, 11) && events[0].extra == &extra);
    CHECK(MPI_Type_get_attr(t, k1, &v, &flag) == MPI_SUCCESS && flag && v == (void *)12);

    /* a duplicate: k1 copied by its callback, k2 not at all, k3 as it is */
    n_events = 0;
    CHECK(MPI_Type_dup(t, &d) == MPI_SUCCESS);
    CHECK(n_events == 1 && has('c', t, k1, 12) && events[0].extra == &extra);
    CHECK(MPI_Type_get_attr(d, k1, &v, &flag) == MPI_SUCCESS && flag && v == (void *)1012);
    CHECK(MPI_Type_get_attr(d, k2, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Type_get_attr(d, k3, &v, &flag) == MPI_SUCCESS && flag && v == (void *)33);
    /* the original keeps its own */
    CHECK(MPI_Type_get_attr(t, k1, &v, &flag) == MPI_SUCCESS && flag && v == (void *)12);

    /* a copy callback that fails fails the dup, and nothing is left of the new type */
    fail_copy = 1;
    CHECK(MPI_Type_dup(t, &d2) == MPI_ERR_OTHER);
    fail_copy = 0;

    /* delete: the callback runs; afterwards the attribute is gone */
    n_events = 0;
    CHECK(MPI_Type_delete_attr(d, k3) == MPI_SUCCESS);
    CHECK(n_events == 1 && has('d', d, k3, 33));
    CHECK(MPI_Type_get_attr(d, k3, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Type_delete_attr(d, k3) == MPI_ERR_KEYVAL);

    /* free: a failing delete callback keeps the type; then every one runs */
    n_events = 0;
    fail_delete = 1;
    CHECK(MPI_Type_free(&d) == MPI_ERR_OTHER && d != MPI_DATATYPE_NULL);
    fail_delete = 0;
    n_events = 0;
    MPI_Datatype dh = d;
    CHECK(MPI_Type_free(&d) == MPI_SUCCESS && d == MPI_DATATYPE_NULL);
    CHECK(n_events == 1 && has('d', dh, k1, 1012));
    /* a freed key lives on for the attributes that use it */
    int k1_was = k1;
    CHECK(MPI_Type_free_keyval(&k1) == MPI_SUCCESS && k1 == MPI_KEYVAL_INVALID);
    n_events = 0;
    MPI_Datatype th = t;
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    CHECK(n_events == 2 && has('d', th, k1_was, 12) && has('d', th, k3, 33));

    /* predefined types take attributes too */
    CHECK(MPI_Type_set_attr(MPI_DOUBLE, k3, (void *)5) == MPI_SUCCESS);
    CHECK(MPI_Type_get_attr(MPI_DOUBLE, k3, &v, &flag) == MPI_SUCCESS && flag && v == (void *)5);
    CHECK(MPI_Type_get_attr(MPI_INT, k3, &v, &flag) == MPI_SUCCESS && !flag);
    n_events = 0;
    CHECK(MPI_Type_delete_attr(MPI_DOUBLE, k3) == MPI_SUCCESS && has('d', MPI_DOUBLE, k3, 5));

    /* bad arguments */
    int ck;
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(MPI_INT, ck, NULL) == MPI_ERR_KEYVAL); /* a communicator key */
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, k3, NULL) == MPI_ERR_KEYVAL);
    CHECK(MPI_Type_free_keyval(&ck) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_free_keyval(&ck) == MPI_SUCCESS);
    CHECK(MPI_Type_set_attr(MPI_DATATYPE_NULL, k3, NULL) == MPI_ERR_TYPE);
    CHECK(MPI_Type_get_attr(MPI_Type_f2c(0x8c00fff0), k3, &v, &flag) == MPI_ERR_TYPE);
    CHECK(MPI_Type_get_attr(MPI_INT, k3, NULL, &flag) == MPI_ERR_ARG);
    CHECK(MPI_Type_get_attr(MPI_INT, k3, &v, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_get_attr(MPI_INT, 0x12345, &v, &flag) == MPI_ERR_KEYVAL);
    CHECK(MPI_Type_create_keyval(NULL, NULL, NULL, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Type_free_keyval(&k2) == MPI_SUCCESS);
    CHECK(MPI_Type_free_keyval(&k2) == MPI_ERR_KEYVAL);
    CHECK(MPI_Type_free_keyval(&k3) == MPI_SUCCESS);
}

static void win_attrs(void) {
    int mem[2], k1, k2, flag, extra = 3;
    void *v;
    MPI_Win w;
    CHECK(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_cb, &k1, &extra) == MPI_SUCCESS);
    CHECK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &k2, NULL) == MPI_SUCCESS);
    CHECK(MPI_Win_get_attr(w, k1, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Win_set_attr(w, k1, (void *)41) == MPI_SUCCESS);
    CHECK(MPI_Win_set_attr(w, k2, (void *)42) == MPI_SUCCESS);
    CHECK(MPI_Win_get_attr(w, k1, &v, &flag) == MPI_SUCCESS && flag && v == (void *)41);
    CHECK(MPI_Win_get_attr(w, k2, &v, &flag) == MPI_SUCCESS && flag && v == (void *)42);
    /* the predefined ones are still there, and read-only */
    MPI_Aint *wsize;
    CHECK(MPI_Win_get_attr(w, MPI_WIN_SIZE, &wsize, &flag) == MPI_SUCCESS && flag &&
          *wsize == (MPI_Aint)sizeof mem);
    CHECK(MPI_Win_set_attr(w, MPI_WIN_SIZE, NULL) == MPI_ERR_KEYVAL);
    CHECK(MPI_Win_delete_attr(w, MPI_WIN_BASE) == MPI_ERR_KEYVAL);
    n_events = 0;
    CHECK(MPI_Win_delete_attr(w, k2) == MPI_SUCCESS && n_events == 0);
    CHECK(MPI_Win_get_attr(w, k2, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Win_delete_attr(w, k2) == MPI_ERR_KEYVAL);
    CHECK(MPI_Win_set_attr(w, k2, (void *)43) == MPI_SUCCESS);
    CHECK(MPI_Win_free_keyval(&k1) == MPI_SUCCESS);
    MPI_Win wh = w;
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS && w == MPI_WIN_NULL);
    CHECK(n_events == 1 && has('d', wh, events[0].keyval, 41) && events[0].extra == &extra);
    /* bad arguments */
    CHECK(MPI_Win_set_attr(MPI_WIN_NULL, k2, NULL) == MPI_ERR_WIN);
    CHECK(MPI_Win_delete_attr(MPI_Win_f2c(0xa8000fff), k2) == MPI_ERR_WIN);
    CHECK(MPI_Win_free_keyval(NULL) == MPI_ERR_KEYVAL);
    CHECK(MPI_Win_free_keyval(&k2) == MPI_SUCCESS);
}

static int own_key_frees;

/* frees the key it is called for (the keyval argument is its own copy) */
static int free_own_key(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm, (void)value, (void)extra;
    if (MPI_Keyval_free(&keyval) == MPI_SUCCESS) own_key_frees++;
    return MPI_SUCCESS;
}

/* the MPI-1 calls, on a duplicate of MPI_COMM_WORLD */
static void mpi1_attrs(void) {
    int key, flag, extra = 9;
    void *v;
    MPI_Comm c, d;
    CHECK(MPI_Keyval_create(copy_cb, delete_cb, &key, &extra) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS);
    CHECK(MPI_Attr_put(c, key, (void *)7) == MPI_SUCCESS);
    CHECK(MPI_Attr_get(c, key, &v, &flag) == MPI_SUCCESS && flag && v == (void *)7);
    n_events = 0;
    CHECK(MPI_Comm_dup(c, &d) == MPI_SUCCESS);
    CHECK(n_events == 1 && has('c', c, key, 7));
    CHECK(MPI_Attr_get(d, key, &v, &flag) == MPI_SUCCESS && flag && v == (void *)1007);
    CHECK(MPI_Attr_delete(d, key) == MPI_SUCCESS && has('d', d, key, 1007));
    CHECK(MPI_Attr_delete(d, key) == MPI_ERR_KEYVAL);
    int *ub;
    CHECK(MPI_Attr_get(c, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && *ub >= 32767);
    CHECK(MPI_Keyval_free(&key) == MPI_SUCCESS && key == MPI_KEYVAL_INVALID);
    n_events = 0;
    MPI_Comm ch = c;
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS && n_events == 1 && has('d', ch, events[0].keyval, 7));
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS);
    int k2;
    CHECK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k2, NULL) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS);
    CHECK(MPI_Attr_put(c, k2, (void *)1) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(c, &d) == MPI_SUCCESS);
    CHECK(MPI_Attr_get(d, k2, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS);
    int k3;
    CHECK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k3, NULL) == MPI_SUCCESS);
    CHECK(MPI_Attr_put(c, k3, (void *)3) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(c, &d) == MPI_SUCCESS);
    CHECK(MPI_Attr_get(d, k3, &v, &flag) == MPI_SUCCESS && flag && v == (void *)3);
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
    CHECK(MPI_Keyval_free(&k2) == MPI_SUCCESS && MPI_Keyval_free(&k3) == MPI_SUCCESS);
    CHECK(MPI_Attr_put(MPI_COMM_NULL, 0, NULL) == MPI_ERR_COMM);

    /* a key its delete callback frees, used on two communicators, then freed again by
     * the program: the frees after the first are let be while an attribute holds the
     * key (as MPICH does), and an error once none does */
    int kf, kf_copy;
    CHECK(MPI_Keyval_create(MPI_NULL_COPY_FN, free_own_key, &kf, NULL) == MPI_SUCCESS);
    kf_copy = kf;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d) == MPI_SUCCESS);
    CHECK(MPI_Attr_put(c, kf, NULL) == MPI_SUCCESS && MPI_Attr_put(d, kf, NULL) == MPI_SUCCESS);
    own_key_frees = 0;
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS && own_key_frees == 1); /* the first free */
    CHECK(MPI_Keyval_free(&kf) == MPI_SUCCESS && kf == MPI_KEYVAL_INVALID);
    CHECK(MPI_Attr_get(d, kf_copy, &v, &flag) == MPI_ERR_KEYVAL); /* freed: no new use */
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS && own_key_frees == 2);
    CHECK(MPI_Keyval_free(&kf_copy) == MPI_ERR_KEYVAL); /* gone with its last attribute */
}

/* ---- MPI_COMM_SELF at MPI_Finalize ---- */

static int self_order[8], n_self, self_errors, peer_sum;

static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)extra;
    int flag = 1, me = -1;
    /* MPI still works: not finalized yet, and calls (a dup, a collective) succeed */
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag) self_errors++;
    if (comm != MPI_COMM_SELF || MPI_Comm_rank(comm, &me) != MPI_SUCCESS || me != 0) self_errors++;
    MPI_Comm d;
    if (MPI_Comm_dup(MPI_COMM_SELF, &d) != MPI_SUCCESS || MPI_Comm_free(&d) != MPI_SUCCESS)
        self_errors++;
    int one = 1, sum = 0;
    if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        self_errors++;
    peer_sum += sum;
    (void)keyval;
    if (n_self < 8) self_order[n_self++] = (int)(intptr_t)value;
    return (intptr_t)value == 3 ? MPI_ERR_OTHER : MPI_SUCCESS; /* a failure stops no other */
}

int main(int argc, char **argv) {
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    type_attrs();
    win_attrs();
    mpi1_attrs();

    /* four keys on MPI_COMM_SELF, set in the order 1 2 3 4 around one deleted before */
    int keys[4], gone;
    for (int k = 0; k < 4; k++)
        CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &keys[k], NULL) ==
              MPI_SUCCESS);
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &gone, NULL) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keys[2], (void *)1) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, gone, (void *)9) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keys[0], (void *)2) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keys[3], (void *)3) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keys[1], (void *)4) == MPI_SUCCESS);
    CHECK(MPI_Comm_delete_attr(MPI_COMM_SELF, gone) == MPI_SUCCESS);
    CHECK(n_self == 1 && self_order[0] == 9 && !self_errors);
    CHECK(MPI_Comm_free_keyval(&gone) == MPI_SUCCESS);
    n_self = 0;
    peer_sum = 0;
    for (int k = 0; k < 4; k++) CHECK(MPI_Comm_free_keyval(&keys[k]) == MPI_SUCCESS);
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    /* after MPI_Finalize: report with exit codes */
    int want[4] = {4, 3, 2, 1}; /* the last set first */
    if (n_self != 4 || self_errors || peer_sum != 4 * size) {
        fprintf(stderr, "rank %d: %d SELF delete callbacks, %d errors, sum %d\n", rank, n_self,
                self_errors, peer_sum);
        return 1;
    }
    for (int k = 0; k < 4; k++)
        if (self_order[k] != want[k]) {
            fprintf(stderr, "rank %d: SELF callback %d deleted value %d, not %d\n", rank, k,
                    self_order[k], want[k]);
            return 1;
        }
    return 0;
}
