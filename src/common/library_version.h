/* The MPI library's name and version as MPI_Get_library_version answers it, and twinfo
 * reports it. Needs <mpi.h> and <tollway/tollway.h>. */
#ifndef TW_COMMON_LIBRARY_VERSION_H
#define TW_COMMON_LIBRARY_VERSION_H

#define TW_STRINGIFY_(x) #x
#define TW_STRINGIFY(x)  TW_STRINGIFY_(x)
#define TW_MPI_LIBRARY_VERSION                                                                         \
    "Tollway MPI " TW_STRINGIFY(TW_VERSION_MAJOR) "." TW_STRINGIFY(TW_VERSION_MINOR) "." TW_STRINGIFY( \
        TW_VERSION_PATCH) " (MPI " TW_STRINGIFY(MPI_VERSION) "." TW_STRINGIFY(MPI_SUBVERSION) ")"

#endif
