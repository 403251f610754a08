/* What twinfo reports, section by section. Each fact comes from where it is decided:
 * the build (build_info.h, git_describe.h), mpi.h, the link table (tw_link_report),
 * the settings table, and this machine (hwloc, /proc/self/exe, the environment). */
#include "sections.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include <tollway/tollway.h>

#include "build_info.h"
#include "common/abi_faces.h"
#include "common/io_hints.h"
#include "common/library_version.h"
#include "git_describe.h"
#include "runtime/pm.h"

static const char *or_none(const char *s) {
    return s && s[0] ? s : "none";
}

void section_version(report_t *r) {
    report_open(r, "version", "Version");
    report_text(r, "tollway", "Tollway", TW_VERSION_STRING);
    report_text(r, "git", "Git commit", TW_GIT_DESCRIBE);
    report_text(r, "mpi_standard", "MPI standard",
                TW_STRINGIFY(MPI_VERSION) "." TW_STRINGIFY(MPI_SUBVERSION));
    report_text(r, "mpi_library", "MPI library", TW_MPI_LIBRARY_VERSION);
    report_close(r);
}

void section_build(report_t *r) {
    report_open(r, "build", "Build");
    report_text(r, "type", "Build type", TW_BUILD_TYPE);
    report_text(r, "sanitizers", "Sanitizers", or_none(TW_SANITIZE));
    report_text(r, "fuzz", "Fuzz engine", or_none(TW_FUZZ));
    report_text(r, "compiler", "C compiler", TW_C_COMPILER_ID);
    report_text(r, "compiler_version", "C compiler version", TW_C_COMPILER_VERSION);
    report_text(r, "compiler_path", "C compiler path", TW_C_COMPILER_PATH);
    report_text(r, "c_flags", "C flags", TW_C_FLAGS);
    report_text(r, "system", "Built for", TW_SYSTEM);
    char hwloc[32];
    snprintf(hwloc, sizeof hwloc, "%u.%u.%u", HWLOC_API_VERSION >> 16,
             (HWLOC_API_VERSION >> 8) & 0xff, HWLOC_API_VERSION & 0xff);
    report_text(r, "hwloc_api", "hwloc API (built against)", hwloc);
    report_close(r);
}

/* ---- paths ---- */

/* dir joined to base, unless dir is absolute already ("(too long)" past cap). */
static void join(char *out, size_t cap, const char *base, const char *dir) {
    int n = dir[0] == '/' ? snprintf(out, cap, "%s", dir) : snprintf(out, cap, "%s/%s", base, dir);
    if (n < 0 || (size_t)n >= cap) snprintf(out, cap, "(too long)");
}

/* 1 when path ends with the relative directory dir as whole components; the part
 * before it (the prefix) into prefix. */
static int strip_suffix(const char *path, const char *dir, char *prefix, size_t cap) {
    size_t lp = strlen(path), ld = strlen(dir);
    if (dir[0] == '/' || ld == 0 || ld >= lp || path[lp - ld - 1] != '/' ||
        strcmp(path + lp - ld, dir))
        return 0;
    snprintf(prefix, cap, "%.*s", (int)(lp - ld - 1), path);
    if (!prefix[0]) snprintf(prefix, cap, "/");
    return 1;
}

/* The source tree of the build tree whose bin directory is bindir, from its
 * CMakeCache.txt (read, not compiled in: an installed twinfo names no build tree).
 * 1 with it in src, 0 when bindir is not in a build tree. */
static int build_tree_source(const char *bindir, char *src, size_t cap) {
    char cache[PATH_MAX], line[PATH_MAX + 64];
    static const char key[] = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    if (snprintf(cache, sizeof cache, "%s/../CMakeCache.txt", bindir) >= (int)sizeof cache)
        return 0;
    FILE *f = fopen(cache, "r");
    if (!f) return 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (!strncmp(line, key, sizeof key - 1)) {
            line[strcspn(line, "\n")] = '\0';
            found = snprintf(src, cap, "%s", line + sizeof key - 1) < (int)cap;
        }
    fclose(f);
    return found;
}

