#!/usr/bin/env python3
"""Write a damaged or hostile Debian package: hostile.py GOOD.deb OUT KIND.
KIND: dotdot (a data.tar member named ../escape), order (data.tar before
control.tar), version (debian-binary says 3.0), bad-md5sums (a line that
is not "<md5>  <file>"), no-data (the data.tar member missing)."""
import io
import sys
import tarfile


def ar_members(raw):
    assert raw[:8] == b"!<arch>\n"
    at, out = 8, []
    while at < len(raw):
        h = raw[at:at + 60]
        name, size = h[:16].decode().rstrip(" /"), int(h[48:58])
        out.append((name, raw[at + 60:at + 60 + size]))
        at += 60 + size + (size & 1)
    return out


def ar(members):
    out = b"!<arch>\n"
    for name, data in members:
        out += ("%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (
            name, 1700000000, 0, 0, "100644", len(data))).encode()
        out += data + (b"\n" if len(data) & 1 else b"")
    return out


def tar(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
        for name, data in entries:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mtime = 1700000000
            t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


good, out, kind = sys.argv[1:4]
m = ar_members(open(good, "rb").read())
control = tar([("./control", b"Package: h\nVersion: 1\nArchitecture: all\n"
                b"Maintainer: t <t@invalid.invalid>\nDescription: h\n"),
               ("./md5sums", b"0123  usr/bin/app\n"
                if kind == "bad-md5sums" else b"")])
if kind == "dotdot":
    m = [m[0], ("control.tar", control),
         ("data.tar", tar([("./usr/../../escape", b"x\n")]))]
elif kind == "order":
    m = [m[0], m[2], m[1]]
elif kind == "version":
    m = [("debian-binary", b"3.0\n")] + m[1:]
elif kind == "bad-md5sums":
    m = [m[0], ("control.tar", control), m[2]]
elif kind == "no-data":
    m = m[:2]
open(out, "wb").write(ar(m))
