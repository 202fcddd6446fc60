#!/usr/bin/env python3
"""Write the damaged kpack archives of kpack.test into test/files/bad/
(kpack-*): each breaks one rule of the format (docs/multi_arch_packaging_
with_kpack.md of ROCm/rocm-kpack, "Kpack Archive Format"), built here with
a little MessagePack writer, or from the committed zstd.kpack (made by
make.sh) with one field changed.  Run from anywhere; no module needed.

With --big DIR, write instead into DIR the archives too large to commit
that kpack.test makes as it runs: past each bound of offload's reader
(formats/kpack.h: TOC bytes, entries, blobs, frames), a TOC of 10^7 nils
it skips in bounded memory, and a bomb of frames each its own."""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.normpath(os.path.join(HERE, "..", "bad"))


def mp(obj):
    """MessagePack of maps, arrays, strings and unsigned integers."""
    def head(fix, wide, n):
        return bytes([fix | n]) if n < 16 else bytes([wide]) + struct.pack(">H", n)
    if isinstance(obj, dict):
        out = head(0x80, 0xde, len(obj))
        for k, v in obj.items():
            out += mp(k) + mp(v)
        return out
    if isinstance(obj, list):
        return head(0x90, 0xdc, len(obj)) + b"".join(mp(v) for v in obj)
    if isinstance(obj, str):
        b = obj.encode()
        return (bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if obj < 128:
        return bytes([obj])
    return b"\xcf" + struct.pack(">Q", obj)


def kpack(toc, blob, version=1, toc_at=None):
    """Header, the blob at 64, the TOC after it (MessagePack already when
    bytes)."""
    at = 64 + len(blob) if toc_at is None else toc_at
    toc = toc if isinstance(toc, bytes) else mp(toc)
    return b"KPAK" + struct.pack("<IQ", version, at) + b"\0" * 48 + blob + toc


def write(name, data, where=BAD):
    with open(os.path.join(where, "kpack-" + name), "wb") as f:
        f.write(data)


def zeros_frame(n):
    """A zstd frame of n zeros (a multiple of 128 KiB) as RLE blocks, the
    content size in its header: 4 bytes a block, 32768 zeros a byte."""
    block = 128 << 10
    out = b"\x28\xb5\x2f\xfd\xa0" + struct.pack("<I", n)  # single segment
    for i in range(n // block):
        last = i == n // block - 1
        out += struct.pack("<I", (block << 3) | (1 << 1) | last)[:3] + b"\0"
    return out


def frames(fs):
    """The zstd blob: count, then each frame's size and bytes."""
    return struct.pack("<I", len(fs)) + b"".join(
        struct.pack("<I", len(f)) + f for f in fs)


def array32(n, item):
    return b"\xdd" + struct.pack(">I", n) + item * n


def map32(n, pair):
    return b"\xdf" + struct.pack(">I", n) + pair * n


def big(where):
    """The archives past the reader's bounds, made as the test runs."""
    none = lambda blobs, toc, extra=b"": (
        b"\x83" if not extra else b"\x84") + mp("compression_scheme") + \
        mp("none") + mp("blobs") + blobs + mp("toc") + toc + extra
    # 2^20 + 1 entries, each "": {} (read no further than counted).
    write("entries.kpack", kpack(none(b"\x90", b"\x81" + mp("k") +
                                     map32((1 << 20) + 1, b"\xa0\x80")), b""),
          where)
    # 2^20 + 1 blobs, each {}.
    write("blobs.kpack", kpack(none(array32((1 << 20) + 1, b"\x80"), b"\x80"),
                               b""), where)
    # 2^20 + 1 frames of no bytes.
    zs = frames([b""] * ((1 << 20) + 1))
    write("frames-many.kpack",
          kpack({"compression_scheme": "zstd-per-kernel", "zstd_offset": 64,
                 "zstd_size": len(zs), "toc": {}}, zs), where)
    # A TOC of 10^7 nils under a key no one reads: skipped, not decoded
    # (libmsgpack took 24 bytes each).
    write("junk.kpack", kpack(none(b"\x90", b"\x80", mp("junk") +
                                   array32(10 ** 7, b"\xc0")), b""), where)
    # Nine frames of their own, 128 MiB of zeros each in 4 KiB: each
    # within the ratio, 1.1 GiB in all from 37 KB.
    fs = [zeros_frame(128 << 20) for _ in range(9)]
    zs = frames(fs)
    write("work.kpack", kpack(
        {"compression_scheme": "zstd-per-kernel", "gfx_arches": ["gfx90a"],
         "zstd_offset": 64, "zstd_size": len(zs),
         "toc": {"k#%d" % i: {"gfx90a": {"type": "hsaco", "ordinal": i,
                                         "original_size": 128 << 20}}
                 for i in range(9)}}, zs), where)


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
    # Fifty keys on one frame, 64 MiB of zeros in 2 KB (issue 34.5): the
    # splitter gives each kernel its own ordinal.
    zero = zeros_frame(64 << 20)
    zb = frames([zero])
    write("shared-frame.kpack", kpack(
        dict(zs, zstd_size=len(zb),
             toc={"k#%d" % i: {"gfx90a": entry(0, 64 << 20)} for i in range(50)}),
        zb))
    # Two blobs over the same bytes; a blob in the header; one in the TOC.
    two = code + code[:32]
    write("overlap.kpack", kpack(
        dict(none, blobs=[{"offset": 64, "size": 64}, {"offset": 96, "size": 64}],
             toc={"a#0": {"gfx90a": entry(0, 64)}, "b#0": {"gfx90a": entry(1, 64)}}),
        two))
    write("blob-in-header.kpack", kpack(
        dict(none, blobs=[{"offset": 0, "size": 64}]), code))
    write("blob-in-toc.kpack", kpack(
        dict(none, blobs=[{"offset": 100, "size": 64}]), code))
    # Names holding a NUL byte (issue 34.9): two keys that read the same
    # cut at it; a target.
    write("nul-key.kpack", kpack(
        dict(none, blobs=[{"offset": 64, "size": 32}, {"offset": 96, "size": 32}],
             toc={"a\0x#0": {"gfx90a": entry(0, 32)},
                  "a\0y#0": {"gfx90a": entry(1, 32)}}), code))
    write("nul-target.kpack", kpack(
        dict(none, toc={"a#0": {"gfx90a\0:xnack+": entry(0, len(code))}}), code))
    # Past the bound on gfx_arches (4096), 4 KB.
    write("arches.kpack", kpack(
        dict(none, gfx_arches=[""] * 4097), code))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--big"]:
        big(sys.argv[2])
    else:
        main()
