/* twinfo: what this Tollway is and how it is set up, as ompi_info and ucx_info say it
 * for theirs: version and commit, build, install paths, MPI, the links compiled in
 * and whether this machine can use them, process managers, this node, the device, and
 * the MPI-IO hints that act, and every TW_* setting with its value and where it came
 * from. As text, as parsable
 * `section:key:value` lines (--parsable) or as one JSON object (--json); sections
 * chosen by options, all of them by default. With --settings-markdown it prints the
 * settings document, docs/settings.md, from the settings table. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <tollway/settings.h>
#include <tollway/status.h>

#include "common/abi_faces.h"
#include "report.h"
#include "sections.h"
#include "settings_doc.h"

/* The sections, in the order they are printed; each is also an option. */
static const struct section {
    const char *option, *alias; /* alias: another option for it, or NULL */
    void (*write)(report_t *r);
    const char *help;
} sections[] = {
    {"version", NULL, section_version, "Tollway's version, git commit, MPI version"},
    {"build", NULL, section_build, "build type, sanitizers, compiler and its flags"},
    {"paths", NULL, section_paths, "configured install paths, and those this twinfo runs from"},
    {"mpi", NULL, section_mpi, "MPI standard, library version, thread levels, what is missing"},
    {"abi", "abis", section_abi, "the faces: other MPIs' ABIs served, built or not, and where"},
    {"links", NULL, section_links, "links compiled in, and whether this machine can use each"},
    {"pm", "process-managers", section_process_managers, "process managers Tollway runs under"},
    {"node", NULL, section_node, "this node: CPUs, cores, NUMA nodes"},
    {"device", NULL, section_device, "the device's limits and the memory an endpoint takes"},
    {"io", NULL, section_io, "the MPI-IO hints that act: default, values, meaning"},
    {"settings", NULL, section_settings, "every TW_* setting, its value and where it came from"},
};
enum { NSECTIONS = sizeof sections / sizeof sections[0] };

static void usage(void) {
    FILE *out = stdout;
    fprintf(out, "usage: twinfo [--parsable | --json] [--all | SECTION...]\n"
                 "       twinfo --settings-markdown | --help\n"
                 "Prints what this Tollway is and how it is set up; every section unless some are\n"
                 "named.\n\n"
                 "  -p, --parsable          one 'section:key:value' line per fact\n"
                 "  -j, --json              one JSON object: {section: {key: value}}\n"
                 "  -a, --all               every section (the default)\n");
    for (int i = 0; i < NSECTIONS; i++) {
        fprintf(out, "      --%-18s%s\n", sections[i].option, sections[i].help);
        if (sections[i].alias)
            fprintf(out, "      --%-18sthe same as --%s\n", sections[i].alias, sections[i].option);
    }
    fprintf(out,
            "      --abi-dir           only the faces directory: put it on LD_LIBRARY_PATH to\n"
            "                          run another MPI's program on Tollway under srun or Hydra\n"
            "      --settings-markdown the settings document (docs/settings.md)\n"
            "  -h, --help              this text\n\n"
            "Exit status: 0; 1 when a TW_* setting is invalid (named on stderr, the report\n"
            "is complete); 2 for a bad option.\n");
}

int main(int argc, char **argv) {
    enum { OPT_MARKDOWN = 1000, OPT_ABI_DIR, OPT_SECTION };
    struct option options[7 + 2 * NSECTIONS] = {
        {"parsable", no_argument, NULL, 'p'},
        {"json", no_argument, NULL, 'j'},
        {"all", no_argument, NULL, 'a'},
        {"help", no_argument, NULL, 'h'},
        {"settings-markdown", no_argument, NULL, OPT_MARKDOWN},
        {"abi-dir", no_argument, NULL, OPT_ABI_DIR},
    };
    int nopt = 6;
    for (int i = 0; i < NSECTIONS; i++) {
        options[nopt++] = (struct option){sections[i].option, no_argument, NULL, OPT_SECTION + i};
        if (sections[i].alias)
            options[nopt++] =
                (struct option){sections[i].alias, no_argument, NULL, OPT_SECTION + i};
    } /* the rest stays zero: the end of the table */

    report_format_t format = REPORT_TEXT;
    int chosen[NSECTIONS] = {0}, any = 0, markdown = 0, abi_dir = 0, c;
    opterr = 0; /* our own message names the option */
    while ((c = getopt_long(argc, argv, ":pjah", options, NULL)) != -1) {
        if (c == 'p') {
            format = REPORT_PARSABLE;
        } else if (c == 'j') {
            format = REPORT_JSON;
        } else if (c == 'a') {
            for (int i = 0; i < NSECTIONS; i++) chosen[i] = any = 1;
        } else if (c == 'h') {
            usage();
            return 0;
        } else if (c == OPT_MARKDOWN) {
            markdown = 1;
        } else if (c == OPT_ABI_DIR) {
            abi_dir = 1;
        } else if (c >= OPT_SECTION && c < OPT_SECTION + NSECTIONS) {
            chosen[c - OPT_SECTION] = any = 1;
        } else {
            /* '?': an unknown option, or a value given to one that takes none */
            const char *arg = argv[optind - 1];
            if (strncmp(arg, "--", 2))
                fprintf(stderr, "twinfo: unknown option '-%c'\n", optopt);
            else if (optopt)
                fprintf(stderr, "twinfo: option '%.*s' takes no value\n", (int)strcspn(arg, "="),
                        arg);
            else
                fprintf(stderr, "twinfo: unknown option '%s'\n", arg);
            fprintf(stderr, "twinfo --help lists the options\n");
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "twinfo: unexpected argument '%s' (twinfo --help lists the options)\n",
                argv[optind]);
        return 2;
    }
    if (abi_dir) {
        char dir[4096];
        if (any || markdown || format != REPORT_TEXT) {
            fprintf(stderr, "twinfo: --abi-dir takes no other option\n");
            return 2;
        }
        if (tw_abi_faces_dir(dir, sizeof dir)) {
            fprintf(stderr, "twinfo: cannot tell where this Tollway's faces are (/proc/self/exe "
                            "unreadable)\n");
            return 1;
        }
        puts(dir);
        return 0;
    }
    if (markdown) {
        if (any || format != REPORT_TEXT) {
            fprintf(stderr, "twinfo: --settings-markdown takes no other option\n");
            return 2;
        }
        settings_markdown();
        return 0;
    }

    report_t r;
    report_begin(&r, format, stdout);
    for (int i = 0; i < NSECTIONS; i++)
        if (!any || chosen[i]) sections[i].write(&r);
    report_end(&r);
    /* an invalid setting is named on stderr (once), whichever sections were asked for */
    return tw_settings_status() == TW_OK ? 0 : 1;
}