/* The prefix the install at prefix was made into, as the install recorded it
 * (DATADIR/tollway/installed-prefix, one line): 1 with it in out, 0 when there is no
 * record (a tree copied by hand, or installed before there was one). */
static int installed_prefix(const char *prefix, char *out, size_t cap) {
    char datadir[PATH_MAX], record[PATH_MAX];
    join(datadir, sizeof datadir, prefix, TW_INSTALL_DATADIR);
    join(record, sizeof record, datadir, TW_INSTALLED_PREFIX_FILE);
    FILE *f = fopen(record, "r");
    if (!f) return 0;
    int found = fgets(out, (int)cap, f) != NULL;
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
    return found && out[0] == '/';
}

/* Where the tree this program runs from is, given the directory it lies in: prefix, lib
 * and include (cap bytes each), and for an install the prefix it was installed into
 * (installed: "unknown" without a record, "not installed" for the build tree). The build tree has
 * its libraries in build/lib and its headers in the source tree; an install has them under its
 * prefix, the directory the configured bin directory hangs from. It was moved when it is no longer
 * where it was installed (which `cmake --install --prefix` chooses, not the configured prefix).
 * Returns which it is, or "unknown". */
static const char *locate(const char *bindir, char *prefix, char *lib, char *include,
                          char *installed, size_t cap) {
    char real[PATH_MAX], src[PATH_MAX];
    snprintf(installed, cap, "unknown");
    if (build_tree_source(bindir, src, sizeof src)) {
        join(real, sizeof real, bindir, "..");
        if (!realpath(real, prefix)) snprintf(prefix, cap, "%s", real);
        join(lib, cap, prefix, "lib");
        join(include, cap, src, "include");
        snprintf(installed, cap, "not installed");
        return "build tree";
    }
    if (TW_INSTALL_BINDIR[0] == '/' ? strcmp(bindir, TW_INSTALL_BINDIR) == 0 &&
                                          snprintf(prefix, cap, "%s", TW_INSTALL_PREFIX) >= 0
                                    : strip_suffix(bindir, TW_INSTALL_BINDIR, prefix, cap)) {
        join(lib, cap, prefix, TW_INSTALL_LIBDIR);
        join(include, cap, prefix, TW_INSTALL_INCLUDEDIR);
        if (!installed_prefix(prefix, installed, cap)) {
            snprintf(installed, cap, "unknown");
            return "install";
        }
        return realpath(installed, real) && !strcmp(real, prefix)
                   ? "install"
                   : "install, moved since it was installed";
    }
    return "unknown";
}

void section_paths(report_t *r) {
    char dir[PATH_MAX];
    report_open(r, "paths", "Paths");
    report_open(r, "configured", "Configured (cmake --install without --prefix puts things here)");
    report_text(r, "prefix", "Prefix", TW_INSTALL_PREFIX);
    join(dir, sizeof dir, TW_INSTALL_PREFIX, TW_INSTALL_BINDIR);
    report_text(r, "bindir", "Programs", dir);
    join(dir, sizeof dir, TW_INSTALL_PREFIX, TW_INSTALL_LIBDIR);
    report_text(r, "libdir", "Libraries", dir);
    join(dir, sizeof dir, TW_INSTALL_PREFIX, TW_INSTALL_INCLUDEDIR);
    report_text(r, "includedir", "Headers", dir);
    join(dir, sizeof dir, TW_INSTALL_PREFIX, TW_INSTALL_DATADIR);
    report_text(r, "datadir", "Data", dir);
    report_close(r);

    /* where this twinfo runs from: an install may have been moved as a whole */
    char exe[PATH_MAX], bindir[PATH_MAX], prefix[PATH_MAX], lib[PATH_MAX], include[PATH_MAX],
        installed[PATH_MAX] = "unknown";
    const char *from = "unknown";
    if (realpath("/proc/self/exe", exe)) {
        snprintf(bindir, sizeof bindir, "%s", exe);
        *strrchr(bindir, '/') = '\0'; /* a real path: it has one */
        from = locate(bindir, prefix, lib, include, installed, PATH_MAX);
    } else {
        snprintf(exe, sizeof exe, "unknown (%s)", strerror(errno));
    }
    int known = strcmp(from, "unknown") != 0;
    report_text(r, "exe", "This program", exe);
    report_text(r, "running_from", "Running from", from);
    report_text(r, "prefix", "Prefix", known ? prefix : "unknown");
    report_text(r, "installed_prefix", "Installed into", installed);
    report_text(r, "bindir", "Programs", known ? bindir : "unknown");
    report_text(r, "libdir", "Libraries", known ? lib : "unknown");
    report_text(r, "includedir", "Headers", known ? include : "unknown");
    report_close(r);
}

