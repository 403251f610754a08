#!/usr/bin/env python3
"""Makes a Debian package own only its prefix and what is below it.

usage: deb_own_prefix_only.py PREFIX PACKAGE.deb...

CPack's DEB generator puts every directory above the installed files into the data
archive: with the prefix /opt/tollway the package owns /opt, so that removing it warns
"directory '/opt' not empty so not removed", and purging it from a system where /opt
is otherwise empty removes /opt. dpkg needs no archive entry for a directory that is
already there (the preinst makes the prefix's parent where it is missing), so this
drops the entries of the directories above PREFIX from data.tar.*, in place, and keeps
every other member and entry as it was.
"""

import gzip
import io
import lzma
import os
import sys
import tarfile

AR_MAGIC = b"!<arch>\n"


def fail(msg):
    sys.exit("deb_own_prefix_only.py: " + msg)


def ar_members(data, path):
    """[(header, body)] of an ar archive."""
    if not data.startswith(AR_MAGIC):
        fail("%s is not an ar archive" % path)
    members, at = [], len(AR_MAGIC)
    while at < len(data):
        header = data[at:at + 60]
        if len(header) != 60 or header[58:60] != b"`\n":
            fail("%s: a malformed ar header at byte %d" % (path, at))
        size = int(header[48:58].decode().strip())
        members.append((header, data[at + 60:at + 60 + size]))
        at += 60 + size + (size & 1)
    return members


def ar_bytes(members):
    out = bytearray(AR_MAGIC)
    for header, body in members:
        out += header[:48] + ("%-10d" % len(body)).encode() + header[58:60] + body
        if len(body) & 1:
            out += b"\n"
    return bytes(out)


def above(prefix):
    """The archive names of the directories above prefix: ./opt/ (and ./opt) for /opt/tollway."""
    names, parts = set(), prefix.strip("/").split("/")[:-1]
    for k in range(1, len(parts) + 1):
        rel = "/".join(parts[:k])
        names.update(("./" + rel, "./" + rel + "/", rel, rel + "/"))
    return names


def rewrite_data(name, body, drop, path):
    if name.endswith(".gz"):
        raw, pack = gzip.decompress(body), lambda b: gzip.compress(b, 9, mtime=0)
    elif name.endswith(".xz"):
        raw, pack = lzma.decompress(body), lambda b: lzma.compress(b, format=lzma.FORMAT_XZ)
    elif name == "data.tar":
        raw, pack = body, lambda b: b
    else:
        fail("%s: %s is compressed in a way this script does not read (CPACK_DEBIAN_COMPRESSION_TYPE gzip or xz)" % (path, name))
    src = tarfile.open(fileobj=io.BytesIO(raw))
    out = io.BytesIO()
    dropped = 0
    with tarfile.open(fileobj=out, mode="w", format=src.format) as dst:
        for m in src.getmembers():
            if m.isdir() and m.name in drop:
                dropped += 1
                continue
            dst.addfile(m, src.extractfile(m) if m.isfile() else None)
    return pack(out.getvalue()), dropped


def main():
    if len(sys.argv) < 3 or not sys.argv[1].startswith("/"):
        fail("usage: deb_own_prefix_only.py /ABSOLUTE/PREFIX PACKAGE.deb...")
    drop = above(os.path.normpath(sys.argv[1]))
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            members = ar_members(f.read(), path)
        rewritten = []
        for header, body in members:
            name = header[:16].decode().strip().rstrip("/")
            if name.startswith("data.tar"):
                body, dropped = rewrite_data(name, body, drop, path)
                print("deb_own_prefix_only.py: %s: %d director%s above %s left out" %
                      (path, dropped, "y" if dropped == 1 else "ies", sys.argv[1]))
            rewritten.append((header, body))
        with open(path + ".tmp", "wb") as f:
            f.write(ar_bytes(rewritten))
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
