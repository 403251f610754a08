/* Asynchronous progress of files' non-blocking accesses (progress.h).
 *
 * One I/O thread per process, started by the first job, runs each job's system calls
 * in the order the jobs were started (a mutex and a condition variable hand them
 * over: that is the start's cost, not a poll's). When a job's calls are done the
 * thread sets its atomic flag and rings the endpoint's doorbell, so a wait that
 * sleeps wakes. The thread never calls into MPI: the requests, the datatypes and the
 * error handlers stay on the threads that call MPI, whatever thread level the program
 * asked for. There, a progress hook (TW_HOOK_IO, on while jobs are outstanding) looks
 * at the flags of the started jobs — loads of memory, no lock, no system call — and
 * finishes each one that ran: its request completes then.
 *
 * A thread rather than io_uring: measured in docs/io.md (bench/io/async_engines.c):
 * io_uring does a buffered access of the page cache inline at its submission, so it
 * overlaps nothing unless forced to its kernel workers, which then cost what the
 * thread costs; and the thread runs the views' scattered runs and atomic mode's
 * byte-range locks as the blocking calls do, with no new dependency.
 *
 * A file's requests report their errors to the file's handler: each file gets a
 * communicator of its own (a duplicate of MPI_COMM_SELF, made at its first
 * non-blocking access) whose error handler passes an error on to the file's. */
#include "mpi/io/progress.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/comm.h"
#include "mpi/env/hooks.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/engine_progress.h"

/* ---- the I/O thread ---- */

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_wake = PTHREAD_COND_INITIALIZER;
static tw_io_job_t *queue_head, *queue_tail; /* under queue_lock */
static int queue_stop;                       /* under queue_lock */
static pthread_t io_thread;
static int io_thread_running;

static void *io_thread_main(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        while (!queue_head && !queue_stop) pthread_cond_wait(&queue_wake, &queue_lock);
        tw_io_job_t *job = queue_head;
        if (job) {
            queue_head = job->queue_next;
            if (!queue_head) queue_tail = NULL;
        }
        pthread_mutex_unlock(&queue_lock);
        if (!job) return NULL; /* stopped, and nothing left */
        job->run(job);
        atomic_store_explicit(&job->ran, 1, memory_order_release);
        tw_ep_wake_self(tw_mpi.ep);
    }
}

