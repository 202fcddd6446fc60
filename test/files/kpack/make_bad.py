#!/usr/bin/env python3
"""Write the damaged kpack archives of kpack.test into test/files/bad/
(kpack-*): each breaks one rule of the format (docs/multi_arch_packaging_
with_kpack.md of ROCm/rocm-kpack, "Kpack Archive Format"), built here with
a little MessagePack writer, or from the committed zstd.kpack (made by
make.sh) with one field changed.  Run from anywhere; no module needed."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.normpath(os.path.join(HERE, "..", "bad"))


def mp(obj):
    """MessagePack of maps, arrays, strings and unsigned integers."""
    if isinstance(obj, dict):
        out = bytes([0x80 | len(obj)])
        for k, v in obj.items():
            out += mp(k) + mp(v)
        return out
    if isinstance(obj, list):
        return bytes([0x90 | len(obj)]) + b"".join(mp(v) for v in obj)
    if isinstance(obj, str):
        b = obj.encode()
        return (bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if obj < 128:
        return bytes([obj])
    return b"\xcf" + struct.pack(">Q", obj)


def kpack(toc, blob, version=1, toc_at=None):
    """Header, the blob at 64, the TOC after it."""
    at = 64 + len(blob) if toc_at is None else toc_at
    return b"KPAK" + struct.pack("<IQ", version, at) + b"\0" * 48 + blob + mp(toc)


def write(name, data):
    with open(os.path.join(BAD, "kpack-" + name), "wb") as f:
        f.write(data)


def main():
    code = b"\x7fELF" + b"\0" * 60
    entry = lambda o, n: {"type": "hsaco", "ordinal": o, "original_size": n}
    none = {"compression_scheme": "none", "gfx_arches": ["gfx90a"],
            "blobs": [{"offset": 64, "size": len(code)}],
            "toc": {"a#0": {"gfx90a": entry(0, len(code))}}}
    # A zstd frame holding the code as one raw block.
    frame = (b"\x28\xb5\x2f\xfd\x20" + bytes([len(code)]) +
             struct.pack("<I", (len(code) << 3) | 1)[:3] + code)
    blob = struct.pack("<II", 1, len(frame)) + frame
    zs = {"compression_scheme": "zstd-per-kernel", "gfx_arches": ["gfx90a"],
          "zstd_offset": 64, "zstd_size": len(blob),
          "toc": {"a#0": {"gfx90a": entry(0, len(code))}}}
    write("version.kpack", kpack(none, code, version=2))
    write("toc-offset.kpack", kpack(none, code, toc_at=1 << 40))
    write("scheme.kpack", kpack(dict(none, compression_scheme="lz4"), code))
    write("blob-past-end.kpack",
          kpack(dict(none, blobs=[{"offset": 64, "size": 1 << 40}]), code))
    write("ordinal.kpack",
          kpack(dict(none, toc={"a#0": {"gfx90a": entry(5, len(code))}}), code))
    write("size.kpack",
          kpack(dict(none, toc={"a#0": {"gfx90a": entry(0, 65)}}), code))
    write("frames.kpack", kpack(zs, struct.pack("<I", 0xFFFFFFFF) + blob[4:]))
    write("frame-past-end.kpack",
          kpack(zs, blob[:4] + struct.pack("<I", 1000) + blob[8:]))
    write("bomb.kpack",
          kpack(dict(zs, toc={"a#0": {"gfx90a": entry(0, 1 << 40)}}), blob))
    write("short.kpack",
          kpack(dict(zs, toc={"a#0": {"gfx90a": entry(0, len(code) + 1)}}), blob))
    bad_frame = blob[:12] + b"\xff" + blob[13:]
    write("frame.kpack", kpack(zs, bad_frame))
    write("toc-type.kpack", kpack(dict(none, toc=[1, 2]), code))
    write("cut.kpack", kpack(none, code)[:-5])
    # Whole, but of another binary: an install's archive without the
    # code objects its host binaries' wrappers want.
    write("other-key.kpack", kpack(none, code))


if __name__ == "__main__":
    main()
