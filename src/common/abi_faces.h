/* The faces of Tollway's MPI library: shared libraries that export the MPI functions
 * under another MPI's ABI and call Tollway's implementation underneath. Each is
 * installed under the soname programs built for that ABI ask for, in one directory of
 * its own (build/lib/abi/, installed <libdir>/tollway/abi/), so that putting that
 * directory on a program's library path serves whichever ABI it was built for and
 * nothing else on the machine sees these sonames.
 *
 * One table, read by the launcher (which sees what a program needs: twrun's abi.c) and
 * by twinfo (which lists the faces): the sonames a program may need, the face that
 * serves each, and what each of the other MPI libraries of those families is. Header
 * only: the tools that read it link different layers. */
#ifndef TW_COMMON_ABI_FACES_H
#define TW_COMMON_ABI_FACES_H

#include <fnmatch.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build_info.h"

/* Below the library directory (<libdir>/tollway/abi) when installed; lib/abi in the
 * build tree. */
#define TW_ABI_FACES_INSTALL_SUBDIR "tollway/abi"
#define TW_ABI_FACES_BUILD_SUBDIR   "abi"

typedef enum tw_abi_face_id {
    TW_ABI_FACE_STANDARD, /* the MPI-5.0 standard ABI: mpi_abi.h, libmpi_abi.so.1 */
    TW_ABI_FACE_MPICH,    /* MPICH's ABI: libmpi.so.12 (libmpich.so.12 on Debian) */
    TW_ABI_FACE_OPENMPI,  /* Open MPI's ABI: libmpi.so.40 */
    TW_ABI_FACE_COUNT
} tw_abi_face_id_t;

typedef struct tw_abi_face {
    const char *key;    /* twinfo's key: "standard", "mpich", "openmpi" */
    const char *name;   /* "MPICH's ABI", as messages say it */
    const char *family; /* who ships binaries built for it */
} tw_abi_face_t;

static const tw_abi_face_t tw_abi_faces[TW_ABI_FACE_COUNT] __attribute__((unused)) = {
    [TW_ABI_FACE_STANDARD] = {"standard", "the MPI-5.0 standard ABI",
                              "MPICH 5's mpicc_abi, Intel MPI 2021.x, Open MPI 6"},
    [TW_ABI_FACE_MPICH] = {"mpich", "MPICH's ABI", "MPICH, Intel MPI, Cray MPICH, MVAPICH"},
    [TW_ABI_FACE_OPENMPI] = {"openmpi", "Open MPI's ABI", "Open MPI 4 and 5"},
};

typedef enum tw_abi_role {
    TW_ABI_NATIVE,    /* Tollway's own library: the program runs as it is */
    TW_ABI_SERVED,    /* a face is installed under this soname */
    TW_ABI_COMPANION, /* another library of the face's family that a program may need
                         beside (C++ or Fortran bindings, the runtime underneath): no face
                         serves it unless the faces directory holds it */
    TW_ABI_OVER_FACE, /* the other MPI's own library, taken from where the program finds
                         it (never the faces directory): it calls the MPI below it under
                         names the face's libraries export too */
} tw_abi_role_t;

typedef struct tw_abi_soname {
    const char *soname;
    int face; /* a tw_abi_face_id_t; -1 for Tollway's own */
    tw_abi_role_t role;
    const char *what; /* what the library is, in words */
    /* served, but the other MPI's library of this name holds the mpi_f08 module's
       bindings, which the face's does not: a program that calls them (its symbols say
       so) is refused rather than left to the loader's "undefined symbol" */
    int f08_unserved;
} tw_abi_soname_t;