static int thread_start(void) {
    /* the program's signals stay with the program's threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&io_thread, NULL, io_thread_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) return err;
    io_thread_running = 1;
    return 0;
}

static void thread_stop(void) {
    if (!io_thread_running) return;
    pthread_mutex_lock(&queue_lock);
    queue_stop = 1;
    pthread_cond_signal(&queue_wake);
    pthread_mutex_unlock(&queue_lock);
    pthread_join(io_thread, NULL);
    io_thread_running = 0;
    queue_stop = 0;
}

/* ---- MPI's side: the started jobs, finished by a progress hook ---- */

static tw_io_job_t *outstanding; /* newest first */

/* Finishes every job that ran; 1 when one did. */
static int finish_ran(void) {
    int moved = 0;
    for (tw_io_job_t **p = &outstanding; *p;) {
        tw_io_job_t *job = *p;
        if (!atomic_load_explicit(&job->ran, memory_order_acquire)) {
            p = &job->outstanding;
            continue;
        }
        *p = job->outstanding;
        job->finish(job); /* frees it */
        moved = 1;
    }
    if (!outstanding) tw_mpi_hook_off(TW_HOOK_IO);
    return moved;
}

static void io_progress(void) {
    finish_ran();
}

static int io_ready(void) {
    return finish_ran();
}

/* MPI_COMM_SELF is there: the world model runs (not sessions alone). */
static int world_model(void) {
    return tw_mpi.initialized && !tw_mpi.finalized;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: this one's callback waits for
 * every job, then stops the thread. */
static int finalize_keyval = MPI_KEYVAL_INVALID;

static int at_finalize(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm, (void)keyval, (void)value, (void)extra;
    tw_io_jobs_wait(NULL);
    thread_stop();
    return MPI_SUCCESS;
}

int tw_io_job_start(tw_io_job_t *job) {
    if (!io_thread_running) {
        int err = thread_start();
        if (err) return MPI_ERR_OTHER;
        tw_mpi_progress_hook(TW_HOOK_IO, io_progress);
        tw_mpi_progress_hook_ready(TW_HOOK_IO, io_ready);
        if (world_model() && finalize_keyval == MPI_KEYVAL_INVALID &&
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &finalize_keyval, NULL) ==
                MPI_SUCCESS)
            MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
    }
    atomic_store_explicit(&job->ran, 0, memory_order_relaxed);
    job->queue_next = NULL;
    job->outstanding = outstanding;
    outstanding = job;
    tw_mpi_hook_on(TW_HOOK_IO);
    pthread_mutex_lock(&queue_lock);
    if (queue_tail)
        queue_tail->queue_next = job;
    else
        queue_head = job;
    queue_tail = job;
    pthread_cond_signal(&queue_wake);
    pthread_mutex_unlock(&queue_lock);
    return MPI_SUCCESS;
}

static int has_jobs(tw_io_file_t *f) {
    for (tw_io_job_t *job = outstanding; job; job = job->outstanding)
        if (!f || job->file == f) return 1;
    return 0;
}

int tw_io_file_busy(tw_io_file_t *f) {
    return f->collectives_running || has_jobs(f);
}

void tw_io_jobs_wait(tw_io_file_t *f) {
    unsigned spins = 0;
    while (has_jobs(f)) {
        tw_mpi_progress();
        if (has_jobs(f)) tw_mpi_relax(&spins);
    }
}

/* ---- the files' communicators for their requests' errors ---- */

typedef struct io_file {
    MPI_File fh;
    MPI_Comm comm;
    const char *call; /* the last failure's, for the report at the wait */
    char detail[160];
} io_file_t;

static io_file_t *io_files;
static int n_io_files;
static MPI_Errhandler pass_on = MPI_ERRHANDLER_NULL;

static io_file_t *io_file_of(MPI_File fh) {
    for (int i = 0; i < n_io_files; i++)
        if (io_files[i].fh == fh) return &io_files[i];
    return NULL;
}

/* The error handler of a file's communicator: the error goes to the file's handler. */
static void pass_to_file(MPI_Comm *comm, int *errclass, ...) {
    for (int i = 0; i < n_io_files; i++) {
        if (io_files[i].comm != *comm) continue;
        tw_io_file_t *f = tw_io_file(io_files[i].fh);
        if (f)
            tw_io_error(f, io_files[i].call ? io_files[i].call : "a non-blocking file access",
                        *errclass, io_files[i].detail[0] ? io_files[i].detail : NULL);
        return;
    }
}

int tw_io_request_context(tw_io_file_t *f, uint32_t *context) {
    io_file_t *e = io_file_of(f->handle);
    if (!e && !world_model()) { /* sessions alone: no MPI_COMM_SELF to duplicate */
        *context = 0;           /* errors at a wait go where those of no object go */
        return MPI_SUCCESS;
    }
    if (!e) {
        if (pass_on == MPI_ERRHANDLER_NULL &&
            MPI_Comm_create_errhandler(pass_to_file, &pass_on) != MPI_SUCCESS)
            return MPI_ERR_OTHER;
        io_file_t *more = realloc(io_files, (size_t)(n_io_files + 1) * sizeof *more);
        if (!more) return MPI_ERR_NO_MEM;
        io_files = more;
        e = &io_files[n_io_files];
        *e = (io_file_t){.fh = f->handle, .comm = MPI_COMM_NULL};
        if (MPI_Comm_dup(MPI_COMM_SELF, &e->comm) != MPI_SUCCESS) return MPI_ERR_OTHER;
        MPI_Comm_set_errhandler(e->comm, pass_on);
        n_io_files++;
    }
    *context = tw_mpi_comm_get(e->comm)->context;
    return MPI_SUCCESS;
}

void tw_io_request_failed(tw_io_file_t *f, const char *call, const char *detail) {
    io_file_t *e = io_file_of(f->handle);
    if (!e) return;
    e->call = call;
    snprintf(e->detail, sizeof e->detail, "%s", detail ? detail : "");
}

void tw_io_async_close(tw_io_file_t *f) {
    unsigned spins = 0;
    while (f->collectives_running) { /* their last jobs are f's */
        tw_mpi_progress();
        if (f->collectives_running) tw_mpi_relax(&spins);
    }
    tw_io_jobs_wait(f);
    io_file_t *e = io_file_of(f->handle);
    if (!e) return;
    /* a request of f still unwaited (the program's error) reports to no file now */
    MPI_Comm_free(&e->comm);
    *e = io_files[--n_io_files];
}
