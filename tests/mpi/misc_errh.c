/* Error handlers of the program's on communicators, windows and MPI_FILE_NULL: called
 * by failing calls and by the *_call_errhandler calls, inherited by duplicates,
 * refused on the wrong kind of object, and their slots reused once freed while a
 * handler still in use stays alive; the code a handler leaves is what the call
 * returns; the removed MPI-1 calls; error classes, codes and strings of the program's
 * own. */
#include "mpi_check.h"

static int comm_calls, comm_code;
static MPI_Comm comm_seen;
static void on_comm(MPI_Comm *comm, int *code, ...) {
    comm_calls++;
    comm_code = *code;
    comm_seen = *comm;
}

static int other_calls;
static void on_comm_other(MPI_Comm *comm, int *code, ...) {
    (void)comm, (void)code;
    other_calls++;
}

static int win_calls, win_code;
static MPI_Win win_seen;
static void on_win(MPI_Win *win, int *code, ...) {
    win_calls++;
    win_code = *code;
    win_seen = *win;
}

static int file_calls, file_code;
static MPI_File file_seen;
static void on_file(MPI_File *file, int *code, ...) {
    file_calls++;
    file_code = *code;
    file_seen = *file;
}

static void comm_handlers(void) {
    MPI_Comm dup;
    MPI_Errhandler eh, got;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(on_comm, &eh) == MPI_SUCCESS);
    CHECK(eh != MPI_ERRHANDLER_NULL && eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL);
    CHECK(MPI_Comm_set_errhandler(dup, eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_errhandler(dup, &got) == MPI_SUCCESS && got == eh);

    /* failing calls go through it, with the communicator and the class */
    int sendbuf = 1;
    CHECK(MPI_Send(&sendbuf, 1, MPI_INT, size, 0, dup) == MPI_ERR_RANK);
    CHECK(comm_calls == 1 && comm_code == MPI_ERR_RANK && comm_seen == dup);
    CHECK(MPI_Comm_rank(dup, NULL) == MPI_ERR_ARG);
    CHECK(comm_calls == 2 && comm_code == MPI_ERR_ARG && comm_seen == dup);
    CHECK(MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK(comm_calls == 3 && comm_code == MPI_ERR_OTHER && comm_seen == dup);

    /* a duplicate inherits it, and it survives MPI_Errhandler_free while in use */
    MPI_Comm dup2;
    CHECK(MPI_Comm_dup(dup, &dup2) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_errhandler(dup2, &got) == MPI_SUCCESS && got == eh);
    CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS && got == MPI_ERRHANDLER_NULL);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL);
    for (int k = 0; k < 300; k++) { /* many more made and freed meanwhile */
        MPI_Errhandler tmp;
        CHECK(MPI_Comm_create_errhandler(on_comm_other, &tmp) == MPI_SUCCESS);
        CHECK(MPI_Errhandler_free(&tmp) == MPI_SUCCESS);
    }
    CHECK(MPI_Comm_call_errhandler(dup2, MPI_ERR_TAG) == MPI_SUCCESS);
    CHECK(comm_calls == 4 && comm_code == MPI_ERR_TAG && comm_seen == dup2 && other_calls == 0);
    CHECK(MPI_Comm_call_errhandler(dup, MPI_ERR_COUNT) == MPI_SUCCESS);
    CHECK(comm_calls == 5 && comm_seen == dup);
    CHECK(MPI_Comm_free(&dup2) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);

    /* errors of no communicator (a bad handle) go to MPI_COMM_WORLD's handler */
    CHECK(MPI_Comm_create_errhandler(on_comm, &eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh) == MPI_SUCCESS);
    int r;
    CHECK(MPI_Comm_rank(MPI_Comm_f2c(12345), &r) == MPI_ERR_COMM);
    CHECK(comm_calls == 6 && comm_code == MPI_ERR_COMM && comm_seen == MPI_COMM_WORLD);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);

    /* the removed MPI-1 calls */
    CHECK(MPI_Errhandler_create(on_comm, &eh) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_set(MPI_COMM_SELF, eh) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_get(MPI_COMM_SELF, &got) == MPI_SUCCESS && got == eh);
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_BUFFER) == MPI_SUCCESS);
    CHECK(comm_calls == 7 && comm_code == MPI_ERR_BUFFER && comm_seen == MPI_COMM_SELF);
    CHECK(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS);

    /* bad arguments */
    CHECK(MPI_Comm_create_errhandler(NULL, &eh) == MPI_ERR_ARG);
    CHECK(MPI_Comm_create_errhandler(on_comm, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER) == MPI_ERR_COMM);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, (MPI_Errhandler)0x54fffff0) == MPI_ERR_ARG);
    eh = (MPI_Errhandler)77;
    CHECK(MPI_Errhandler_free(&eh) == MPI_ERR_ARG);
    CHECK(MPI_Errhandler_free(NULL) == MPI_ERR_ARG);
    CHECK(comm_calls == 7);
}