static const tw_abi_soname_t tw_abi_sonames[] __attribute__((unused)) = {
    {"libmpi.so.0", -1, TW_ABI_NATIVE, "Tollway's MPI library", 0},
    {"libmpifort.so.0", -1, TW_ABI_NATIVE, "Tollway's Fortran bindings", 0},
    /* a second Fortran compiler's (TW_FORTRAN_SECOND_COMPILER): libmpifort_LLVMFlang-19 */
    {"libmpifort_*.so.0", -1, TW_ABI_NATIVE, "Tollway's Fortran bindings for a second compiler", 0},
    {"libtollway.so.0", -1, TW_ABI_NATIVE, "Tollway's device library", 0},

    {"libmpi_abi.so.1", TW_ABI_FACE_STANDARD, TW_ABI_SERVED, "the standard ABI's C library", 0},

    {"libmpi.so.12", TW_ABI_FACE_MPICH, TW_ABI_SERVED, "MPICH's C library", 0},
    {"libmpich.so.12", TW_ABI_FACE_MPICH, TW_ABI_SERVED, "MPICH's C library, as Debian names it",
     0},
    {"libmpicxx.so.12", TW_ABI_FACE_MPICH, TW_ABI_COMPANION, "MPICH's C++ bindings", 0},
    {"libmpichcxx.so.12", TW_ABI_FACE_MPICH, TW_ABI_COMPANION,
     "MPICH's C++ bindings, as Debian names them", 0},
    {"libmpifort.so.12", TW_ABI_FACE_MPICH, TW_ABI_SERVED, "MPICH's Fortran bindings", 1},
    {"libmpichfort.so.12", TW_ABI_FACE_MPICH, TW_ABI_SERVED,
     "MPICH's Fortran bindings, as Debian names them", 1},

    {"libmpi.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_SERVED, "Open MPI's C library", 0},
    {"libmpi_cxx.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_COMPANION, "Open MPI 4's C++ bindings", 0},
    {"libmpi_mpifh.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_SERVED,
     "Open MPI's Fortran bindings (mpif.h)", 0},
    {"libmpi_usempi.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_COMPANION,
     "Open MPI's Fortran bindings (use mpi)", 0},
    /* MPI_SIZEOF's procedures of the mpi module: Open MPI's own, which need no MPI */
    {"libmpi_usempi_ignore_tkr.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_OVER_FACE,
     "Open MPI's Fortran bindings (use mpi: MPI_SIZEOF)", 0},
    /* the mpi_f08 module's procedures (and MPI_SIZEOF's, which Open MPI's mpifort links
       from here first): Open MPI's own, over the face's libmpi_mpifh.so.40, whose entry
       points it calls as ompi_send_f and the rest */
    {"libmpi_usempif08.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_OVER_FACE,
     "Open MPI's Fortran bindings (use mpi_f08)", 0},
    {"libmpi_java.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_COMPANION, "Open MPI's Java bindings", 0},
    {"libopen-pal.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_COMPANION, "Open MPI 4's runtime", 0},
    {"libopen-rte.so.40", TW_ABI_FACE_OPENMPI, TW_ABI_COMPANION, "Open MPI 4's runtime", 0},
    {"libopen-pal.so.80", TW_ABI_FACE_OPENMPI, TW_ABI_COMPANION, "Open MPI 5's runtime", 0},
};
enum { TW_ABI_SONAME_COUNT = sizeof tw_abi_sonames / sizeof tw_abi_sonames[0] };

/* The table's entry for soname, or NULL (an entry may be a shell pattern). */
static inline const tw_abi_soname_t *tw_abi_soname_find(const char *soname) {
    for (size_t i = 0; i < TW_ABI_SONAME_COUNT; i++)
        if (!fnmatch(tw_abi_sonames[i].soname, soname, 0)) return &tw_abi_sonames[i];
    return NULL;
}

/* Whether soname names an MPI library, known to the table or not: libmpi.so.N,
 * libmpich*, libmpi_*, libmpifort*, libmpicxx*, libmpi++*, Open MPI's libopen-pal and
 * libopen-rte; not libraries that merely start so (mpiP's libmpiP). */
static inline int tw_abi_soname_is_mpi(const char *soname) {
    static const char *const after_libmpi[] = {".so", "_", "ch", "fort", "cxx", "++"};
    if (!strncmp(soname, "libopen-pal.", 12) || !strncmp(soname, "libopen-rte.", 12)) return 1;
    if (strncmp(soname, "libmpi", 6)) return 0;
    for (size_t i = 0; i < sizeof after_libmpi / sizeof after_libmpi[0]; i++)
        if (!strncmp(soname + 6, after_libmpi[i], strlen(after_libmpi[i]))) return 1;
    return 0;
}

/* The faces directory of the Tollway the calling program belongs to, found from where
 * it runs (/proc/self/exe), as twrun and twinfo find it: lib/abi beside bin in the build
 * tree (bin/../CMakeCache.txt), <libdir>/tollway/abi in an install, moved or not. 0, or
 * -1 when it cannot tell. */
static inline int tw_abi_faces_dir(char *out, size_t cap) {
    char exe[PATH_MAX], probe[PATH_MAX + 64];
    if (!realpath("/proc/self/exe", exe)) return -1;
    *strrchr(exe, '/') = '\0'; /* a real path: it has one */
    /* the build tree: bin/ beside CMakeCache.txt, the libraries in lib/ */
    snprintf(probe, sizeof probe, "%s/../CMakeCache.txt", exe);
    int n;
    struct stat st;
    if (stat(probe, &st) == 0 && S_ISREG(st.st_mode)) {
        char *up = strrchr(exe, '/');
        if (up && up != exe) *up = '\0';
        n = snprintf(out, cap, "%s/lib/" TW_ABI_FACES_BUILD_SUBDIR, exe);
    } else if (TW_BIN_TO_LIB[0] == '/') {
        n = snprintf(out, cap, "%s/" TW_ABI_FACES_INSTALL_SUBDIR, TW_BIN_TO_LIB);
    } else {
        n = snprintf(out, cap, "%s/%s/" TW_ABI_FACES_INSTALL_SUBDIR, exe, TW_BIN_TO_LIB);
        char real[PATH_MAX];
        if (n >= 0 && (size_t)n < cap && realpath(out, real)) n = snprintf(out, cap, "%s", real);
    }
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

#endif
