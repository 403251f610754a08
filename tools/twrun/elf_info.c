/* The launcher's reading of a program's ELF headers (elf_info.h). Every offset, size
 * and count the file gives is checked against the file before it is used; the tables
 * that may be large (dynamic section, symbols) are read in chunks, string tables up to
 * STRTAB_CAP bytes. */
#include "elf_info.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    EI_NIDENT = 16,
    ELFCLASS32 = 1,
    ELFCLASS64 = 2,
    ELFDATA2LSB = 1,
    ELFDATA2MSB = 2,
    ET_EXEC = 2,
    ET_DYN = 3,
    PT_LOAD = 1,
    PT_DYNAMIC = 2,
    PT_INTERP = 3,
    DT_NULL = 0,
    DT_NEEDED = 1,
    DT_STRTAB = 5,
    DT_STRSZ = 10,
    DT_RPATH = 15,
    DT_RUNPATH = 29,
    SHT_SYMTAB = 2,
    SHT_DYNSYM = 11,
    SHN_UNDEF = 0,
    DYN_CHUNK = 256,               /* dynamic entries read at a time */
    SYM_CHUNK = 512,               /* symbols read at a time */
    DYN_MAX = 1 << 16,             /* dynamic entries looked at, at most */
    SECTIONS_MAX = 1 << 16,        /* section headers looked at, at most */
    STRTAB_CAP = 64 * 1024 * 1024, /* a symbol string table read whole, at most */
};

typedef struct elf {
    twr_elf_read_fn read;
    void *ctx;
    uint64_t size;
    int is64, msb;
    char *err;
} elf_t;

__attribute__((format(printf, 2, 3))) static twr_elf_verdict_t malformed(elf_t *e, const char *fmt,
                                                                         ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, TWR_ELF_ERR_MAX, fmt, ap);
    va_end(ap);
    return TWR_ELF_MALFORMED;
}

/* Whether [off, off + len) lies inside the file. */
static int inside(const elf_t *e, uint64_t off, uint64_t len) {
    return off <= e->size && len <= e->size - off;
}

static int get(elf_t *e, uint64_t off, void *buf, size_t len) {
    return inside(e, off, len) ? e->read(e->ctx, off, buf, len) : -1;
}

/* A field of n bytes (2, 4 or 8) in the file's byte order. */
static uint64_t field(const elf_t *e, const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[e->msb ? n - 1 - i : i] << (8 * i);
    return v;
}
#define U16(p) field(e, (p), 2)
#define U32(p) field(e, (p), 4)
#define WORD(p)                                                                                    \
    field(e, (p), e->is64 ? 8 : 4) /* Elf_Addr, Elf_Off, Elf_Xword as the class has them */

typedef struct load {
    uint64_t vaddr, offset, filesz;
} load_t;

/* The file offset of the virtual address addr and the bytes after it that the file
 * holds in its segment (avail); -1 when no PT_LOAD segment holds it. */
static int place(const load_t *loads, int nloads, uint64_t addr, uint64_t *off, uint64_t *avail) {
    for (int i = 0; i < nloads; i++)
        if (addr >= loads[i].vaddr && addr - loads[i].vaddr < loads[i].filesz) {
            *off = loads[i].offset + (addr - loads[i].vaddr);
            *avail = loads[i].filesz - (addr - loads[i].vaddr);
            return 0;
        }
    return -1;
}

/* The '\0'-terminated string at index idx of the string table [tab, tab + tabsz) into
 * out (cap bytes with its '\0'). */
static twr_elf_verdict_t read_string(elf_t *e, uint64_t tab, uint64_t tabsz, uint64_t idx,
                                     char *out, size_t cap, const char *what) {
    if (idx >= tabsz) return malformed(e, "%s lies outside the string table", what);
    uint64_t left = tabsz - idx;
    size_t n = left < cap ? (size_t)left : cap;
    if (!inside(e, tab + idx, 1)) return malformed(e, "%s lies outside the file", what);
    if (!inside(e, tab + idx, n)) n = (size_t)(e->size - (tab + idx));
    if (get(e, tab + idx, out, n)) return malformed(e, "%s cannot be read", what);
    if (!memchr(out, '\0', n)) {
        out[0] = '\0';
        return n == cap ? malformed(e, "%s is longer than %zu bytes", what, cap - 1)
                        : malformed(e, "%s is not terminated", what);
    }
    return TWR_ELF_OK;
}

