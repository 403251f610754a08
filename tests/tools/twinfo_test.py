#!/usr/bin/env python3
"""Checks twinfo's report against sources independent of it.

usage: twinfo_test.py CASE --twinfo PATH --twrun PATH --libmpi PATH --libtollway PATH
                       --source DIR --version V [--sanitize LIST]

Cases:
  json         --json parses; its sections and keys are there; the version is CMake's,
               the MPI version mpi.h's, the links those of the link table, the
               settings those of the settings table, each from its default
  parsable     every --parsable line is section:key:value, and the lines say exactly
               what the JSON says
  environment  a setting from the environment reads so, with source "environment";
               the job's key and secret are not shown
  invalid      an invalid setting: exit 1 naming it, the JSON still whole; values with
               quotes, backslashes, control characters and bytes that are no UTF-8
               come out as valid JSON holding the same text
  sections     options choose sections; --process-managers is --pm; text names them
  options      an unknown option or a stray argument fails with exit 2 naming it
  library      mpi.library is what libmpi's MPI_Get_library_version answers
  paths        from the build tree: the paths of the build; a copy in PREFIX/bin of
               an install tree reports PREFIX and the directories under it, and
               whether it was moved from the prefix DATADIR/tollway/installed-prefix
               records (not when no record says so)
  links        a udp address this machine does not have makes udp unusable, saying so
  twrun        under twrun: started by twrun, the job's credentials hidden
"""

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def clean_env(**extra):
    """The environment without any TW_* variable of the caller's, plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TW_")}
    env.update(extra)
    return env


def run(args, cfg, env=None, code=0):
    p = subprocess.run([cfg["twinfo"]] + args, env=env or clean_env(), capture_output=True,
                       timeout=120)
    if code is not None and p.returncode != code:
        fail("twinfo %s exited %d, not %d; stderr:\n%s" % (" ".join(args), p.returncode, code,
                                                          p.stderr.decode(errors="replace")))
    return p


def report(cfg, args=(), env=None, code=0):
    p = run(["--json"] + list(args), cfg, env, code)
    try:
        return json.loads(p.stdout.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        fail("twinfo --json %s is no JSON: %s\n%s" % (" ".join(args), e, p.stdout[:2000]))


# ---- independent sources ----

def link_table(src):
    """The link names of src/link/links.c's table, in its order."""
    text = open(os.path.join(src, "src/link/links.c")).read()
    m = re.search(r"tw_links\[\]\s*=\s*\{([^}]*)\}", text)
    check(m, "cannot find tw_links[] in src/link/links.c")
    tables = re.findall(r"&(tw_link_\w+)", m.group(1))
    names = []
    for table in tables:
        for d, _, files in os.walk(os.path.join(src, "src/link")):
            for f in files:
                if not f.endswith(".c"):
                    continue
                body = open(os.path.join(d, f)).read()
                t = re.search(r"const tw_link_t %s\s*=\s*\{[^}]*?\.name\s*=\s*\"(\w+)\"" % table, body)
                if t:
                    names.append(t.group(1))
    check(len(names) == len(tables), "cannot find the name of every link in %s" % tables)
    return names


class SettingInfo(ctypes.Structure):
    """The head of tw_setting_info_t (include/tollway/settings.h)."""
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("owner", ctypes.c_int),
                ("default_value", ctypes.c_char_p)]


def settings_table(cfg):
    """{name: default}: the names from src/runtime/settings.c's table, the defaults as
    libtollway has them compiled in (tw_setting_info)."""
    text = open(os.path.join(cfg["source"], "src/runtime/settings.c")).read()
    names = re.findall(r'\[TW_SETTING_\w+\]\s*=\s*\{\{\.name\s*=\s*"(TW_\w+)"', text)
    check(names, "cannot read the settings table")
    if cfg.get("sanitize"):
        return None  # a sanitized library cannot be loaded into python
    lib = ctypes.CDLL(cfg["libtollway"])
    lib.tw_setting_count.restype = ctypes.c_size_t
    lib.tw_setting_info.restype = ctypes.POINTER(SettingInfo)
    lib.tw_setting_info.argtypes = [ctypes.c_int]
    check(lib.tw_setting_count() == len(names),
          "libtollway has %d settings, settings.c %d" % (lib.tw_setting_count(), len(names)))
    table = {}
    for i in range(len(names)):
        info = lib.tw_setting_info(i).contents
        table[info.name.decode()] = info.default_value.decode()
    check(set(table) == set(names), "libtollway's settings are not settings.c's")
    return table


