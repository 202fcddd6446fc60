#!/usr/bin/env python3
"""ccob_frames.py BUNDLE: write CCOBs of BUNDLE framed by hand, as writers
other than LLVM's may frame them (issue 16.3), into the current directory.
The zstd frames come from the zstd command; skippable frames and headers
are written here.  Each NAME-vN.ccob is one CCOB of version N:

  skipfirst  a skippable frame holding "CCOB", then the frame
  skipmid    half the bundle, a skippable frame with "CCOB", the other half
  skiplast   the frame, then a skippable frame with "CCOB"
  twoframes  the bundle in two frames
  stored     one frame of literals stored raw: the bundle's own bytes show,
             and a bundle holding "CCOB" shows it

and two-vN.ccob is twoframes then skipfirst, back to back (a multi-TU
.hip_fatbin); totalshort-v3.ccob a lone CCOB whose total size is 8 bytes
short (LLVM 22 never reads it)."""
import hashlib
import struct
import subprocess
import sys

raw = open(sys.argv[1], "rb").read()
digest = int.from_bytes(hashlib.md5(raw).digest()[:8], "little")


def zstd(data):
    return subprocess.run(["zstd", "-q", "-c", "-3", "--no-check"],
                          input=data, capture_output=True,
                          check=True).stdout


def stored(data):
    return subprocess.run(["zstd", "-q", "-c", "--no-compress-literals",
                           "-1", "--no-check"], input=data,
                          capture_output=True, check=True).stdout


def skippable(data, n=0):
    return struct.pack("<II", 0x184D2A50 + n, len(data)) + data


def ccob(version, payload, total=None):
    if version == 1:
        head = struct.pack("<4sHHIQ", b"CCOB", 1, 1, len(raw), digest)
    elif version == 2:
        size = 24 + len(payload) if total is None else total
        head = struct.pack("<4sHHIIQ", b"CCOB", 2, 1, size, len(raw), digest)
    else:
        size = 32 + len(payload) if total is None else total
        head = struct.pack("<4sHHQQQ", b"CCOB", 3, 1, size, len(raw), digest)
    return head + payload


half = len(raw) // 2
payloads = {
    "skipfirst": skippable(b"CCOB" * 3) + zstd(raw),
    "skipmid": zstd(raw[:half]) + skippable(b"\0CCOB\0", 5) + zstd(raw[half:]),
    "skiplast": zstd(raw) + skippable(b"CCOB", 15),
    "twoframes": zstd(raw[:half]) + zstd(raw[half:]),
    "stored": stored(raw),
}
for name, payload in payloads.items():
    for v in (1, 2, 3):
        with open(f"{name}-v{v}.ccob", "wb") as f:
            f.write(ccob(v, payload))
for v in (1, 2, 3):
    with open(f"two-v{v}.ccob", "wb") as f:
        f.write(ccob(v, payloads["twoframes"]) +
                ccob(v, payloads["skipfirst"]))
p = payloads["skipmid"]
with open("totalshort-v3.ccob", "wb") as f:
    f.write(ccob(3, p, total=32 + len(p) - 8))
