/* Every MPI internal header at once. */
#ifndef TW_MPI_IMPL_H
#define TW_MPI_IMPL_H

#include "mpi/attr.h"
#include "mpi/bsend.h"
#include "mpi/comm.h"
#include "mpi/datatype.h"
#include "mpi/error.h"
#include "mpi/group.h"
#include "mpi/op.h"
#include "mpi/p2p.h"
#include "mpi/progress.h"
#include "mpi/sched.h"
#include "mpi/state.h"
#include "mpi/status.h"
#include "mpi/wire.h"

#endif
