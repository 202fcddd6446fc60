#!/usr/bin/env python3
"""shndx.py IN OUT SPEC...: IN (a 64-bit little-endian ELF object) with
SHT_SYMTAB_SHNDX tables added, one per SPEC "name:align:entsize:flags",
each linked to the symbol table and holding one zero word per symbol.
object.test bundles such objects (LLVM 22's llvm-objcopy keeps all but the
last, emptied) and compares with the goldens in test/golden/shndx, which
it made from these."""
import struct
import sys


def main():
    src, dst, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    d = bytearray(open(src, "rb").read())
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", d, 0x3c)
    secs = [list(struct.unpack_from("<IIQQQQIIQQ", d, shoff + 64 * i))
            for i in range(shnum)]
    symtab = next(i for i, s in enumerate(secs) if s[1] == 2)
    nsym = secs[symtab][5] // 24
    # Names go at the end of a new section-name table.
    names = bytearray(d[secs[shstrndx][4]:secs[shstrndx][4] +
                        secs[shstrndx][5]])
    out = d[:]
    for spec in specs:
        name, align, entsize, flags = spec.split(":")
        at = len(names)
        names += name.encode() + b"\0"
        while len(out) % 8:
            out += b"\0"
        secs.append([at, 18, int(flags), 0, len(out), 4 * nsym, symtab, 0,
                     int(align), int(entsize)])
        out += b"\0" * (4 * nsym)
    secs[shstrndx][4], secs[shstrndx][5] = len(out), len(names)
    out += names
    while len(out) % 8:
        out += b"\0"
    struct.pack_into("<Q", out, 0x28, len(out))
    struct.pack_into("<H", out, 0x3c, len(secs))
    for s in secs:
        out += struct.pack("<IIQQQQIIQQ", *s)
    open(dst, "wb").write(out)


if __name__ == "__main__":
    main()
