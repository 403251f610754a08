/* The process's communication state (session/runtime.c): its endpoint, the
 * process-manager connection and progress, shared by the world model and every
 * session, counted by its users. */
#ifndef TW_MPI_SESSION_RUNTIME_H
#define TW_MPI_SESSION_RUNTIME_H

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* One more user (MPI_Init_thread, MPI_Session_init) that asks for thread level
 * `level`. The first opens the endpoint, which is collective over the job, like
 * MPI_Init. MPI_SUCCESS, or MPI_ERR_OTHER with a message naming call on stderr. */
int tw_mpi_users_add(const char *call, int level);
/* One user less. The last closes the endpoint after a job-wide barrier (so no peer
 * can still be sending to it); a later tw_mpi_users_add opens a new one. */
void tw_mpi_users_drop(void);

#pragma GCC visibility pop

#endif