def mpi_version(src):
    text = open(os.path.join(src, "include/mpi.h")).read()
    v = re.search(r"#define MPI_VERSION\s+(\d+)", text).group(1)
    s = re.search(r"#define MPI_SUBVERSION\s+(\d+)", text).group(1)
    return v + "." + s


# ---- cases ----

def case_json(cfg):
    r = report(cfg)
    for section in ("version", "build", "paths", "mpi", "abi", "links", "pm", "node", "device",
                    "io", "settings"):
        check(section in r, "section %s missing: %s" % (section, list(r)))
    faces = re.findall(r'\{"(\w+)", "[^"]*",\s*"[^"]*"\}',
                       open(os.path.join(cfg["source"], "src/common/abi_faces.h")).read())
    check([k for k in r["abi"] if isinstance(r["abi"][k], dict)] == faces,
          "abi faces %s, src/common/abi_faces.h has %s" % (list(r["abi"]), faces))
    check(r["abi"]["dir"] == os.path.join(os.path.dirname(os.path.dirname(cfg["twinfo"])), "lib",
                                          "abi"),
          "abi dir %r for %s" % (r["abi"]["dir"], cfg["twinfo"]))
    check(r["version"]["tollway"] == cfg["version"],
          "version %r, CMake says %r" % (r["version"]["tollway"], cfg["version"]))
    git = r["version"]["git"]
    if git != "unknown" and shutil.which("git"):
        commit = re.sub(r"-dirty$", "", git).split("-g")[-1]
        ok = subprocess.run(["git", "-C", cfg["source"], "cat-file", "-e", commit + "^{commit}"],
                            capture_output=True).returncode == 0
        check(ok, "git %r names no commit of the source tree" % git)
    check(r["build"]["type"] and r["build"]["compiler_version"], "build type or compiler empty")
    std = mpi_version(cfg["source"])
    check(r["mpi"]["standard"] == std and r["version"]["mpi_standard"] == std,
          "MPI standard %r, mpi.h says %s" % (r["mpi"]["standard"], std))
    check(r["mpi"]["thread_max"] == "MPI_THREAD_MULTIPLE"
          and r["mpi"]["thread_levels"][-1] == "MPI_THREAD_MULTIPLE"
          and len(r["mpi"]["thread_levels"]) == 4, "thread levels: %s" % r["mpi"])
    # the Fortran bindings are there exactly when libmpifort was built beside libmpi
    fortran = any(n.startswith("libmpifort.so") for n in os.listdir(os.path.dirname(cfg["libmpi"])))
    check(r["mpi"]["io"] is True and r["mpi"]["fortran"] is fortran
          and set(r["mpi"]["not_implemented"]) == (set() if fortran else {"fortran"}),
          "not implemented: %s" % r["mpi"])
    names = link_table(cfg["source"])
    check(r["links"]["compiled"] == names,
          "links %s, the link table has %s" % (r["links"]["compiled"], names))
    for n in names:
        link = r["links"][n]
        check(isinstance(link["usable"], bool) and link["detail"] and link["reaches"],
              "link %s: %s" % (n, link))
    check(r["links"]["shm"]["usable"], "shm unusable here: %s" % r["links"]["shm"]["detail"])
    table = settings_table(cfg)
    s = r["settings"]
    if table is None:  # then the names and count from the source alone
        text = open(os.path.join(cfg["source"], "src/runtime/settings.c")).read()
        names = re.findall(r'\[TW_SETTING_\w+\]\s*=\s*\{\{\.name\s*=\s*"(TW_\w+)"', text)
        table = {n: s[n.lower()]["default"] for n in names if n.lower() in s}
    check(s["count"] == len(table), "%d settings, the table has %d" % (s["count"], len(table)))
    check(s["valid"] is True, "settings not valid in a clean environment")
    listed = {v["name"]: v for k, v in s.items() if isinstance(v, dict)}
    check(set(listed) == set(table), "settings differ from the table: %s"
          % sorted(set(listed) ^ set(table)))
    for name, default in table.items():
        v = listed[name]
        check(v["source"] == "default", "%s: source %r in a clean environment" % (name, v["source"]))
        check(v["default"] == default, "%s: default %r, the table says %r"
              % (name, v["default"], default))
        check(v["value"] == v["default"], "%s: value %r is not its default" % (name, v["value"]))
        check(name.lower() in s and s[name.lower()] is v, "%s: key is not its lowercase name" % name)
    check(r["node"]["cpus_online"] == os.cpu_count(), "cpus_online %s, os.cpu_count() %s"
          % (r["node"]["cpus_online"], os.cpu_count()))
    check(r["device"]["endpoint_bytes"] > 0, "endpoint_bytes 0")


