#!/usr/bin/env python3
"""rootrand.py OUT SEED: an OCI layout of three layers of random members
over a few names (files, directories, hard links, symbolic links,
whiteouts, opaque directories), for comparing du IMAGE's root with the
root umoci unpacks.  Whiteouts come before the other members of their
directory in a layer, as the image spec asks of the tools that make
layers; a hard link names a file that is there when it comes."""
import gzip
import hashlib
import io
import json
import os
import random
import sys
import tarfile

NAMES = ["a", "b", "c"]


def sha(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def add(t, name, kind, data=b"", link=""):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    ti.mtime = 1700000000
    ti.linkname = link
    ti.size = len(data) if kind == tarfile.REGTYPE else 0
    t.addfile(ti, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def layer(r, state):
    """A layer's bytes; state (path -> 'f' or 'd', as unpacked so far) is
    brought up to date, as far as this model needs (the members' order
    keeps it simple: whiteouts, then directories, then the rest)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        dirs = [p for p, k in state.items() if k == "d"]
        written = set()
        # Whiteouts and opaque directories first.
        for _ in range(r.randint(0, 3)):
            if dirs and r.random() < 0.3:
                d = r.choice(dirs)
                add(t, d + "/.wh..wh..opq", tarfile.REGTYPE)
                written.add(d)
                for p in list(state):
                    if p.startswith(d + "/"):
                        del state[p]
            elif state:
                p = r.choice(sorted(state))
                parent, _, base = p.rpartition("/")
                add(t, (parent + "/" if parent else "") + ".wh." + base,
                    tarfile.REGTYPE)
                for q in list(state):
                    if q == p or q.startswith(p + "/"):
                        del state[q]
        for _ in range(r.randint(1, 8)):
            depth = r.randint(1, 3)
            path = "/".join(r.choice(NAMES) for _ in range(depth))
            parts = path.split("/")
            # Parents must be directories: make them so.
            ok = True
            for i in range(1, len(parts)):
                q = "/".join(parts[:i])
                if state.get(q, "d") != "d" or q in written and \
                        state.get(q) != "d":
                    ok = False
            if not ok or path in written:
                continue
            for i in range(1, len(parts)):
                q = "/".join(parts[:i])
                if q not in state:
                    add(t, q, tarfile.DIRTYPE)
                    state[q] = "d"
                    written.add(q)
            kind = r.random()
            old = state.get(path)
            if old == "d" and kind >= 0.25:
                continue    # not a file over a directory
            if kind < 0.25:
                if old not in (None, "d"):
                    continue
                add(t, path, tarfile.DIRTYPE)
                state[path] = "d"
            elif kind < 0.75:
                add(t, path, tarfile.REGTYPE,
                    r.randbytes(r.randint(0, 3000)))
                state[path] = "f"
            elif kind < 0.9:
                files = [p for p, k in state.items() if k == "f" and p != path]
                if not files:
                    continue
                add(t, path, tarfile.LNKTYPE, link=r.choice(files))
                state[path] = "f"
            else:
                add(t, path, tarfile.SYMTYPE, link="nowhere")
                state[path] = "l"
            written.add(path)
    return buf.getvalue()


def main():
    out, seed = sys.argv[1], int(sys.argv[2])
    r = random.Random(seed)
    state = {}
    layers = [layer(r, state) for _ in range(3)]
    os.makedirs(os.path.join(out, "blobs", "sha256"))

    def blob(data):
        d = sha(data)
        with open(os.path.join(out, "blobs", "sha256", d[7:]), "wb") as f:
            f.write(data)
        return {"digest": d, "size": len(data)}

    cfg = json.dumps({"architecture": "amd64", "os": "linux",
                      "rootfs": {"type": "layers",
                                 "diff_ids": [sha(l) for l in layers]}}).encode()
    descs = []
    for l in layers:
        g = io.BytesIO()
        with gzip.GzipFile(fileobj=g, mode="wb", mtime=0) as z:
            z.write(l)
        descs.append(dict(mediaType="application/vnd.oci.image.layer.v1.tar+gzip",
                          **blob(g.getvalue())))
    m = json.dumps({"schemaVersion": 2,
                    "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "config": dict(mediaType="application/vnd.oci.image.config.v1+json",
                                   **blob(cfg)),
                    "layers": descs}).encode()
    with open(os.path.join(out, "oci-layout"), "w") as f:
        f.write('{"imageLayoutVersion": "1.0.0"}')
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [dict(
            mediaType="application/vnd.oci.image.manifest.v1+json",
            annotations={"org.opencontainers.image.ref.name": "t"},
            **blob(m))]}, f)


main()
