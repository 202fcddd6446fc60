#!/usr/bin/env python3
"""mkbig.py OUT ZEROS_MB LIB [NAME]: a large OCI image made cheaply, for
the memory bound of prune IMAGE (issue 40: peak RSS under 512 MB for an
image of 10 GB, whatever its largest file).

One zstd layer, streamed through `zstd -3` (never held): a file of
ZEROS_MB MiB of zeros (no device code, compresses to almost nothing,
first, so that the tar before the library is long), then LIB as NAME
(default usr/lib/libbig.so: a fat binary, e.g. test/biglib.py's sparse
library, whose holes read as zeros).  The layer's diff_id is hashed as the
tar streams out, its digest from the blob written."""
import hashlib
import json
import os
import subprocess
import sys
import tarfile

MTIME = 1700000000


class Zeros:
    """A file of n zero bytes, read in pieces."""

    def __init__(self, n):
        self.left = n

    def read(self, n=-1):
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        return bytes(n)


class Hashed:
    """A pipe written through, its bytes hashed."""

    def __init__(self, f):
        self.f = f
        self.h = hashlib.sha256()

    def write(self, b):
        self.h.update(b)
        self.f.write(b)
        return len(b)


def blob(out, path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for piece in iter(lambda: f.read(1 << 20), b""):
            h.update(piece)
    d = h.hexdigest()
    os.rename(path, os.path.join(out, "blobs", "sha256", d))
    return {"digest": "sha256:" + d, "size": os.path.getsize(
        os.path.join(out, "blobs", "sha256", d))}


def put(out, data):
    path = os.path.join(out, "blobs", "sha256", "new")
    with open(path, "wb") as f:
        f.write(data)
    return blob(out, path)


def main():
    out, zeros_mb, lib = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    name = sys.argv[4] if len(sys.argv) > 4 else "usr/lib/libbig.so"
    os.makedirs(os.path.join(out, "blobs", "sha256"))
    with open(os.path.join(out, "oci-layout"), "w") as f:
        f.write('{"imageLayoutVersion": "1.0.0"}')
    raw = os.path.join(out, "blobs", "sha256", "layer")
    with open(raw, "wb") as z:
        p = subprocess.Popen(["zstd", "-q", "-3", "-T1", "-c"],
                             stdin=subprocess.PIPE, stdout=z)
        tar_out = Hashed(p.stdin)
        with tarfile.open(fileobj=tar_out, mode="w|",
                          format=tarfile.PAX_FORMAT) as t:
            for path, size, src in (
                    ("opt/zeros.bin", zeros_mb << 20, None),
                    (name, os.path.getsize(lib), lib)):
                ti = tarfile.TarInfo(path)
                ti.size, ti.mtime, ti.mode = size, MTIME, 0o755
                if src:
                    with open(src, "rb") as f:
                        t.addfile(ti, f)
                else:
                    t.addfile(ti, Zeros(size))
        p.stdin.close()
        if p.wait():
            raise SystemExit("mkbig: zstd failed")
    diff_id = "sha256:" + tar_out.h.hexdigest()
    layer = blob(out, raw)
    config = {"architecture": "amd64", "os": "linux",
              "rootfs": {"type": "layers", "diff_ids": [diff_id]},
              "history": [{"created_by": "mkbig.py"}]}
    cfg = put(out, json.dumps(config).encode())
    manifest = {"schemaVersion": 2,
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": dict(mediaType="application/vnd.oci.image.config."
                               "v1+json", **cfg),
                "layers": [dict(mediaType="application/vnd.oci.image.layer."
                                "v1.tar+zstd", **layer)]}
    man = put(out, json.dumps(manifest).encode())
    index = {"schemaVersion": 2, "manifests": [dict(
        mediaType="application/vnd.oci.image.manifest.v1+json", **man)]}
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(index, f)


if __name__ == "__main__":
    main()