def flatten(obj, prefix=""):
    out = {}
    for k, v in obj.items():
        key = prefix + k
        if isinstance(v, dict):
            out.update(flatten(v, key + "."))
        elif isinstance(v, bool):
            out[key] = "yes" if v else "no"
        elif isinstance(v, list):
            out[key] = ",".join(v)
        else:
            out[key] = str(v)
    return out


def case_parsable(cfg):
    lines = run(["--parsable"], cfg).stdout.decode().splitlines()
    check(lines, "--parsable printed nothing")
    pattern = re.compile(r"^([a-z_]+):([a-z0-9_.]+):(.*)$")
    facts = {}
    for line in lines:
        m = pattern.match(line)
        check(m, "not section:key:value: %r" % line)
        key = m.group(1) + "." + m.group(2)
        check(key not in facts, "key twice: %s" % key)
        facts[key] = m.group(3)
    want = {}
    for section, body in report(cfg).items():
        want.update(flatten(body, section + "."))
    # the probes run twice: what they found may change in between (free space)
    volatile = re.compile(r"^links\.\w+\.detail$")
    for k in set(want) | set(facts):
        check(k in want and k in facts, "%s in only one of --json and --parsable" % k)
        check(volatile.match(k) or want[k] == facts[k],
              "%s: --parsable %r, --json %r" % (k, facts[k], want[k]))


def case_environment(cfg):
    secret = "0123456789abcdef0123456789abcdef"
    s = report(cfg, ["--settings"], clean_env(TW_EAGER_LIMIT="1024", TW_LINK="udp",
                                              TW_JOB_SECRET=secret))["settings"]
    check(s["tw_eager_limit"]["value"] == "1024" and s["tw_eager_limit"]["source"] == "environment",
          "TW_EAGER_LIMIT=1024 reads %s" % s["tw_eager_limit"])
    check(s["tw_link"]["value"] == "udp" and s["tw_link"]["source"] == "environment",
          "TW_LINK=udp reads %s" % s["tw_link"])
    check(s["tw_velo_slots"]["source"] == "default", "TW_VELO_SLOTS: %s" % s["tw_velo_slots"])
    check(s["tw_job_secret"]["source"] == "environment" and secret not in json.dumps(s),
          "TW_JOB_SECRET shown: %s" % s["tw_job_secret"])
    links = report(cfg, ["--links"], clean_env(TW_LINK="udp"))["links"]
    check(links["tw_link"] == "udp" and "TW_LINK=udp" in links["udp"]["reaches"],
          "TW_LINK=udp: %s" % links)


def case_invalid(cfg):
    weird = b'a"b\\c\x01d\te\xc3\xa9f\xffg'
    env = {k.encode(): v.encode() for k, v in clean_env().items()}
    env[b"TW_NODE"] = weird
    p = subprocess.run([cfg["twinfo"], "--json", "--settings"], env=env, capture_output=True,
                       timeout=120)
    check(p.returncode == 1, "an invalid TW_NODE: exit %d, not 1" % p.returncode)
    check(b"TW_NODE" in p.stderr, "stderr does not name TW_NODE: %r" % p.stderr)
    try:
        s = json.loads(p.stdout.decode("utf-8"))["settings"]
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        fail("JSON with an odd value does not parse: %s\n%r" % (e, p.stdout[-600:]))
    want = weird.decode("utf-8", errors="replace")
    check(s["tw_node"]["value"] == want, "TW_NODE reads %r, not %r" % (s["tw_node"]["value"], want))
    check(s["valid"] is False, "settings valid with an invalid TW_NODE")
    p = run(["--parsable", "--settings"], cfg, clean_env(TW_VELO_SLOTS="many\nlines"), code=1)
    check(b"settings:tw_velo_slots.value:many lines\n" in p.stdout,
          "a line break in a value is not one line: %r" % p.stdout[:300])


