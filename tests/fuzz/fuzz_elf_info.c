/* Fuzz target of the launcher's ELF reader (tools/twrun/elf_info.c: twr_elf_read_memory),
 * which reads a program the user names before any rank starts: its DT_NEEDED names,
 * DT_RPATH and DT_RUNPATH, whether it has a program interpreter, and the MPI symbols
 * its symbol tables define.
 *
 * Properties: never a fault or a read outside the input (ASan under the sanitizer
 * build); a verdict of the four; a MALFORMED or UNREADABLE one with a message, an OK
 * one with every name terminated inside its array, at most TWR_ELF_NEEDED_MAX kept,
 * and marks only of their kind; the same input read twice reads the same; and a prefix
 * of an input read OK, when itself read OK, has the same libraries, paths and
 * interpreter (what it tells was inside the prefix). The seeds are well-formed
 * executables, 32- and 64-bit, of both byte orders. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_info.h"
#include "fuzz.h"

static long verdicts[4];

static int terminated(const char *s, size_t cap) {
    return memchr(s, '\0', cap) != NULL;
}

static void check_info(twr_elf_verdict_t v, const twr_elf_info_t *in, const char *err) {
    FUZZ_CHECK(v == TWR_ELF_OK || v == TWR_ELF_NOT_ELF || v == TWR_ELF_MALFORMED ||
               v == TWR_ELF_UNREADABLE);
    if (v == TWR_ELF_MALFORMED || v == TWR_ELF_UNREADABLE) {
        FUZZ_CHECK(terminated(err, TWR_ELF_ERR_MAX) && err[0] != '\0');
        return;
    }
    if (v != TWR_ELF_OK) return;
    FUZZ_CHECK(in->nneeded >= 0 && in->nneeded <= TWR_ELF_NEEDED_MAX);
    FUZZ_CHECK(in->needed_dropped == 0 || in->nneeded == TWR_ELF_NEEDED_MAX);
    for (int i = 0; i < in->nneeded; i++) FUZZ_CHECK(terminated(in->needed[i], TWR_ELF_NAME_MAX));
    FUZZ_CHECK(!in->has_rpath || terminated(in->rpath, TWR_ELF_PATH_MAX));
    FUZZ_CHECK(!in->has_runpath || terminated(in->runpath, TWR_ELF_PATH_MAX));
    FUZZ_CHECK(in->is_static == 0 || in->is_static == 1);
    static const char *const prefix[TWR_ELF_MARK_COUNT] = {"ompi_mpi_comm_world", "MPIR_", "PMPI_",
                                                           "mpi_"};
    for (int k = 0; k < TWR_ELF_MARK_COUNT; k++) {
        FUZZ_CHECK(terminated(in->mark[k], TWR_ELF_SYMBOL_MAX));
        FUZZ_CHECK(!in->mark[k][0] || in->symbols_read);
        FUZZ_CHECK(!in->mark[k][0] || !strncmp(in->mark[k], prefix[k], strlen(prefix[k])));
        FUZZ_CHECK(!strchr(in->mark[k], '.'));
    }
    FUZZ_CHECK(!in->mark[TWR_ELF_MARK_F08][0] || strstr(in->mark[TWR_ELF_MARK_F08], "_f08"));
}

/* What a prefix must agree on with the whole (the dynamic part, read before any
 * symbol). */
