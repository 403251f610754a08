/* The process's communication state, reference-counted: the world model
 * (MPI_Init ... MPI_Finalize) and each open session are one user each. The first
 * user opens the device endpoint and makes MPI_COMM_WORLD's and MPI_COMM_SELF's
 * table entries; the last closes it. A later user opens a new endpoint (the device's
 * next), so sessions may follow one another, and follow or precede the world model.
 *
 * The process manager allows one init and one finalize a process (PMI-1, PMIx), so
 * the library keeps the job (its connection) from the first start to the process's
 * exit (tw_ep_keep_job), and only the endpoint comes and goes. Opening and closing
 * the endpoint are collective over the job, as MPI_Init and MPI_Finalize are: every
 * process starts and stops the state at the same points of its program. */
#include <stdio.h>
#include <stdlib.h>

#include "mpi/pt2pt/bsend.h"
#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/env/fatal_signal.h"
#include "mpi/pt2pt/channel.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/coll/schedule.h"
#include "mpi/session/runtime.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/io/datarep.h"
#include "mpi/io/spare.h"
#include "mpi/pt2pt/partitioned.h"
#include "mpi/rma/win.h"

static void release_job(void) {
    tw_ep_release_job();
}

/* What the library sets up once a process: its tables and progress hooks outlive
 * the endpoint. */
static void set_up_once(void) {
    tw_mpi_fatal_signals_init();
    tw_mpi.crowded = tw_ep_crowded(tw_mpi.ep);
    tw_mpi_p2p_init();
    tw_mpi_failure_init();
    tw_mpi_bsend_init();
    tw_mpi_sched_init();
    tw_mpi_win_init();
    tw_mpi_part_init();
    if (!tw_ep_keep_job(tw_mpi.ep)) atexit(release_job);
}

int tw_mpi_users_add(const char *call, int level) {
    if (tw_mpi.users > 0) {
        tw_mpi.users++;
        /* a later user may ask for more: MULTIPLE switches the lock on, never off */
        if (level == MPI_THREAD_MULTIPLE && !tw_mpi_threads_on) tw_mpi_thread_init(level);
        return MPI_SUCCESS;
    }
    int rc = tw_ep_open(&tw_mpi.ep);
    if (rc) {
        fprintf(stderr, "tollway MPI: %s failed: cannot open the endpoint: %s\n", call,
                tw_strerror(rc));
        tw_mpi.ep = NULL;
        return MPI_ERR_OTHER;
    }
    tw_mpi.rank = tw_ep_rank(tw_mpi.ep);
    tw_mpi.size = tw_ep_size(tw_mpi.ep);
    if (!tw_mpi.started) set_up_once();
    tw_mpi.started = 1;
    if ((rc = tw_channels_open(tw_mpi.ep))) {
        fprintf(stderr, "tollway MPI: %s failed: cannot open the endpoints of TW_CHANNELS: %s\n",
                call, tw_strerror(rc));
        tw_ep_close(tw_mpi.ep);
        tw_mpi.ep = NULL;
        return MPI_ERR_OTHER;
    }
    if (tw_mpi_comm_init()) tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, NULL);
    int keep = tw_mpi_threads_on ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
    tw_mpi_thread_init(level > keep ? level : keep);
    tw_mpi.users = 1;
    return MPI_SUCCESS;
}

void tw_mpi_users_drop(void) {
    if (--tw_mpi.users > 0) return;
    /* Nobody closes while a peer may still talk to it; over the udp link the last
     * messages may still wait for a retransmission, which the link goes on sending
     * while we wait for the process manager. */
    if (tw_mpi.size > 1) tw_ep_barrier(tw_mpi.ep);
    tw_ep_close(tw_mpi.ep);
    tw_mpi.ep = NULL;
    tw_channels_close();
    tw_mpi_comm_fini();
    tw_sched_fini();
    tw_io_datarep_fini(); /* registered data representations last until then */
    tw_io_spare_fini();
}
