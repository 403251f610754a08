/* Which MPI a program was built for, and how twrun starts it (abi.h). */
#include "abi.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_info.h"

/* What to tell a user who wants the program started all the same. */
static const char anyway[] = "set TW_ABI=off to start it anyway";
/* What -v adds for a program started with the faces directory on its path. */
static const char may_load[] =
    ", with the faces directory on its library path for an MPI library it may load (a "
    "Python module built for Open MPI or MPICH)";

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int twr_abi_find_program(const char *name, const char *path, const char *wdir, char *out,
                         size_t cap) {
    int n;
    if (strchr(name, '/')) {
        n = name[0] != '/' && wdir ? snprintf(out, cap, "%s/%s", wdir, name)
                                   : snprintf(out, cap, "%s", name);
        return n < 0 || (size_t)n >= cap ? -1 : 0;
    }
    if (!path) path = "/bin:/usr/bin"; /* execvp's default */
    for (;;) {
        size_t len = strcspn(path, ":");
        const char *dir = len ? path : ".";
        int dlen = len ? (int)len : 1;
        if (dir[0] != '/' && wdir)
            n = snprintf(out, cap, "%s/%.*s/%s", wdir, dlen, dir, name);
        else
            n = snprintf(out, cap, "%.*s/%s", dlen, dir, name);
        if (n >= 0 && (size_t)n < cap && is_file(out) && access(out, X_OK) == 0) return 0;
        if (!path[len]) return -1;
        path += len + 1;
    }
}

/* The sonames of face f present in faces_dir, joined by ", " into out ("" for none). */
static void face_sonames(const char *faces_dir, int f, char *out, size_t cap) {
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < TW_ABI_SONAME_COUNT && faces_dir; i++) {
        const tw_abi_soname_t *s = &tw_abi_sonames[i];
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", faces_dir, s->soname);
        if (s->face != f || !is_file(path) || len >= cap) continue;
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ", " : "", s->soname);
    }
}

void twr_abi_served(const char *faces_dir, char *out, size_t cap) {
    char names[TW_ABI_FACE_COUNT][512];
    int faces = 0;
    for (int f = 0; f < TW_ABI_FACE_COUNT; f++) {
        face_sonames(faces_dir, f, names[f], sizeof names[f]);
        faces += names[f][0] != '\0';
    }
    size_t len = (size_t)snprintf(out, cap, "its own libmpi.so.0");
    if (!faces && len < cap)
        snprintf(out + len, cap - len, " (no face of another MPI's ABI is built)");
    for (int f = 0, done = 0; f < TW_ABI_FACE_COUNT; f++) {
        if (!names[f][0] || len >= cap) continue;
        done++;
        len += (size_t)snprintf(out + len, cap - len, "%s%s (%s)",
                                done < faces ? ", "
                                : faces > 1  ? ", and "
                                             : " and ",
                                tw_abi_faces[f].name, names[f]);
    }
}

/* Whether a directory of a ":"-separated list of the program's (its DT_RPATH or
 * DT_RUNPATH, $ORIGIN its own directory; LD_LIBRARY_PATH) holds a file named soname. */
static int dirs_hold(const char *rpath, const char *file, const char *soname) {
    char origin[PATH_MAX];
    snprintf(origin, sizeof origin, "%s", file);
    char *slash = strrchr(origin, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(origin, sizeof origin, ".");
    for (const char *p = rpath;;) {
        size_t len = strcspn(p, ":");
        char dir[PATH_MAX], path[2 * PATH_MAX + 256];
        if (len < sizeof dir) {
            memcpy(dir, p, len);
            dir[len] = '\0';
            const char *rest = NULL;
            if (!strncmp(dir, "$ORIGIN", 7))
                rest = dir + 7;
            else if (!strncmp(dir, "${ORIGIN}", 9))
                rest = dir + 9;
            int n = rest ? snprintf(path, sizeof path, "%s%s/%s", origin, rest, soname)
                         : snprintf(path, sizeof path, "%s/%s", len ? dir : ".", soname);
            if (n > 0 && (size_t)n < sizeof path && is_file(path)) return 1;
        }
        if (!p[len]) return 0;
        p += len + 1;
    }
}

/* Whether a directory named in the loader's configuration file conf (ld.so.conf: a
 * directory a line, "include GLOB" taking other such files in; depth bounds the
 * includes) holds a file named soname. */
static int conf_holds(const char *conf, const char *soname, int depth) {
    FILE *f = depth < 4 ? fopen(conf, "re") : NULL;
    if (!f) return 0;
    char line[PATH_MAX];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t"), *end = p + strcspn(p, "#\r\n");
        while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
        *end = '\0';
        if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
            glob_t g = {0};
            if (glob(p + 8 + strspn(p + 8, " \t"), 0, NULL, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc && !found; i++)
                    found = conf_holds(g.gl_pathv[i], soname, depth + 1);
            globfree(&g);
        } else if (*p == '/') {
            found = dirs_hold(p, "/", soname);
        }
    }
    fclose(f);
    return found;
}