/* The marks of one symbol's name: the first of each kind, or the kind's own function
 * when it comes later (MPIR_Init_thread rather than a helper of MPICH's). A name with a
 * '.' is a piece the compiler split off (".cold"): not named. The marks of an MPI
 * inside are defined symbols, the mpi_f08 mark a needed one. */
static void mark_symbol(twr_elf_info_t *info, const char *name, int defined) {
    static const char *const best[TWR_ELF_MARK_COUNT] = {
        [TWR_ELF_MARK_OPENMPI] = "ompi_mpi_comm_world",
        [TWR_ELF_MARK_MPICH] = "MPIR_Init_thread",
        [TWR_ELF_MARK_PMPI] = "PMPI_Init",
        [TWR_ELF_MARK_F08] = "mpi_init_f08_",
    };
    int kind = -1;
    if (!defined)
        kind = !strncmp(name, "mpi_", 4) && strstr(name, "_f08") ? TWR_ELF_MARK_F08 : -1;
    else if (!strcmp(name, "ompi_mpi_comm_world"))
        kind = TWR_ELF_MARK_OPENMPI;
    else if (!strncmp(name, "MPIR_", 5))
        kind = TWR_ELF_MARK_MPICH;
    else if (!strncmp(name, "PMPI_", 5))
        kind = TWR_ELF_MARK_PMPI;
    if (kind < 0 || strchr(name, '.') || strlen(name) >= TWR_ELF_SYMBOL_MAX) return;
    if (info->mark[kind][0] && strcmp(name, best[kind])) return;
    snprintf(info->mark[kind], TWR_ELF_SYMBOL_MAX, "%s", name);
}

/* Walks the symbol tables the section headers name, marking the MPI symbols.
 * The section headers are optional to run a program: trouble here only ends the walk. */
static void read_symbols(elf_t *e, twr_elf_info_t *info, uint64_t shoff, unsigned shentsize,
                         unsigned shnum) {
    unsigned need = e->is64 ? 64 : 40, symsize = e->is64 ? 24 : 16;
    if (shoff == 0 || shnum == 0 || shentsize < need || shnum > SECTIONS_MAX ||
        !inside(e, shoff, (uint64_t)shentsize * shnum))
        return;
    unsigned char sh[64], link_sh[64];
    unsigned char syms[SYM_CHUNK * 24];
    for (unsigned s = 0; s < shnum; s++) {
        if (get(e, shoff + (uint64_t)s * shentsize, sh, need)) return;
        uint32_t type = (uint32_t)U32(sh + 4);
        if (type != SHT_SYMTAB && type != SHT_DYNSYM) continue;
        uint64_t off = WORD(sh + (e->is64 ? 24 : 16)), size = WORD(sh + (e->is64 ? 32 : 20));
        uint32_t link = (uint32_t)U32(sh + (e->is64 ? 40 : 24));
        uint64_t entsize = WORD(sh + (e->is64 ? 56 : 36));
        if (entsize < symsize || !inside(e, off, size) || link >= shnum ||
            get(e, shoff + (uint64_t)link * shentsize, link_sh, need))
            continue;
        uint64_t stroff = WORD(link_sh + (e->is64 ? 24 : 16)),
                 strsz = WORD(link_sh + (e->is64 ? 32 : 20));
        if (strsz == 0 || strsz > STRTAB_CAP || !inside(e, stroff, strsz)) continue;
        char *strtab = malloc((size_t)strsz + 1);
        if (!strtab) continue;
        if (get(e, stroff, strtab, (size_t)strsz)) {
            free(strtab);
            continue;
        }
        strtab[strsz] = '\0'; /* a name running off the table's end stops there */
        info->symbols_read = 1;
        uint64_t count = size / entsize;
        for (uint64_t i = 0; i < count;) {
            uint64_t n = count - i < SYM_CHUNK ? count - i : SYM_CHUNK;
            int dense = entsize == symsize; /* else one at a time */
            if (!dense) n = 1;
            if (get(e, off + i * entsize, syms, (size_t)(n * symsize))) break;
            for (uint64_t k = 0; k < n; k++) {
                const unsigned char *sym = syms + k * symsize;
                uint32_t name = (uint32_t)U32(sym);
                unsigned shndx = (unsigned)U16(sym + (e->is64 ? 6 : 14));
                if (name < strsz) mark_symbol(info, strtab + name, shndx != SHN_UNDEF);
            }
            i += n;
        }
        free(strtab);
    }
}

