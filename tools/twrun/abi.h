/* Which MPI a program was built for, and whether this Tollway can serve it: the
 * launcher reads the program's ELF (elf_info.h) before any rank starts and either
 * starts it as it is (Tollway's own libmpi, no MPI, not ELF), starts it with a face
 * (src/common/abi_faces.h) on its library path, or refuses it with a message that names
 * the program, the library it needs and what this Tollway serves. */
#ifndef TWRUN_ABI_H
#define TWRUN_ABI_H

#include <limits.h>
#include <stddef.h>

#include "common/abi_faces.h"

typedef enum twr_abi_action {
    TWR_ABI_AS_IS,  /* start it as it is */
    TWR_ABI_FACE,   /* start it with the faces directory first on LD_LIBRARY_PATH */
    TWR_ABI_REFUSE, /* do not start it: message says why */
} twr_abi_action_t;

enum { TWR_ABI_MESSAGE_MAX = 2048 };

typedef struct twr_abi_plan {
    twr_abi_action_t action;
    const tw_abi_face_t *face; /* TWR_ABI_FACE: the face that serves it */
    char soname[256];          /* TWR_ABI_FACE: the face's soname the program needs */
    char face_path[PATH_MAX];  /* TWR_ABI_FACE: the faces directory/soname */
    int preload;       /* TWR_ABI_FACE: its DT_RPATH, which outranks LD_LIBRARY_PATH, leads to
                          another library of that soname: LD_PRELOAD the face too */
    int faces_on_path; /* TWR_ABI_AS_IS: a program that needs no MPI by its ELF (a
                          python, a script) gets the faces directory on its library path
                          too, for an MPI library it may load (Debian's mpi4py) */
    char message[TWR_ABI_MESSAGE_MAX]; /* REFUSE: the error (no "twrun: "); FACE and
                                          AS_IS: what -v says ("" for nothing) */
} twr_abi_plan_t;

/* The file execvp would run for name: name itself when it has a '/' (relative to wdir
 * when given), else the first executable regular file along path (":"-separated, an
 * empty entry the working directory; NULL: execvp's default). 0, or -1 when none. */
int twr_abi_find_program(const char *name, const char *path, const char *wdir, char *out,
                         size_t cap);

/* Decides how to start the program at file (shown: its name as the user gave it), with
 * the faces in faces_dir (NULL: none found); guess: a program that needs no MPI may get
 * the faces directory on its path (not when the options restrict the ranks' environment). Reads the
 * file, and looks in faces_dir and in the directories of the program's DT_RPATH. */
void twr_abi_plan(const char *file, const char *shown, const char *faces_dir, int guess,
                  twr_abi_plan_t *plan);

/* What this Tollway serves, in words, for the messages ("Tollway serves ..."): its own
 * libmpi.so.0 and the faces built in faces_dir ("its own libmpi.so.0 and MPICH's ABI
 * (libmpi.so.12, libmpich.so.12)"). */
void twr_abi_served(const char *faces_dir, char *out, size_t cap);

#endif