/* ---- MPI ---- */

void section_mpi(report_t *r) {
    static const char *const levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    _Static_assert(MPI_THREAD_MULTIPLE == 3, "levels[] is indexed by the MPI_THREAD_* values");
    /* what the standard has that this build does not: the Fortran bindings when no
     * Fortran compiler was found (mpi.h declares exactly what is there) */
    static const char *const missing[] = {"fortran"};
    report_open(r, "mpi", "MPI");
    report_text(r, "standard", "Standard",
                TW_STRINGIFY(MPI_VERSION) "." TW_STRINGIFY(MPI_SUBVERSION));
    report_text(r, "library", "Library version", TW_MPI_LIBRARY_VERSION);
    /* MPI_Init_thread provides every level asked for (src/mpi/session/init.c) */
    report_list(r, "thread_levels", "Thread levels", levels, MPI_THREAD_MULTIPLE + 1);
    report_text(r, "thread_max", "Highest thread level", levels[MPI_THREAD_MULTIPLE]);
    report_bool(r, "io", "MPI-IO (chapter 14)", 1);
    report_bool(r, "fortran", "Fortran bindings", TW_HAVE_FORTRAN);
    report_list(r, "not_implemented", "Not implemented", missing, TW_HAVE_FORTRAN ? 0 : 1);
    report_bool(r, "profiling", "Profiling (PMPI_)", 1);
    report_bool(r, "tools", "Tools interface (MPI_T)", 1);
    report_close(r);
}

/* ---- ABIs: the faces ---- */

void section_abi(report_t *r) {
    char dir[PATH_MAX];
    int found = tw_abi_faces_dir(dir, sizeof dir) == 0;
    report_open(r, "abi", "ABIs (faces of other MPIs)");
    report_text(r, "native", "Tollway's own", "libmpi.so.0 (include/mpi.h)");
    report_text(r, "dir", "Faces directory", found ? dir : "unknown");
    for (int f = 0; f < TW_ABI_FACE_COUNT; f++) {
        const tw_abi_face_t *face = &tw_abi_faces[f];
        static char paths[TW_ABI_SONAME_COUNT][PATH_MAX + 64];
        const char *sonames[TW_ABI_SONAME_COUNT], *present[TW_ABI_SONAME_COUNT],
            *beside[TW_ABI_SONAME_COUNT], *over[TW_ABI_SONAME_COUNT];
        size_t nsonames = 0, npresent = 0, nbeside = 0, nover = 0;
        for (size_t i = 0; i < TW_ABI_SONAME_COUNT; i++) {
            const tw_abi_soname_t *s = &tw_abi_sonames[i];
            if (s->face != f) continue;
            snprintf(paths[i], sizeof paths[i], "%s/%s", dir, s->soname);
            int there = found && access(paths[i], F_OK) == 0;
            if (s->role == TW_ABI_SERVED) sonames[nsonames++] = s->soname;
            if (there) present[npresent++] = paths[i];
            if (s->role == TW_ABI_OVER_FACE) over[nover++] = s->soname;
            if (s->role == TW_ABI_COMPANION && !there) beside[nbeside++] = s->soname;
        }
        report_open(r, face->key, face->name);
        report_bool(r, "built", "Built", npresent > 0);
        report_text(r, "serves", "Serves programs of", face->family);
        report_list(r, "sonames", "Sonames", sonames, nsonames);
        report_list(r, "paths", "Libraries", present, npresent);
        report_list(r, "over_face", "Its MPI's own, run over the face", over, nover);
        report_list(r, "not_served", "Not served (others of its family)", beside, nbeside);
        report_close(r);
    }
    report_close(r);
}