twr_elf_verdict_t twr_elf_read(twr_elf_read_fn read, void *ctx, uint64_t size, int flags,
                               twr_elf_info_t *info, char err[TWR_ELF_ERR_MAX]) {
    elf_t ev = {.read = read, .ctx = ctx, .size = size, .err = err}, *e = &ev;
    memset(info, 0, sizeof *info);
    err[0] = '\0';
    unsigned char id[EI_NIDENT];
    if (size < 4 || get(e, 0, id, 4) || memcmp(id, "\177ELF", 4)) return TWR_ELF_NOT_ELF;
    if (get(e, 0, id, EI_NIDENT)) return malformed(e, "its ELF header is cut short");
    if (id[4] != ELFCLASS32 && id[4] != ELFCLASS64)
        return malformed(e, "its ELF class %u is neither 32- nor 64-bit", id[4]);
    if (id[5] != ELFDATA2LSB && id[5] != ELFDATA2MSB)
        return malformed(e, "its ELF byte order %u is unknown", id[5]);
    e->is64 = id[4] == ELFCLASS64;
    e->msb = id[5] == ELFDATA2MSB;

    unsigned char h[64];
    if (get(e, 0, h, e->is64 ? 64 : 52)) return malformed(e, "its ELF header is cut short");
    unsigned type = (unsigned)U16(h + 16);
    if (type != ET_EXEC && type != ET_DYN)
        return malformed(e, "it is an ELF file of type %u, not an executable", type);
    uint64_t phoff = WORD(h + (e->is64 ? 32 : 28)), shoff = WORD(h + (e->is64 ? 40 : 32));
    const unsigned char *t = h + (e->is64 ? 54 : 42); /* e_phentsize and the counts */
    unsigned phentsize = (unsigned)U16(t), phnum = (unsigned)U16(t + 2);
    unsigned shentsize = (unsigned)U16(t + 4), shnum = (unsigned)U16(t + 6);

    /* program headers: the interpreter, the dynamic section, the loaded segments */
    unsigned phneed = e->is64 ? 56 : 32;
    if (phnum > 0 && phentsize < phneed)
        return malformed(e, "its program headers are %u bytes, fewer than %u", phentsize, phneed);
    if (!inside(e, phoff, (uint64_t)phentsize * phnum))
        return malformed(e, "its program headers lie outside the file");
    load_t loads[TWR_ELF_LOADS_MAX];
    int nloads = 0, has_interp = 0;
    uint64_t dyn_off = 0, dyn_size = 0;
    for (unsigned i = 0; i < phnum; i++) {
        unsigned char p[56];
        if (get(e, phoff + (uint64_t)i * phentsize, p, phneed))
            return malformed(e, "its program header %u cannot be read", i);
        uint32_t ptype = (uint32_t)U32(p);
        /* p_offset, p_vaddr, p_filesz: 64-bit after p_flags, 32-bit in their own order */
        uint64_t off = e->is64 ? WORD(p + 8) : WORD(p + 4);
        uint64_t vaddr = e->is64 ? WORD(p + 16) : WORD(p + 8);
        uint64_t filesz = e->is64 ? WORD(p + 32) : WORD(p + 16);
        if (ptype == PT_INTERP) has_interp = 1;
        if (ptype == PT_DYNAMIC && !info->has_dynamic) {
            if (!inside(e, off, filesz))
                return malformed(e, "its dynamic section lies outside the file");
            info->has_dynamic = 1;
            dyn_off = off;
            dyn_size = filesz;
        }
        if (ptype == PT_LOAD && nloads < TWR_ELF_LOADS_MAX) {
            if (!inside(e, off, filesz))
                return malformed(e, "its loaded segment %u lies outside the file", i);
            loads[nloads++] = (load_t){vaddr, off, filesz};
        }
    }
    info->is_static = !has_interp;

    /* the dynamic section: what is needed, and where to look for it */
    uint64_t needed[TWR_ELF_NEEDED_MAX], rpath = 0, runpath = 0, strtab = 0, strsz = 0;
    int has_strtab = 0, has_strsz = 0;
    unsigned dsize = e->is64 ? 16 : 8;
    uint64_t ndyn = dyn_size / dsize;
    if (ndyn > DYN_MAX) ndyn = DYN_MAX;
    unsigned char dyn[DYN_CHUNK * 16];
    for (uint64_t i = 0, done = 0; i < ndyn && !done;) {
        uint64_t n = ndyn - i < DYN_CHUNK ? ndyn - i : DYN_CHUNK;
        if (get(e, dyn_off + i * dsize, dyn, (size_t)(n * dsize)))
            return malformed(e, "its dynamic section cannot be read");
        for (uint64_t k = 0; k < n && !done; k++) {
            const unsigned char *d = dyn + k * dsize;
            uint64_t tag = WORD(d), val = WORD(d + dsize / 2);
            switch (tag) {
            case DT_NULL:
                done = 1;
                break;
            case DT_NEEDED:
                if (info->nneeded < TWR_ELF_NEEDED_MAX)
                    needed[info->nneeded++] = val;
                else
                    info->needed_dropped++;
                break;
            case DT_RPATH:
                info->has_rpath = 1;
                rpath = val;
                break;
            case DT_RUNPATH:
                info->has_runpath = 1;
                runpath = val;
                break;
            case DT_STRTAB:
                has_strtab = 1;
                strtab = val;
                break;
            case DT_STRSZ:
                has_strsz = 1;
                strsz = val;
                break;
            }
        }
        i += n;
    }
    if (info->nneeded || info->has_rpath || info->has_runpath) {
        uint64_t tab, avail;
        if (!has_strtab) return malformed(e, "its dynamic section has names but no DT_STRTAB");
        if (place(loads, nloads, strtab, &tab, &avail))
            return malformed(e, "its DT_STRTAB lies outside the loaded segments");
        if (!has_strsz || strsz > avail) strsz = avail;
        for (int i = 0; i < info->nneeded; i++) {
            twr_elf_verdict_t v = read_string(e, tab, strsz, needed[i], info->needed[i],
                                              TWR_ELF_NAME_MAX, "a DT_NEEDED name");
            if (v != TWR_ELF_OK) return v;
        }
        if (info->has_rpath && read_string(e, tab, strsz, rpath, info->rpath, TWR_ELF_PATH_MAX,
                                           "its DT_RPATH") != TWR_ELF_OK)
            return TWR_ELF_MALFORMED;
        if (info->has_runpath && read_string(e, tab, strsz, runpath, info->runpath,
                                             TWR_ELF_PATH_MAX, "its DT_RUNPATH") != TWR_ELF_OK)
            return TWR_ELF_MALFORMED;
    }
    if (flags & TWR_ELF_SYMBOLS) read_symbols(e, info, shoff, shentsize, shnum);
    return TWR_ELF_OK;
}

