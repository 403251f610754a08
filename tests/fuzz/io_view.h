/* What the two data-representation fuzz targets share (fuzz_external32_read.c,
 * fuzz_datarep_read.c): a file whose bytes are the input's, read through a view into
 * a buffer between guard zones, by a memory type that is a struct of up to four
 * predefined types the input chooses (so each item's members are known), with MPI
 * started once as a singleton. */
#ifndef TW_FUZZ_IO_VIEW_H
#define TW_FUZZ_IO_VIEW_H

#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

enum { IO_GUARD = 256, IO_MEMBERS_MAX = 4 };

static const MPI_Datatype io_basics[] = {MPI_CHAR,   MPI_SHORT,       MPI_INT,    MPI_LONG,
                                         MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_WCHAR,  MPI_DOUBLE_INT,
                                         MPI_FLOAT,  MPI_C_BOOL,      MPI_INT64_T};
enum { IO_BASICS = sizeof io_basics / sizeof io_basics[0] };

/* The memory type: members of the chosen types at native, aligned displacements. */
typedef struct io_memtype {
    int n;
    MPI_Datatype member[IO_MEMBERS_MAX];
    MPI_Aint disp[IO_MEMBERS_MAX], size[IO_MEMBERS_MAX], extent;
    MPI_Datatype type;
} io_memtype_t;

static void io_memtype_make(io_memtype_t *t, const uint8_t *choice) {
    t->n = 1 + choice[0] % IO_MEMBERS_MAX;
    MPI_Aint at = 0;
    int lens[IO_MEMBERS_MAX];
    for (int k = 0; k < t->n; k++) {
        t->member[k] = io_basics[choice[1 + k] % IO_BASICS];
        MPI_Aint lb, ext;
        MPI_Type_get_extent(t->member[k], &lb, &ext);
        MPI_Aint align = ext >= 8 ? 8 : ext;
        at = (at + align - 1) / align * align;
        t->disp[k] = at;
        t->size[k] = ext;
        lens[k] = 1;
        at += ext;
    }
    t->extent = (at + 15) / 16 * 16;
    MPI_Datatype loose;
    FUZZ_CHECK(MPI_Type_create_struct(t->n, lens, t->disp, t->member, &loose) == MPI_SUCCESS);
    FUZZ_CHECK(MPI_Type_create_resized(loose, 0, t->extent, &t->type) == MPI_SUCCESS);
    FUZZ_CHECK(MPI_Type_commit(&t->type) == MPI_SUCCESS);
    MPI_Type_free(&loose);
}

/* MPI once, and one file (at path) that each input's bytes replace. */
/* The view's filetype chosen by a byte: bytes (even), or a vector of 1-4 blocks of 1-4
 * bytes with gaps (odd). Committed; the caller frees a derived one. */
static MPI_Datatype io_filetype_make(int v) {
    MPI_Datatype filetype = MPI_BYTE;
    if (v % 2) {
        int blocks = 1 + (v >> 1) % 4, len = 1 + (v >> 3) % 4, stride = len + (v >> 5);
        FUZZ_CHECK(MPI_Type_vector(blocks, len, stride, MPI_BYTE, &filetype) == MPI_SUCCESS);
        FUZZ_CHECK(MPI_Type_commit(&filetype) == MPI_SUCCESS);
    }
    return filetype;
}

static MPI_File io_file;
static int io_fd = -1;
static char io_path[64];

static void io_start(void) {
    if (io_fd >= 0) return;
    MPI_Init(NULL, NULL);
    snprintf(io_path, sizeof io_path, "/tmp/tw_fuzz_io_%d", (int)getpid());
    FUZZ_CHECK(MPI_File_open(MPI_COMM_SELF, io_path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                             &io_file) == MPI_SUCCESS);
    io_fd = open(io_path, O_RDWR);
    FUZZ_CHECK(io_fd >= 0);
    unlink(io_path); /* gone when the target ends */
}

static void io_set_file(const uint8_t *bytes, size_t len) {
    FUZZ_CHECK(ftruncate(io_fd, 0) == 0);
    FUZZ_CHECK(!len || pwrite(io_fd, bytes, len, 0) == (ssize_t)len);
}

/* A buffer of n bytes between guard zones; io_guards_intact says whether they are. */
static unsigned char *io_guarded(size_t n) {
    unsigned char *zone = malloc(n + 2 * IO_GUARD);
    FUZZ_CHECK(zone != NULL);
    memset(zone, 0xa5, n + 2 * IO_GUARD);
    return zone + IO_GUARD;
}

static void io_guards_check(unsigned char *buf, size_t n) {
    for (size_t k = 0; k < IO_GUARD; k++)
        FUZZ_CHECK(buf[-(ptrdiff_t)IO_GUARD + (ptrdiff_t)k] == 0xa5 && buf[n + k] == 0xa5);
    free(buf - IO_GUARD);
}

#endif