/* A library's pattern: get the handler, set its own, restore the one it got, free
 * that handle; the program had freed its own handle long before. */
static void save_restore(void) {
    MPI_Comm dup;
    MPI_Errhandler eh, old, copy;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(on_comm, &eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(dup, eh) == MPI_SUCCESS);
    copy = eh;
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&copy) == MPI_ERR_ARG); /* freed as often as made */
    CHECK(MPI_Comm_get_errhandler(dup, &old) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    for (int k = 0; k < 300; k++) { /* handlers made and freed while nothing holds it */
        MPI_Errhandler tmp;
        CHECK(MPI_Comm_create_errhandler(on_comm_other, &tmp) == MPI_SUCCESS);
        CHECK(MPI_Errhandler_free(&tmp) == MPI_SUCCESS);
    }
    CHECK(MPI_Comm_set_errhandler(dup, old) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&old) == MPI_SUCCESS);
    int before = comm_calls;
    CHECK(MPI_Comm_call_errhandler(dup, MPI_ERR_TAG) == MPI_SUCCESS);
    CHECK(comm_calls == before + 1 && comm_seen == dup && other_calls == 0);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
}

static void win_handlers(void) {
    int mem[4];
    MPI_Win w;
    CHECK(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w) == MPI_SUCCESS);
    MPI_Errhandler weh, ceh, feh, got;
    CHECK(MPI_Win_create_errhandler(on_win, &weh) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(on_comm, &ceh) == MPI_SUCCESS);
    CHECK(MPI_File_create_errhandler(on_file, &feh) == MPI_SUCCESS);
    /* each kind on its own kind of object only */
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, weh) == MPI_ERR_ARG);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, feh) == MPI_ERR_ARG);
    CHECK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, ceh) == MPI_ERR_ARG);
    CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, weh) == MPI_ERR_ARG);

    CHECK(MPI_Win_set_errhandler(w, weh) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&weh) == MPI_SUCCESS);
    /* MPI_Errhandler_free gives the slot back: far more than a fixed table's worth */
    for (int k = 0; k < 1000; k++) {
        MPI_Errhandler tmp;
        CHECK(MPI_Win_create_errhandler(on_win, &tmp) == MPI_SUCCESS);
        CHECK(MPI_Errhandler_free(&tmp) == MPI_SUCCESS);
        CHECK(MPI_Comm_create_errhandler(on_comm_other, &tmp) == MPI_SUCCESS);
        CHECK(MPI_Errhandler_free(&tmp) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_unlock(0, w) == MPI_ERR_RMA_SYNC); /* the window's handler is alive */
    CHECK(win_calls == 1 && win_code == MPI_ERR_RMA_SYNC && win_seen == w);
    CHECK(MPI_Win_call_errhandler(w, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK(win_calls == 2 && win_code == MPI_ERR_OTHER);
    CHECK(MPI_Win_get_errhandler(w, &got) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&ceh) == MPI_SUCCESS);

    /* MPI_FILE_NULL: MPI_ERRORS_RETURN until set */
    CHECK(MPI_File_get_errhandler(MPI_FILE_NULL, &got) == MPI_SUCCESS && got == MPI_ERRORS_RETURN);
    CHECK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO) == MPI_SUCCESS);
    CHECK(MPI_File_set_errhandler(MPI_File_f2c(99), MPI_ERRORS_RETURN) == MPI_ERR_FILE);
    CHECK(MPI_File_get_errhandler(MPI_FILE_NULL, NULL) == MPI_ERR_ARG);
    CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, feh) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&feh) == MPI_SUCCESS);
    CHECK(MPI_File_get_errhandler(MPI_FILE_NULL, &got) == MPI_SUCCESS);
    CHECK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO) == MPI_SUCCESS);
    CHECK(file_calls == 1 && file_code == MPI_ERR_IO && file_seen == MPI_FILE_NULL);
    /* a bad file handle is reported through MPI_FILE_NULL's handler */
    CHECK(MPI_File_call_errhandler(MPI_File_f2c(99), MPI_ERR_IO) == MPI_ERR_FILE);
    CHECK(file_calls == 2 && file_code == MPI_ERR_FILE);
    CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&got) == MPI_SUCCESS);
    CHECK(comm_calls == 8 && other_calls == 0);
}