typedef struct memory {
    const unsigned char *data;
    size_t size;
} memory_t;

static int read_memory(void *ctx, uint64_t off, void *buf, size_t len) {
    const memory_t *m = ctx;
    if (off > m->size || len > m->size - off) return -1;
    memcpy(buf, m->data + off, len);
    return 0;
}

twr_elf_verdict_t twr_elf_read_memory(const void *data, size_t size, int flags,
                                      twr_elf_info_t *info, char err[TWR_ELF_ERR_MAX]) {
    memory_t m = {data, size};
    return twr_elf_read(read_memory, &m, size, flags, info, err);
}

static int read_fd(void *ctx, uint64_t off, void *buf, size_t len) {
    int fd = *(int *)ctx;
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    return 0;
}

twr_elf_verdict_t twr_elf_read_file(const char *path, int flags, twr_elf_info_t *info,
                                    char err[TWR_ELF_ERR_MAX]) {
    memset(info, 0, sizeof *info);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, TWR_ELF_ERR_MAX, "cannot be read: %s", strerror(errno));
        if (fd >= 0) close(fd);
        return TWR_ELF_UNREADABLE;
    }
    twr_elf_verdict_t v = S_ISREG(st.st_mode)
                              ? twr_elf_read(read_fd, &fd, (uint64_t)st.st_size, flags, info, err)
                              : TWR_ELF_NOT_ELF;
    close(fd);
    return v;
}