def case_sections(cfg):
    check(list(report(cfg, ["--links"])) == ["links"], "--links prints more than links")
    check(list(report(cfg, ["--version", "--paths"])) == ["version", "paths"], "--version --paths")
    a, b = report(cfg, ["--pm"]), report(cfg, ["--process-managers"])
    check(list(a) == ["pm"] and a == b, "--pm and --process-managers differ")
    everything = list(report(cfg))
    check(list(report(cfg, ["--all"])) == everything and list(report(cfg, ["-a", "--mpi"])) ==
          everything, "--all is not every section")
    text = run([], cfg).stdout.decode()
    for title in ("Version", "Build", "Paths", "MPI", "Links", "Process managers", "Settings"):
        check(re.search("^%s" % title, text, re.M), "text has no section %s" % title)
    check(cfg["version"] in text, "text does not say the version")
    md = run(["--settings-markdown"], cfg).stdout.decode()
    check(md.startswith("# Settings"), "--settings-markdown is not the settings document")
    check(run(["--help"], cfg).stdout.startswith(b"usage: twinfo"), "--help")


def case_options(cfg):
    for args, named in ((["--no-such-option"], "--no-such-option"), (["-Z"], "-Z"),
                        (["--json=yes"], "--json"), (["--links", "stray"], "stray")):
        p = run(args, cfg, code=2)
        check(named.encode() in p.stderr, "%s: stderr does not name %s: %r" % (args, named, p.stderr))
        check(not p.stdout, "%s: printed a report anyway" % args)


def case_library(cfg):
    if cfg.get("sanitize"):
        print("SKIP: a sanitized libmpi cannot be loaded into python")
        sys.exit(SKIP)
    try:
        lib = ctypes.CDLL(cfg["libmpi"])
    except OSError as e:
        print("SKIP: cannot load libmpi: %s" % e)
        sys.exit(SKIP)
    buf = ctypes.create_string_buffer(256)
    n = ctypes.c_int(0)
    check(lib.MPI_Get_library_version(buf, ctypes.byref(n)) == 0, "MPI_Get_library_version failed")
    answer = buf.value.decode()
    r = report(cfg, ["--mpi", "--version"])
    check(r["mpi"]["library"] == answer and r["version"]["mpi_library"] == answer,
          "twinfo says %r, libmpi %r" % (r["mpi"]["library"], answer))


