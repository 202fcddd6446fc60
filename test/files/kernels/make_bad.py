#!/usr/bin/env python3
"""Write the damaged AMDGPU code objects of kernels.test into test/files/bad/
(kernels-*) and the fuzz corpus: small ELF code objects made here, with a
metadata note and a kernel descriptor, each with one thing wrong, and a
bundle holding a good one among them (the rest must still be listed).
Deterministic: run again, same bytes."""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.normpath(os.path.join(HERE, "..", "bad"))
MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def mp(v):
    """Just enough MessagePack for the metadata (maps, arrays, strings,
    unsigned integers, booleans)."""
    if isinstance(v, bool):
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if v < 128:
            return bytes([v])
        return b"\xce" + struct.pack(">I", v)
    if isinstance(v, str):
        b = v.encode()
        return (bytes([0xa0 | len(b)]) if len(b) < 32 else
                b"\xd9" + bytes([len(b)])) + b
    if isinstance(v, bytes):	# raw MessagePack, as is
        return v
    if isinstance(v, list):
        return bytes([0x90 | len(v)]) + b"".join(mp(x) for x in v)
    return bytes([0x80 | len(v)]) + b"".join(mp(k) + mp(x) for k, x in v.items())


def kernel(name="k", **over):
    k = {".name": name, ".symbol": name + ".kd", ".sgpr_count": 10,
         ".vgpr_count": 2, ".agpr_count": 0, ".sgpr_spill_count": 0,
         ".vgpr_spill_count": 0, ".group_segment_fixed_size": 1024,
         ".private_segment_fixed_size": 16, ".wavefront_size": 64,
         ".max_flat_workgroup_size": 256, ".kernarg_segment_size": 8,
         ".uses_dynamic_stack": False}
    k.update(over)
    return {k2: v for k2, v in k.items() if v is not None}


def metadata(kernels, target="amdgcn-amd-amdhsa--gfx90a"):
    return mp({"amdhsa.version": [1, 2], "amdhsa.target": target,
               "amdhsa.kernels": kernels})


def code_object(desc, kd_names=("k.kd",), kd_addr=None, rodata_size=None):
    """An ELF64 AMDGPU shared object: .note (the metadata), .rodata (one
    64-byte descriptor per name), .symtab, .strtab, .shstrtab."""
    note = struct.pack("<III", 7, len(desc), 32) + b"AMDGPU\0\0" + desc
    note += b"\0" * (-len(note) % 4)
    rodata = b""
    for i, _ in enumerate(kd_names):
        rodata += struct.pack("<III", 1024, 16, 8) + b"\0" * 32 + \
            struct.pack("<IIIH", 0, 0x00af0041, 0x84, 0) + b"\0" * 6
    if rodata_size is not None:
        rodata = rodata[:rodata_size]
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n in kd_names)
    shstr = b"\0.note\0.rodata\0.symtab\0.strtab\0.shstrtab\0"
    rodata_addr = 0x1000
    syms = b"\0" * 24
    off = 1
    for i, n in enumerate(kd_names):
        addr = rodata_addr + 64 * i if kd_addr is None else kd_addr
        syms += struct.pack("<IBBHQQ", off, 0x11, 0, 2, addr, 64)
        off += len(n) + 1
    parts = [note, rodata, syms, strtab, shstr]
    pos, offs = 64, []
    for p in parts:
        pos += -pos % 8
        offs.append(pos)
        pos += len(p)
    shoff = pos + (-pos % 8)
    out = bytearray(shoff + 64 * 6)
    out[0:16] = b"\x7fELF\x02\x01\x01\x40\x04" + b"\0" * 7
    struct.pack_into("<HHIQQQIHHHHHH", out, 16, 3, 224, 1, 0, 0, shoff,
                     0x4f, 64, 56, 0, 64, 6, 5)
    for p, o in zip(parts, offs):
        out[o:o + len(p)] = p
    sh = [  # name, type, flags, addr, link, info, align, entsize
        (1, 7, 2, 0, 0, 0, 4, 0),
        (7, 1, 2, rodata_addr, 0, 0, 64, 0),
        (15, 2, 0, 0, 4, 1, 8, 24),
        (23, 3, 0, 0, 0, 0, 1, 0),
        (31, 3, 0, 0, 0, 0, 1, 0),
    ]
    for i, ((name, typ, flags, addr, link, info, align, ent), p, o) in \
            enumerate(zip(sh, parts, offs)):
        struct.pack_into("<IIQQQQIIQQ", out, shoff + 64 * (i + 1), name, typ,
                         flags, addr, o, len(p), link, info, align, ent)
    return bytes(out)


def bundle(entries):
    head = len(MAGIC) + 8 + sum(24 + len(i) for i, _ in entries)
    out, body, pos = b"", b"", head
    for ident, data in entries:
        out += struct.pack("<QQQ", pos, len(data), len(ident)) + ident
        body += data
        pos += len(data)
    return MAGIC + struct.pack("<Q", len(entries)) + out + body


def cubin_bad_attr():
    """The sm_80 cubin of ../inspect/k.fatbin (at offset 80, 2984 bytes)
    whose kernel's first .nv.info attribute is of no known format."""
    with open(os.path.join(HERE, "..", "inspect", "k.fatbin"), "rb") as f:
        cubin = bytearray(f.read()[80:80 + 2984])
    at = cubin.index(b"\x04\x37\x04\x00\x82\x00\x00\x00\x01\x35")
    cubin[at] = 0x09
    return bytes(cubin)


def cases():
    good = metadata([kernel()])
    full = metadata([kernel("_Z3fooPi"), kernel("_Z3barv", **{
        ".group_segment_fixed_size": 65536, ".max_flat_workgroup_size": 1024})])
    return [
        ("good", code_object(full, kd_names=("_Z3fooPi.kd", "_Z3barv.kd"))),
        ("truncated", code_object(good[:len(good) // 2])),
        ("wrong-type", code_object(metadata([kernel(**{".vgpr_count": "many"})]))),
        ("kernels-not-array", code_object(mp({"amdhsa.kernels": 7}))),
        ("huge-count", code_object(mp({"amdhsa.kernels": b"\xdd\xff\xff\xff\xff"}))),
        ("huge-string", code_object(mp({"amdhsa.target": b"\xdb\x7f\xff\xff\xff"}))),
        ("deep", code_object(b"\x91" * 100 + b"\x00")),
        ("no-name", code_object(metadata([kernel(**{".name": None})]))),
        ("kd-past-end", code_object(good, rodata_size=40)),
        ("kd-nowhere", code_object(good, kd_addr=0x900000)),
        ("no-type", code_object(b"\xc1")),
        ("cubin-bad-attr", cubin_bad_attr()),
    ]


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else None
    all_cases = cases()
    for name, data in all_cases:
        with open(os.path.join(BAD, "kernels-%s.co" % name), "wb") as f:
            f.write(data)
        if corpus:
            with open(os.path.join(corpus, "made-%s" % name), "wb") as f:
                f.write(data)
    with open(os.path.join(BAD, "kernels-bundle.bin"), "wb") as f:
        f.write(bundle([(b"hipv4-amdgcn-amd-amdhsa--gfx90a-%s" % n.encode(), d)
                        for n, d in all_cases]))


if __name__ == "__main__":
    main()