/* Whether the loader would find soname for the program (file, e) outside the faces
 * directory: on LD_LIBRARY_PATH, in its DT_RUNPATH (or DT_RPATH), in a directory of
 * the loader's configuration (/etc/ld.so.conf and what it includes: ldconfig's), or
 * in its default ones. */
static int found_outside_faces(const twr_elf_info_t *e, const char *file, const char *soname) {
    const char *env = getenv("LD_LIBRARY_PATH");
    if (env && *env && dirs_hold(env, file, soname)) return 1;
    const char *own = e->has_runpath ? e->runpath : e->has_rpath ? e->rpath : NULL;
    if (own && dirs_hold(own, file, soname)) return 1;
    return conf_holds("/etc/ld.so.conf", soname, 0) ||
           dirs_hold("/lib:/usr/lib:/lib64:/usr/lib64", file, soname);
}

/* The MPI a program holds inside, from the symbols it defines: "" when none. */
static const char *static_mpi(const twr_elf_info_t *e, const char **symbol) {
    static const char *const names[TWR_ELF_MARK_F08] = {
        [TWR_ELF_MARK_OPENMPI] = "Open MPI",
        [TWR_ELF_MARK_MPICH] = "MPICH (or an MPI of MPICH's family)",
        [TWR_ELF_MARK_PMPI] = "an MPI library",
    };
    for (int k = 0; k < TWR_ELF_MARK_F08; k++) /* the marks of an MPI inside */
        if (e->mark[k][0]) {
            *symbol = e->mark[k];
            return names[k];
        }
    return "";
}

__attribute__((format(printf, 2, 3))) static void say(twr_abi_plan_t *plan, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->message, sizeof plan->message, fmt, ap);
    va_end(ap);
}

