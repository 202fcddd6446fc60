#!/usr/bin/env python3
"""Make a small OCI image layout for the image suite: mkimage.py OUT
[--codec gzip|zstd|none] [--docker] [--index2].

Two layers: the first a base (directories, a text file, a symbolic link,
a FIFO, a character device), the second the HIP program and library of
test/files/inspect with what prune must keep in a layer: a hard link to
the program, a file with an extended attribute (a pax record), a GNU
long name, a whiteout and an opaque whiteout, odd modes, owners and
times.  Everything is fixed (times, owners, gzip headers), so the image,
and what offload prune makes of it, is the same byte for byte each time.
--index2 adds a second platform (linux/arm64) that shares the layers;
--add NAME=FILE adds FILE to the second layer as NAME (repeatable);
--add0 NAME=FILE to the first.
--docker writes `docker save`'s legacy archive (manifest.json) to OUT.
--root makes three layers instead, whose unpacked root is not the sum of
them (for du IMAGE): a library written again above, one whited out, an
opaque directory over device code, and a program hard-linked in its own
layer and from the next, then written again above both links."""
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "files", "inspect")
MTIME = 1700000000


def member(tar, name, data=b"", kind=tarfile.REGTYPE, mode=0o644, **kw):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.mode = mode
    ti.mtime = kw.pop("mtime", MTIME)
    ti.uid = kw.pop("uid", 0)
    ti.gid = kw.pop("gid", 0)
    ti.uname = ti.gname = "root" if ti.uid == 0 else "user"
    for k, v in kw.items():
        setattr(ti, k, v)
    if kind == tarfile.REGTYPE:
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
    else:
        tar.addfile(ti)


def layer_base(extra=()):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
        for d in ("etc", "usr", "usr/lib", "usr/bin", "dev", "opt"):
            member(t, d, kind=tarfile.DIRTYPE, mode=0o755)
        member(t, "etc/hostname", b"offload-test\n")
        member(t, "usr/lib/libold.so", b"old library, whited out above\n")
        member(t, "opt/cache", kind=tarfile.DIRTYPE, mode=0o755)
        member(t, "opt/cache/stale", b"stale\n")
        member(t, "usr/bin/sh", kind=tarfile.SYMTYPE, linkname="busybox",
               mode=0o777)
        member(t, "dev/fifo", kind=tarfile.FIFOTYPE, mode=0o600)
        member(t, "dev/null", kind=tarfile.CHRTYPE, mode=0o666,
               devmajor=1, devminor=3)
        for name, path in extra:
            member(t, name, open(path, "rb").read(), mode=0o755)
    return buf.getvalue()


def layer_gpu(extra):
    app = open(os.path.join(FIX, "app"), "rb").read()
    # (app's pax records carry its size, which prune must set anew.)
    lib = open(os.path.join(FIX, "libz.so"), "rb").read()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        member(t, "usr/bin/app", app, mode=0o4755, uid=1000, gid=100,
               mtime=MTIME + 1, pax_headers={"size": str(len(app))})
        member(t, "usr/bin/app-again", kind=tarfile.LNKTYPE,
               linkname="usr/bin/app", mode=0o4755, uid=1000, gid=100)
        member(t, "usr/lib/libz.so.1", lib, mode=0o755,
               pax_headers={"SCHILY.xattr.user.origin": "offload-test",
                            "comment": "a pax record kept as it is"})
        member(t, "usr/lib/libz.so", kind=tarfile.SYMTYPE,
               linkname="libz.so.1", mode=0o777)
        member(t, "usr/lib/.wh.libold.so")
        member(t, "opt/cache/.wh..wh..opq")
        member(t, "usr/share/doc/" + "long-name-" * 12 + "/README",
               b"a name longer than 100 bytes\n")
        for name, path in extra:
            member(t, name, open(path, "rb").read(), mode=0o755)
    return buf.getvalue()


