/* The context of a program's callback, for the faces (callback.h). */
#include "mpi/env/callback.h"

_Thread_local tw_mpi_callback_fn *tw_mpi_callback_context;