void twr_abi_plan(const char *file, const char *shown, const char *faces_dir, int guess,
                  twr_abi_plan_t *plan) {
    memset(plan, 0, sizeof *plan);
    static twr_elf_info_t elf; /* large: a table of names */
    char err[TWR_ELF_ERR_MAX], served[1024];
    twr_elf_verdict_t v = twr_elf_read_file(file, 0, &elf, err);
    plan->action = TWR_ABI_AS_IS;
    switch (v) {
    case TWR_ELF_NOT_ELF:
        plan->faces_on_path = guess && faces_dir != NULL;
        say(plan, "'%s' is not an ELF program (a script?): started as it is%s", shown,
            plan->faces_on_path ? may_load : "");
        return;
    case TWR_ELF_UNREADABLE:
        say(plan, "'%s' %s: started as it is, unchecked", shown, err);
        return;
    case TWR_ELF_MALFORMED:
        plan->action = TWR_ABI_REFUSE;
        say(plan, "cannot start '%s': %s (its ELF headers are not sound); %s", shown, err, anyway);
        return;
    case TWR_ELF_OK:
        break;
    }
    twr_abi_served(faces_dir, served, sizeof served);

    const tw_abi_soname_t *native = NULL, *face_lib = NULL, *other = NULL;
    const char *unknown = NULL;
    for (int i = 0; i < elf.nneeded; i++) {
        const char *name = elf.needed[i];
        const tw_abi_soname_t *s = tw_abi_soname_find(name);
        if (!s) {
            if (tw_abi_soname_is_mpi(name) && !unknown) unknown = name;
            continue;
        }
        if (s->role == TW_ABI_NATIVE) {
            if (!native) native = s;
        } else if (s->role == TW_ABI_SERVED && !face_lib) {
            face_lib = s;
        } else if (face_lib && s->face != face_lib->face && !other) {
            other = s;
        }
    }
    /* the first library of another family than the first face's, whatever its role */
    for (int i = 0; i < elf.nneeded && face_lib && !other; i++) {
        const tw_abi_soname_t *s = tw_abi_soname_find(elf.needed[i]);
        if (s && s->role != TW_ABI_NATIVE && s->face != face_lib->face) other = s;
    }
    if (unknown) {
        plan->action = TWR_ABI_REFUSE;
        say(plan,
            "cannot start '%s': it needs %s, an MPI library Tollway does not know (no face "
            "serves it); Tollway serves %s; rebuild it with Tollway's mpicc, or %s",
            shown, unknown, served, anyway);
        return;
    }
    if (!face_lib) {
        /* a companion alone (libmpi_cxx.so.40 without libmpi.so.40) is a build of that
           family all the same */
        for (int i = 0; i < elf.nneeded && !face_lib; i++) {
            const tw_abi_soname_t *s = tw_abi_soname_find(elf.needed[i]);
            if (s && s->role != TW_ABI_NATIVE) face_lib = s;
        }
    }
    if (!face_lib) {
        if (native) {
            say(plan, "'%s' is built for Tollway (it needs %s)", shown, native->soname);
            return;
        }
        /* no MPI library needed: one linked in would make each rank a job of one */
        twr_elf_verdict_t again = twr_elf_read_file(file, TWR_ELF_SYMBOLS, &elf, err);
        const char *symbol = NULL, *mpi = again == TWR_ELF_OK ? static_mpi(&elf, &symbol) : "";
        if (mpi[0]) {
            plan->action = TWR_ABI_REFUSE;
            say(plan,
                "cannot start '%s': it holds %s inside, linked statically (it defines %s), "
                "which Tollway cannot serve: each rank would run as a job of its own; "
                "Tollway serves %s; rebuild it with Tollway's mpicc, or %s",
                shown, mpi, symbol, served, anyway);
            return;
        }
        plan->faces_on_path = guess && faces_dir != NULL && !elf.is_static;
        say(plan, "'%s' needs no MPI library%s: started as it is%s", shown,
            elf.is_static ? " (linked statically)" : "", plan->faces_on_path ? may_load : "");
        return;
    }
    const tw_abi_face_t *face = &tw_abi_faces[face_lib->face];
    if (native || other) {
        plan->action = TWR_ABI_REFUSE;
        say(plan,
            "cannot start '%s': it needs both %s (%s) and %s (%s), libraries of two MPIs, "
            "which one process cannot have; %s",
            shown, native ? native->soname : face_lib->soname,
            native ? native->what : face_lib->what, native ? face_lib->soname : other->soname,
            native ? face_lib->what : other->what, anyway);
        return;
    }
    /* every library of that family the program needs must be in the faces directory,
       but the other MPI's own ones that run over the face, which must be installed */
    for (int i = 0; i < elf.nneeded; i++) {
        const tw_abi_soname_t *s = tw_abi_soname_find(elf.needed[i]);
        if (!s || s->role == TW_ABI_NATIVE) continue;
        if (s->role == TW_ABI_OVER_FACE) {
            if (found_outside_faces(&elf, file, s->soname)) continue;
            plan->action = TWR_ABI_REFUSE;
            say(plan,
                "cannot start '%s': it was built for %s (%s) and needs %s, %s, which runs "
                "over Tollway's face but is not installed here (not on LD_LIBRARY_PATH, its "
                "run path or the system's library directories); install that MPI's Fortran "
                "library, rebuild the program with Tollway's mpifort, or %s",
                shown, face->name, face->family, s->soname, s->what, anyway);
            return;
        }
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", faces_dir ? faces_dir : "", s->soname);
        if (faces_dir && is_file(path)) continue;
        plan->action = TWR_ABI_REFUSE;
        if (s->role == TW_ABI_SERVED)
            say(plan,
                "cannot start '%s': it was built for %s (%s: it needs %s), whose face this "
                "Tollway does not have (%s%s); Tollway serves %s; rebuild it with Tollway's "
                "mpicc, or %s",
                shown, face->name, face->family, s->soname, faces_dir ? "no " : "",
                faces_dir ? path : "its faces directory was not found", served, anyway);
        else
            say(plan,
                "cannot start '%s': it was built for %s (%s) and needs %s, %s, which no face "
                "of this Tollway serves; Tollway serves %s; rebuild it with Tollway's mpicc, "
                "or %s",
                shown, face->name, face->family, s->soname, s->what, served, anyway);
        return;
    }
    /* a served library whose namesake holds mpi_f08's bindings, which the face's does
       not (the table's f08_unserved: MPICH's libmpifort.so.12): a program that calls
       them would end in the loader's "undefined symbol" on every rank */
    for (int i = 0; i < elf.nneeded; i++) {
        const tw_abi_soname_t *s = tw_abi_soname_find(elf.needed[i]);
        if (!s || !s->f08_unserved) continue;
        twr_elf_verdict_t again = twr_elf_read_file(file, TWR_ELF_SYMBOLS, &elf, err);
        if (again == TWR_ELF_OK && elf.mark[TWR_ELF_MARK_F08][0]) {
            plan->action = TWR_ABI_REFUSE;
            say(plan,
                "cannot start '%s': it was built for %s (%s) with the mpi_f08 module (it "
                "calls %s), whose bindings no face of this Tollway serves (its mpif.h and "
                "mpi module programs it does); rebuild it with Tollway's mpifort, or %s",
                shown, face->name, face->family, elf.mark[TWR_ELF_MARK_F08], anyway);
            return;
        }
        break;
    }
    /* name the C library, not a companion: the first the face serves whole (not one
       of f08_unserved), else the first it serves, else (a program that needs only the
       other MPI's own library over the face) the face's first */
    const tw_abi_soname_t *main_lib = NULL, *first_served = NULL;
    for (int i = 0; i < elf.nneeded && !main_lib; i++) {
        const tw_abi_soname_t *s = tw_abi_soname_find(elf.needed[i]);
        if (!s || s->role != TW_ABI_SERVED) continue;
        if (!first_served) first_served = s;
        if (!s->f08_unserved) main_lib = s;
    }
    for (size_t i = 0; i < TW_ABI_SONAME_COUNT && !main_lib && !first_served; i++)
        if (tw_abi_sonames[i].face == face_lib->face && tw_abi_sonames[i].role == TW_ABI_SERVED)
            first_served = &tw_abi_sonames[i];
    if (!main_lib) main_lib = first_served ? first_served : face_lib;
    plan->action = TWR_ABI_FACE;
    plan->face = face;
    snprintf(plan->soname, sizeof plan->soname, "%s", main_lib->soname);
    snprintf(plan->face_path, sizeof plan->face_path, "%s/%s", faces_dir, main_lib->soname);
    /* DT_RUNPATH, when there, makes the loader ignore DT_RPATH; LD_LIBRARY_PATH comes
       before DT_RUNPATH and after DT_RPATH */
    plan->preload =
        elf.has_rpath && !elf.has_runpath && dirs_hold(elf.rpath, file, main_lib->soname);
    char over[256] = "";
    for (int i = 0, len = 0; i < elf.nneeded; i++) {
        const tw_abi_soname_t *s = tw_abi_soname_find(elf.needed[i]);
        if (s && s->role == TW_ABI_OVER_FACE && len < (int)sizeof over)
            len += snprintf(over + len, sizeof over - (size_t)len,
                            ", with %s (that MPI's own, over the face)", s->soname);
    }
    say(plan, "program built for %s (%s): served by Tollway's face %s%s%s", face->name,
        main_lib->soname, plan->face_path, over,
        plan->preload ? " (preloaded: its DT_RPATH leads to another library of that name)" : "");
}
