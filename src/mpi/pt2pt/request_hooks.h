/* Work done around a non-blocking or persistent collective's runs for a buffer the
 * call itself cannot describe: the mpi_f08 binding's non-contiguous array sections
 * that it copies to and from a contiguous buffer (libmpifort, f08.c). The one entry
 * point libmpi exports beside MPI_ and PMPI_ (bindings/mpi.map). */
#ifndef TW_MPI_REQUEST_HOOKS_H
#define TW_MPI_REQUEST_HOOKS_H

#include <mpi.h>

typedef struct tw_request_hooks {
    void (*before)(void *arg);  /* before each start of a persistent request */
    void (*after)(void *arg);   /* when a run is complete, before any wait or test sees it */
    void (*release)(void *arg); /* when the request is gone: after its one run, or freed */
    void *arg;
} tw_request_hooks_t;

/* Hooks for request req of a collective just made: when it is done already, after and
 * release run now. MPI_SUCCESS, or MPI_ERR_REQUEST for another kind of request (or
 * one with hooks), MPI_ERR_NO_MEM. */
int tw_mpifort_request_hooks(MPI_Request req, const tw_request_hooks_t *hooks);

#endif
