/* twinfo: what this Tollway is and how it is set up: version, build, links, every
 * TW_* variable with its default, value and meaning, and the memory an endpoint
 * takes with the current settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tollway/tollway.h>

#include "build_info.h"
#include "runtime/config.h"

static void usage(FILE *out) {
    fprintf(out, "usage: twinfo [--help]\nPrints Tollway's version, build, links and settings.\n");
}

int main(int argc, char **argv) {
    if (argc > 1) {
        int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
        if (!help) fprintf(stderr, "twinfo: unknown argument '%s'\n", argv[1]);
        usage(help ? stdout : stderr);
        return help ? 0 : 2;
    }
    const tw_config_t *cfg = tw_config(); /* an invalid setting is reported first */
    printf("Tollway %s\n", TW_VERSION_STRING);
    printf("  build:     %s, %s\n", TW_BUILD_OPTIONS, TW_COMPILER);
    printf("  links:     shm (ranks on this node)\n");
    printf("  RMA:       put, get, immediate put, notification put, atomics (FCAA, fetch-add, CAS, "
           "swap)\n");
    printf(
        "  VELO:      %d-byte slots, %d bytes in one slot, messages up to %d bytes, tags 0..%d\n",
        TW_VELO_SLOT_SIZE, TW_VELO_INLINE_SIZE, TW_VELO_MAX_SIZE, TW_VELO_TAG_MAX);

    printf("\nEnvironment variables%s:\n",
           cfg ? "" : " (the current setting is INVALID, see above)");
    size_t n;
    const tw_config_var_t *vars = tw_config_vars(&n);
    for (size_t i = 0; i < n; i++) {
        const char *value = getenv(vars[i].name);
        printf("  %-14s default %-6s now %-8s %s%s\n", vars[i].name,
               vars[i].default_value[0] ? vars[i].default_value : "-", value ? value : "-",
               vars[i].meaning, vars[i].set_by_launcher ? " [set by twrun]" : "");
    }
    if (!cfg) return 1;
    size_t bytes = tw_ep_memory_size();
    printf("\nMemory per endpoint: %zu bytes (%.1f KiB) of shared memory:\n", bytes,
           (double)bytes / 1024);
    printf("  VELO mailbox %u slots, notification queue %u entries, pipelined-RMA rings 2 x %u "
           "slots,\n  lock region %d words, ATU table %u entries (64 B each)\n",
           cfg->velo_slots, cfg->nq_slots, cfg->rma_slots, TW_LOCKS, cfg->atu_entries);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("This node: %ld cores online\n", cores);
    return 0;
}
