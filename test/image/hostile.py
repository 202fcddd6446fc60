#!/usr/bin/env python3
"""Damage a copy of an image made by mkimage.py: hostile.py IMAGE OUT KIND.
KIND: missing-blob (the second layer's blob gone), wrong-size (its
descriptor's size one more), tampered (a byte of it changed), dotdot (a
layer whose member is ../escape, the image's digests made right for it),
absolute (a member /etc/passwd), not-tar (a layer of gzip'd text), pax-huge
(a pax header of 2 MiB), longname-cut (a GNU
long name cut short by the layer's end), bad-json (index.json cut
short), escaped (the manifest's digest in index.json written with a
\\u escape, which JSON allows and an edit in place cannot follow),
wh-same-layer and opq-under-file (whiteouts that remove nothing)."""
import gzip
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile


def sha(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def path_of(img, digest):
    return os.path.join(img, "blobs", "sha256", digest[7:])


def load(img, digest):
    return open(path_of(img, digest), "rb").read()


def store(img, data):
    d = sha(data)
    open(path_of(img, d), "wb").write(data)
    return d


def manifest_of(out):
    index = json.load(open(os.path.join(out, "index.json")))
    return index, json.loads(load(out, index["manifests"][0]["digest"]))


def replace_layer(out, tar_bytes):
    """The second layer made tar_bytes (gzip'd), every digest made right."""
    index, m = manifest_of(out)
    blob = gzip.compress(tar_bytes, mtime=0)
    cfg = json.loads(load(out, m["config"]["digest"]))
    cfg["rootfs"]["diff_ids"][1] = sha(tar_bytes)
    c = json.dumps(cfg).encode()
    m["config"]["digest"], m["config"]["size"] = store(out, c), len(c)
    m["layers"][1]["digest"], m["layers"][1]["size"] = store(out, blob), len(blob)
    mb = json.dumps(m).encode()
    index["manifests"][0]["digest"] = store(out, mb)
    index["manifests"][0]["size"] = len(mb)
    json.dump(index, open(os.path.join(out, "index.json"), "w"))


def one_member(name, data=b"x\n", pax=None):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        ti.mtime = 1700000000
        if pax:
            ti.pax_headers = pax
        t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


def main():
    img, out, kind = sys.argv[1:4]
    shutil.copytree(img, out)
    index, m = manifest_of(out)
    layer = m["layers"][1]["digest"]
    if kind == "missing-blob":
        os.unlink(path_of(out, layer))
    elif kind == "wrong-size":
        m["layers"][1]["size"] += 1
        mb = json.dumps(m).encode()
        index["manifests"][0]["digest"] = store(out, mb)
        index["manifests"][0]["size"] = len(mb)
        json.dump(index, open(os.path.join(out, "index.json"), "w"))
    elif kind == "tampered":
        b = bytearray(load(out, layer))
        b[len(b) // 2] ^= 1
        open(path_of(out, layer), "wb").write(b)
    elif kind == "dotdot":
        replace_layer(out, one_member("usr/../../escape"))
    elif kind == "absolute":
        replace_layer(out, one_member("/etc/passwd"))
    elif kind == "not-tar":
        replace_layer(out, b"this is not a tar archive\n" * 40)
    elif kind == "pax-huge":
        replace_layer(out, one_member("big", pax={"comment": "x" * (2 << 20)}))
    elif kind == "longname-cut":
        # A GNU long name header whose name runs past the layer's end.
        ti = tarfile.TarInfo("././@LongLink")
        ti.type = tarfile.GNUTYPE_LONGNAME
        ti.size = 100000
        replace_layer(out, ti.tobuf(tarfile.GNU_FORMAT) + b"a" * 600)
    elif kind == "escaped":
        p = os.path.join(out, "index.json")
        d = index["manifests"][0]["digest"]
        t = open(p).read().replace(d, d[:7] + "\\u00%02x" % ord(d[7]) + d[8:])
        open(p, "w").write(t)
    elif kind == "unpadded":
        # Not hostile: the layer umoci insert writes, its last member's
        # padding and the end blocks missing; taken as it is.
        raw = gzip.decompress(load(out, layer))
        t = tarfile.open(fileobj=io.BytesIO(raw))
        last = t.getmembers()[-1]
        replace_layer(out, raw[:last.offset_data + last.size])
    elif kind == "layer-twice":
        # Not hostile: the GPU layer named twice in the manifest (and its
        # diff_id twice in the config); prune edits both places.
        m["layers"].append(dict(m["layers"][1]))
        cfg = json.loads(load(out, m["config"]["digest"]))
        cfg["rootfs"]["diff_ids"].append(cfg["rootfs"]["diff_ids"][1])
        c = json.dumps(cfg).encode()
        m["config"]["digest"], m["config"]["size"] = store(out, c), len(c)
        mb = json.dumps(m).encode()
        index["manifests"][0]["digest"] = store(out, mb)
        index["manifests"][0]["size"] = len(mb)
        json.dump(index, open(os.path.join(out, "index.json"), "w"))
    elif kind in ("wh-same-layer", "opq-under-file"):
        # Whiteouts that remove nothing (umoci keeps the file): one of a
        # file written in its own layer, before and after it; an opaque
        # marker under a name that is a file.
        names = [".wh.a", "a", ".wh.a"] if kind == "wh-same-layer" else ["x", "x/.wh..wh..opq"]
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
            for n in names:
                ti = tarfile.TarInfo(n)
                ti.size, ti.mtime = 2, 1700000000
                t.addfile(ti, io.BytesIO(b"x\n"))
        replace_layer(out, buf.getvalue())
    elif kind == "bad-json":
        p = os.path.join(out, "index.json")
        open(p, "w").write(open(p).read()[:-5])


main()
