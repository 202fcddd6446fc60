#!/usr/bin/env python3
"""digest.py LAYOUT N [M]: the digest (hex) of layer N of manifest M (0)
of an OCI layout's index.json; N = c: of its config."""
import json
import sys

d, n = sys.argv[1], sys.argv[2]
m = int(sys.argv[3]) if len(sys.argv) > 3 else 0
man = json.load(open(d + "/index.json"))["manifests"][m]["digest"][7:]
j = json.load(open(d + "/blobs/sha256/" + man))
print((j["config"] if n == "c" else j["layers"][int(n)])["digest"][7:])
