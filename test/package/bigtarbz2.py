#!/usr/bin/env python3
"""bigtarbz2.py OUT MB [PAD [FILL]]: a conda .tar.bz2 of info/index.json,
info/paths.json (each file's sha256 and size; with PAD, a string of PAD
MiB beside them), a file of MB MiB of zeros (a few KB of bzip2; with
FILL, of that byte instead: "x", text no host format claims, is passed
by unheld) and the HIP program of test/files/inspect as bin/app, for
the package suite's memory and disk bounds."""
import bz2
import hashlib
import io
import json
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
out, mb = sys.argv[1], int(sys.argv[2])
pad = int(sys.argv[3]) if len(sys.argv) > 3 else 0
fill = sys.argv[4].encode() if len(sys.argv) > 4 else b"\0"
app = open(os.path.join(HERE, "..", "files", "inspect", "app"), "rb").read()
mib = fill * (1 << 20)
zeros = hashlib.sha256()
for _ in range(mb):
    zeros.update(mib)
paths = [{"_path": "bin/app", "path_type": "hardlink",
          "sha256": hashlib.sha256(app).hexdigest(), "size_in_bytes": len(app)},
         {"_path": "share/zeros", "path_type": "hardlink",
          "sha256": zeros.hexdigest(), "size_in_bytes": mb << 20}]


class Zeros(io.RawIOBase):
    def __init__(self, n):
        self.n = n

    def readable(self):
        return True

    def readinto(self, b):
        k = min(len(b), self.n)
        b[:k] = fill * k
        self.n -= k
        return k


with bz2.open(out, "wb") as f, tarfile.open(fileobj=f, mode="w|",
                                              format=tarfile.PAX_FORMAT) as t:
    def add(name, size, data):
        ti = tarfile.TarInfo(name)
        ti.size, ti.mtime = size, 1700000000
        t.addfile(ti, data)
    for name, text in (("info/index.json", {"name": "big", "version": "1.0", "build": "0"}),
                       ("info/paths.json", dict({"paths": paths, "paths_version": 1},
                                                 **({"pad": "a" * (pad << 20)} if pad else {})))):
        b = json.dumps(text).encode()
        add(name, len(b), io.BytesIO(b))
    add("share/zeros", mb << 20, io.BufferedReader(Zeros(mb << 20)))
    add("bin/app", len(app), io.BytesIO(app))