static void check_same_dynamic(const twr_elf_info_t *a, const twr_elf_info_t *b) {
    FUZZ_CHECK(a->is_static == b->is_static && a->has_dynamic == b->has_dynamic);
    FUZZ_CHECK(a->nneeded == b->nneeded && a->needed_dropped == b->needed_dropped);
    for (int i = 0; i < a->nneeded; i++) FUZZ_CHECK(!strcmp(a->needed[i], b->needed[i]));
    FUZZ_CHECK(a->has_rpath == b->has_rpath && a->has_runpath == b->has_runpath);
    FUZZ_CHECK(!a->has_rpath || !strcmp(a->rpath, b->rpath));
    FUZZ_CHECK(!a->has_runpath || !strcmp(a->runpath, b->runpath));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static twr_elf_info_t first, again, part;
    char err[TWR_ELF_ERR_MAX], err2[TWR_ELF_ERR_MAX];
    /* a copy of its own size, so a read past the input is one past an allocation */
    uint8_t *copy = malloc(size ? size : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, data, size);
    twr_elf_verdict_t v = twr_elf_read_memory(copy, size, TWR_ELF_SYMBOLS, &first, err);
    verdicts[v & 3]++;
    check_info(v, &first, err);
    twr_elf_verdict_t w = twr_elf_read_memory(copy, size, TWR_ELF_SYMBOLS, &again, err2);
    FUZZ_CHECK(v == w);
    if (v == TWR_ELF_OK) {
        check_same_dynamic(&first, &again);
        FUZZ_CHECK(!memcmp(first.mark, again.mark, sizeof first.mark));
    } else if (v == TWR_ELF_MALFORMED) {
        FUZZ_CHECK(!strcmp(err, err2));
    }
    if (v == TWR_ELF_OK && size > 1) {
        size_t cut = size / 2 + (size_t)(data[size - 1] % (size / 2 + 1));
        if (cut < size) {
            twr_elf_verdict_t p = twr_elf_read_memory(copy, cut, 0, &part, err2);
            check_info(p, &part, err2);
            if (p == TWR_ELF_OK) check_same_dynamic(&first, &part);
        }
    }
    free(copy);
    return 0;
}

/* ---- seeds: small well-formed executables ---- */

typedef struct out {
    uint8_t *buf;
    size_t cap;
    int is64, msb;
} out_t;