static void error_codes(void) {
    int *last, flag, cls, len;
    char s[MPI_MAX_ERROR_STRING];
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag) == MPI_SUCCESS && flag);
    CHECK(*last >= MPI_ERR_LASTCODE);
    int before = *last, c1, e1, e2, eo;
    CHECK(MPI_Add_error_class(&c1) == MPI_SUCCESS);
    CHECK(c1 > MPI_ERR_LASTCODE && c1 > before);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag) == MPI_SUCCESS);
    CHECK(*last == c1);
    CHECK(MPI_Add_error_code(c1, &e1) == MPI_SUCCESS && e1 != c1);
    CHECK(MPI_Add_error_code(c1, &e2) == MPI_SUCCESS && e2 != e1 && e2 != c1);
    CHECK(MPI_Add_error_code(MPI_ERR_OTHER, &eo) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag) == MPI_SUCCESS);
    CHECK(*last == eo && eo > e2);
    CHECK(MPI_Error_class(c1, &cls) == MPI_SUCCESS && cls == c1);
    CHECK(MPI_Error_class(e1, &cls) == MPI_SUCCESS && cls == c1);
    CHECK(MPI_Error_class(e2, &cls) == MPI_SUCCESS && cls == c1);
    CHECK(MPI_Error_class(eo, &cls) == MPI_SUCCESS && cls == MPI_ERR_OTHER);
    CHECK(MPI_Error_string(e1, s, &len) == MPI_SUCCESS && len == 0 && s[0] == '\0');
    CHECK(MPI_Add_error_string(e1, "the widget broke") == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(c1, "widget errors") == MPI_SUCCESS);
    CHECK(MPI_Error_string(e1, s, &len) == MPI_SUCCESS && !strcmp(s, "the widget broke") &&
          len == (int)strlen("the widget broke"));
    CHECK(MPI_Add_error_string(e1, "replaced") == MPI_SUCCESS);
    CHECK(MPI_Error_string(e1, s, &len) == MPI_SUCCESS && !strcmp(s, "replaced") && len == 8);
    CHECK(MPI_Error_string(c1, s, &len) == MPI_SUCCESS && !strcmp(s, "widget errors"));
    /* a handler sees the program's code */
    MPI_Errhandler eh;
    CHECK(MPI_Comm_create_errhandler(on_comm, &eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_SELF, e2) == MPI_SUCCESS);
    CHECK(comm_code == e2 && comm_seen == MPI_COMM_SELF);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS);
    /* bad arguments */
    char longer[MPI_MAX_ERROR_STRING + 8];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    CHECK(MPI_Add_error_string(e1, longer) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_string(MPI_ERR_OTHER, "standard codes keep theirs") == MPI_ERR_ARG);
    CHECK(MPI_Add_error_string(e1, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_code(e1, &eo) == MPI_ERR_ARG); /* a code, not a class */
    CHECK(MPI_Add_error_code(123456, &eo) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_code(MPI_SUCCESS, &eo) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_class(NULL) == MPI_ERR_ARG);
    CHECK(MPI_Add_error_code(c1, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Error_class(*last + 1, &cls) == MPI_ERR_ARG);
}

/* A handler may replace the code it is given: the failed call returns what the handler
 * leaves (as MPICH and Open MPI do), on a communicator, a window and MPI_FILE_NULL; but
 * a handler that clears it makes no success of a call that stopped at its error. */
static int replacement;
static void replace_comm(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    *code = replacement;
}
static void replace_win(MPI_Win *win, int *code, ...) {
    (void)win;
    *code = replacement;
}
static void replace_file(MPI_File *file, int *code, ...) {
    (void)file;
    *code = replacement;
}

static void replaced_codes(void) {
    MPI_Comm dup;
    MPI_Errhandler eh;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(replace_comm, &eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(dup, eh) == MPI_SUCCESS && MPI_Errhandler_free(&eh) == 0);
    int v = 1;
    replacement = MPI_ERR_OTHER;
    CHECK(MPI_Send(&v, 1, MPI_INT, size, 0, dup) == MPI_ERR_OTHER);   /* MPI_ERR_RANK replaced */
    CHECK(MPI_Comm_rank(dup, NULL) == MPI_ERR_OTHER);                 /* MPI_ERR_ARG replaced */
    CHECK(MPI_Comm_call_errhandler(dup, MPI_ERR_TAG) == MPI_SUCCESS); /* succeeds itself */
    replacement = MPI_SUCCESS; /* cleared: the call still failed, and sent nothing */
    CHECK(MPI_Send(&v, 1, MPI_INT, size, 0, dup) == MPI_ERR_RANK);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);

    MPI_Win w;
    int mem = 0;
    CHECK(MPI_Win_create(&mem, sizeof mem, sizeof mem, MPI_INFO_NULL, MPI_COMM_WORLD, &w) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_create_errhandler(replace_win, &eh) == MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(w, eh) == MPI_SUCCESS && MPI_Errhandler_free(&eh) == 0);
    replacement = MPI_ERR_OTHER;
    CHECK(MPI_Win_unlock(0, w) == MPI_ERR_OTHER); /* not locked: MPI_ERR_RMA_SYNC replaced */
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS);

    CHECK(MPI_File_create_errhandler(replace_file, &eh) == MPI_SUCCESS);
    CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, eh) == MPI_SUCCESS &&
          MPI_Errhandler_free(&eh) == 0);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_SELF, "/nonexistent/tollway-no-such-file", MPI_MODE_RDONLY,
                        MPI_INFO_NULL, &fh) == MPI_ERR_OTHER);
    CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comm_handlers();
    save_restore();
    win_handlers();
    error_codes();
    replaced_codes();
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    return 0;
}
