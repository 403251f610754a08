/* Asynchronous progress of files' non-blocking accesses (progress.c): a job's system
 * calls run on the library's I/O thread while the program computes; its completion
 * runs where MPI progress runs, on a thread calling MPI. */
#ifndef TW_MPI_IO_PROGRESS_H
#define TW_MPI_IO_PROGRESS_H

#include <stdatomic.h>
#include <stdint.h>

#include <mpi.h>

#include "mpi/io/file.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_io_job tw_io_job_t;
typedef void tw_io_job_fn(tw_io_job_t *job);

/* One access in the background. The unit that starts it fills run, finish and file;
 * the rest is the engine's. */
struct tw_io_job {
    /* on the I/O thread: system calls on the file only, never a call into MPI */
    tw_io_job_fn *run;
    /* on a thread in MPI, in a progress pass after run returned: completes the
     * request and frees the job */
    tw_io_job_fn *finish;
    tw_io_file_t *file;
    atomic_int ran;           /* set by the I/O thread once run returned */
    tw_io_job_t *queue_next;  /* the I/O thread's queue */
    tw_io_job_t *outstanding; /* the engine's list of started jobs (MPI's side) */
};

/* Hands job to the I/O thread (started at the first job). MPI_SUCCESS, or the class
 * when the thread could not be started (the job is not taken then). */
int tw_io_job_start(tw_io_job_t *job);

/* Runs progress until every job of f (NULL: of every file) is finished. */
void tw_io_jobs_wait(tw_io_file_t *f);
/* Whether f has accesses of this process under way: a non-blocking one's job, or a
 * non-blocking collective not ended. */
int tw_io_file_busy(tw_io_file_t *f);

/* The context for a request of f's accesses: its errors, when a wait or test reports
 * them, go to f's error handler (a communicator of the engine's, per file, whose
 * handler passes them on). call and detail name the failure for that report. */
int tw_io_request_context(tw_io_file_t *f, uint32_t *context);
void tw_io_request_failed(tw_io_file_t *f, const char *call, const char *detail);

/* MPI_File_close: f's jobs are finished and the engine forgets f. */
void tw_io_async_close(tw_io_file_t *f);

#pragma GCC visibility pop

#endif
