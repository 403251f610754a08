/* docs/settings.md, generated from the settings table (twinfo --settings-markdown):
 * the settings by the layer that reads them, and how MPI_T shows them. */
#include "settings_doc.h"

#include <stdio.h>

#include <tollway/settings.h>

/* A table cell: '|' would end it. */
static void cell(const char *s) {
    for (; *s; s++)
        if (*s == '|')
            fputs("\\|", stdout);
        else
            putchar(*s);
}

void settings_markdown(void) {
    static const tw_setting_owner_t order[] = {TW_OWNER_DEVICE,  TW_OWNER_LINK,     TW_OWNER_MPI,
                                               TW_OWNER_RUNTIME, TW_OWNER_LAUNCHER, TW_OWNER_TOOLS};
    static const char *const heading[] = {
        [TW_OWNER_DEVICE] = "Device (libtollway)",
        [TW_OWNER_LINK] = "Links (libtollway: the udp link)",
        [TW_OWNER_MPI] = "MPI (libmpi)",
        [TW_OWNER_RUNTIME] = "Runtime (libtollway: the job)",
        [TW_OWNER_LAUNCHER] = "Set by twrun for its ranks (leave them alone)",
        [TW_OWNER_TOOLS] = "Tools (twrun, the compiler wrappers mpicc, mpicxx)",
    };
    printf("# Settings\n\n"
           "<!-- Generated from the settings table (src/runtime/settings.c) by\n"
           "     `build/bin/twinfo --settings-markdown > docs/settings.md`; edit the table,\n"
           "     not this file. -->\n\n"
           "Tollway is set up by environment variables named `TW_*`, read once, when a\n"
           "process first needs them (opening an endpoint does). An invalid value, or a `TW_*`\n"
           "name that is not below (most often a typo), is an error that names the variable\n"
           "and what it allows; nothing is ignored. `twinfo --settings` lists every setting with\n"
           "its current value and where it came from ([twinfo.md](twinfo.md)); programs read\n"
           "them through `<tollway/settings.h>`.\n");
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
        printf("\n## %s\n\n| Variable | Default | Allowed | Meaning |\n|---|---|---|---|\n",
               heading[order[o]]);
        for (size_t id = 0; id < tw_setting_count(); id++) {
            const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)id);
            if (in->owner != order[o]) continue;
            char allowed[256];
            tw_setting_allowed((tw_setting_id_t)id, allowed, sizeof allowed);
            printf("| `%s` | %s%s%s | ", in->name, in->default_value[0] ? "`" : "",
                   in->default_value[0] ? in->default_value : "(none)",
                   in->default_value[0] ? "`" : "");
            cell(allowed);
            printf(" | ");
            cell(in->meaning);
            printf(" |\n");
        }
    }
    printf("\n## Through MPI_T (the MPI tools information interface)\n\n"
           "An MPI tool (`MPI_T_init_thread`, usable before `MPI_Init` and after `MPI_Finalize`)\n"
           "sees every setting above as a control variable of the same name (`TW_EAGER_LIMIT`),\n"
           "with its meaning, unit and default as description: `MPI_INT` for numbers up to\n"
           "`INT_MAX`, booleans and choices (an `MPI_T_enum` names them: item k is the k-th\n"
           "name above), `MPI_UNSIGNED_LONG` for byte counts and larger numbers (`auto` reads\n"
           "0), `MPI_CHAR` for text. All are bound to no object. Most are\n"
           "`MPI_T_SCOPE_READONLY`: the environment sets them once, and writing one answers\n"
           "`MPI_T_ERR_CVAR_SET_NEVER`. `TW_EAGER_LIMIT` and `TW_RNDV_SPLIT` are\n"
           "`MPI_T_SCOPE_LOCAL`: while MPI runs, a write (within the range above) takes effect\n"
           "from the next send of this process (`MPI_T_ERR_CVAR_SET_NOT_NOW` before `MPI_Init`\n"
           "and after `MPI_Finalize`). The collective algorithm choices but `TW_COLL_SHM` are\n"
           "`MPI_T_SCOPE_ALL_EQ`: a write takes effect from the next collective call, and every\n"
           "rank must write the same value between the same two collectives. `TW_JOB_KEY` and\n"
           "`TW_JOB_SECRET` read as empty text. Categories `settings_device`, `settings_link`,\n"
           "`settings_mpi`, `settings_runtime`, `settings_launcher` and `settings_tools` (under\n"
           "`settings`) group them as the sections above do.\n\n"
           "The performance variables are counters that exist anyway, read only when a tool\n"
           "asks, all `MPI_UNSIGNED_LONG_LONG`, in categories under `counters`: `velo_*` (VELO\n"
           "messages and bytes sent and received, retries on a full mailbox, empty polls, peers\n"
           "mapped), `rma_*` (operations, bytes, retries, pipelined, notifications), `atu_*`\n"
           "(registrations, translations, faults by kind), and each link's counters, named\n"
           "`<link>_*` in a category named after the link, from the link table (`udp_*`:\n"
           "messages, packets, retransmissions, timeouts, datagrams dropped by reason,\n"
           "injected faults, liveness probes; 0 while the link carries no peer of the\n"
           "process, as in a job on one node) are `MPI_T_PVAR_CLASS_COUNTER`, not\n"
           "continuous: a handle counts from 0 while started, and can be reset or written\n"
           "without changing the counter itself. `mpi_posted_recvq_length`,\n"
           "`mpi_unexpected_recvq_length` and `mpi_unexpected_recvq_bytes` (category `mpi_p2p`)\n"
           "are continuous, read-only `MPI_T_PVAR_CLASS_LEVEL`. Before `MPI_Init` all read 0;\n"
           "after `MPI_Finalize` a counter keeps the value last read and a level reads 0.\n"
           "\n"
           "The events (MPI-4.1 `MPI_T_event_*`, category `events`) are\n"
           "`mpi_unexpected_message`, `mpi_rendezvous_begin`, `mpi_peer_lost` and\n"
           "`udp_retransmits`; their elements, their clock source and when their callbacks\n"
           "run: [mpi.md](mpi.md#mpi_t-events).\n");
}