def case_paths(cfg):
    p = report(cfg, ["--paths"])["paths"]
    exe = os.path.realpath(cfg["twinfo"])
    check(p["exe"] == exe, "exe %r, not %r" % (p["exe"], exe))
    check(p["running_from"] == "build tree", "running from %r" % p["running_from"])
    check(p["bindir"] == os.path.dirname(exe), "bindir %r" % p["bindir"])
    libdir = os.path.dirname(os.path.realpath(cfg["libmpi"]))
    check(os.path.realpath(p["libdir"]) == libdir, "libdir %r, libmpi is in %r" % (p["libdir"], libdir))
    check(os.path.isfile(os.path.join(p["includedir"], "mpi.h")), "no mpi.h in %r" % p["includedir"])
    conf = p["configured"]
    check(p["installed_prefix"] == "not installed", "build tree: installed %r" % p["installed_prefix"])
    rel = {k: os.path.relpath(conf[k], conf["prefix"]) for k in ("bindir", "libdir", "includedir")}
    record_dir = os.path.join(os.path.relpath(conf["datadir"], conf["prefix"]), "tollway")
    # a copy in an install tree somewhere else: the prefix is where it runs from
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.realpath(os.path.join(tmp, "moved"))
        os.makedirs(os.path.join(prefix, rel["bindir"]))
        copy = os.path.join(prefix, rel["bindir"], "twinfo")
        shutil.copy2(cfg["twinfo"], copy)
        q = report(dict(cfg, twinfo=copy), ["--paths"])["paths"]
        check(q["prefix"] == prefix, "moved: prefix %r, not %r" % (q["prefix"], prefix))
        for k in rel:
            want = os.path.normpath(os.path.join(prefix, rel[k]))
            check(q[k] == want, "moved: %s %r, not %r" % (k, q[k], want))
        # no record of where it was installed: an install, not said to be moved
        check(q["running_from"] == "install" and q["installed_prefix"] == "unknown",
              "no record: running from %r, installed into %r" % (q["running_from"], q["installed_prefix"]))
        # installed where it is: not moved, whatever the configured prefix
        os.makedirs(os.path.join(prefix, record_dir))
        record = os.path.join(prefix, record_dir, "installed-prefix")
        with open(record, "w") as f:
            f.write(prefix + "\n")
        q = report(dict(cfg, twinfo=copy), ["--paths"])["paths"]
        check(q["running_from"] == "install" and q["installed_prefix"] == prefix,
              "installed here: running from %r, installed into %r" % (q["running_from"], q["installed_prefix"]))
        # installed elsewhere, then moved here
        elsewhere = os.path.join(tmp, "installed-here-first")
        with open(record, "w") as f:
            f.write(elsewhere + "\n")
        q = report(dict(cfg, twinfo=copy), ["--paths"])["paths"]
        check(q["running_from"] == "install, moved since it was installed" and q["installed_prefix"] == elsewhere,
              "moved: running from %r, installed into %r" % (q["running_from"], q["installed_prefix"]))
        # not in a bin directory: where it runs from is unknown, said so
        odd = os.path.join(tmp, "twinfo")
        shutil.copy2(cfg["twinfo"], odd)
        q = report(dict(cfg, twinfo=odd), ["--paths"])["paths"]
        check(q["running_from"] == "unknown" and q["prefix"] == "unknown", "loose copy: %s" % q)


def case_links(cfg):
    addr = "203.0.113.77"  # TEST-NET-3: no machine has it
    ip = shutil.which("ip")
    if ip and addr in subprocess.run([ip, "-4", "addr"], capture_output=True, text=True).stdout:
        print("SKIP: this machine has %s" % addr)
        sys.exit(SKIP)
    udp = report(cfg, ["--links"], clean_env(TW_UDP_ADDR=addr))["links"]["udp"]
    check(udp["usable"] is False and addr in udp["detail"] and "TW_UDP_ADDR" in udp["detail"],
          "TW_UDP_ADDR=%s: %s" % (addr, udp))
    udp = report(cfg, ["--links"], clean_env(TW_UDP_ADDR="127.0.0.1"))["links"]["udp"]
    check(udp["usable"] is True, "TW_UDP_ADDR=127.0.0.1: %s" % udp)


def case_twrun(cfg):
    p = subprocess.run([cfg["twrun"], "-n", "1", "--timeout", "300", cfg["twinfo"], "--json", "--pm",
                        "--settings"], env=clean_env(), capture_output=True, timeout=400)
    check(p.returncode == 0, "twrun -n 1 twinfo: exit %d\n%s" % (p.returncode, p.stderr.decode()))
    r = json.loads(p.stdout)
    check(r["pm"]["started_by"].startswith("twrun"), "started by %r" % r["pm"]["started_by"])
    for name in ("tw_job_key", "tw_job_secret"):
        s = r["settings"][name]
        check(s["source"] == "environment" and not re.search(r"[0-9a-f]{16}", s["value"]),
              "%s shown under twrun: %s" % (name, s))
    check(r["settings"]["tw_job_id"]["source"] == "environment", "TW_JOB_ID not from twrun")


def main():
    ap = argparse.ArgumentParser(description="Checks twinfo's report (see the cases above).")
    ap.add_argument("case", choices=sorted(n[5:] for n in globals() if n.startswith("case_")))
    for opt in ("twinfo", "twrun", "libmpi", "libtollway", "source", "version"):
        ap.add_argument("--" + opt, required=True)
    ap.add_argument("--sanitize", default="", help="the sanitizers of the build, if any")
    a = ap.parse_args()
    cfg = vars(a)
    globals()["case_" + a.case](cfg)
    print("ok: " + a.case)


if __name__ == "__main__":
    main()