/* ---- links ---- */

void section_links(report_t *r) {
    size_t n = tw_link_report_count();
    const char *names[16];
    tw_link_report_t links[16];
    if (n > 16) n = 16; /* far more than there are */
    for (size_t i = 0; i < n; i++) {
        tw_link_report(i, &links[i]);
        names[i] = links[i].name;
    }
    /* TW_LINK in effect (the default when the settings are invalid): auto, or the name
     * of the link that is to carry every peer */
    const char *forced = tw_settings_status() == TW_OK ? tw_setting_text(TW_SETTING_LINK) : "auto";
    int everywhere = strcmp(forced, "auto") != 0, known = !everywhere;
    for (size_t i = 0; i < n; i++) known |= !strcmp(names[i], forced);
    char shown[96];
    snprintf(shown, sizeof shown, "%s%s", forced,
             known ? "" : " (no link of this build has that name: endpoints refuse it)");
    report_open(r, "links", "Links");
    report_list(r, "compiled", "Compiled in", names, n);
    report_text(r, "tw_link", "TW_LINK", shown);
    for (size_t i = 0; i < n; i++) {
        const tw_link_report_t *l = &links[i];
        char reaches[96];
        if (!everywhere)
            snprintf(reaches, sizeof reaches, "%s",
                     l->node_local ? "ranks on this node" : "ranks on other nodes");
        else if (!strcmp(l->name, forced))
            snprintf(reaches, sizeof reaches, "every other rank (TW_LINK=%s)", forced);
        else /* a node-local link still holds the endpoint's own segment */
            snprintf(reaches, sizeof reaches, "%s (TW_LINK=%s)",
                     l->node_local ? "the endpoint itself" : "no rank", forced);
        report_open(r, l->name, l->name);
        report_bool(r, "usable", "Usable now", l->usable);
        report_text(r, "detail", l->usable ? "Found" : "Why not", l->note);
        report_text(r, "reaches", "Reaches", reaches);
        report_close(r);
    }
    report_close(r);
}

/* ---- process managers ---- */

/* TW_HAVE_PMIX (build_info.h): 1 when the PMIx client is compiled in, else 0 or not
 * defined. */

/* The full path of prog: beside this program (twrun), else on PATH, into buf; or "not
 * found". */
static const char *find_program(const char *prog, char *buf, size_t cap) {
    char exe[PATH_MAX];
    if (!strcmp(prog, "twrun") && realpath("/proc/self/exe", exe)) {
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        if (snprintf(buf, cap, "%s/%s", exe, prog) < (int)cap && access(buf, X_OK) == 0) return buf;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        if (snprintf(buf, cap, "%.*s/%s", (int)len, len ? path : ".", prog) < (int)cap &&
            access(buf, X_OK) == 0)
            return buf;
        path += len + (path[len] == ':');
    }
    return "not found";
}

/* Which process manager started this process, from what each puts in the environment. */
static const char *env_lookup(const char *name, void *ctx) {
    (void)ctx;
    return getenv(name);
}

/* What the runtime would choose here (tw_pm_choose), named after who set it up. */
static const char *started_by(char *buf, size_t cap) {
    char why[512];
    switch (tw_pm_choose(env_lookup, NULL, TW_HAVE_PMIX, why, sizeof why)) {
    case TW_PM_REFUSED:
        snprintf(buf, cap, "a process manager it cannot reach: %s", why);
        return buf;
    case TW_PM_PMIX:
        return "PMIx";
    case TW_PM_PMI1:
        if (getenv("TW_JOB_ID")) return "twrun (PMI-1)";
        if (getenv("MPI_LOCALNRANKS")) return "MPICH Hydra (PMI-1)";
        if (getenv("SLURM_JOB_ID")) return "Slurm (PMI-1 through srun --mpi=pmi2)";
        return "a PMI-1 process manager";
    case TW_PM_SINGLETON:
        break;
    }
    return "none: a program started alone is a job of one";
}

