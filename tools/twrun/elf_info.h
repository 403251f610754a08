/* What the launcher needs to know of a program before it starts it: whether it is an
 * ELF file, the libraries it needs (DT_NEEDED), where it says to look for them
 * (DT_RPATH, DT_RUNPATH), whether it is linked statically (no program interpreter),
 * and whether it holds an MPI library inside (the symbols Open MPI, MPICH or any MPI
 * define). The file is the user's input: everything is read with bounds, a truncated
 * or hostile file is MALFORMED with a message naming what was wrong, never read past.
 * 32- and 64-bit ELF of either byte order. No library is opened, no link followed. */
#ifndef TWRUN_ELF_INFO_H
#define TWRUN_ELF_INFO_H

#include <stddef.h>
#include <stdint.h>

enum {
    TWR_ELF_NEEDED_MAX = 64, /* DT_NEEDED entries kept; more are counted */
    TWR_ELF_NAME_MAX = 256,  /* a DT_NEEDED name, with its '\0' */
    TWR_ELF_PATH_MAX = 4096, /* DT_RPATH, DT_RUNPATH, with the '\0' */
    TWR_ELF_SYMBOL_MAX = 64, /* a marker symbol's name kept, with the '\0' */
    TWR_ELF_ERR_MAX = 256,   /* a message */
    TWR_ELF_LOADS_MAX = 64,  /* PT_LOAD segments kept to place DT_STRTAB */
};

typedef enum twr_elf_verdict {
    TWR_ELF_OK,         /* read; info filled */
    TWR_ELF_NOT_ELF,    /* no ELF magic: a script, or no program the kernel runs as ELF */
    TWR_ELF_MALFORMED,  /* ELF magic, but the headers or dynamic section are not sound */
    TWR_ELF_UNREADABLE, /* the file could not be opened or read (errno in the message) */
} twr_elf_verdict_t;

/* The MPI an executable holds inside, from the symbols it defines; and the mpi_f08
 * bindings it calls, from those it needs. */
typedef enum twr_elf_mpi_mark {
    TWR_ELF_MARK_OPENMPI, /* ompi_mpi_comm_world */
    TWR_ELF_MARK_MPICH,   /* MPIR_Init_thread or another MPIR_ function */
    TWR_ELF_MARK_PMPI,    /* PMPI_ functions: some MPI library */
    TWR_ELF_MARK_F08,     /* needed, not defined: mpi_init_f08_ or another mpi_*_f08* */
    TWR_ELF_MARK_COUNT
} twr_elf_mpi_mark_t;

typedef struct twr_elf_info {
    int is_static; /* no PT_INTERP: the kernel runs it without the dynamic loader */
    int has_dynamic;
    int nneeded; /* kept in needed[], at most TWR_ELF_NEEDED_MAX */
    int needed_dropped;
    char needed[TWR_ELF_NEEDED_MAX][TWR_ELF_NAME_MAX];
    int has_rpath, has_runpath;
    char rpath[TWR_ELF_PATH_MAX], runpath[TWR_ELF_PATH_MAX];
    int symbols_read; /* a symbol table was read (symbols asked for, and one was there) */
    char mark[TWR_ELF_MARK_COUNT][TWR_ELF_SYMBOL_MAX]; /* the first symbol of each kind
                                                          found, "" when none */
} twr_elf_info_t;

enum { TWR_ELF_SYMBOLS = 1 }; /* flags: also read the symbol tables for the MPI marks */

/* Reads len bytes at off into buf: 0, or -1 when they are not all there. */
typedef int (*twr_elf_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

/* Reads the ELF file of size bytes that read gives. The message (err, for MALFORMED
 * and UNREADABLE) names what was wrong, without the file's name. */
twr_elf_verdict_t twr_elf_read(twr_elf_read_fn read, void *ctx, uint64_t size, int flags,
                               twr_elf_info_t *info, char err[TWR_ELF_ERR_MAX]);
/* The same of size bytes in memory, and of the file at path (read with pread, so a file
 * that shrinks while it is read is MALFORMED, not a fault). */
twr_elf_verdict_t twr_elf_read_memory(const void *data, size_t size, int flags,
                                      twr_elf_info_t *info, char err[TWR_ELF_ERR_MAX]);
twr_elf_verdict_t twr_elf_read_file(const char *path, int flags, twr_elf_info_t *info,
                                    char err[TWR_ELF_ERR_MAX]);

#endif
