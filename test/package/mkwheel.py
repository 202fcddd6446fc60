#!/usr/bin/env python3
"""Make a small wheel for the package suite: mkwheel.py OUT.whl [KIND]
[NAME=FILE...].  The HIP program and library of test/files/inspect as
hipdemo/app and hipdemo/_k.so, with Python files and dist-info, each
member deflated (METADATA stored) with fixed times and modes, RECORD
last, as bdist_wheel writes it.  NAME=FILE adds FILE as NAME.  KIND
makes it damaged: bad-hash (app's RECORD hash wrong), dotdot (a member
../escape), disagree (a local header's CRC not the central one's),
overlap (a member's data runs into the next one's, as a zip bomb's
entries share theirs),
cut (the archive ends early), inflate (a member inflates past its
declared size), method (app's method says bzip2, which is not read).
KIND zip64 makes it sound but in ZIP64's records, as an archive past
4 GiB or 65535 members has them: each local header's sizes in its ZIP64
field (zipfile's force_zip64), each central record's sizes and offset in
its ZIP64 field, the ZIP64 end record and locator before the end record,
whose fields say to look there."""
import base64
import hashlib
import os
import struct
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "files", "inspect")
DATE = (2023, 11, 14, 22, 13, 20)


def b64(data):
    return base64.urlsafe_b64encode(
        hashlib.sha256(data).digest()).rstrip(b"=").decode()


out = sys.argv[1]
kind = sys.argv[2] if len(sys.argv) > 2 and "=" not in sys.argv[2] else ""
extra = [a for a in sys.argv[2:] if "=" in a]
files = [("hipdemo/__init__.py", b"from . import _k\n", 0o644),
         ("hipdemo/app", open(os.path.join(FIX, "app"), "rb").read(), 0o755),
         ("hipdemo/_k.so", open(os.path.join(FIX, "libz.so"), "rb").read(),
          0o755)]
for a in extra:
    name, path = a.split("=", 1)
    files.append((name, open(path, "rb").read(), 0o755))
files += [("hipdemo-1.0.dist-info/METADATA",
           b"Metadata-Version: 2.1\nName: hipdemo\nVersion: 1.0\n", 0o644),
          ("hipdemo-1.0.dist-info/WHEEL",
           b"Wheel-Version: 1.0\nGenerator: offload-test\n"
           b"Root-Is-Purelib: false\nTag: py3-none-linux_x86_64\n", 0o644)]
if kind == "dotdot":
    files.append(("../escape", b"x\n", 0o644))
record = ""
for name, data, _ in files:
    h = b64(data) if not (kind == "bad-hash" and name == "hipdemo/app") \
        else b64(b"not it")
    record += "%s,sha256=%s,%d\n" % (name, h, len(data))
record += "hipdemo-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(out, "w") as z:
    for name, data, mode in files + [("hipdemo-1.0.dist-info/RECORD",
                                      record.encode(), 0o644)]:
        zi = zipfile.ZipInfo(name, DATE)
        zi.compress_type = zipfile.ZIP_STORED if name.endswith("METADATA") \
            else zipfile.ZIP_DEFLATED
        zi.external_attr = (0o100000 | mode) << 16
        if kind == "zip64":
            with z.open(zi, "w", force_zip64=True) as f:
                f.write(data)
        else:
            z.writestr(zi, data)
raw = bytearray(open(out, "rb").read())


def zip64_directory(raw):
    """The central directory and end records made again in ZIP64's."""
    eocd = raw.rindex(b"PK\x05\x06")
    n, size, cd = struct.unpack_from("<HII", raw, eocd + 10)
    new, at = bytearray(), cd
    for _ in range(n):
        (sig, made, need, flags, method, time, date, crc, csize, usize, nlen,
         xlen, clen, disk, iattr, eattr, off) = struct.unpack_from(
             "<IHHHHHHIIIHHHHHII", raw, at)
        name = raw[at + 46:at + 46 + nlen]
        comment = raw[at + 46 + nlen + xlen:at + 46 + nlen + xlen + clen]
        x = struct.pack("<HHQQQ", 1, 24, usize, csize, off)
        new += struct.pack("<IHHHHHHIIIHHHHHII", sig, made, 45, flags,
                           method, time, date, crc, 0xffffffff, 0xffffffff,
                           nlen, len(x), clen, disk, iattr, eattr,
                           0xffffffff) + name + x + comment
        at += 46 + nlen + xlen + clen
    end64 = cd + len(new)
    new += struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, n, n,
                       len(new), cd)
    new += struct.pack("<IIQI", 0x07064b50, 0, end64, 1)
    new += struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xffff, 0xffff,
                       0xffffffff, 0xffffffff, 0)
    return raw[:cd] + new


if kind == "zip64":
    raw = zip64_directory(raw)
if kind == "disagree":
    raw[14] ^= 0xff                     # the first local header's CRC
elif kind == "cut":
    raw = raw[:len(raw) // 2]
elif kind == "overlap":
    # The first member's compressed size, in both headers, runs its data
    # into the second member's.
    eocd = raw.rindex(b"PK\x05\x06")
    cd = struct.unpack_from("<I", raw, eocd + 16)[0]
    for at in (18, cd + 20):
        struct.pack_into("<I", raw, at,
                         struct.unpack_from("<I", raw, at)[0] + 10)
elif kind == "method":
    for sig, off, nlen, hdr in ((b"PK\x03\x04", 8, 26, 30),
                                (b"PK\x01\x02", 10, 28, 46)):
        at = raw.find(sig)
        while at >= 0:
            ln = struct.unpack_from("<H", raw, at + nlen)[0]
            if raw[at + hdr:at + hdr + ln] == b"hipdemo/app":
                struct.pack_into("<H", raw, at + off, 12)
            at = raw.find(sig, at + 4)
elif kind == "inflate":
    # app's uncompressed size says 1000 bytes, in both headers.
    for sig, off, nlen, hdr in ((b"PK\x03\x04", 22, 26, 30),
                                (b"PK\x01\x02", 24, 28, 46)):
        at = raw.find(sig)
        while at >= 0:
            ln = struct.unpack_from("<H", raw, at + nlen)[0]
            if raw[at + hdr:at + hdr + ln] == b"hipdemo/app":
                struct.pack_into("<I", raw, at + off, 1000)
            at = raw.find(sig, at + 4)
open(out, "wb").write(bytes(raw))