static void process_manager(report_t *r, const char *key, const char *title, int supported,
                            const char *interface, const char *how, const char *program,
                            const char *note) {
    char path[PATH_MAX];
    report_open(r, key, title);
    report_bool(r, "supported", "Supported", supported);
    report_text(r, "interface", "Interface", interface);
    report_text(r, "how", "How", how);
    /* program: alternatives separated by '|', the first found named */
    const char *found = "not found";
    char name[64];
    for (const char *p = program; *p && !strcmp(found, "not found");
         p += strcspn(p, "|"), p += *p == '|') {
        snprintf(name, sizeof name, "%.*s", (int)strcspn(p, "|"), p);
        found = find_program(name, path, sizeof path);
    }
    report_text(r, "program", "Program", found);
    report_text(r, "note", "Note", note);
    report_close(r);
}

void section_process_managers(report_t *r) {
    report_open(r, "pm", "Process managers");
    char by[640];
    report_text(r, "started_by", "This process started by", started_by(by, sizeof by));
    process_manager(r, "twrun", "twrun", 1, "PMI-1", "twrun -n N prog", "twrun",
                    "Tollway's own launcher, beside this program; also mpiexec and mpirun");
    process_manager(r, "hydra", "MPICH Hydra", 1, "PMI-1", "mpiexec.hydra -n N prog",
                    "mpiexec.hydra", "across nodes, the ranks talk over udp");
    process_manager(r, "slurm", "Slurm", 1, "PMI-1 (through srun's pmi2 plugin)",
                    "srun --mpi=pmi2 prog", "srun", "across nodes, the ranks talk over udp");
#if defined(TW_HAVE_PMIX) && TW_HAVE_PMIX
    process_manager(r, "pmix", "PMIx", 1, "PMIx", "srun --mpi=pmix prog; mpirun or prterun",
                    "prterun|mpirun.openmpi", "Slurm's pmix plugin, Open MPI's mpirun (PRRTE)");
#else
    process_manager(r, "pmix", "PMIx", 0, "PMIx", "srun --mpi=pmix prog; mpirun or prterun",
                    "prterun",
                    "not compiled in: libpmix was not found when this build was configured");
#endif
    report_close(r);
}

/* ---- this node ---- */

void section_node(report_t *r) {
    char host[256] = "unknown";
    if (gethostname(host, sizeof host - 1)) snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    int allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    report_open(r, "node", "This node");
    report_text(r, "hostname", "Host name", host);
    report_number(r, "cpus_online", "CPUs online", online > 0 ? (unsigned long long)online : 0);
    report_number(r, "cpus_allowed", "CPUs this process may use",
                  allowed > 0 ? (unsigned long long)allowed : 0);
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            static const struct {
                hwloc_obj_type_t type;
                const char *key, *label;
            } counted[] = {{HWLOC_OBJ_PACKAGE, "packages", "Packages"},
                           {HWLOC_OBJ_NUMANODE, "numa_nodes", "NUMA nodes"},
                           {HWLOC_OBJ_CORE, "cores", "Cores"},
                           {HWLOC_OBJ_PU, "pus", "Hardware threads"}};
            for (size_t i = 0; i < sizeof counted / sizeof counted[0]; i++) {
                int n = hwloc_get_nbobjs_by_type(topo, counted[i].type);
                report_number(r, counted[i].key, counted[i].label,
                              n > 0 ? (unsigned long long)n : 0);
            }
        }
        hwloc_topology_destroy(topo);
    }
    report_close(r);
}

/* ---- the device ---- */

