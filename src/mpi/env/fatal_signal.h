/* What a rank killed by a fault prints before it dies: rank, pid, host, the signal and
 * a backtrace (fatal_signal.c). */
#ifndef TW_MPI_FATAL_SIGNAL_H
#define TW_MPI_FATAL_SIGNAL_H

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Called by MPI_Init once the rank is known: unless TW_BACKTRACE=0, handles SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL and SIGABRT where the program has not set a handler of its
 * own, on an alternate stack of the calling thread. */
void tw_mpi_fatal_signals_init(void);

#pragma GCC visibility pop

#endif
