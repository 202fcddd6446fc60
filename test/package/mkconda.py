#!/usr/bin/env python3
"""Make the tree of a small conda package for the package suite, to be
bundled by cph create: mkconda.py DIR [bad-hash].  The HIP program and
library of test/files/inspect as bin/app and lib/libk.so, a text file,
and info/index.json and info/paths.json (each file's sha256 and
size_in_bytes) as conda-build writes them (json.dump, indent 2, keys
sorted).  bad-hash: app's sha256 in paths.json is not its own."""
import hashlib
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "files", "inspect")
root = sys.argv[1]
bad = len(sys.argv) > 2 and sys.argv[2] == "bad-hash"
for d in ("bin", "lib", "share/doc", "info"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
shutil.copy(os.path.join(FIX, "app"), os.path.join(root, "bin/app"))
shutil.copy(os.path.join(FIX, "libz.so"), os.path.join(root, "lib/libk.so"))
open(os.path.join(root, "share/doc/README"), "w").write("hip demo\n")
paths = []
for rel in ("bin/app", "lib/libk.so", "share/doc/README"):
    data = open(os.path.join(root, rel), "rb").read()
    sha = hashlib.sha256(b"not it" if bad and rel == "bin/app"
                         else data).hexdigest()
    paths.append({"_path": rel, "path_type": "hardlink", "sha256": sha,
                  "size_in_bytes": len(data)})
json.dump({"paths": paths, "paths_version": 1},
          open(os.path.join(root, "info/paths.json"), "w"), indent=2,
          sort_keys=True)
json.dump({"arch": "x86_64", "build": "0", "build_number": 0,
           "depends": [], "name": "hipdemo", "platform": "linux",
           "subdir": "linux-64", "version": "1.0"},
          open(os.path.join(root, "info/index.json"), "w"), indent=2,
          sort_keys=True)
for dirpath, dirs, files in os.walk(root):
    for n in dirs + files:
        os.utime(os.path.join(dirpath, n), (1700000000, 1700000000))