void section_device(report_t *r) {
    static const char *const rma[] = {"put",  "get",       "immediate put", "notification put",
                                      "fcaa", "fetch-add", "cas",           "swap"};
    report_open(r, "device", "Device");
    report_number(r, "velo_slot_size", "VELO slot (bytes)", TW_VELO_SLOT_SIZE);
    report_number(r, "velo_inline_size", "VELO in one slot (bytes)", TW_VELO_INLINE_SIZE);
    report_number(r, "velo_max_size", "VELO message max (bytes)", TW_VELO_MAX_SIZE);
    report_number(r, "velo_tag_max", "VELO tag max", TW_VELO_TAG_MAX);
    report_list(r, "rma", "RMA operations", rma, sizeof rma / sizeof rma[0]);
    /* with the current settings (the defaults where they are invalid) */
    report_number(r, "endpoint_bytes", "Memory per endpoint (bytes)", tw_ep_memory_size());
    report_number(r, "velo_slots", "VELO mailbox slots",
                  tw_setting_unsigned(TW_SETTING_VELO_SLOTS));
    report_number(r, "nq_slots", "Notification queue", tw_setting_unsigned(TW_SETTING_NQ_SLOTS));
    report_number(r, "rma_slots", "Pipelined-RMA ring slots",
                  tw_setting_unsigned(TW_SETTING_RMA_SLOTS));
    report_number(r, "atu_entries", "ATU entries", tw_setting_unsigned(TW_SETTING_ATU_ENTRIES));
    report_close(r);
}

/* ---- settings ---- */

/* The job's credentials are not shown, as MPI_T does not hand them out (src/mpi/tools/tools.c). */
static int is_secret(tw_setting_id_t id) {
    return id == TW_SETTING_JOB_KEY || id == TW_SETTING_JOB_SECRET;
}

/* ---- MPI-IO hints ---- */

void section_io(report_t *r) {
#define TW_IO_HINT_ROW(name, def, allowed, meaning) {name, def, allowed, meaning},
    static const struct {
        const char *name, *def, *allowed, *meaning;
    } hints[] = {TW_IO_HINTS(TW_IO_HINT_ROW)};
#undef TW_IO_HINT_ROW
    size_t n = sizeof hints / sizeof hints[0];
    report_open(r, "io", "MPI-IO hints (MPI_Info keys of MPI_File_open, _set_view, _set_info)");
    report_number(r, "count", "Hints", n);
    report_text(r, "environment", "Environment variables", "none");
    for (size_t i = 0; i < n; i++) {
        report_open(r, hints[i].name, hints[i].name);
        report_text(r, "name", NULL, hints[i].name);
        report_text(r, "default", "Default",
                    !strcmp(hints[i].def, "nodes") ? "one per node"
                    : hints[i].def[0]              ? hints[i].def
                                                   : "(none: reported when given)");
        report_text(r, "allowed", "Allowed", hints[i].allowed);
        report_text(r, "meaning", "Meaning", hints[i].meaning);
        report_close(r);
    }
    report_close(r);
}

void section_settings(report_t *r) {
    int valid = tw_settings_status() == TW_OK; /* an invalid setting is named on stderr */
    report_open(r, "settings", "Settings (TW_* environment variables)");
    report_number(r, "count", "Settings", tw_setting_count());
    report_bool(r, "valid", "All valid", valid);
    for (size_t i = 0; i < tw_setting_count(); i++) {
        tw_setting_id_t id = (tw_setting_id_t)i;
        const tw_setting_info_t *in = tw_setting_info(id);
        char key[64], allowed[256];
        size_t k = 0;
        for (; in->name[k] && k < sizeof key - 1; k++)
            key[k] = (char)tolower((unsigned char)in->name[k]);
        key[k] = '\0';
        tw_setting_allowed(id, allowed, sizeof allowed);
        int set = tw_setting_is_set(id);
        const char *value = set && is_secret(id) ? "(set, not shown)" : tw_setting_text(id);
        report_open(r, key, in->name);
        report_text(r, "name", NULL, in->name); /* the title says it */
        report_text(r, "value", "Value", value);
        report_text(r, "source", "Source", set ? "environment" : "default");
        report_text(r, "default", "Default", in->default_value);
        report_text(r, "allowed", "Allowed", allowed);
        report_text(r, "type", "Type", tw_setting_type_name(in->type));
        report_text(r, "owner", "Read by", tw_setting_owner_name(in->owner));
        report_text(r, "meaning", "Meaning", in->meaning);
        report_close(r);
    }
    report_close(r);
}
