#!/usr/bin/env python3
"""Compare two layer blobs member by member: tarcmp.py OLD NEW (gzip,
zstd or plain tar).  Members must come in the same order with the same
names, types, modes, owners, times, link targets, device numbers and pax
records; a member whose header and data bytes are not the old ones byte
for byte is printed as "NAME: SIZE -> SIZE" (what prune may change), any
other difference as "NAME: FIELD differs"."""
import gzip
import io
import subprocess
import sys
import tarfile

FIELDS = ("type", "mode", "uid", "gid", "uname", "gname", "mtime",
          "linkname", "devmajor", "devminor")


def tar_bytes(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:4] == b"\x28\xb5\x2f\xfd":
        return subprocess.run(["zstd", "-q", "-d", "-c"], input=data,
                              check=True, capture_output=True).stdout
    return data


def members(raw):
    t = tarfile.open(fileobj=io.BytesIO(raw), mode="r:")
    out = []
    for ti in t.getmembers():
        end = ti.offset_data + (ti.size + 511) // 512 * 512
        out.append((ti, raw[ti.offset:end]))
    return out


def main():
    old, new = (members(tar_bytes(p)) for p in sys.argv[1:3])
    if [m[0].name for m in old] != [m[0].name for m in new]:
        print("members differ")
        return
    for (a, ra), (b, rb) in zip(old, new):
        for f in FIELDS:
            if getattr(a, f) != getattr(b, f):
                print("%s: %s differs" % (a.name, f))
        pa = {k: v for k, v in a.pax_headers.items() if k != "size"}
        pb = {k: v for k, v in b.pax_headers.items() if k != "size"}
        if pa != pb:
            print("%s: pax records differ" % a.name)
        if ra != rb:
            print("%s: %d -> %d" % (a.name, a.size, b.size))


main()
