#!/usr/bin/env python3
"""A Debian package's data.tar.xz in small blocks, and which blocks of a
pruned one are the original's (ops/xz_splice.c), read with xz's own list.

  xzblocks.py rexz IN.deb OUT.deb SIZE [CHECK]
      OUT.deb is IN.deb with its data.tar.xz compressed again by
      xz -T2 --block-size=SIZE (-C CHECK; crc64 by default): dpkg-deb's
      blocks are 24 MiB, too big for a test.
  xzblocks.py blocks ORIG.deb NEW.deb
      One line per run of NEW's blocks: "copied A-B from C-D" (the same
      bytes, header to check, as ORIG's blocks C-D) or "new A-B"; then
      NEW's check as xz names it."""
import subprocess
import sys
import tempfile


def ar_members(raw):
    assert raw[:8] == b"!<arch>\n"
    at, out = 8, []
    while at < len(raw):
        h = raw[at:at + 60]
        size = int(h[48:58])
        out.append((h, raw[at + 60:at + 60 + size]))
        at += 60 + size + (size & 1)
    return out


def name(h):
    return h[:16].decode().rstrip(" /")


def data_xz(deb):
    for h, data in ar_members(open(deb, "rb").read()):
        if name(h) == "data.tar.xz":
            return data
    sys.exit("%s: no data.tar.xz" % deb)


def rexz(src, dst, size, check="crc64"):
    out = b"!<arch>\n"
    for h, data in ar_members(open(src, "rb").read()):
        if name(h) == "data.tar.xz":
            tar = subprocess.run(["xz", "-d"], input=data, check=True,
                                 capture_output=True).stdout
            data = subprocess.run(["xz", "-T2", "-6", "-C", check,
                                   "--block-size=" + size], input=tar,
                                  check=True, capture_output=True).stdout
            h = h[:48] + b"%-10d" % len(data) + h[58:]
        out += h + data + (b"\n" if len(data) & 1 else b"")
    open(dst, "wb").write(out)


def blocks(xz):
    """(bytes, check) of each block, from xz --robot --list -vv."""
    with tempfile.NamedTemporaryFile(suffix=".xz") as t:
        t.write(xz)
        t.flush()
        r = subprocess.run(["xz", "--robot", "--list", "-vv", t.name],
                           check=True, capture_output=True)
    out, check = [], None
    for line in r.stdout.decode().splitlines():
        f = line.split("\t")
        if f[0] == "block":
            at, size = int(f[4]), int(f[6])
            out.append(xz[at:at + size])
        elif f[0] == "stream":
            check = f[8]
    return out, check


def runs(orig, new):
    where = {b: i for i, b in enumerate(orig)}
    lines, i = [], 0
    while i < len(new):
        j = i
        if new[i] in where:
            k = where[new[i]]
            while j + 1 < len(new) and where.get(new[j + 1]) == k + j + 1 - i:
                j += 1
            lines.append("copied %d-%d from %d-%d" % (i + 1, j + 1, k + 1,
                                                      k + j - i + 1))
        else:
            while j + 1 < len(new) and new[j + 1] not in where:
                j += 1
            lines.append("new %d-%d" % (i + 1, j + 1))
        i = j + 1
    return lines


if sys.argv[1] == "rexz":
    rexz(*sys.argv[2:])
else:
    o, _ = blocks(data_xz(sys.argv[2]))
    n, check = blocks(data_xz(sys.argv[3]))
    print("\n".join(runs(o, n) + [check]))