static void put(out_t *o, size_t off, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        if (off + (size_t)i < o->cap)
            o->buf[off + (size_t)(o->msb ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}
static void put_word(out_t *o, size_t off, uint64_t v) {
    put(o, off, v, o->is64 ? 8 : 4);
}

size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    static const char *const libs[] = {"libmpi.so.40",    "libmpich.so.12",   "libmpi.so.12",
                                       "libmpi_abi.so.1", "libmpi.so.0",      "libc.so.6",
                                       "libm.so.6",       "libmpi_cxx.so.40", "libmpi.so.20"};
    static const char *const syms[] = {"ompi_mpi_comm_world",
                                       "MPIR_Init_thread",
                                       "PMPI_Init",
                                       "MPIR_Err_return_comm.cold",
                                       "main",
                                       "MPI_Init"};
    out_t o = {buf, cap, (index & 1) == 0, (index & 2) != 0};
    size_t need = 4096;
    if (cap < need) return 0;
    memset(buf, 0, need);
    int is64 = o.is64;
    size_t ehsize = is64 ? 64 : 52, phent = is64 ? 56 : 32, shent = is64 ? 64 : 40;
    size_t dent = is64 ? 16 : 8, syment = is64 ? 24 : 16;
    int interp = (index % 5) != 4; /* every fifth seed: static */
    int nph = 3;
    /* layout: header, program headers, interp string, dynamic, dynstr, symtab, strtab,
       section headers */
    size_t phoff = ehsize, interp_off = phoff + (size_t)nph * phent, dyn_off = interp_off + 32;
    size_t ndyn = 8, dynstr_off = dyn_off + ndyn * dent, dynstr_len = 0;
    char dynstr[512] = "";
    size_t name_at[8];
    int nlibs = 1 + (int)(rand32() % 4);
    dynstr_len = 1; /* index 0: "" */
    for (int i = 0; i < nlibs; i++) {
        const char *l = libs[rand32() % (sizeof libs / sizeof libs[0])];
        name_at[i] = dynstr_len;
        memcpy(dynstr + dynstr_len, l, strlen(l) + 1);
        dynstr_len += strlen(l) + 1;
    }
    size_t path_at = dynstr_len;
    const char *path = (index & 4) ? "$ORIGIN/../lib:/opt/mpi/lib" : "/usr/lib/mpich/lib";
    memcpy(dynstr + dynstr_len, path, strlen(path) + 1);
    dynstr_len += strlen(path) + 1;
    size_t symtab_off = (dynstr_off + dynstr_len + 7) & ~(size_t)7, nsym = 4;
    size_t strtab_off = symtab_off + nsym * syment, strtab_len = 1;
    char strtab[256] = "";
    size_t sym_at[4];
    for (size_t i = 1; i < nsym; i++) {
        const char *s = syms[rand32() % (sizeof syms / sizeof syms[0])];
        sym_at[i] = strtab_len;
        memcpy(strtab + strtab_len, s, strlen(s) + 1);
        strtab_len += strlen(s) + 1;
    }
    size_t shoff = (strtab_off + strtab_len + 7) & ~(size_t)7, nsh = 3;
    size_t total = shoff + nsh * shent;
    if (total > need) return 0;

    memcpy(buf, "\177ELF", 4);
    buf[4] = is64 ? 2 : 1;
    buf[5] = o.msb ? 2 : 1;
    buf[6] = 1;
    put(&o, 16, 3, 2); /* ET_DYN */
    put(&o, 18, is64 ? 62 : 3, 2);
    put(&o, 20, 1, 4);
    put_word(&o, is64 ? 32 : 28, phoff);
    put_word(&o, is64 ? 40 : 32, shoff);
    size_t t = is64 ? 52 : 40;
    put(&o, t, ehsize, 2);
    put(&o, t + 2, phent, 2);
    put(&o, t + 4, (uint64_t)nph, 2);
    put(&o, t + 6, shent, 2);
    put(&o, t + 8, nsh, 2);
    /* program headers: PT_INTERP (or a PT_NOTE in a static one), PT_LOAD of the whole
       file at address 0, PT_DYNAMIC */
    uint64_t ph[3][3] = {
        {interp ? 3u : 4u, interp_off, 28}, {1, 0, total}, {2, dyn_off, ndyn * dent}};
    for (int i = 0; i < nph; i++) {
        size_t p = phoff + (size_t)i * phent;
        put(&o, p, ph[i][0], 4);
        if (is64) {
            put_word(&o, p + 8, ph[i][1]);
            put_word(&o, p + 16, ph[i][1]);
            put_word(&o, p + 32, ph[i][2]);
            put_word(&o, p + 40, ph[i][2]);
        } else {
            put_word(&o, p + 4, ph[i][1]);
            put_word(&o, p + 8, ph[i][1]);
            put_word(&o, p + 16, ph[i][2]);
            put_word(&o, p + 20, ph[i][2]);
        }
    }
    memcpy(buf + interp_off, "/lib64/ld-linux-x86-64.so.2", 28);
    /* dynamic: the needed names, RPATH or RUNPATH, STRTAB, STRSZ, NULL */
    size_t d = 0;
    for (int i = 0; i < nlibs && d < ndyn - 4; i++, d++) {
        put_word(&o, dyn_off + d * dent, 1);
        put_word(&o, dyn_off + d * dent + dent / 2, name_at[i]);
    }
    put_word(&o, dyn_off + d * dent, (index & 8) ? 29 : 15);
    put_word(&o, dyn_off + d * dent + dent / 2, path_at);
    d++;
    put_word(&o, dyn_off + d * dent, 5);
    put_word(&o, dyn_off + d * dent + dent / 2, dynstr_off);
    d++;
    put_word(&o, dyn_off + d * dent, 10);
    put_word(&o, dyn_off + d * dent + dent / 2, dynstr_len);
    memcpy(buf + dynstr_off, dynstr, dynstr_len);
    /* symbols: defined in section 1 (any but 0), the first one undefined */
    for (size_t i = 1; i < nsym; i++) {
        size_t s = symtab_off + i * syment;
        put(&o, s, sym_at[i], 4);
        put(&o, s + (is64 ? 6 : 14), i == 1 && (index & 16) ? 0 : 1, 2);
    }
    memcpy(buf + strtab_off, strtab, strtab_len);
    /* sections: null, .symtab (linked to 2), .strtab */
    size_t sh = shoff + shent;
    put(&o, sh + 4, 2, 4);
    put_word(&o, sh + (is64 ? 24 : 16), symtab_off);
    put_word(&o, sh + (is64 ? 32 : 20), nsym * syment);
    put(&o, sh + (is64 ? 40 : 24), 2, 4);
    put_word(&o, sh + (is64 ? 56 : 36), syment);
    sh += shent;
    put(&o, sh + 4, 3, 4);
    put_word(&o, sh + (is64 ? 24 : 16), strtab_off);
    put_word(&o, sh + (is64 ? 32 : 20), strtab_len);
    return total;
}

void fuzz_report(FILE *out) {
    fprintf(out, ", %ld read, %ld not ELF, %ld malformed", verdicts[TWR_ELF_OK],
            verdicts[TWR_ELF_NOT_ELF], verdicts[TWR_ELF_MALFORMED]);
}
