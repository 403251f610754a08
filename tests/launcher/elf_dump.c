/* Prints what the launcher's ELF reader (tools/twrun/elf_info.h) makes of a file, one
 * fact a line, for abi_test.sh to compare with readelf's reading:
 *   verdict ok|not-elf|malformed|unreadable [message]
 *   needed NAME (each, in order), rpath PATH, runpath PATH, static 0|1, mark SYMBOL */
#include <stdio.h>

#include "elf_info.h"

int main(int argc, char **argv) {
    static twr_elf_info_t info;
    char err[TWR_ELF_ERR_MAX];
    if (argc != 2) {
        fprintf(stderr, "usage: elf_dump FILE\n");
        return 2;
    }
    static const char *const names[] = {"ok", "not-elf", "malformed", "unreadable"};
    twr_elf_verdict_t v = twr_elf_read_file(argv[1], TWR_ELF_SYMBOLS, &info, err);
    printf("verdict %s%s%s\n", names[v], err[0] ? " " : "", err);
    if (v != TWR_ELF_OK) return 0;
    for (int i = 0; i < info.nneeded; i++) printf("needed %s\n", info.needed[i]);
    if (info.has_rpath) printf("rpath %s\n", info.rpath);
    if (info.has_runpath) printf("runpath %s\n", info.runpath);
    printf("static %d\n", info.is_static);
    for (int k = 0; k < TWR_ELF_MARK_COUNT; k++)
        if (info.mark[k][0]) printf("mark %s\n", info.mark[k]);
    return 0;
}