def layers_root():
    app = open(os.path.join(FIX, "app"), "rb").read()
    lib = open(os.path.join(FIX, "libz.so"), "rb").read()
    bufs = [io.BytesIO() for _ in range(3)]
    with tarfile.open(fileobj=bufs[0], mode="w", format=tarfile.PAX_FORMAT) as t:
        for d in ("etc", "usr", "usr/lib", "usr/bin", "opt", "opt/gpu",
                  "opt/gpu/sub"):
            member(t, d, kind=tarfile.DIRTYPE, mode=0o755)
        member(t, "etc/hostname", b"offload-test\n")
        member(t, "usr/lib/libgpu.so.1", lib)
        member(t, "usr/lib/libgone.so", app)
        member(t, "opt/gpu/kernels.so", lib)
        member(t, "opt/gpu/sub/deep.so", app)
        member(t, "usr/bin/tool", app, mode=0o755)
        member(t, "usr/bin/tool-again", kind=tarfile.LNKTYPE,
               linkname="usr/bin/tool", mode=0o755)
    with tarfile.open(fileobj=bufs[1], mode="w", format=tarfile.PAX_FORMAT) as t:
        member(t, "usr/lib/.wh.libgone.so")
        member(t, "opt/gpu/.wh..wh..opq")
        member(t, "opt/gpu/new.txt", b"new\n")
        member(t, "usr/lib/libgpu.so.1", app)
        member(t, "usr/lib/libtool.so", kind=tarfile.LNKTYPE,
               linkname="usr/bin/tool", mode=0o755)
    with tarfile.open(fileobj=bufs[2], mode="w", format=tarfile.PAX_FORMAT) as t:
        member(t, "usr/bin/tool", b"written again\n", mode=0o755)
        member(t, "etc/.wh.hostname")
    return [b.getvalue() for b in bufs]


def compress(data, codec):
    if codec == "gzip":
        out = io.BytesIO()
        with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as g:
            g.write(data)
        return out.getvalue()
    if codec == "zstd":
        return subprocess.run(["zstd", "-q", "-c", "-3"], input=data,
                              check=True, capture_output=True).stdout
    return data


def sha(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def blob(out, data):
    d = sha(data)
    path = os.path.join(out, "blobs", "sha256", d[7:])
    with open(path, "wb") as f:
        f.write(data)
    return {"digest": d, "size": len(data)}


def main():
    args = sys.argv[1:]
    out = args[0]
    codec = args[args.index("--codec") + 1] if "--codec" in args else "gzip"
    extra = [a.split("=", 1) for a, flag in zip(args[1:], args) if flag == "--add"]
    extra0 = [a.split("=", 1) for a, flag in zip(args[1:], args)
              if flag == "--add0"]
    layers = layers_root() if "--root" in args else [layer_base(extra0),
                                                     layer_gpu(extra)]
    config = {"architecture": "amd64", "os": "linux",
              "config": {"Env": ["PATH=/usr/bin"], "Labels": {"test": "offload"}},
              "rootfs": {"type": "layers",
                         "diff_ids": [sha(l) for l in layers]},
              "history": [{"created_by": "layer %d" % i} for i in range(3)]
              if "--root" in args else
              [{"created_by": "base"}, {"created_by": "gpu"}]}
    cfg = json.dumps(config, indent=2).encode() + b"\n"
    if "--docker" in args:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
            names = []
            for i, l in enumerate(layers):
                names.append("%d/layer.tar" % i)
                member(t, names[-1], l)
            member(t, "config.json", cfg)
            member(t, "manifest.json", json.dumps(
                [{"Config": "config.json", "RepoTags": ["test:1"],
                  "Layers": names}]).encode())
        open(out, "wb").write(buf.getvalue())
        return
    os.makedirs(os.path.join(out, "blobs", "sha256"))
    with open(os.path.join(out, "oci-layout"), "w") as f:
        f.write('{"imageLayoutVersion": "1.0.0"}')
    mt = "application/vnd.oci.image.layer.v1.tar" + \
        {"gzip": "+gzip", "zstd": "+zstd", "none": ""}[codec]
    descs = []
    for l in layers:
        d = blob(out, compress(l, codec))
        descs.append(dict(mediaType=mt, **d))
    manifests = []
    for arch in ["amd64", "arm64"] if "--index2" in args else ["amd64"]:
        c = cfg if arch == "amd64" else cfg.replace(b'"amd64"', b'"arm64"')
        manifest = {"schemaVersion": 2,
                    "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "config": dict(mediaType="application/vnd.oci.image.config.v1+json",
                                   **blob(out, c)),
                    "layers": descs,
                    "annotations": {"org.opencontainers.image.title": "offload test"}}
        m = json.dumps(manifest, indent=3).encode()
        manifests.append(dict(mediaType="application/vnd.oci.image.manifest.v1+json",
                              platform={"architecture": arch, "os": "linux"},
                              annotations={"org.opencontainers.image.ref.name": "test"},
                              **blob(out, m)))
    index = {"schemaVersion": 2, "manifests": manifests}
    with open(os.path.join(out, "index.json"), "w") as f:
        f.write(json.dumps(index))


main()
